# SPDX-License-Identifier: GPL-2.0
"""The `sanitizers` check group, run on request (`slqb test --sanitizers`,
or `--group sanitizers`): SLQB under the kernel's dynamic checkers that
the default run has no room for, one kernel build each.

- KCSAN in strict mode, with 4 vCPUs, a memoryless node and memory
  hotplug: the claims, the cap timer, the trim works and the hotplug
  callbacks all run while the slqb suites and the stress do. A KCSAN
  report that names one of SLQB's functions fails the boot; one that
  names none is printed and does not (KCSAN also sees the rest of the
  kernel). SLQB's functions are those its own objects define
  (SLQB_OBJECTS, read with nm from the build), and the check prints how
  many it counted.
- kmemleak and UBSAN in one kernel, with the slab self-tests: any UBSAN
  report fails, and after the workloads and the shrink kmemleak must
  suspect nothing.

- KMSAN, built with clang (LLVM=1; see slqb_build.CLANG_OPTIONS): the
  slqb suites and the stress must draw no report in SLQB's functions,
  judged as KCSAN's are (6.1.192's TCP time-wait replies read
  uninitialised fields, with SLUB as with SLQB: those are printed), and
  KMSAN's own KUnit suite, which allocates uninitialised slab objects on
  purpose, must pass with its reports inside it.
- KASAN's hardware tags on arm64, under QEMU's MTE (-machine mte=on, see
  slqb_boot.machine_args): kasan_test, with the slqb suites at boot,
  judged as the software-tag boot of `slqb test --arch arm64` is. With
  hardware tags the memory tags are checked on SLQB's own accesses too.
  Debian's 6.1.192 builds this mode for no allocator until the harness's
  base fix (slqb_tree.BASE_FIXES) gives it hw_suppress_tag_checks_start(),
  and Debian's QEMU 7.2 runs it for no allocator: its MTE keeps one tag a
  page, and the harness boots this kernel with a QEMU built with the fix
  (slqb_qemu_mte). Two cases of kasan_test can fail by chance with 4-bit
  tags (TAG_COLLISION_CASES): the boot is repeated once if they are all
  that failed.

Fault injection runs in the default `slqb test` (slqb_faults); KASAN's
generic mode too.
"""

import glob
import os
import re
import subprocess
from typing import FrozenSet, List, Optional

import slqb_memhp
from slqb_boot import BootOutcome
from slqb_build import KernelSpec
from slqb_checks import CheckFailed, Context, check_group
from slqb_group_arch import ARCH_TIMEOUT_S, kasan_boot
from slqb_group_kernels import (SELFTESTS, STRESS, STRESS_MEMHP, STRESS_SLOW,
				Boot, judge_pass, judge_suite, run_table,
				slqb_available)
from slqb_guest import KMEMLEAK_RE, load_params, params
from slqb_report import Allowed, strip_printk
from slqb_util import SlqbError

# Strict: plain accesses that race count even when the value did not
# change, as they would on a compiler that tears or fuses them.
KCSAN = ('CONFIG_KCSAN=y', 'CONFIG_KCSAN_STRICT=y')
KMEMLEAK_UBSAN = ('CONFIG_DEBUG_KMEMLEAK=y', 'CONFIG_DEBUG_KMEMLEAK_AUTO_SCAN=n',
		  'CONFIG_UBSAN=y', 'CONFIG_UBSAN_SANITIZE_ALL=y')

# Stack auto-initialisation, which clang turns on by default, would hide
# the uninitialised stack variables kmsan_test plants. Lockdep is off: with
# DEBUG_LOCK_ALLOC, KMSAN's own shadow lookup (pfn_valid()'s
# rcu_read_lock_sched()) calls lock_acquire(), which is instrumented and
# looks shadow up again, without end; the stack grows down through the
# kernel image until the CPU runs into the stores (an invalid opcode in
# virt_to_page_or_null(), RSP inside .text, before the first console
# line). Tracing, which lockdep brought with it, stays: kmsan_test and
# kfence_test need tracepoints.
KMSAN = ('CONFIG_KMSAN=y', 'CONFIG_KMSAN_KUNIT_TEST=m',
	 'CONFIG_INIT_STACK_NONE=y', 'CONFIG_PROVE_LOCKING=n',
	 'CONFIG_FTRACE=y', 'CONFIG_ENABLE_DEFAULT_TRACERS=y')
