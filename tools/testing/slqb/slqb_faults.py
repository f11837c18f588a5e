# SPDX-License-Identifier: GPL-2.0
"""Fault injection during a boot: the faults boot of `slqb test`.

Every kernel of the harness has CONFIG_FAILSLAB and CONFIG_FAIL_PAGE_ALLOC
with their debugfs files (configs/base.config), at probability 0 until
the guest switches them on. With slqbtest.faults=1 guest/init.sh (see
faults_setup there):

 - records slab memory before the faults ('SLQB-GUEST: mem before-faults')
   and sets failslab and fail_page_alloc up to fail only the allocations of
   tasks with make-it-fail set (task-filter), sleeping ones too
   (ignore-gfp-wait=N; for pages also ignore-gfp-highmem=N and min-order=0),
   with verbose=0 and "times" counting down from a large number, so that
   what it lost is how many failures were injected;
 - runs the stress with make-it-fail set on stress-ng, whose stressors
   inherit it, switches the faults on once they run and off when they
   end, and prints 'SLQB-GUEST: faults stress failslab=N fail_page_alloc=M';
 - loads the faults module (faults/slqb_faults.c) with fail_page_alloc
   alone on: its kthreads reach what a workload seldom does, the fallback
   from a slab's larger order to its smallest and a bulk allocation that
   fails part way, and it prints its counts and verdict ('slqb_faults:
   PASS ...'; 'SLQB-GUEST: faults slqb ...' for the injected failures);
 - after the shrink, compares slab memory with that before the faults
   (step faults-slab-memory, the bound of step slab-memory-returned).

The marker and the parameters of that contract are here rather than in
slqb_guest, as the module is: one place for the feature on the host.

boot_kernel reaches the feature through a FaultInjection (a BootHook of
slqb_boot): it builds the module and an initramfs with it and gives the
guest its parameter. The checks of `slqb test` on such a boot (CHECKS)
come last: whether faults were injected at all, whether SLQB's failure
paths were reached, whether the objects stayed intact, whether the
reports of allocation failures stayed within their rate limits, and
whether slab memory came back.
"""

import dataclasses
import os
import re
from typing import Dict, List, Optional, Sequence, Tuple

from slqb_arch import DEFAULT_ARCH
from slqb_boot import BootExtras, BootHook, BootOutcome, BootRequest, Prepared
from slqb_build import KernelSpec, build_external_module
from slqb_checks import CheckFailed, Context
from slqb_guest import marker_text, param, step_output, step_results
from slqb_host import BuildLock
from slqb_initramfs import CpioList, InitramfsExtra, build_initramfs
from slqb_util import HARNESS_DIR, Paths, SlqbError, quote_lines

MODULE_SRC = os.path.join(HARNESS_DIR, 'faults')
MODULE_SOURCES = ('slqb_faults.c', 'Kbuild', 'Makefile')
# The module: where build_module builds it (below the kernel's build
# directory) and where guest/init.sh loads it from.
MODULE = os.path.join('slqb-faults', 'slqb_faults.ko')
GUEST_MODULE = '/lib/slqbtest-faults/slqb_faults.ko'

# The guest's fault counts: 'faults PHASE failslab=N fail_page_alloc=M'
# (marker text), PHASE 'stress' or 'slqb' (the module's).
FAULTS_RE = re.compile(r'^faults (\w+) failslab=(\d+) fail_page_alloc=(\d+)\s*$')
# The module's verdict: 'slqb_faults: PASS cpus=4 rounds=...', or FAIL
# with counts or with a reason.
VERDICT_RE = re.compile(r'\bslqb_faults: (PASS|FAIL)\b:?(.*)$')
COUNT_RE = re.compile(r'\b(\w+)=(\d+)\b')
PRINTK_TIME_RE = re.compile(r'^\[\s*(\d+\.\d+)\]')


def guest_params(rate: str = '') -> str:
	"""slqbtest.faults=1, and slqbtest.faultrate=P:I:M if rate is given
	(P% of every I-th allocation of the stress, M% of the module's page
	allocations; guest/init.sh has the default)."""
	if rate and not re.fullmatch(r'\d+:\d+:\d+', rate):
		raise ValueError(f'fault rate {rate!r}: want P:I:M, three numbers')
	return param('faults', 1) + (' ' + param('faultrate', rate) if rate else '')


# ---------------------------------------------------------------- the console

def injected(lines: Sequence[str]) -> Dict[str, Tuple[int, int]]:
	"""(failslab, fail_page_alloc) failures injected per phase, from the
	guest's 'faults PHASE ...' markers (the last of a phase counts)."""
	found = {}
	for line in lines:
		said = marker_text(line)
		m = FAULTS_RE.match(said.strip()) if said is not None else None
		if m:
			found[m.group(1)] = (int(m.group(2)), int(m.group(3)))
	return found


