# SPDX-License-Identifier: GPL-2.0
"""The kernels `slqb test` builds and boots: a data table, BOOTS.

To boot another shape, add a Boot line. Boots with the same allocator and
kconfig share one build. SLQB boots run only once the patched tree has
`config SLQB`; until then they are printed as SKIP.
"""

import dataclasses
import json
import re
from typing import Callable, Collection, List, Optional, Sequence, Tuple

import slqb_faults
import slqb_memhp
from slqb_boot import (BootOutcome, BootRequest, Prepared, boot_kernel,
		       patched_tree_has_slqb, prepare_kernel, prepare_tree)
from slqb_build import KernelSpec, build_kernel, config_value, configure
from slqb_checks import CheckFailed, Context, check_group
from slqb_guest import fake_report_params, load_params, selftest_params
from slqb_host import BuildLock
from slqb_qemu import Shape
from slqb_report import (REPORTING_SUITES, Allowed, classify, ktap_suite,
			 suite_reports, strip_printk, unexpected_reports)
from slqb_tree import pristine_stamp_path, read_json
from slqb_util import SlqbError, quote_lines


@dataclasses.dataclass(frozen=True)
class Boot:
	"""One boot of `slqb test`.

	mode and stress go to the guest init (see guest/init.sh). expect is
	'pass' (guest PASS, no bad kernel reports, KUnit all ok), 'report:LABEL'
	(the harness must catch a report with that label, see slqb_report),
	'timeout' (the harness must stop QEMU and say so), 'debug' (the
	slqb_debug= reports, DEBUG_CASES) or a suite of REPORTING_SUITES (it
	passes, and its reports are the only ones). memory_hotplug
	(needs memoryless) plugs memory in and out during the workload, as
	`slqb boot --memory-hotplug` does, with checks of its own
	(slqb_memhp.CHECKS). faults fails allocations of the stress and of
	the faults module on purpose (failslab, fail_page_alloc), with checks
	of its own (slqb_faults.CHECKS); it does not go with memory_hotplug.
	"""
	alloc: str
	name: str
	cpus: int = 2
	nodes: int = 1
	memoryless: bool = False
	memory_hotplug: bool = False
	faults: bool = False
	mode: str = 'boot'
	stress: int = 10
	append: str = ''
	timeout: int = 600
	kconfig: Tuple[str, ...] = ()
	expect: str = 'pass'
	selftests: bool = False
	# (suite.case, why): KUnit cases a selftests boot expects to skip.
	skips: Tuple[Tuple[str, str], ...] = ()
	# The self-test modules of a selftests boot, if not all of them.
	selftest_names: Tuple[str, ...] = ()


# Boots that run the kernel's own slab self-tests; init_on_alloc and
# init_on_free put the allocator's initialisation paths under test too.
# KFENCE samples there, as in Debian's kernels, and the slqb suite's KFENCE
# cases run.
SELFTESTS_ON = 'init_on_alloc=1 init_on_free=1 kfence.sample_interval=100 '
SELFTESTS = SELFTESTS_ON + selftest_params()
KFENCE = 'kfence.sample_interval=100 ' + load_params('kfence_test')
# Generic KASAN (the default mode) with its KUnit suite as a module.
KASAN = ('CONFIG_KASAN=y', 'CONFIG_KASAN_KUNIT_TEST=m')
# Cases of the suites in REPORTING_SUITES that fail whatever the allocator,
# for a reason outside it: a failure of one is a SKIP that says why, on
# SLUB and on SLQB alike, and does not fail "KUnit all ok".
TOOLCHAIN_FAILURES = {
	'kasan.kasan_global_oob_right':
	'fails on SLUB too, same config and GCC 12 (`slqb test --group peers`): '
	'a read past a global array of the module, no slab object involved',
	**{f'kmsan.test_memcpy_aligned_to_{dst}':
	   'fails on SLUB too, same config and clang 14: a memcpy() between '
	   'two stack variables, no slab object involved'
	   for dst in ('aligned', 'unaligned', 'unaligned2')},
}
DEBUG_NO_CACHE = 'no_such_cache'
# Seconds of stress-ng: the memory hotplug boots need the longest window
# (the hotplug runs inside it); the boots where every step is several
# times slower (KASAN, every cache debugged) the shortest.
STRESS = 30
STRESS_MEMHP = 45
STRESS_SLOW = 20

