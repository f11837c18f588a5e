# SPDX-License-Identifier: GPL-2.0
"""`slqb bench` results: parsing guest consoles, medians and spreads,
ratio tables, CSV and the plot.

Everything here but write_plot() works on lists of lines or of samples and
has no side effects, so that `slqb test` can check it on made-up consoles.

A sample is one number from one boot: kernel, run, metric, value. A metric
is (group, case, object, unit, better): group 'icount' (single-CPU micro
cases in a 1-vCPU QEMU with -icount: exact guest instructions per
operation), 'icount-arm64' (arm64 with 2 vCPUs taking turns on one TCG
thread under -icount: the guest instructions both CPUs ran per operation,
to about 0.1%), 'tcg' (micro cases under multi-threaded TCG: wall-clock ns per
operation, the median of a boot's rounds), 'tcg-min' (the same, the fastest
round), 'tcg-cycles', 'sys' (system workloads, the median of a boot's repeats),
'sys-best' (their best repeat), 'sys-icount' (with --icount-sys: the same
workloads in a 1-vCPU boot under -icount, where a guest second is 10^9
guest instructions, idle time aside: the median repeat, a rate per
instruction rather than per second), 'prof' (with --profile: the allocator's
share of a workload's busy cpu-clock samples), 'loc' (where the batch and
bulk cases' objects lay, from the icount boot: distinct pages and slabs
per 1000 consecutive allocations, the median distance between
neighbours), 'model' (the cache model's misses per operation, from the
x86_64 icount boot), 'own' and 'hooks' (with --profile, from the same
boot: the instructions per operation in the allocator's own functions and
in the hooks around it) or 'mem' (slab memory).
"""

import dataclasses
import math
import os
import shutil
import statistics
import subprocess
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from slqb_guest import BENCH_PAIR_RE, BENCH_RE
from slqb_report import strip_printk

TCG_NOTE = ('Absolute times under TCG (QEMU without KVM) mean little: only '
	    'ratios between kernels measured in the same run count. icount rows '
	    'are exact guest instruction counts (deterministic, blind to cache '
	    'misses and to what atomics cost on hardware); tcg, sys and mem rows '
	    'are wall-clock or memory figures, noisy under TCG. A tcg row is the '
	    'median of a boot\'s rounds, a tcg-min row its fastest round, and '
	    'likewise a sys row is the median of a boot\'s repeats of the '
	    'workload, a sys-best row the best one: under MTTCG a round runs in '
	    'one of two modes about 2x apart, with every allocator, so the '
	    'median depends on how the modes mixed and the minimum shows the '
	    'fast mode.')

# Groups of instruction counts: exact (icount) or nearly so (icount-arm64).
ICOUNT_GROUPS = ('icount', 'icount-arm64')
# Boots under -icount, whose numbers are exact and whose memory readings are
# not those of the workload boots: the micro cases' and the workloads' in
# instruction time (sys-icount, see sys_samples()).
EXACT_GROUPS = ICOUNT_GROUPS + ('sys-icount',)
# The attribution's instruction counts (model.attribution_samples()).
ATTRIBUTION_GROUPS = ('own', 'hooks')
# Units whose bigger values are better; everything else: lower is better.
HIGHER_BETTER_UNITS = ('Mbit/s', 'MB/s', 'trans/s', 'dgram/s', 'ops/s')
MEM_FIELDS = (('Slab', 'kB'), ('SUnreclaim', 'kB'), ('slab_pages', 'pages'))


@dataclasses.dataclass(frozen=True)
class Metric:
	"""What a number measures, and which way is better."""
	group: str
	case: str
	obj: str
	unit: str

	@property
	def better(self) -> str:
		return 'higher' if self.unit in HIGHER_BETTER_UNITS else 'lower'

	@property
	def label(self) -> str:
		return ' '.join(x for x in (self.group, self.case, self.obj) if x)


@dataclasses.dataclass(frozen=True)
class Sample:
	"""One number of one boot."""
	kernel: str
	run: int
	metric: Metric
	value: float


