# SPDX-License-Identifier: GPL-2.0
"""The kernels `slqb test` builds and boots: a data table, BOOTS.

To boot another shape, add a Boot line. Boots with the same allocator and
kconfig share one build. SLQB boots run only once the patched tree has
`config SLQB`; until then they are printed as SKIP.
"""

import dataclasses
import re
from typing import List, Optional, Tuple

from slqb_boot import (BootOutcome, BootRequest, Prepared, boot_kernel,
		       patched_tree_has_slqb, prepare_kernel)
from slqb_build import KernelSpec
from slqb_checks import CheckFailed, Context, check_group
from slqb_qemu import Shape
from slqb_report import strip_printk
from slqb_util import SlqbError


@dataclasses.dataclass(frozen=True)
class Boot:
	"""One boot of `slqb test`.

	mode and stress go to the guest init (see guest/init). expect is
	'pass' (guest PASS, no bad kernel reports, KUnit all ok), 'report:LABEL'
	(the harness must catch a report with that label, see slqb_report), or
	'timeout' (the harness must stop QEMU and say so).
	"""
	alloc: str
	name: str
	cpus: int = 2
	nodes: int = 1
	memoryless: bool = False
	mode: str = 'boot'
	stress: int = 10
	append: str = ''
	timeout: int = 600
	kconfig: Tuple[str, ...] = ()
	expect: str = 'pass'
	selftests: bool = False


# Boots that run the kernel's own slab self-tests; init_on_alloc and
# init_on_free put the allocator's initialisation paths under test too.
SELFTESTS = 'init_on_alloc=1 init_on_free=1 slqbtest.selftests=1'
STRESS = 45

BOOTS = [
	Boot('slub', '4cpu-2node', cpus=4, nodes=2, stress=STRESS,
	     append=SELFTESTS, selftests=True),
	Boot('slub', '4cpu-2node-memoryless', cpus=4, nodes=2, memoryless=True,
	     stress=STRESS),
	# The harness catching what it must catch, on a real kernel:
	Boot('slub', 'fake-BUG', mode='quick', append='slqbtest.fake=BUG',
	     expect='report:BUG:'),
	Boot('slub', 'hang', mode='hang', timeout=20, expect='timeout'),
	Boot('slqb', '4cpu-2node', cpus=4, nodes=2, stress=STRESS,
	     append=SELFTESTS, selftests=True),
	Boot('slqb', '2cpu-1node', cpus=2, stress=STRESS),
	Boot('slqb', '4cpu-1node', cpus=4, stress=STRESS),
	Boot('slqb', '4cpu-2node-memoryless', cpus=4, nodes=2, memoryless=True,
	     stress=STRESS),
	Boot('slqb', '1cpu-nosmp', cpus=1, stress=STRESS,
	     kconfig=('CONFIG_SMP=n',)),
]

# The kernel's own tests that print a summary line instead of KTAP: the
# line that says they all passed must be on the console.
SELFTEST_LINES = [
	('test_meminit', re.compile(r'test_meminit: all \d+ tests passed!')),
	('test_xarray', re.compile(r'XArray: (\d+) of \1 tests passed')),
]

# KUnit suites whose every test case is reported as a check of its own.
KUNIT_DETAIL = ('slqb', 'overflow')


def detail_checks(boot: Boot) -> List[str]:
	"""Check names of the self-tests and KUnit cases a selftests boot reports."""
	prefix = f'{boot.alloc} {boot.name}'
	names = [f'{prefix}: {name} passed' for name, _ in SELFTEST_LINES]
	suites = [s for s in KUNIT_DETAIL if s != 'slqb' or boot.alloc == 'slqb']
	names += [f'{prefix}: KUnit suite {s} present' for s in suites]
	return names


def check_names(boot: Boot) -> List[str]:
	"""The checks one boot reports."""
	prefix = f'{boot.alloc} {boot.name}'
	if boot.expect == 'pass':
		return [f'{prefix}: guest PASS', f'{prefix}: no bad kernel reports',
			f'{prefix}: KUnit all ok'] + (detail_checks(boot) if boot.selftests else [])
	if boot.expect == 'timeout':
		return [f'{prefix}: timeout caught and reported']
	return [f'{prefix}: "{boot.expect[len("report:"):]}" report caught and quoted']


