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

import os
import re
from typing import Dict, List, Sequence, Tuple

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


def qemu_args(plugin: str, log: str) -> Tuple[str, ...]:
	"""QEMU's arguments that load the plugin and send its lines to log."""
	return ('-plugin', f'file={plugin}', '-d', 'plugin', '-D', log)


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


def model_samples(console: Sequence[str], plugin: Sequence[str], kernel: str,
		  run_no: int) -> List[Sample]:
	"""The model rows of one boot: per case, object and meter, the misses
	of each level per operation over all rounds, metric ('model',
	'<meter> <level>', object, 'miss/op'). A report that the plugin did
	not write (a boot cut short) gives no row."""
	reports = plugin_reports(plugin)
	out = []
	for kind, f in bench_records(console):
		if kind != 'model':
			continue
		try:
			report, ops = int(f['report']), int(f['ops']) * int(f['rounds'])
			meters = f['meters'].split(',')
		except (KeyError, ValueError):
			continue
		for index, meter in enumerate(meters):
			counts = reports.get((report, index))
			if not counts or ops <= 0:
				continue
			for field, what in MODEL_FIELDS:
				out.append(Sample(kernel, run_no, Metric(
					'model', f'{meter} {what}', object_name(f),
					MODEL_UNIT), counts[field] / ops))
	return out