BOOTS = [
	# The harness catching what it must catch, on a real kernel. They boot
	# the SLQB kernel of the boots below: a SLUB kernel of their own would
	# cost CI a build.
	Boot('slqb', 'fake-BUG', mode='quick', append=fake_report_params('BUG'),
	     expect='report:BUG:'),
	Boot('slqb', 'hang', mode='hang', timeout=20, expect='timeout'),
	Boot('slqb', '4cpu-2node', cpus=4, nodes=2, stress=STRESS,
	     append=SELFTESTS, selftests=True),
	Boot('slqb', '2cpu-1node', cpus=2, stress=STRESS),
	# Memory comes to the memoryless node and to node 0 during the stress
	# and goes again after it (slqb_memhp).
	Boot('slqb', '4cpu-2node-memoryless-memhp', cpus=4, nodes=2,
	     memoryless=True, memory_hotplug=True, stress=STRESS_MEMHP),
	# failslab and fail_page_alloc fail allocations of the stress's tasks,
	# then page allocations of the faults module, which reaches SLQB's
	# order fallback and part-way bulk failures (slqb_faults): no report
	# but the rate-limited ones of allocation failures, no leak.
	Boot('slqb', '4cpu-2node-memoryless-faults', cpus=4, nodes=2,
	     memoryless=True, faults=True, stress=STRESS_SLOW),
	# Bugs on purpose: slqb_debug= must report and contain each one. The
	# 'X' flag and the missing cache must each draw one warning.
	# no_hash_pointers: the reports and the module print the same address.
	Boot('slqb', 'debug', mode='modules', timeout=300,
	     append=f'slqb_debug=FZPUX,slqb_dbg_*;{DEBUG_NO_CACHE} no_hash_pointers '
	     + load_params('test_slqb_debug', debugcheck=True),
	     expect='debug'),
	# Every cache debugged, under stress, with KFENCE sampling often: the
	# debug paths, KFENCE and hardened usercopy on all of the kernel's
	# objects. Any report fails it.
	Boot('slqb', 'debug-all-kfence', cpus=4, nodes=2, stress=STRESS_SLOW,
	     append='slqb_debug kfence.sample_interval=10'),
	# KFENCE's own KUnit suite (SLUB's run is in PEER_BOOTS).
	Boot('slqb', 'kfence', mode='modules', timeout=600, append=KFENCE,
	     expect='kfence'),
	# KASAN's own KUnit suite on SLQB (SLUB's run is in PEER_BOOTS), with
	# the slqb suite under KASAN on two nodes, where freed objects wait on
	# LIFOs, rlists and remote queues; then the workload and test_meminit
	# under KASAN (test_xarray, four times slower under KASAN and TCG,
	# runs in the plain boots).
	Boot('slqb', '4cpu-2node-kasan-test', cpus=4, nodes=2, mode='modules',
	     timeout=600, kconfig=KASAN, append=load_params('kasan_test'),
	     expect='kasan'),
	Boot('slqb', '4cpu-2node-kasan', cpus=4, nodes=2, stress=STRESS_SLOW,
	     kconfig=KASAN, selftests=True, selftest_names=('test_meminit',),
	     append=SELFTESTS_ON + selftest_params('test_meminit'),
	     skips=(('slqb_api.slqb_test_alias_name',
		     'KASAN keeps caches from merging: no alias to test'),
		    ('slqb_lifo.slqb_test_double_free',
		     'KASAN reports a double free itself; kasan_test\'s '
		     'kmem_cache_double_free is that check'))),
]

# Boots of `slqb test --group peers` only: the same suites and workloads
# on SLUB, to compare with when an SLQB check fails; each costs a kernel
# build of its own, or a boot CI does not need.
PEER_BOOTS = [
	Boot('slub', '4cpu-2node', cpus=4, nodes=2, stress=STRESS,
	     append=SELFTESTS, selftests=True),
	# Memory comes to the memoryless node and to node 0 during the stress
	# and goes again after it (slqb_memhp).
	Boot('slub', '4cpu-2node-memoryless-memhp', cpus=4, nodes=2,
	     memoryless=True, memory_hotplug=True, stress=STRESS_MEMHP),
	Boot('slub', 'kfence', mode='modules', timeout=600, append=KFENCE,
	     expect='kfence'),
	Boot('slub', 'kasan', mode='modules', timeout=600, kconfig=KASAN,
	     append=load_params('kasan_test'), expect='kasan'),
]