# arm64's KASAN boots (slqb_group_arch), in the hardware tag-based mode:
# MTE, and what tinyconfig leaves out that MTE depends on.
KASAN_HW_TAGS = Boot('slqb', 'arm64-2cpu-2node-kasan-hw-tags', cpus=2, nodes=2,
		     stress=0, timeout=ARCH_TIMEOUT_S, expect='kasan',
		     kconfig=('CONFIG_ARM64_PAN=y', 'CONFIG_ARM64_TAGGED_ADDR_ABI=y',
			      'CONFIG_ARM64_MTE=y', 'CONFIG_KASAN=y',
			      'CONFIG_KASAN_HW_TAGS=y', 'CONFIG_KASAN_KUNIT_TEST=y'))

# kasan_test's cases that expect a report from an access to a neighbour,
# the next object or the next page, and get none if the neighbour's memory
# happens to carry the pointer's tag. MTE's tags have 4 bits, of which
# KASAN uses 14 values: that is 1 time in 14 for a live neighbour, and 1 in
# 8 for one allocated just before on the same CPU, because QEMU's IRG draws
# each tag as a step from the CPU's last one, a step that may go full
# circle. Seen here with the fixed QEMU: ksize_unpoisons_memory failed in 2
# of 5 SLQB boots and 0 of 5 SLUB ones, pagealloc_oob_right in 1 of 5 of
# each.
TAG_COLLISION_CASES = ('kasan.ksize_unpoisons_memory',
		       'kasan.pagealloc_oob_right')

# Every step runs several times slower under these checkers and TCG.
SANITIZER_TIMEOUT = 1800

SANITIZER_BOOTS = [
	Boot('slqb', '4cpu-2node-memoryless-memhp-kcsan', cpus=4, nodes=2,
	     memoryless=True, memory_hotplug=True, stress=STRESS_MEMHP,
	     timeout=SANITIZER_TIMEOUT, kconfig=KCSAN),
	Boot('slqb', '4cpu-2node-kmemleak-ubsan', cpus=4, nodes=2,
	     stress=STRESS, timeout=SANITIZER_TIMEOUT, kconfig=KMEMLEAK_UBSAN,
	     selftests=True, append=SELFTESTS + ' ' + params(kmemleak=1)),
	# KMSAN takes two thirds of memory for its metadata: two nodes
	# leave the guest about 340 MiB.
	Boot('slqb', '2cpu-2node-kmsan', cpus=2, nodes=2, stress=STRESS_SLOW,
	     timeout=SANITIZER_TIMEOUT, kconfig=KMSAN),
	Boot('slqb', '2cpu-2node-kmsan-test', cpus=2, nodes=2, mode='modules',
	     timeout=SANITIZER_TIMEOUT, kconfig=KMSAN,
	     append=load_params('kmsan_test'), expect='kmsan'),
]

# SLQB's objects in a build: the allocator, its KUnit suites and its test
# modules. A function they define is SLQB's.
SLQB_OBJECTS = ('mm/slqb*.o', 'lib/slqb_kunit*.o', 'lib/test_slqb*.o')

# "BUG: KCSAN: data-race in f+0x1/0x2 / g+0x3/0x4", or one function;
# "BUG: KMSAN: uninit-value in f+0x1/0x2".
HEADER_RE = re.compile(r'BUG: (KCSAN|KMSAN): [\w-]+ in (.*)$')
# The checkers whose reports count only in SLQB's functions, and the
# report labels of slqb_report for them.
BLAMING = {'CONFIG_KCSAN=y': 'KCSAN report', 'CONFIG_KMSAN=y': 'KMSAN report'}