def kernel_specs() -> List[KernelSpec]:
	"""The distinct kernels BOOTS needs, in table order."""
	specs = []
	for boot in BOOTS:
		spec = KernelSpec(boot.alloc, boot.kconfig)
		if spec not in specs:
			specs.append(spec)
	return specs


def relevant(outcome: BootOutcome, *words: str) -> str:
	"""The outcome's error paragraphs that mention one of words."""
	found = [e for e in outcome.errors if any(w in e for w in words)]
	return '\n'.join(found or outcome.errors) or 'no details'


def judge_pass(ctx: Context, boot: Boot, outcome: BootOutcome) -> None:
	"""The three checks of a boot expected to pass."""
	guest, reports, kunit = check_names(boot)[:3]

	def guest_pass() -> None:
		if outcome.verdict != 'PASS' or outcome.run.timed_out:
			raise CheckFailed(relevant(outcome, 'guest', 'QEMU'))

	def no_reports() -> None:
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


def judge_selftests(ctx: Context, boot: Boot, outcome: BootOutcome) -> None:
	"""One check per self-test summary line and per KUnit case."""
	prefix = f'{boot.alloc} {boot.name}'
	text = [strip_printk(line) for line in outcome.run.lines]
	for name, pattern in SELFTEST_LINES:
		def seen(pattern=pattern, name=name) -> None:
			if not any(pattern.search(line) for line in text):
				hits = [l for l in text if name.split('_')[-1].lower() in l.lower()]
				raise CheckFailed(f'no "{pattern.pattern}" line on the console'
						  + (':\n' + '\n'.join(hits[-5:]) if hits else ''))
		ctx.check(f'{prefix}: {name} passed', seen)
	for suite_name in KUNIT_DETAIL:
		if suite_name == 'slqb' and boot.alloc != 'slqb':
			continue
		suite = next((s for s in outcome.ktap.suites if s.name == suite_name), None)

		def present(suite=suite, suite_name=suite_name) -> None:
			if suite is None or not suite.children:
				raise CheckFailed(f'KUnit suite {suite_name} did not report')
		ctx.check(f'{prefix}: KUnit suite {suite_name} present', present)
		for case in suite.children if suite else []:
			ctx.record(f'{prefix}: KUnit {suite_name}.{case.name}',
				   case.ok and not case.skipped,
				   'skipped' if case.skipped else 'not ok')


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


def run_boot(ctx: Context, prepared: Prepared, boot: Boot) -> None:
	"""Boots one table entry and reports its checks."""
	req = BootRequest(shape=Shape(boot.cpus, boot.nodes, boot.memoryless),
			  mode=boot.mode, stress=boot.stress, append=boot.append,
			  timeout=boot.timeout,
			  console='stream' if ctx.verbose else 'markers')
	try:
		outcome = boot_kernel(ctx.paths, prepared, req)
	except SlqbError as e:
		for name in check_names(boot):
			ctx.record(name, False, f'could not boot: {e}')
		return
	if boot.expect == 'pass':
		judge_pass(ctx, boot, outcome)
	else:
		judge_expected_failure(ctx, boot, outcome)


def slqb_available(ctx: Context) -> bool:
	"""Whether the patched tree has config SLQB (checked once per run)."""
	if 'has_slqb' not in ctx.facts:
		ctx.facts['has_slqb'] = patched_tree_has_slqb(ctx.paths)
	return ctx.facts['has_slqb']


@check_group('kernels')
def kernel_boots(ctx: Context) -> None:
	"""Builds each kernel of BOOTS and boots it in each of its shapes."""
	for spec in kernel_specs():
		boots = [b for b in BOOTS if KernelSpec(b.alloc, b.kconfig) == spec]
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
				run_boot(ctx, prepared, boot)