# The CONFIG_SMP=n (and so CONFIG_NUMA=n) build of SLQB, compiled but not
# booted: SLQB's own objects, for the code that SMP and NUMA leave out.
NOSMP_KCONFIG = ('CONFIG_SMP=n',)

# The kernel's own tests that print a summary line instead of KTAP: the
# line that says they all passed must be on the console.
SELFTEST_LINES = [
	('test_meminit', re.compile(r'test_meminit: all \d+ tests passed!')),
	('test_xarray', re.compile(r'XArray: (\d+) of \1 tests passed')),
]

# KUnit suites whose every test case is reported as a check of its own.
# SLQB's own KUnit suites (lib/slqb_kunit*.c), one per concern.
SLQB_SUITES = ('slqb_lifo', 'slqb_remote', 'slqb_reserve', 'slqb_node',
	       'slqb_trim', 'slqb_slab', 'slqb_api', 'slqb_debug')
KUNIT_DETAIL = SLQB_SUITES + ('overflow',)


def selftest_lines(boot: Boot) -> List[Tuple[str, re.Pattern]]:
	"""The SELFTEST_LINES of the modules this boot loads."""
	return [(name, rx) for name, rx in SELFTEST_LINES
		if not boot.selftest_names or name in boot.selftest_names]


def detail_checks(boot: Boot) -> List[str]:
	"""Check names of the self-tests and KUnit cases a selftests boot reports."""
	prefix = f'{boot.alloc} {boot.name}'
	names = [f'{prefix}: {name} passed' for name, _ in selftest_lines(boot)]
	suites = [s for s in KUNIT_DETAIL
		  if s not in SLQB_SUITES or boot.alloc == 'slqb']
	names += [f'{prefix}: KUnit suite {s} present' for s in suites]
	return names


def check_names(boot: Boot) -> List[str]:
	"""The checks one boot reports."""
	prefix = f'{boot.alloc} {boot.name}'
	if boot.expect == 'pass':
		return [f'{prefix}: guest PASS', f'{prefix}: no bad kernel reports',
			f'{prefix}: KUnit all ok'] + \
			(detail_checks(boot) if boot.selftests else []) + \
			([f'{prefix}: {c[0]}' for c in slqb_memhp.CHECKS]
			 if boot.memory_hotplug else []) + \
			([f'{prefix}: {c}' for c in slqb_faults.CHECKS]
			 if boot.faults else [])
	if boot.expect == 'timeout':
		return [f'{prefix}: timeout caught and reported']
	if boot.expect == 'debug':
		return debug_checks(prefix)
	if boot.expect in REPORTING_SUITES:
		return [f'{prefix}: guest PASS', f'{prefix}: KUnit all ok',
			f'{prefix}: no kernel reports but {boot.expect}_test\'s',
			f'{prefix}: KUnit suite {boot.expect} present']
	return [f'{prefix}: "{boot.expect[len("report:"):]}" report caught and quoted']


# test_slqb_debug's cases: (case, the report title slqb_debug= must print).
DEBUG_CASES = [
	('double_free', 'Object already free'),
	('invalid_free', 'Invalid pointer freed'),
	('foreign_free', 'Foreign pointer freed'),
	('red_zone', 'Redzone overwritten'),
	('use_after_free', 'Poison overwritten'),
	('free_pointer', 'Free pointer corrupted'),
	('wrong_cache', 'Wrong cache'),
	('validate', 'Poison overwritten'),
]
DEBUG_CASE_RE = re.compile(r'test_slqb_debug: (\w+): cache (\S+) object (0x[0-9a-f]+)')
VALIDATE_RE = re.compile(r'SLQB: validate (\S+): (\d+) slabs checked, (\d+) errors')


def debug_checks(prefix: str) -> List[str]:
	"""Check names of the slqb_debug= boot."""
	names = [f'{prefix}: guest PASS', f'{prefix}: KUnit all ok',
		 f'{prefix}: no kernel reports but the expected ones']
	for case, _ in DEBUG_CASES:
		names += [f'{prefix}: {case} reported with its cache and object',
			  f'{prefix}: {case} contained']
	return names + [f'{prefix}: unknown flag warned once',
			f'{prefix}: unknown cache warned once',
			f'{prefix}: validate finds nothing after the repairs',
			f'{prefix}: alloc_calls names the caller',
			f'{prefix}: free_calls names the caller']


