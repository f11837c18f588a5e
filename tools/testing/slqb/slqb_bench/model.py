# SPDX-License-Identifier: GPL-2.0
"""The cache and TLB model of `slqb bench`: the model rows.

The x86_64 icount boots load tools/testing/slqb/plugin/slqb-cache.c, a
QEMU TCG plugin, and the bench module with model=1, which marks its timed
regions for the plugin. The plugin runs every data access of the guest
through a model of a cache hierarchy and a data TLB (see its top
comment) and, once per case and size, writes the misses of each timed
region to its log (QEMU's -d plugin -D FILE):

    SLQB-MODEL report=3 meter=0 insns=... accesses=... l1_miss=...
               l2_miss=... tlb_miss=...

The module's console says which case and size each report was:

    SLQB-BENCH model report=3 case=batch obj=kmalloc size=64 ops=2048
               rounds=5 meters=batch-alloc,batch-free

Under -icount the guest makes the same accesses in the same order every
run, so the counts are exact, as the icount rows are, and unlike those
they see what an allocator's memory access pattern costs.
"""

import bisect
import os
import re
from typing import Dict, Iterator, List, Sequence, Set, Tuple

from slqb_guest import BENCH_PAIR_RE
from slqb_util import HARNESS_DIR, SlqbError, run

from .report import Metric, Sample, bench_records, object_name

PLUGIN_SOURCE = os.path.join(HARNESS_DIR, 'plugin', 'slqb-cache.c')
PLUGIN_HEADER = os.path.join(HARNESS_DIR, 'plugin', 'slqb-qemu-plugin.h')
PLUGIN_CFLAGS = ('-shared', '-fPIC', '-O2', '-Wall', '-Wextra', '-Werror',
		 '-Wno-unused-parameter', '-fvisibility=hidden')
MODEL_RE = re.compile(r'^SLQB-MODEL (.*)$')
# (field of a plugin line, what, in the row's label)
MODEL_FIELDS = (('l1_miss', 'l1'), ('l2_miss', 'l2'), ('tlb_miss', 'tlb'))
MODEL_UNIT = 'miss/op'


def build_plugin(out_dir: str) -> str:
	"""plugin/slqb-cache.c compiled into out_dir/slqb-cache.so, unless
	that is newer than the source; returns its path."""
	out = os.path.join(out_dir, 'slqb-cache.so')
	newest = max(os.path.getmtime(p) for p in (PLUGIN_SOURCE, PLUGIN_HEADER))
	if os.path.exists(out) and os.path.getmtime(out) >= newest:
		return out
	os.makedirs(out_dir, exist_ok=True)
	proc = run(['gcc', *PLUGIN_CFLAGS, '-o', out, PLUGIN_SOURCE],
		   timeout=300, check=False)
	if proc.returncode != 0:
		raise SlqbError('plugin/slqb-cache.c does not compile:\n' +
				proc.stdout.strip())
	return out


def qemu_args(plugin: str, log: str, pcs: bool = False) -> Tuple[str, ...]:
	"""QEMU's arguments that load the plugin and send its lines to log;
	pcs: with the attribution to guest instructions."""
	arg = f'file={plugin}' + (',pcs=on' if pcs else '')
	return ('-plugin', arg, '-d', 'plugin', '-D', log)


def plugin_reports(lines: Sequence[str]) -> Dict[Tuple[int, int], Dict[str, int]]:
	"""(report, meter) -> the counts of the plugin's lines; malformed ones
	are left out."""
	out = {}
	for line in lines:
		m = MODEL_RE.match(line.strip())
		if not m:
			continue
		fields = dict(BENCH_PAIR_RE.findall(m.group(1)))
		try:
			key = (int(fields['report']), int(fields['meter']))
			out[key] = {k: int(fields[k]) for k, _ in MODEL_FIELDS}
		except (KeyError, ValueError):
			continue
	return out


def report_meters(console: Sequence[str]) -> Iterator[Tuple[int, int, str, str, int]]:
	"""(report, meter index, meter, object, operations over all rounds)
	of each meter of each report that the module's console announces;
	malformed announcements are left out."""
	for kind, f in bench_records(console):
		if kind != 'model':
			continue
		try:
			report, ops = int(f['report']), int(f['ops']) * int(f['rounds'])
			meters = f['meters'].split(',')
		except (KeyError, ValueError):
			continue
		if ops <= 0:
			continue
		for index, meter in enumerate(meters):
			yield report, index, meter, object_name(f), ops