@dataclasses.dataclass
class ModuleVerdict:
	"""The faults module's last verdict line: PASS or FAIL, its counts
	(rounds, bulk_ok, bulk_part_way, fallback_slabs, order, bad, ...) and
	the line itself."""
	verdict: str
	counts: Dict[str, int]
	line: str


def module_verdict(lines: Sequence[str]) -> Optional[ModuleVerdict]:
	"""The last verdict of the faults module on the console, if any."""
	found = None
	for line in lines:
		m = VERDICT_RE.search(line)
		if m:
			counts = {k: int(v) for k, v in COUNT_RE.findall(m.group(2))}
			found = ModuleVerdict(m.group(1), counts, line.strip())
	return found


# ---------------------------------------------------------------- rate limits

@dataclasses.dataclass(frozen=True)
class RateLimited:
	"""A kernel report that a ratelimit state of its own holds to burst
	reports per interval seconds (__ratelimit()); pattern matches its
	first line. required: the boot must show at least one."""
	name: str
	pattern: re.Pattern
	interval: float
	burst: int
	required: bool = False


# The reports of allocation failures a faults boot shows. warn_alloc()
# (page allocation failures, vmalloc errors) allows one per 10 s; SLQB's
# report of a slab it could not get and the page fault handler's note of
# a VM_FAULT_OOM ten per 5 s. The module's bulk allocations fail without
# __GFP_NOWARN, so SLQB's report must show.
RATE_LIMITED = [
	RateLimited('allocation failure warnings (warn_alloc)',
		    re.compile(r': (?:page allocation failure: order:\d+|'
			       r'vmalloc error: size \d+)'), 10.0, 1),
	RateLimited("SLQB's no-slab reports",
		    re.compile(r'\bSLQB: \S+: no new slab on node -?\d+'), 5.0, 10,
		    required=True),
	RateLimited('VM_FAULT_OOM notes of the page fault handler',
		    re.compile(r'Huh VM_FAULT_OOM leaked out'), 5.0, 10),
]
# How far a report's printk time stamp may lag the __ratelimit() call
# that let it through (a vCPU that does not run for a while under TCG).
RATELIMIT_SLACK_S = 1.0
SUPPRESSED_RE = re.compile(r'\b(\w+): (\d+) callbacks suppressed')


def printk_time(line: str) -> Optional[float]:
	"""The seconds of a line's printk time stamp, if it has one."""
	m = PRINTK_TIME_RE.match(line)
	return float(m.group(1)) if m else None


def report_times(lines: Sequence[str], pattern: re.Pattern) -> List[float]:
	"""The printk times of the lines that match pattern (a line without a
	time stamp, such as the guest's own echo of one, does not count)."""
	times = []
	for line in lines:
		if pattern.search(line):
			t = printk_time(line)
			if t is not None:
				times.append(t)
	return times


def within_rate_limit(times: Sequence[float], interval: float, burst: int,
		      slack: float = RATELIMIT_SLACK_S) -> bool:
	"""Whether a ratelimit state of interval and burst could have let
	through reports at these times.

	__ratelimit() starts an interval at the first call after the last one
	ended, and that call's report goes through: the reports fall into
	runs, each starting more than interval after the start of the one
	before, of at most burst reports, all within interval of their start.
	Time stamps may lag by up to slack, in either direction. Whether
	there is such a split of the reports is worked out from the last one
	back: ok[i] tells whether reports i.. split so that a run starts at i.
	"""
	times = sorted(times)
	n = len(times)
	ok = [False] * n + [True]
	for i in range(n - 1, -1, -1):
		for k in range(1, burst + 1):
			end = i + k
			if end > n or times[end - 1] > times[i] + interval + slack:
				break
			if end == n or (times[end] > times[i] + interval - slack
					and ok[end]):
				ok[i] = True
				break
	return ok[0]


def densest(times: Sequence[float], interval: float) -> Tuple[int, float]:
	"""(count, start) of the interval-long span with the most reports."""
	times = sorted(times)
	best, start, j = 0, 0.0, 0
	for i, t in enumerate(times):
		while times[j] < t - interval:
			j += 1
		if i - j + 1 > best:
			best, start = i - j + 1, times[j]
	return best, start