def kernel_specs(boots: Sequence[Boot] = BOOTS) -> List[KernelSpec]:
	"""The distinct kernels boots need, in table order."""
	specs = []
	for boot in boots:
		spec = KernelSpec(boot.alloc, boot.kconfig)
		if spec not in specs:
			specs.append(spec)
	return specs


def relevant(outcome: BootOutcome, *words: str) -> str:
	"""The outcome's error paragraphs that mention one of words."""
	found = [e for e in outcome.errors if any(w in e for w in words)]
	return '\n'.join(found or outcome.errors) or 'no details'


def judge_pass(ctx: Context, boot: Boot, outcome: BootOutcome,
	       memhp: Optional[slqb_memhp.MemoryHotplug] = None,
	       allowed: Optional[Allowed] = None) -> None:
	"""The three checks of a boot expected to pass, then those of its
	self-tests, of its memory hotplug (memhp, the boot's hook) and of its
	fault injection. allowed(label, index, line), if given, names the
	report lines that do not fail the boot (they are printed)."""
	guest, reports, kunit = check_names(boot)[:3]

	def guest_pass() -> None:
		if outcome.verdict != 'PASS' or outcome.run.timed_out:
			raise CheckFailed(relevant(outcome, 'guest', 'QEMU'))

	def no_reports() -> None:
		if allowed is not None:
			text = [strip_printk(line) for line in outcome.run.lines]
			bad = unexpected_reports(text, allowed)
			shown = [l for i, l in enumerate(text)
				 if classify(l) and allowed(classify(l), i, l)]
			if shown:
				print(quote_lines([f'{len(shown)} report lines allowed:']
						  + shown[:20]), flush=True)
			if bad:
				raise CheckFailed(f'{len(bad)} report lines, first:\n'
						  + '\n'.join(bad[:5]) +
						  f'\nFull console log: {outcome.log_path}')
			return
		if outcome.findings:
			labels = ', '.join(f.label for f in outcome.findings)
			raise CheckFailed(f'{labels}\n' + relevant(outcome, 'the kernel reported'))

	def kunit_ok() -> None:
		if not outcome.ktap.clean():
			raise CheckFailed('\n'.join(outcome.ktap.summary()) + '\n' +
					  relevant(outcome, 'KUnit'))
	ctx.check(guest, guest_pass)
	ctx.check(reports, no_reports)
	ctx.check(kunit, kunit_ok)
	if boot.selftests:
		judge_selftests(ctx, boot, outcome)
	if boot.memory_hotplug:
		slqb_memhp.report_checks(ctx, f'{boot.alloc} {boot.name}', outcome,
					 memhp.record if memhp else None, boot.nodes)
	if boot.faults:
		slqb_faults.report_checks(ctx, f'{boot.alloc} {boot.name}', outcome)


def judge_selftests(ctx: Context, boot: Boot, outcome: BootOutcome) -> None:
	"""One check per self-test summary line and per KUnit case."""
	prefix = f'{boot.alloc} {boot.name}'
	text = [strip_printk(line) for line in outcome.run.lines]
	for name, pattern in selftest_lines(boot):
		def seen(pattern=pattern, name=name) -> None:
			if not any(pattern.search(line) for line in text):
				hits = [l for l in text if name.split('_')[-1].lower() in l.lower()]
				raise CheckFailed(f'no "{pattern.pattern}" line on the console'
						  + (':\n' + '\n'.join(hits[-5:]) if hits else ''))
		ctx.check(f'{prefix}: {name} passed', seen)
	for suite_name in KUNIT_DETAIL:
		if suite_name in SLQB_SUITES and boot.alloc != 'slqb':
			continue
		suite = next((s for s in outcome.ktap.suites if s.name == suite_name), None)

		def present(suite=suite, suite_name=suite_name) -> None:
			if suite is None or not suite.children:
				raise CheckFailed(f'KUnit suite {suite_name} did not report')
		ctx.check(f'{prefix}: KUnit suite {suite_name} present', present)
		for case in suite.children if suite else []:
			name = f'{prefix}: KUnit {suite_name}.{case.name}'
			why = dict(boot.skips).get(f'{suite_name}.{case.name}')
			if case.skipped and why:
				ctx.skip(name, why)
			else:
				ctx.record(name, case.ok and not case.skipped,
					   'skipped' if case.skipped else 'not ok')