def model_samples(console: Sequence[str], plugin: Sequence[str], kernel: str,
		  run_no: int) -> List[Sample]:
	"""The model rows of one boot: per case, object and meter, the misses
	of each level per operation over all rounds, metric ('model',
	'<meter> <level>', object, 'miss/op'). A report that the plugin did
	not write (a boot cut short) gives no row."""
	reports = plugin_reports(plugin)
	out = []
	for report, index, meter, obj, ops in report_meters(console):
		counts = reports.get((report, index))
		if not counts:
			continue
		for field, what in MODEL_FIELDS:
			out.append(Sample(kernel, run_no, Metric(
				'model', f'{meter} {what}', obj, MODEL_UNIT),
				counts[field] / ops))
	return out


# ---------------------------------------------------------------- attribution

MODEL_PC_RE = re.compile(r'^SLQB-MODEL-PC (.*)$')
PC_FIELDS = ('insns', 'l1_miss', 'l2_miss', 'tlb_miss')
MODULE_FUNCTION = '[bench module]'


def plugin_pcs(lines: Sequence[str]) -> Dict[Tuple[int, int], Dict[int, List[int]]]:
	"""(report, meter) -> guest instruction address -> its counts, in
	PC_FIELDS order, from the plugin's pcs=on lines."""
	out: Dict[Tuple[int, int], Dict[int, List[int]]] = {}
	for line in lines:
		m = MODEL_PC_RE.match(line.strip())
		if not m:
			continue
		fields = dict(BENCH_PAIR_RE.findall(m.group(1)))
		try:
			key = (int(fields['report']), int(fields['meter']))
			pc = int(fields['pc'], 16)
			out.setdefault(key, {})[pc] = [int(fields[k]) for k in PC_FIELDS]
		except (KeyError, ValueError):
			continue
	return out


class Symbols:
	"""The kernel's functions by address, from its System.map: the text
	symbols, each running up to the next one."""

	def __init__(self, text: str):
		starts = []
		for line in text.splitlines():
			parts = line.split()
			if len(parts) == 3 and parts[1] in 'tTwW':
				try:
					starts.append((int(parts[0], 16), parts[2]))
				except ValueError:
					continue
		starts.sort()
		self.addrs = [a for a, _ in starts]
		self.names = [n for _, n in starts]
		ends = [a for a, n in starts if n in ('_etext', 'etext')]
		self.end = ends[0] if ends else (self.addrs[-1] if self.addrs else 0)

	def function(self, pc: int) -> str:
		"""The function that pc is in; code past the kernel's text is
		the bench module's (the only module a bench boot loads)."""
		if not self.addrs or pc >= self.end or pc < self.addrs[0]:
			return MODULE_FUNCTION
		return self.names[bisect.bisect_right(self.addrs, pc) - 1]


def attribution(console: Sequence[str], plugin: Sequence[str],
		symbols: Symbols) -> Dict[Tuple[str, str], Dict[str, List[float]]]:
	"""(meter, object) -> function -> its instructions and misses per
	operation (PC_FIELDS order), over all rounds of that case and size."""
	pcs = plugin_pcs(plugin)
	out: Dict[Tuple[str, str], Dict[str, List[float]]] = {}
	for report, index, meter, obj, ops in report_meters(console):
		by_pc = pcs.get((report, index))
		if not by_pc:
			continue
		funcs = out.setdefault((meter, obj), {})
		for pc, counts in by_pc.items():
			acc = funcs.setdefault(symbols.function(pc), [0.0] * len(PC_FIELDS))
			for i, n in enumerate(counts):
				acc[i] += n / ops
	return out


# What each function of a kernel is, for the attribution: the allocator's
# own (its files and the common code), the hooks that 6.1 runs around
# every allocator (mm/slab.h's, memcg, KASAN, KFENCE, KMSAN, kmemleak,
# fault injection, and memset() for init_on_alloc/free), the page
# allocator, the bench module, or the rest of the kernel.
HOOK_OBJECTS = ('mm/memcontrol.o', 'mm/kasan', 'mm/kfence', 'mm/kmsan',
		'mm/kmemleak.o', 'mm/failslab.o', 'lib/fault-inject.o',
		'arch/x86/lib/memset_64.o')
# mm/slab.h's hooks, compiled into each allocator's own files but the
# same for all of them, and the out-of-line copies of the hooks' helpers.
HOOK_PREFIXES = ('slab_pre_alloc_hook', 'slab_post_alloc_hook',
		 'slab_want_init_on_', 'memcg_slab_', '__memcg_slab_',
		 'kasan_', '__kasan_', 'kfence_', '__kfence_', 'kmsan_',
		 '__kmsan_', 'kmemleak_', 'should_failslab', '__should_failslab')