@dataclasses.dataclass
class Parsed:
	"""What one bench console says."""
	samples: List[Sample]
	errors: List[str]
	skips: List[str]
	stats: List[Dict[str, str]]
	begun: bool
	ended: bool
	profiles: List[Dict[str, str]] = dataclasses.field(default_factory=list)
	# the cache model's attribution to functions (model.attribution())
	# and the kinds of those functions (model.function_kinds())
	attribution: Dict = dataclasses.field(default_factory=dict)
	kinds: Dict[str, str] = dataclasses.field(default_factory=dict)


def bench_records(lines: Iterable[str]) -> List[Tuple[str, Dict[str, str]]]:
	"""(kind, {key: value}) of each well-formed SLQB-BENCH line."""
	records = []
	for line in lines:
		m = BENCH_RE.search(strip_printk(line))
		if m:
			records.append((m.group(1), dict(BENCH_PAIR_RE.findall(m.group(2)))))
	return records


def object_name(fields: Dict[str, str]) -> str:
	"""'kmalloc-64' or 'cache-200'."""
	return f'{fields.get("obj", "?")}-{fields.get("size", "?")}'


def micro_samples(kernel: str, run: int, group: str,
		  fields: Dict[str, str]) -> List[Sample]:
	"""The samples of one micro line: instructions (icount), or ns,
	cycles and the fastest round's ns (tcg).

	icount-arm64 reads ns_op: with -icount shift=0 a nanosecond of guest
	time is one guest instruction on whichever vCPU runs, while arm64's
	get_cycles() reads the 62.5 MHz generic timer, 16 instructions a tick.
	"""
	obj = object_name(fields)
	case = fields['case']
	if group == 'icount':
		return [Sample(kernel, run, Metric(group, case, obj, 'instr/op'),
			       float(fields['cycles_op']))]
	if group == 'icount-arm64':
		float(fields['cycles_op'])	# a malformed line counts for nothing
		return [Sample(kernel, run, Metric(group, case, obj, 'instr/op'),
			       float(fields['ns_op']))]
	out = [Sample(kernel, run, Metric(group, case, obj, 'ns/op'),
		      float(fields['ns_op'])),
	       Sample(kernel, run, Metric('tcg-cycles', case, obj, 'cycles/op'),
		      float(fields['cycles_op']))]
	if 'ns_min' in fields:
		out.append(Sample(kernel, run, Metric('tcg-min', case, obj, 'ns/op'),
				  float(fields['ns_min'])))
	return out


# The fields of a locality line: (field, what, unit).
LOCALITY_FIELDS = (('pages_k', 'pages', 'pages/1000'),
		   ('slabs_k', 'slabs', 'slabs/1000'),
		   ('dist', 'dist', 'bytes'))


def locality_samples(kernel: str, run: int, fields: Dict[str, str]) -> List[Sample]:
	"""The samples of one locality line: metric ('loc', '<case> <what>',
	object, unit) for each of LOCALITY_FIELDS; lower is better."""
	obj, case = object_name(fields), fields['case']
	return [Sample(kernel, run, Metric('loc', f'{case} {what}', obj, unit),
		       float(fields[field]))
		for field, what, unit in LOCALITY_FIELDS]


def sys_samples(kernel: str, run: int, fields: Dict[str, str],
		icount: bool = False) -> List[Sample]:
	"""The samples of one sys line: the median of the boot's repeats of
	the workload ('sys') and, when it ran more than once, the best repeat
	('sys-best': the shortest time or the highest rate, the fast MTTCG
	mode, as tcg-min is for the micro cases). icount: a line of the
	sys-icount boot, whose guest clock counts instructions (-icount
	shift=0 with one vCPU: a nanosecond per instruction, and an idle vCPU
	skips ahead to its next timer): its median only, as 'sys-icount', a
	count of work per 10^9 instructions that no MTTCG mode moves."""
	name, unit = fields['name'], fields['unit']
	if icount:
		return [Sample(kernel, run, Metric('sys-icount', name, '', unit),
			       float(fields['value']))]
	out = [Sample(kernel, run, Metric('sys', name, '', unit), float(fields['value']))]
	if 'best' in fields and int(fields.get('reps', '1')) > 1:
		out.append(Sample(kernel, run, Metric('sys-best', name, '', unit),
				  float(fields['best'])))
	return out