def judge_common(ctx: Context, prefix: str, outcome: BootOutcome,
		 allowed: Allowed, reports_check: str,
		 excused: Collection[str] = ()) -> None:
	"""Guest verdict, KUnit and reports of a boot with reports on purpose.
	KUnit failures of the cases in excused (see TOOLCHAIN_FAILURES) do not
	count."""
	text = [strip_printk(line) for line in outcome.run.lines]

	def guest_pass() -> None:
		if outcome.verdict != 'PASS' or outcome.run.timed_out:
			raise CheckFailed(relevant(outcome, 'guest', 'QEMU'))

	def kunit_ok() -> None:
		if not outcome.ktap.clean(excused):
			raise CheckFailed('\n'.join(outcome.ktap.summary()))

	def only_expected() -> None:
		bad = unexpected_reports(text, allowed)
		if bad:
			raise CheckFailed(f'{len(bad)} unexpected report lines, first:\n'
					  + '\n'.join(bad[:5]) +
					  f'\nFull console log: {outcome.log_path}')
	ctx.check(f'{prefix}: guest PASS', guest_pass)
	ctx.check(f'{prefix}: KUnit all ok', kunit_ok)
	ctx.check(reports_check, only_expected)


def report_block(text: List[str], start: int, cache: str) -> List[str]:
	"""The lines of the slab error report that starts at text[start]."""
	end = start + 1
	while end < len(text) and not text[end].startswith(f'FIX {cache}:') \
	      and end < start + 200:
		end += 1
	return text[start:end + 1]


def judge_debug(ctx: Context, boot: Boot, outcome: BootOutcome) -> None:
	"""The checks of the slqb_debug= boot."""
	prefix = f'{boot.alloc} {boot.name}'
	text = [strip_printk(line) for line in outcome.run.lines]

	def allowed(label: str, index: int, line: str) -> bool:
		return label == 'slab error report' and ' slqb_dbg_' in line
	judge_common(ctx, prefix, outcome, allowed,
		     f'{prefix}: no kernel reports but the expected ones')
	seen = {}
	for index, line in enumerate(text):
		m = DEBUG_CASE_RE.search(line)
		if m:
			seen[m.group(1)] = (index, m.group(2), m.group(3))
	for case, title in DEBUG_CASES:
		def reported(case=case, title=title) -> None:
			if case not in seen:
				raise CheckFailed(f'test_slqb_debug printed no "{case}:" line')
			index, cache, obj = seen[case]
			head = re.compile(rf'^BUG {re.escape(cache)} \(.*\): {re.escape(title)}$')
			for start in range(index, len(text)):
				if head.search(text[start]):
					block = report_block(text, start, cache)
					if any(obj in l for l in block):
						return
					raise CheckFailed(f'the "{title}" report of {cache} does '
							  f'not name object {obj}:\n' +
							  '\n'.join(block[:12]))
			raise CheckFailed(f'no "BUG {cache} (...): {title}" report after '
					  f'the bug; log: {outcome.log_path}')
		ctx.check(f'{prefix}: {case} reported with its cache and object', reported)

		def contained(case=case) -> None:
			if case == 'validate':
				return validate_repaired(text)
			if not any(f'test_slqb_debug: {case}: ok' == l.strip() for l in text):
				hits = [l for l in text if f'test_slqb_debug: {case}:' in l]
				raise CheckFailed('no "ok" from the module:\n' + '\n'.join(hits[-3:]))
		ctx.check(f'{prefix}: {case} contained', contained)

	def warned(pattern: str) -> None:
		hits = [l for l in text if re.search(pattern, l)]
		if len(hits) != 1:
			raise CheckFailed(f'{len(hits)} lines match "{pattern}", want 1')
	ctx.check(f'{prefix}: unknown flag warned once',
		  lambda: warned(r"slqb_debug: unknown flag 'X' ignored"))
	ctx.check(f'{prefix}: unknown cache warned once',
		  lambda: warned(rf"slqb_debug: no cache named '{DEBUG_NO_CACHE}'"))
	ctx.check(f'{prefix}: validate finds nothing after the repairs',
		  lambda: validate_clean(text))
	for which in ('alloc_calls', 'free_calls'):
		ctx.check(f'{prefix}: {which} names the caller',
			  lambda which=which: calls_listed(text, which))