def slqb_functions(build_dir: str) -> FrozenSet[str]:
	"""The functions SLQB_OBJECTS define in build_dir (text symbols)."""
	paths = sorted(p for pattern in SLQB_OBJECTS
		       for p in glob.glob(os.path.join(build_dir, pattern)))
	if not paths:
		raise SlqbError(f'no SLQB objects ({", ".join(SLQB_OBJECTS)}) in '
				f'{build_dir}')
	try:
		out = subprocess.run(['nm', '--defined-only', *paths], check=True,
				     capture_output=True, text=True).stdout
	except (OSError, subprocess.CalledProcessError) as e:
		raise SlqbError(f'nm of the SLQB objects failed: {e}')
	names = set()
	for line in out.splitlines():
		fields = line.split()
		if len(fields) == 3 and fields[1] in 'tT':
			names.add(fields[2].split('.')[0])
	return frozenset(names)


def report_functions(line: str) -> List[str]:
	"""The functions a KCSAN or KMSAN report's header line names, without
	offsets and compiler suffixes; [] if line is no such header."""
	m = HEADER_RE.search(line)
	if not m:
		return []
	return [f.strip().split('+')[0].split('.')[0]
		for f in m.group(2).split(' / ')]


def reports_elsewhere(ours: FrozenSet[str], label: str) -> Allowed:
	"""allowed() for judge_pass: a report of label (a KCSAN or KMSAN
	report) none of whose header's functions is in ours."""
	def allowed(found: str, index: int, line: str) -> bool:
		names = report_functions(line)
		return found == label and bool(names) and \
			not any(n in ours for n in names)
	return allowed


def kmemleak_check_name(boot: Boot) -> Optional[str]:
	"""The check of a boot that asks the guest for a kmemleak scan."""
	if params(kmemleak=1) not in boot.append.split():
		return None
	return f'{boot.alloc} {boot.name}: kmemleak suspects no leak'


def judge_kmemleak(ctx: Context, name: str, outcome: BootOutcome) -> None:
	"""The guest's count of suspected leaks is on the console, and 0."""
	def none() -> None:
		counts = [int(m.group(1)) for m in
			  map(KMEMLEAK_RE.search, outcome.run.lines) if m]
		if not counts:
			raise CheckFailed('the guest printed no kmemleak count; log: '
					  f'{outcome.log_path}')
		if counts[-1]:
			text = [strip_printk(l) for l in outcome.run.lines]
			first = next((i for i, l in enumerate(text)
				      if l.startswith('unreferenced object')), 0)
			raise CheckFailed(f'{counts[-1]} suspected leaks, the first:\n'
					  + '\n'.join(text[first:first + 25]) +
					  f'\nFull console log: {outcome.log_path}')
	ctx.check(name, none)


@check_group('sanitizers', on_request=True)
def sanitizer_boots(ctx: Context) -> None:
	"""Builds each kernel of SANITIZER_BOOTS and boots it."""
	if not slqb_available(ctx):
		ctx.skip('sanitizer boots', 'the patched tree has no config SLQB yet')
		return
	ctx.expect([kmemleak_check_name(b) for b in SANITIZER_BOOTS
		    if kmemleak_check_name(b) and ctx.wants_boot(b.name)])

	def judge(ctx: Context, boot: Boot, outcome: BootOutcome,
		  memhp: Optional[slqb_memhp.MemoryHotplug]) -> None:
		if boot.expect != 'pass':
			judge_suite(ctx, boot, outcome)
			return
		allowed = None
		label = next((BLAMING[k] for k in boot.kconfig if k in BLAMING),
			     None)
		if label:
			build = KernelSpec(boot.alloc, boot.kconfig).build_dir(ctx.paths)
			ours = slqb_functions(build)
			print(f'  {label}: one naming one of the {len(ours)} '
			      f'functions of {", ".join(SLQB_OBJECTS)} fails', flush=True)
			allowed = reports_elsewhere(ours, label)
		judge_pass(ctx, boot, outcome, memhp, allowed)
		name = kmemleak_check_name(boot)
		if name:
			judge_kmemleak(ctx, name, outcome)
	run_table(ctx, SANITIZER_BOOTS, judge)
	kasan_boot(ctx, 'arm64', KASAN_HW_TAGS, retry=TAG_COLLISION_CASES)