def prof_samples(kernel: str, run: int, fields: Dict[str, str]) -> List[Sample]:
	"""The sample of one prof line: the share of a workload's busy
	cpu-clock samples (neither idle nor perf's own) that fell in the
	allocator's functions, in percent ('prof'); none without busy samples."""
	busy, alloc = int(fields['busy']), int(fields['alloc'])
	if busy <= 0 or not 0 <= alloc <= busy:
		return []
	return [Sample(kernel, run, Metric('prof', fields['name'], '', '% busy'),
		       100.0 * alloc / busy)]


def parse_console(lines: Sequence[str], kernel: str, run: int,
		  group: str) -> Parsed:
	"""The samples of one bench boot; group is 'icount', 'icount-arm64'
	or 'tcg' for its micro lines, or 'sys-icount' for a boot that ran only
	the workloads under -icount. Malformed lines are ignored (a console can interleave)."""
	out = Parsed([], [], [], [], False, False)
	for kind, f in bench_records(lines):
		try:
			if kind == 'micro':
				if group != 'sys-icount':	# it runs none
					out.samples += micro_samples(kernel, run, group, f)
			elif kind == 'sys':
				out.samples += sys_samples(kernel, run, f,
							   group == 'sys-icount')
			elif kind == 'locality' and group == 'icount':
				# one CPU, exact: the same objects every run
				out.samples += locality_samples(kernel, run, f)
			elif kind == 'prof':
				out.samples += prof_samples(kernel, run, f)
				out.profiles.append(dict(f, kernel=kernel))
			elif kind == 'mem' and group not in EXACT_GROUPS:
				# the icount boots' memory readings are not those
				# of the workload boots
				for field, unit in MEM_FIELDS:
					out.samples.append(Sample(kernel, run, Metric(
						'mem', f'{field} {f["stage"]}', '', unit),
						float(f[field])))
			elif kind == 'error':
				out.errors.append(' '.join(f'{k}={v}' for k, v in f.items()))
			elif kind == 'skip':
				out.skips.append(' '.join(f'{k}={v}' for k, v in f.items()))
			elif kind == 'stat':
				out.stats.append(f)
			elif kind in ('begin', 'start'):
				out.begun = True
			elif kind == 'end':
				out.ended = True
		except (KeyError, ValueError):
			continue
	return out


def profile_top(text: str) -> Dict[str, int]:
	"""'kfree:12,kmem_cache_alloc:9' -> {'kfree': 12, ...}; '-' -> {}.
	Malformed items are left out."""
	out = {}
	for item in text.split(','):
		sym, _, count = item.rpartition(':')
		if sym and count.isdigit():
			out[sym] = int(count)
	return out