def validate_results(text: List[str]) -> Tuple[List, List]:
	"""(first pass, second pass) of (cache, slabs, errors) validate lines."""
	try:
		split = next(i for i, l in enumerate(text) if l.strip() == 'validate again:')
	except StopIteration:
		raise CheckFailed('the guest never ran the second validate pass')
	def results(lines):
		return [(m.group(1), int(m.group(2)), int(m.group(3)))
			for m in map(VALIDATE_RE.search, lines) if m]
	return results(text[:split]), results(text[split:])


def validate_repaired(text: List[str]) -> None:
	"""The first validate found the damage, the second nothing."""
	first, second = validate_results(text)
	one = [r for r in first if r[0] == 'slqb_dbg_validate']
	again = [r for r in second if r[0] == 'slqb_dbg_validate']
	if not one or one[0][2] < 1:
		raise CheckFailed(f'the first validate of slqb_dbg_validate found no error: {one}')
	if not again or again[0][2] != 0:
		raise CheckFailed(f'the second validate still finds errors: {again}')


def validate_clean(text: List[str]) -> None:
	"""Every slqb_dbg_* cache validates clean on the second pass."""
	_, second = validate_results(text)
	caches = {cache for case, _ in DEBUG_CASES for cache in
		  [f'slqb_dbg_{case}']}
	got = {r[0]: r for r in second}
	missing = sorted(caches - set(got))
	dirty = [r for r in second if r[2]]
	if missing or dirty:
		raise CheckFailed(f'no result for {missing}; with errors: {dirty}')


def calls_listed(text: List[str], which: str) -> None:
	"""The list of slqb_dbg_validate names a function of the module."""
	try:
		start = text.index(f'{which} of slqb_dbg_validate:')
	except ValueError:
		raise CheckFailed(f'the guest printed no {which} of slqb_dbg_validate')
	block = text[start + 1:start + 6]
	if not any('[test_slqb_debug]' in l and re.match(r'\s*\d+ ', l) for l in block):
		raise CheckFailed('no caller in test_slqb_debug:\n' + '\n'.join(block))


def judge_suite(ctx: Context, boot: Boot, outcome: BootOutcome) -> None:
	"""The checks of a boot that runs kfence_test or kasan_test (boot.expect
	names the suite), whose reports on purpose are allowed inside it."""
	prefix = f'{boot.alloc} {boot.name}'
	name = boot.expect
	suite = ktap_suite(outcome.ktap, name)
	judge_common(ctx, prefix, outcome, suite_reports(outcome.run.lines, suite, name),
		     f'{prefix}: no kernel reports but {name}_test\'s',
		     TOOLCHAIN_FAILURES)

	def present() -> None:
		if suite is None or not suite.children:
			raise CheckFailed(f'KUnit suite {name} did not report')
	ctx.check(f'{prefix}: KUnit suite {name} present', present)
	for case in suite.children if suite else []:
		why = TOOLCHAIN_FAILURES.get(f'{name}.{case.name}')
		if case.skipped:
			ctx.skip(f'{prefix}: KUnit {name}.{case.name}', 'skipped by KUnit')
		elif why and not case.ok:
			ctx.skip(f'{prefix}: KUnit {name}.{case.name}', f'fails: {why}')
		else:
			ctx.record(f'{prefix}: KUnit {name}.{case.name}', case.ok, 'not ok')


def judge_expected_failure(ctx: Context, boot: Boot, outcome: BootOutcome) -> None:
	"""The check of a boot whose failure the harness must catch."""
	[name] = check_names(boot)

	def caught() -> None:
		if outcome.ok:
			raise CheckFailed('the harness judged this boot a PASS')
		if boot.expect == 'timeout':
			if not outcome.run.timed_out or 'timeout' not in outcome.errors[0]:
				raise CheckFailed('no timeout reported:\n' + relevant(outcome))
		else:
			label = boot.expect[len('report:'):]
			if label not in [f.label for f in outcome.findings]:
				raise CheckFailed(f'no "{label}" finding:\n' + relevant(outcome))
		if outcome.log_path not in outcome.errors[0]:
			raise CheckFailed('the error does not name the console log')
	ctx.check(name, caught)


Judge = Callable[[Context, Boot, BootOutcome,
		  Optional[slqb_memhp.MemoryHotplug]], None]


