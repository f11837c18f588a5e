# SPDX-License-Identifier: GPL-2.0
"""`slqb test --arch arm64|i386`: SLQB built and booted on another
architecture, with the KUnit suite at boot.

These runs are not part of the default `slqb test` (CI): each needs a
cross or 32-bit kernel build of its own, and arm64 boots slowly under
TCG. Their groups, arch-arm64 and arch-i386, run on request: `slqb test
--arch NAME` or `--group arch-NAME`. The boots use the small static /init
of guest/mini-init.c. arm64 also boots two KASAN kernels, one in the
generic mode and one with software tags (arm64's Top Byte Ignore), with
KASAN's KUnit suite built in (the mini /init loads no modules), judged as
the kernels group judges its KASAN boot.
"""

from typing import Callable, Collection, Dict, List

from slqb_arch import arch_of
from slqb_boot import BootRequest, boot_kernel, prepare_kernel
from slqb_build import KernelSpec
from slqb_checks import CheckFailed, Context, check_group
from slqb_group_kernels import SLQB_SUITES, Boot, check_names, judge_suite
from slqb_host import ensure_packages
from slqb_qemu import Shape
from slqb_report import KtapReport
from slqb_util import SlqbError

ARCH_TIMEOUT_S = 1200
# The shapes each architecture boots. i386 has no NUMA (see
# configs/arch-i386.config); arm64 gets two nodes with memory.
ARCH_SHAPES: Dict[str, List[Shape]] = {
	'arm64': [Shape(cpus=2, nodes=2)],
	'i386': [Shape(cpus=2, nodes=1)],
}
# The KASAN boots, as Boots of the kernels group's table for its judgment
# of kasan_test's reports; each has a kernel of its own (kconfig).
ARCH_KASAN: Dict[str, List[Boot]] = {
	'arm64': [Boot('slqb', f'arm64-2cpu-2node-kasan{name}', cpus=2,
		       nodes=2, stress=0, timeout=ARCH_TIMEOUT_S,
		       expect='kasan',
		       kconfig=('CONFIG_KASAN=y', f'CONFIG_KASAN_{mode}=y',
				'CONFIG_KASAN_KUNIT_TEST=y'))
		  for name, mode in (('', 'GENERIC'), ('-sw-tags', 'SW_TAGS'))],
}


def boot_check(ctx: Context, prepared, shape: Shape) -> None:
	"""One boot: guest PASS, no kernel reports, the slqb suite ran clean."""
	console = 'stream' if ctx.verbose else 'markers'
	req = BootRequest(shape=shape, mode='boot', stress=0,
			  timeout=ARCH_TIMEOUT_S, console=console)
	outcome = boot_kernel(ctx.paths, prepared, req)
	if not outcome.ok:
		raise CheckFailed(f'{len(outcome.errors)} problems:\n' +
				  '\n'.join(outcome.errors))
	ran = {s.name: s for s in outcome.ktap.suites}
	missing = [name for name in SLQB_SUITES if name not in ran]
	if missing:
		raise CheckFailed(f'SLQB\'s KUnit suites {", ".join(missing)} did '
				  'not run:\n' + '\n'.join(outcome.ktap.summary()))
	cases = sum(len(ran[name].children) for name in SLQB_SUITES)
	passed, failed, skipped = outcome.ktap.count()
	print(f'    KUnit: {cases} SLQB tests; all suites: '
	      f'{passed} passed, {failed} failed, {skipped} skipped; guest ran '
	      f'{outcome.run.elapsed:.0f}s', flush=True)


def arch_group(arch_name: str) -> Callable[[Context], None]:
	"""The check group for one architecture."""
	arch = arch_of(arch_name)
	shapes = ARCH_SHAPES.get(arch.name)
	if not shapes:
		raise SlqbError(f'`slqb.py test --arch {arch.name}` has no boots: '
				'x86_64 is what plain `slqb.py test` runs', exit_code=2)

	def group(ctx: Context) -> None:
		build = f'{arch.name}: SLQB kernel builds'
		shapes_run = [s for s in shapes
			      if ctx.wants_boot(f'{arch.name}-{s.label()}')]
		boots = [f'{arch.name}: SLQB boots {s.label()} with the KUnit suite'
			 for s in shapes_run]
		if not boots:
			for boot in ARCH_KASAN.get(arch.name, []):
				kasan_boot(ctx, arch.name, boot)
			return
		ctx.expect([build] + boots)
		spec = KernelSpec('slqb', arch=arch.name)

		def prepare():
			# A missing cross compiler fails this check with the
			# apt-get line to run.
			ensure_packages(arch.packages)
			return prepare_kernel(ctx.paths, spec)
		prepared = ctx.check(build, prepare)
		if not prepared:
			return
		for name, shape in zip(boots, shapes_run):
			ctx.check(name, lambda s=shape: boot_check(ctx, prepared, s))
		for boot in ARCH_KASAN.get(arch.name, []):
			kasan_boot(ctx, arch.name, boot)
	return group


def kasan_boot(ctx: Context, arch_name: str, boot: Boot,
	       retry: Collection[str] = ()) -> None:
	"""Builds the KASAN kernel of one of arch_name's boots and judges the
	boot. If the only KUnit failures of the boot are cases of retry
	('suite.case': cases that can fail by chance, see
	slqb_group_sanitizers.TAG_COLLISION_CASES), it boots once more and
	judges that boot: a case fails only if it fails in both."""
	if not ctx.wants_boot(boot.name):
		return
	build = f'{arch_name}: SLQB kernel of {boot.name} builds'
	ctx.expect([build] + check_names(boot))
	spec = KernelSpec('slqb', boot.kconfig, arch=arch_name)

	def prepare():
		ensure_packages(arch_of(arch_name).packages)
		return prepare_kernel(ctx.paths, spec)
	prepared = ctx.check(build, prepare)
	if not prepared:
		return
	req = BootRequest(shape=Shape(boot.cpus, boot.nodes), mode=boot.mode,
			  stress=boot.stress, timeout=boot.timeout,
			  console='stream' if ctx.verbose else 'markers')
	outcome = boot_kernel(ctx.paths, prepared, req)
	chance = chance_failures(outcome.ktap, retry)
	if chance:
		print(f'  {boot.name}: {", ".join(chance)} failed, which can happen '
		      f'by chance (see {outcome.log_path}): booting once more',
		      flush=True)
		outcome = boot_kernel(ctx.paths, prepared, req)
	judge_suite(ctx, boot, outcome)


def chance_failures(ktap: KtapReport, retry: Collection[str]) -> List[str]:
	"""The failed cases of ktap if all of them are in retry, else none."""
	failed = ktap.failures()
	if not failed or ktap.failures(retry):
		return []
	return sorted(c.name for c in failed if not c.children)


def group_name(arch_name: str) -> str:
	"""The check group of an architecture: what `slqb test --arch NAME`
	runs."""
	return f'arch-{arch_name}'


for _arch in ARCH_SHAPES:
	check_group(group_name(_arch), on_request=True)(arch_group(_arch))