def profile_text(profiles: Sequence[Dict[str, str]], top: int = 6) -> str:
	"""The allocator's busiest functions per workload and kernel, summed
	over the runs, each as a share of the workload's busy samples."""
	acc: Dict[Tuple[str, str], Tuple[int, int, Dict[str, int]]] = {}
	for p in profiles:
		try:
			busy, alloc = int(p['busy']), int(p['alloc'])
		except (KeyError, ValueError):
			continue
		key = (p['name'], p.get('kernel', '?'))
		b0, a0, syms = acc.get(key, (0, 0, {}))
		for sym, n in profile_top(p.get('top', '-')).items():
			syms[sym] = syms.get(sym, 0) + n
		acc[key] = (b0 + busy, a0 + alloc, syms)
	lines = []
	for (name, kernel), (busy, alloc, syms) in acc.items():
		if not busy:
			continue
		best = sorted(syms.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
		funcs = ', '.join(f'{s} {100.0 * n / busy:.1f}%' for s, n in best)
		lines.append(f'{name:<24} {kernel:<8} {busy:>6} busy, allocator '
			     f'{100.0 * alloc / busy:4.1f}%: {funcs or "-"}')
	return '\n'.join(lines)


# ---------------------------------------------------------------- statistics

@dataclasses.dataclass
class Summary:
	"""Median and spread of one metric for one kernel."""
	median: float
	spread: float		# (max - min) / median, 0 with one sample
	n: int
	by_run: Dict[int, float]


def summarize(values: Dict[int, float]) -> Summary:
	"""Median and relative spread of run -> value."""
	vals = list(values.values())
	med = statistics.median(vals)
	spread = (max(vals) - min(vals)) / med if med else 0.0
	return Summary(med, spread, len(vals), dict(values))


@dataclasses.dataclass
class Ratio:
	"""subject/baseline of the medians, with the range of same-run ratios."""
	value: float
	low: float
	high: float
	n: int

	@property
	def noise(self) -> bool:
		"""True when same-run ratios fall on both sides of 1 (the spread
		is larger than the difference)."""
		return self.n > 1 and self.low <= 1.0 <= self.high

	def text(self, exact: bool = False) -> str:
		"""'0.93' with '~' when within the spread, '?' with one run
		(unless exact: icount counts do not vary)."""
		mark = '~' if self.noise else ('?' if self.n < 2 and not exact else '')
		return f'{self.value:.2f}{mark}'


def ratio(subject: Summary, baseline: Summary) -> Optional[Ratio]:
	"""subject/baseline; None when the baseline median is 0."""
	if not baseline.median:
		return None
	per_run = [subject.by_run[r] / baseline.by_run[r]
		   for r in subject.by_run if baseline.by_run.get(r)]
	if not per_run:
		per_run = [subject.median / baseline.median]
	return Ratio(subject.median / baseline.median, min(per_run),
		     max(per_run), len(per_run))


GROUP_ORDER = ('icount', 'icount-arm64', 'tcg', 'tcg-min', 'tcg-cycles', 'loc',
	       'model', 'own', 'hooks', 'sys', 'sys-best', 'sys-icount', 'prof',
	       'mem')


def collect(samples: Iterable[Sample]) -> Dict[Metric, Dict[str, Summary]]:
	"""metric -> kernel -> Summary; metrics by group (GROUP_ORDER), then
	in first-seen order."""
	grouped: Dict[Metric, Dict[str, Dict[int, float]]] = {}
	for s in samples:
		grouped.setdefault(s.metric, {}).setdefault(s.kernel, {})[s.run] = s.value
	order = sorted(grouped, key=lambda m: GROUP_ORDER.index(m.group)
		       if m.group in GROUP_ORDER else len(GROUP_ORDER))
	return {m: {k: summarize(v) for k, v in grouped[m].items()} for m in order}


def geomean(values: Sequence[float]) -> float:
	"""Geometric mean of positive values (0 if any is not positive)."""
	if not values or min(values) <= 0:
		return 0.0
	return math.exp(sum(math.log(v) for v in values) / len(values))


SUMMARY_MEM_STAGES = ('boot', 'dropped')


def in_summary(metric: Metric) -> bool:
	"""Memory rows of the summary: Slab at every stage, the other fields
	after boot and after drop_caches."""
	if metric.group != 'mem':
		return metric.group != 'tcg-cycles'
	field, _, stage = metric.case.partition(' ')
	return field == 'Slab' or stage in SUMMARY_MEM_STAGES


def aggregate(samples: Sequence[Sample]) -> List[Sample]:
	"""Per micro case, the geometric mean over object sizes, per boot:
	metric (group, case, 'geomean', unit); for the model and hooks rows,
	whose counts can be 0, the arithmetic mean ('mean'). Other samples
	pass through when in_summary()."""
	out, acc = [], {}
	for s in samples:
		if s.metric.group in ICOUNT_GROUPS + ATTRIBUTION_GROUPS + \
		   ('tcg', 'tcg-min', 'loc', 'model'):
			key = (s.kernel, s.run, s.metric.group, s.metric.case, s.metric.unit)
			acc.setdefault(key, []).append(s.value)
		elif in_summary(s.metric):
			out.append(s)
	geo = [Sample(k, r, Metric(g, c, 'mean', u), sum(v) / len(v))
	       if g in ('model', 'hooks') else
	       Sample(k, r, Metric(g, c, 'geomean', u), geomean(v))
	       for (k, r, g, c, u), v in acc.items()]
	return geo + out


# ---------------------------------------------------------------- tables

@dataclasses.dataclass
class Pairing:
	"""Which kernels are compared: each subject against each baseline."""
	kernels: List[str]
	subjects: List[str]
	baselines: List[str]

	def columns(self) -> List[Tuple[str, str]]:
		return [(s, b) for s in self.subjects for b in self.baselines]


def fmt_value(v: float) -> str:
	"""A compact number: 3 significant digits, no exponent below 1e7."""
	if v >= 100:
		return f'{v:.0f}'
	if v >= 10:
		return f'{v:.1f}'
	return f'{v:.3g}'


def table_rows(stats: Dict[Metric, Dict[str, Summary]],
	       pairing: Pairing) -> List[List[str]]:
	"""Header plus one row per metric: label, unit, better, median
	(±spread%) per kernel, then subject/baseline ratios."""
	head = ['metric', 'unit', 'better'] + pairing.kernels + \
	       [f'{s}/{b}' for s, b in pairing.columns()]
	rows = [head]
	for metric, per in stats.items():
		row = [metric.label, metric.unit, metric.better]
		for k in pairing.kernels:
			s = per.get(k)
			row.append(f'{fmt_value(s.median)} ±{s.spread * 100:.0f}%'
				   if s else '-')
		for subj, base in pairing.columns():
			r = ratio(per[subj], per[base]) if subj in per and base in per else None
			exact = metric.group in EXACT_GROUPS + ATTRIBUTION_GROUPS
			row.append(r.text(exact) if r else '-')
		rows.append(row)
	return rows


def format_table(rows: List[List[str]]) -> str:
	"""A plain-text table with aligned columns."""
	widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
	lines = []
	for n, row in enumerate(rows):
		cells = [c.ljust(w) if i == 0 else c.rjust(w)
			 for i, (c, w) in enumerate(zip(row, widths))]
		lines.append('  '.join(cells).rstrip())
		if n == 0:
			lines.append('  '.join('-' * w for w in widths))
	return '\n'.join(lines)


def csv_text(rows: List[List[str]]) -> str:
	"""rows as CSV (no quoting needed: no commas in our cells)."""
	return ''.join(','.join(c.replace(',', ';') for c in row) + '\n'
		       for row in rows)


def samples_csv(samples: Sequence[Sample]) -> str:
	"""The raw samples as CSV."""
	lines = ['kernel,run,group,case,object,unit,better,value\n']
	for s in samples:
		m = s.metric
		lines.append(f'{s.kernel},{s.run},{m.group},{m.case},{m.obj},'
			     f'{m.unit},{m.better},{s.value:g}\n')
	return ''.join(lines)


def behind_best(stats: Dict[Metric, Dict[str, Summary]], subject: str,
		others: Sequence[str], count: int = 3) -> List[Tuple[Metric, float, str, Ratio]]:
	"""The count metrics where subject is furthest behind the best of
	others: (metric, how many times worse in its best run, best kernel,
	ratio). Rows whose same-run ratios straddle 1 (noise) are left out,
	and so are the prof rows: a larger share of a workload's samples is
	not a slower workload, which its sys rows measure. So are the model
	rows: the module never touches the objects it gets, so an allocator
	that keeps its free lists outside the objects (SLAB's arrays) shows
	a fraction of the misses that its callers then take on first use.
	The hooks rows are left out too: the same hooks run around every
	allocator, and the icount rows count them."""
	found = []
	for metric, per in stats.items():
		if metric.group in ('tcg-cycles', 'mem', 'prof', 'model', 'hooks') or \
		   subject not in per:
			continue
		have = [(per[o], o) for o in others if o in per and per[o].median > 0]
		if not have or per[subject].median <= 0:
			continue
		if metric.better == 'lower':
			best, who = min(have, key=lambda x: x[0].median)
			r = ratio(per[subject], best)
		else:
			best, who = max(have, key=lambda x: x[0].median)
			r = ratio(best, per[subject])
		# ranked by the run most favourable to subject, so that one noisy
		# run under TCG does not put a row at the top
		if not r.noise:
			found.append((metric, r.low, who, r))
	found.sort(key=lambda x: -x[1])
	return found[:count]


# A workload whose sys-icount rows agree to this fraction under every kernel
# ran the same instructions per operation: the allocator is not in its loop.
CONTROL_AGREEMENT = 0.001


def control_lines(stats: Dict[Metric, Dict[str, Summary]],
		  pairing: Pairing) -> List[str]:
	"""The noise floor of the wall-clock sys rows: the workloads whose
	sys-icount rows agree within CONTROL_AGREEMENT under every kernel
	(loop-pipe and loop-eventfd allocate nothing in their loops), with
	the ratios their sys rows still showed. A sys row no further from 1
	than those says nothing about the allocator. Empty without sys-icount
	rows."""
	lines = []
	for metric, per in stats.items():
		if metric.group != 'sys-icount' or len(per) < 2:
			continue
		medians = [s.median for s in per.values()]
		if min(medians) <= 0 or \
		   max(medians) / min(medians) - 1 > CONTROL_AGREEMENT:
			continue
		wall = stats.get(Metric('sys', metric.case, metric.obj, metric.unit), {})
		cells = []
		for subj, base in pairing.columns():
			r = ratio(wall[subj], wall[base]) \
				if subj in wall and base in wall else None
			if r:
				cells.append(f'{subj}/{base} {r.value:.2f} (same-run '
					     f'{r.low:.2f}-{r.high:.2f})')
		if cells:
			lines.append(f'  sys {metric.case}: ' + ', '.join(cells))
	if lines:
		lines.insert(0, 'control workloads: the same instructions per '
			     'operation under every kernel (their sys-icount rows '
			     f'agree within {CONTROL_AGREEMENT:.1%}), so the '
			     'allocator is not in their loop; their wall-clock sys '
			     'ratios are the noise floor of the sys rows:')
	return lines


# ---------------------------------------------------------------- plot

PLOT_PANELS = (('icount', 'pair'), ('icount', 'batch-alloc'),
	       ('icount', 'bulk-free'), ('tcg', 'allcpu-alloc'),
	       ('tcg', 'remote-alloc'), ('tcg', 'rcu'),
	       ('icount-arm64', 'remote-alloc'), ('icount-arm64', 'remote-free'),
	       ('icount-arm64', 'allcpu-alloc'))


def plot_data(stats: Dict[Metric, Dict[str, Summary]], group: str, case: str,
	      kernels: Sequence[str]) -> List[Tuple[int, List[Optional[float]]]]:
	"""(size, median per kernel) of the kmalloc rows of one case."""
	rows = {}
	for metric, per in stats.items():
		if metric.group != group or metric.case != case or \
		   not metric.obj.startswith('kmalloc-'):
			continue
		size = int(metric.obj.split('-')[1])
		rows[size] = [per[k].median if k in per else None for k in kernels]
	return sorted(rows.items())


def write_plot(stats: Dict[Metric, Dict[str, Summary]], kernels: Sequence[str],
	       out_dir: str) -> Optional[str]:
	"""plot.png with gnuplot: one panel per PLOT_PANELS case, size on a
	log2 axis. Returns the PNG path, or None without gnuplot or data."""
	gnuplot = shutil.which('gnuplot')
	if not gnuplot:
		return None
	panels = []
	for group, case in PLOT_PANELS:
		data = plot_data(stats, group, case, kernels)
		if not data:
			continue
		path = os.path.join(out_dir, f'plot-{group}-{case}.dat')
		with open(path, 'w', encoding='utf-8') as f:
			for size, vals in data:
				f.write(f'{size} ' + ' '.join('?' if v is None else f'{v:g}'
							     for v in vals) + '\n')
		unit = 'guest instructions/op' if group in ICOUNT_GROUPS \
			else 'ns/op (wall, TCG)'
		panels.append((path, f'{case} ({group})', unit))
	if not panels:
		return None
	png = os.path.join(out_dir, 'plot.png')
	cols = 3
	nrows = (len(panels) + cols - 1) // cols
	script = [f'set terminal pngcairo size {460 * cols},{380 * nrows} font "sans,10"',
		  f'set output "{png}"', 'set datafile missing "?"',
		  'set logscale x 2', 'set xlabel "object size (bytes)"',
		  'set key below', 'set grid', 'set logscale y',
		  f'set multiplot layout {nrows},{cols} title "slqb bench: medians '
		  'by size class, log scale (only same-run ratios count under TCG)"']
	for path, title, unit in panels:
		plots = ', '.join(f'"{path}" using 1:{i + 2} with linespoints title "{k}"'
				  for i, k in enumerate(kernels))
		script += [f'set title "{title}"', f'set ylabel "{unit}"', f'plot {plots}']
	script.append('unset multiplot')
	proc = subprocess.run([gnuplot], input='\n'.join(script) + '\n', text=True,
			      capture_output=True, timeout=120)
	if proc.returncode != 0 or not os.path.exists(png):
		raise RuntimeError(f'gnuplot failed: {proc.stderr.strip()[-500:]}')
	return png