PAGE_ALLOC_OBJECTS = ('mm/page_alloc.o',)
KINDS = ('allocator', 'hooks', 'page allocator', 'bench', 'other')


def object_functions(build: str, rels: Sequence[str]) -> Set[str]:
	"""The text symbols defined in the objects rels of build (a .o, or a
	directory of them), by nm; those that were not built are left out."""
	objs = []
	for rel in rels:
		path = os.path.join(build, rel)
		if os.path.isdir(path):
			objs += sorted(os.path.join(path, f) for f in os.listdir(path)
				       if f.endswith('.o'))
		elif os.path.isfile(path):
			objs.append(path)
	names: Set[str] = set()
	for obj in objs:
		proc = run(['nm', '--defined-only', obj], timeout=60, check=False)
		for line in proc.stdout.splitlines():
			fields = line.split()
			if len(fields) == 3 and fields[1] in 'tTwW':
				names.add(fields[2])
	return names


def function_kinds(build: str, allocator: Sequence[str]) -> Dict[str, str]:
	"""Function name -> its kind (KINDS) for the kernel in build, given the
	allocator's own functions; a name in several gets the first kind."""
	kinds = {}
	for kind, names in (('hooks', {n for n in allocator
				       if n.startswith(HOOK_PREFIXES)}),
			    ('allocator', set(allocator)),
			    ('hooks', object_functions(build, HOOK_OBJECTS)),
			    ('page allocator',
			     object_functions(build, PAGE_ALLOC_OBJECTS))):
		for name in names:
			kinds.setdefault(name, kind)
	return kinds


def kind_of(function: str, kinds: Dict[str, str]) -> str:
	"""The kind (KINDS) of function."""
	if function == MODULE_FUNCTION:
		return 'bench'
	return kinds.get(function, 'other')


Attribution = Dict[Tuple[str, str], Dict[str, List[float]]]


def kind_totals(funcs: Dict[str, List[float]],
		kinds: Dict[str, str]) -> Dict[str, List[float]]:
	"""Kind -> the summed counts (PC_FIELDS order) of its functions."""
	out = {k: [0.0] * len(PC_FIELDS) for k in KINDS}
	for name, counts in funcs.items():
		acc = out[kind_of(name, kinds)]
		for i, n in enumerate(counts):
			acc[i] += n
	return out


def attribution_samples(att: Attribution, kinds: Dict[str, str],
			kernel: str, run_no: int) -> List[Sample]:
	"""The own and hooks rows of one boot: per meter and object, the
	instructions per operation in the allocator's own functions and in
	the hooks, metric ('own' or 'hooks', meter, object, 'instr/op')."""
	out = []
	for (meter, obj), funcs in sorted(att.items()):
		totals = kind_totals(funcs, kinds)
		out.append(Sample(kernel, run_no, Metric('own', meter, obj, 'instr/op'),
				  totals['allocator'][0]))
		out.append(Sample(kernel, run_no, Metric('hooks', meter, obj, 'instr/op'),
				  totals['hooks'][0]))
	return out


# A function outside the busiest few is shown if it misses L1 this often.
MISSES_SHOWN = 0.1


def attribution_text(per_kernel: Dict[str, Tuple[Attribution, Dict[str, str]]],
		     top: int = 5) -> str:
	"""Per meter and object, for each kernel: the instructions and L1,
	L2 and TLB misses per operation of each kind of code, then of its
	busiest functions and of those that miss L1 at least MISSES_SHOWN
	times an operation."""
	keys = sorted({k for att, _ in per_kernel.values() for k in att})
	lines = []
	for meter, obj in keys:
		lines.append(f'{meter} {obj}  (per operation: instructions, '
			     'L1 / L2 / TLB misses)')
		for kernel, (att, kinds) in per_kernel.items():
			funcs = att.get((meter, obj))
			if not funcs:
				continue
			totals = kind_totals(funcs, kinds)
			split = ', '.join(f'{k} {v[0]:.1f} {v[1]:.2f}/{v[2]:.2f}/{v[3]:.2f}'
					  for k, v in totals.items() if any(v))
			lines.append(f'  {kernel:<8} {split}')
			best = sorted(funcs.items(), key=lambda kv: (-kv[1][0], kv[0]))
			shown = best[:top] + [kv for kv in best[top:]
					      if kv[1][1] >= MISSES_SHOWN]
			for name, v in shown:
				lines.append(f'  {"":<8}   {name:<34} {v[0]:7.1f} '
					     f'{v[1]:.3f}/{v[2]:.3f}/{v[3]:.3f}  '
					     f'{kind_of(name, kinds)}')
	return '\n'.join(lines)