def rate_limit_problems(lines: Sequence[str],
			kinds: Sequence[RateLimited] = RATE_LIMITED
			) -> Tuple[List[str], List[str]]:
	"""(problems, summary lines) of the rate-limited reports on a console."""
	problems, summary = [], []
	suppressed: Dict[str, int] = {}
	for line in lines:
		m = SUPPRESSED_RE.search(line)
		if m:
			suppressed[m.group(1)] = suppressed.get(m.group(1), 0) + int(m.group(2))
	for kind in kinds:
		times = report_times(lines, kind.pattern)
		summary.append(f'{kind.name}: {len(times)} (at most {kind.burst} '
			       f'per {kind.interval:g} s)')
		if kind.required and not times:
			problems.append(f'{kind.name}: none on the console, so their '
					'rate limit went untried')
		elif not within_rate_limit(times, kind.interval, kind.burst):
			count, start = densest(times, kind.interval)
			problems.append(f'{kind.name}: {count} within {kind.interval:g} s '
					f'from {start:.3f} s, more than a rate limit of '
					f'{kind.burst} per {kind.interval:g} s lets through')
	summary += [f'"{func}: N callbacks suppressed": {n} suppressed in all'
		    for func, n in sorted(suppressed.items())]
	return problems, summary


# ---------------------------------------------------------------- the module

def module_path(paths: Paths, spec: KernelSpec) -> str:
	return os.path.join(spec.build_dir(paths), MODULE)


def build_module(paths: Paths, spec: KernelSpec) -> str:
	"""Copies faults/ into <build>/slqb-faults and builds its module there
	against the kernel (W=1), unless it is newer than its sources and the
	kernel. Returns the .ko path. The caller holds the build lock."""
	return build_external_module(paths, spec, MODULE_SRC, MODULE_SOURCES,
				     module_path(paths, spec), 'faults')


class ModuleFiles(InitramfsExtra):
	"""The faults module in the initramfs of fault-injection boots."""
	name = 'faults'

	def add(self, cpio: CpioList, paths: Paths, spec: KernelSpec) -> None:
		cpio.add_file(GUEST_MODULE, module_path(paths, spec), '0644')


# ---------------------------------------------------------------- the hook

class FaultInjection(BootHook):
	"""Fault injection during one boot: give it to boot_kernel.

	start() builds the module and an initramfs with it (under the build
	lock) and gives the guest slqbtest.faults=1 (and rate, if given, as
	slqbtest.faultrate); judge() notes in the console log what was
	injected and what the module saw.
	"""

	def __init__(self, rate: str = '') -> None:
		self.params = guest_params(rate)

	def start(self, paths: Paths, prepared: Prepared,
		  req: BootRequest) -> BootExtras:
		spec = prepared.spec
		if spec.arch != DEFAULT_ARCH or spec.base_digest:
			raise SlqbError('fault injection needs the harness\'s own x86_64 '
					'kernel config and guest init', exit_code=2)
		with BuildLock(paths):
			build_module(paths, spec)
			initrd = build_initramfs(paths, spec, extra=ModuleFiles())
		return BootExtras(initrd=initrd, params=self.params)

	def judge(self, outcome: BootOutcome) -> List[str]:
		lines = outcome.run.lines
		notes = [f'faults: {phase}: failslab {slab}, fail_page_alloc {page} '
			 'injected' for phase, (slab, page) in injected(lines).items()]
		verdict = module_verdict(lines)
		if verdict:
			notes.append(f'faults: module: {verdict.line}')
		return notes + ['faults: ' + s for s in rate_limit_problems(lines)[1]]


def hook_for(faults: bool) -> Optional[FaultInjection]:
	"""The hook a boot needs: a FaultInjection when it asks for faults."""
	return FaultInjection() if faults else None


# ---------------------------------------------------------------- checks

# The checks of `slqb test` on a faults boot, named '<prefix>: <check>'.
CHECKS = ('faults injected into the stress', 'order fallback reached',
	  'bulk allocation failed part way', 'objects intact under faults',
	  'allocation failure reports rate-limited',
	  'slab memory back after the faults',
	  'failed bulk allocations keep no memcg charge')

# The guest's line after the module's memcg=1 run (guest/init.sh
# faults_memcg): the cgroup's memory.current once the module is gone, and
# the module's counts.
MEMCG_RE = re.compile(r'SLQB-GUEST: faults-memcg: memory\.current=(\d+) '
		      r'rounds=(\d+) failed=(\d+) unsettled=(\d+) bad=(\d+)')
# What the cgroup may still hold with no leak: the per-CPU charge stocks
# (64 pages each) of a few CPUs, and what the exiting task left.
MEMCG_SLACK = 2 << 20
# The failures must have had more than this to give back, or a leak could
# hide in the slack.
MEMCG_ENOUGH = 16 * MEMCG_SLACK


def step_problem(lines: Sequence[str], step: str) -> Optional[str]:
	"""Why the guest's step of that name is not ok (None if it is), with
	its output."""
	results = step_results(list(lines))
	if step not in results:
		return f'the guest never finished step {step}'
	if not results[step]:
		return f'step {step} FAILED:\n' + quote_lines(
			step_output(list(lines), step)[-15:])
	return None