def run_boot(ctx: Context, prepared: Prepared, boot: Boot,
	     judge: Optional[Judge] = None) -> None:
	"""Boots one table entry and reports its checks: judge's, if given,
	else those its expect asks for."""
	req = BootRequest(shape=Shape(boot.cpus, boot.nodes, boot.memoryless,
				      boot.memory_hotplug),
			  mode=boot.mode, stress=boot.stress, append=boot.append,
			  timeout=boot.timeout,
			  console='stream' if ctx.verbose else 'markers')
	try:
		if boot.faults and boot.memory_hotplug:
			raise SlqbError('a boot has fault injection or memory hotplug, '
					'not both (one hook per boot)')
		memhp = slqb_memhp.hook_for(req.shape)
		outcome = boot_kernel(ctx.paths, prepared, req,
				      hook=slqb_faults.hook_for(boot.faults) or memhp)
	except SlqbError as e:
		for name in check_names(boot):
			ctx.record(name, False, f'could not boot: {e}')
		return
	if judge is not None:
		judge(ctx, boot, outcome, memhp)
	elif boot.expect == 'pass':
		judge_pass(ctx, boot, outcome, memhp)
	elif boot.expect == 'debug':
		judge_debug(ctx, boot, outcome)
	elif boot.expect in REPORTING_SUITES:
		judge_suite(ctx, boot, outcome)
	else:
		judge_expected_failure(ctx, boot, outcome)


def slqb_available(ctx: Context) -> bool:
	"""Whether the patched tree has config SLQB (checked once per run)."""
	if 'has_slqb' not in ctx.facts:
		ctx.facts['has_slqb'] = patched_tree_has_slqb(ctx.paths)
	return ctx.facts['has_slqb']


# SLQB's own objects, which the CONFIG_SMP=n build compiles.
# (A built-in composite object such as lib/slqb_kunit.o has no rule of
# its own: its parts are named.)
NOSMP_OBJECTS = ('mm/slqb.o', 'mm/slqb_slab.o', 'mm/slqb_remote.o',
		 'mm/slqb_drain.o', 'mm/slqb_debug.o', 'mm/slqb_sysfs.o') + \
	tuple(f'lib/slqb_kunit_{part}.o' for part in
	      ('util', 'lifo', 'remote', 'reserve', 'node', 'trim', 'slab',
	       'api', 'debug'))


def compile_nosmp(ctx: Context) -> None:
	"""The check that SLQB compiles without SMP and NUMA."""
	spec = KernelSpec('slqb', NOSMP_KCONFIG)
	name = f'build {spec.name}: SLQB compiles with CONFIG_SMP=n'
	if not slqb_available(ctx):
		ctx.skip(name, 'the patched tree has no config SLQB yet')
		return

	def build() -> None:
		with BuildLock(ctx.paths):
			base, update = prepare_tree(ctx.paths)
			stamp = json.dumps(read_json(pristine_stamp_path(ctx.paths)),
					   sort_keys=True)
			configure(ctx.paths, spec, stamp, update.kconfig_digest)
			if config_value(ctx.paths, spec, 'CONFIG_SMP') is not None:
				raise CheckFailed(f'{spec.name} has CONFIG_SMP set')
			build_kernel(ctx.paths, spec, base, NOSMP_OBJECTS)
	ctx.check(name, build)


def run_table(ctx: Context, table: Sequence[Boot],
	      judge: Optional[Judge] = None) -> None:
	"""Builds each kernel of table and boots it in each of its shapes;
	judge, if given, judges every boot (see run_boot). Boots that
	`slqb test --boot` leaves out are not run, nor their kernels built."""
	table = [b for b in table if ctx.wants_boot(b.name)]
	for spec in kernel_specs(table):
		boots = [b for b in table if KernelSpec(b.alloc, b.kconfig) == spec]
		if spec.alloc == 'slqb' and not slqb_available(ctx):
			ctx.skip(f'build {spec.name} and {len(boots)} boots',
				 'the patched tree has no config SLQB yet')
			continue
		build = f'build {spec.name}'
		ctx.expect([build] + [n for b in boots for n in check_names(b)])
		prepared: Optional[Prepared] = ctx.check(build, lambda: prepare_kernel(ctx.paths, spec))
		for boot in boots:
			if prepared is None:
				for name in check_names(boot):
					ctx.record(name, False, 'not run: the build failed')
			else:
				run_boot(ctx, prepared, boot, judge)


@check_group('kernels')
def kernel_boots(ctx: Context) -> None:
	"""Builds each kernel of BOOTS and boots it in each of its shapes; then
	compiles SLQB without SMP."""
	run_table(ctx, BOOTS)
	compile_nosmp(ctx)