def the_verdict(lines: Sequence[str]) -> ModuleVerdict:
	"""The module's verdict, or a CheckFailed that says why there is none."""
	verdict = module_verdict(lines)
	if verdict is None:
		why = step_problem(lines, 'faults-slqb') or \
			'step faults-slqb ended without a "slqb_faults: PASS|FAIL" ' \
			'line:\n' + quote_lines(step_output(list(lines), 'faults-slqb')[-5:])
		raise CheckFailed(f'the faults module gave no verdict: {why}')
	return verdict


def check_stress(lines: Sequence[str]) -> None:
	"""Both kinds of failures hit the stress."""
	counts = injected(lines).get('stress')
	if counts is None:
		why = step_problem(lines, 'faults-setup') or step_problem(lines, 'stress')
		raise CheckFailed('the guest printed no "faults stress" counts' +
				  (f': {why}' if why else ''))
	slab, page = counts
	if not slab or not page:
		raise CheckFailed(f'failslab injected {slab} failures and '
				  f'fail_page_alloc {page} into the stress: want '
				  'some of each')


def check_fallback(lines: Sequence[str]) -> None:
	"""A bulk allocation got objects from a slab below the cache's order."""
	counts = the_verdict(lines).counts
	if not counts.get('order'):
		raise CheckFailed(f'the module\'s cache has slabs of order '
				  f'{counts.get("order", "?")}: no larger order to '
				  'fall back from')
	if not counts.get('fallback_slabs'):
		raise CheckFailed(f'no object of {counts.get("bulk_ok", 0)} bulk '
				  'allocations came from a slab below order '
				  f'{counts["order"]}; fail_page_alloc injected '
				  f'{injected(lines).get("slqb", ("?", "?"))[1]} failures')


def check_part_way(lines: Sequence[str]) -> None:
	"""A bulk allocation failed after it had taken objects."""
	counts = the_verdict(lines).counts
	if not counts.get('bulk_part_way'):
		raise CheckFailed(f'none of {counts.get("rounds", 0)} bulk allocations '
				  'failed; fail_page_alloc injected '
				  f'{injected(lines).get("slqb", ("?", "?"))[1]} failures')


def check_intact(lines: Sequence[str]) -> None:
	"""The module's verdict is PASS: no bad object, every CPU ran."""
	verdict = the_verdict(lines)
	why = step_problem(lines, 'faults-slqb')
	if verdict.verdict != 'PASS' or why:
		raise CheckFailed(f'{verdict.line}' + (f'\n{why}' if why else ''))


def check_rate_limits(lines: Sequence[str]) -> None:
	problems, summary = rate_limit_problems(lines)
	if problems:
		raise CheckFailed('\n'.join(problems + summary))


def check_memory(lines: Sequence[str]) -> None:
	why = step_problem(lines, 'faults-slab-memory')
	if why:
		raise CheckFailed(why)


def check_memcg(lines: Sequence[str]) -> None:
	"""The charges of the failed bulk allocations came back."""
	found = [m for m in map(MEMCG_RE.search, lines) if m]
	if not found:
		why = step_problem(lines, 'faults-slqb')
		raise CheckFailed('the guest printed no "faults-memcg:" line with '
				  'the module\'s counts' + (f': {why}' if why else ''))
	current, rounds, failed, unsettled, bad = map(int, found[-1].groups())
	counts = (f'memory.current {current} bytes after {failed} failed bulk '
		  f'allocations of {rounds}, which did not return {unsettled} '
		  f'bytes of objects')
	if bad:
		raise CheckFailed(f'{bad} bulk allocations returned neither 0 nor all')
	if unsettled < MEMCG_ENOUGH:
		raise CheckFailed(f'{counts}: too few to tell a leak from the '
				  f'{MEMCG_SLACK} bytes of slack; want {MEMCG_ENOUGH}')
	if current > MEMCG_SLACK:
		raise CheckFailed(f'{counts}: more than the {MEMCG_SLACK} bytes of '
				  'slack is still charged')


CHECK_FUNCS = dict(zip(CHECKS, (check_stress, check_fallback, check_part_way,
				check_intact, check_rate_limits, check_memory,
				check_memcg)))


def report_checks(ctx: Context, prefix: str, outcome: BootOutcome) -> None:
	"""The CHECKS of a faults boot, named '<prefix>: <check>'."""
	lines = outcome.run.lines
	for name in CHECKS:
		def holds(name=name) -> None:
			try:
				CHECK_FUNCS[name](lines)
			except CheckFailed as e:
				raise CheckFailed(f'{e}\nFull console log: {outcome.log_path}')
		ctx.check(f'{prefix}: {name}', holds)
