# SPDX-License-Identifier: GPL-2.0
"""Getting a kernel ready (tree, config, build, initramfs), booting it, and
judging the boot from its console.

A feature that takes part in a boot while it runs (memory hotplug, see
slqb_memhp) does so through one BootHook object passed to boot_kernel;
nothing here knows what it does.
"""

import dataclasses
import json
import shlex
from typing import List, Optional, Sequence, Tuple

from slqb_arch import arch_of
from slqb_build import (CLANG_PACKAGES, KernelSpec, build_kernel,
			config_value, configure)
from slqb_guest import boot_params, shape_params
from slqb_host import BuildLock, ensure_packages, wait_for_foreign_builds
from slqb_initramfs import build_initramfs
from slqb_qemu import GuestRun, Shape, qemu_command, run_guest
from slqb_qemu_mte import mte_qemu
from slqb_report import (Finding, KtapReport, describe_finding,
			 describe_guest_failure, describe_ktap_failures,
			 find_bad_reports, guest_verdict, parse_ktap)
from slqb_tree import (TreeUpdate, ensure_pristine, prepare_work_tree,
		       pristine_stamp_path, read_json, read_series,
		       tree_has_slqb)
from slqb_util import Paths, SlqbError, fmt_duration, log, quote_lines

DEFAULT_TIMEOUT_S = 600


@dataclasses.dataclass
class Prepared:
	"""A built kernel and its initramfs, ready to boot."""
	spec: KernelSpec
	base: str
	bzimage: str
	initrd: str
	nr_cpus: int
	qemu: str = ''		# the emulator, if not the arch's (slqb_qemu_mte)


@dataclasses.dataclass
class BootRequest:
	"""How to boot: the machine shape and what the guest init does.

	icount: one vCPU under -icount (see qemu_command), for exact counts.
	kvm: under KVM with the host's CPU (see qemu_command).
	qemu_extra: more QEMU arguments (the bench's cache-model plugin).
	"""
	shape: Shape
	mode: str = 'boot'
	stress: int = 10
	append: str = ''
	timeout: Optional[float] = DEFAULT_TIMEOUT_S
	console: str = 'stream'
	icount: bool = False
	kvm: bool = False
	qemu_extra: Tuple[str, ...] = ()


@dataclasses.dataclass
class BootOutcome:
	"""The judged result of one boot."""
	log_path: str
	run: GuestRun
	verdict: Optional[str]
	findings: List[Finding]
	ktap: KtapReport
	errors: List[str]

	@property
	def ok(self) -> bool:
		return not self.errors


@dataclasses.dataclass
class BootExtras:
	"""What a BootHook adds to a boot: another initramfs (its path; ''
	keeps the prepared one), kernel parameters and QEMU arguments."""
	initrd: str = ''
	params: str = ''
	qemu_args: Sequence[str] = ()


class BootHook:
	"""A feature's part in one boot, passed to boot_kernel.

	boot_kernel calls start() before QEMU starts (it may refuse the boot
	with an SlqbError), on_line() with each console line as it comes (on
	the thread that reads the console: it must not block), stop() once
	QEMU has gone or the boot could not start, and judge() with the
	judged boot, whose errors it may add to. The methods here do nothing.
	"""

	def start(self, paths: Paths, prepared: Prepared,
		  req: BootRequest) -> BootExtras:
		"""Gets ready for the boot; returns what the boot needs for it."""
		return BootExtras()

	def on_line(self, line: str) -> None:
		"""Sees one console line."""

	def stop(self) -> None:
		"""Ends the hook's own work (threads, sockets)."""

	def judge(self, outcome: 'BootOutcome') -> List[str]:
		"""Adds the hook's problems to outcome.errors; returns lines for
		the console log, on what the hook did."""
		return []


def no_slqb_message(paths: Paths) -> str:
	"""Why --alloc slqb cannot work on this tree yet."""
	patches = len(read_series(paths.repo))
	return ('the patched tree has no `config SLQB` (looked in mm/Kconfig and '
		f'init/Kconfig after applying patches/series, {patches} patches): '
		'the SLQB core is not in the series yet, so there is no SLQB kernel '
		'to build. Boot another allocator meanwhile, e.g. --alloc slub.')


def prepare_tree(paths: Paths) -> Tuple[str, TreeUpdate]:
	"""Pristine tree plus series and new files in the work tree.

	The caller holds the build lock. Returns the base and what changed.
	"""
	base = ensure_pristine(paths)
	log(f'base: {base}')
	update = prepare_work_tree(paths, base)
	log(f'series: {update.summary()}')
	return base, update


def patched_tree_has_slqb(paths: Paths) -> bool:
	"""Whether the patched work tree offers CONFIG_SLQB."""
	with BuildLock(paths):
		prepare_tree(paths)
	return tree_has_slqb(paths.work)


def prepare_kernel(paths: Paths, spec: KernelSpec) -> Prepared:
	"""Tree, config, build and initramfs for spec, under the build lock."""
	if spec.clang:
		ensure_packages(CLANG_PACKAGES)
	with BuildLock(paths):
		base, update = prepare_tree(paths)
		if spec.alloc == 'slqb' and not tree_has_slqb(paths.work):
			raise SlqbError(no_slqb_message(paths))
		stamp = json.dumps(read_json(pristine_stamp_path(paths)), sort_keys=True)
		configure(paths, spec, stamp, update.kconfig_digest)
		wait_for_foreign_builds()
		bzimage = build_kernel(paths, spec, base)
		initrd = build_initramfs(paths, spec)
		qemu = mte_qemu(paths) if needs_mte(spec) else ''
	nr_cpus = int(config_value(paths, spec, 'CONFIG_NR_CPUS') or 1)
	return Prepared(spec=spec, base=base, bzimage=bzimage, initrd=initrd,
			nr_cpus=nr_cpus, qemu=qemu)


def needs_mte(spec: KernelSpec) -> bool:
	"""Whether the kernel is one of KASAN's hardware tag-based mode, which
	needs the machine's MTE."""
	return spec.arch == 'arm64' and 'CONFIG_KASAN_HW_TAGS=y' in spec.extras


def machine_args(spec: KernelSpec) -> List[str]:
	"""QEMU options the kernel's config needs from the machine: KASAN's
	hardware tags need MTE, which QEMU's virt machine has off unless
	asked (and then gives the -cpu max vCPU its tag memory)."""
	if needs_mte(spec):
		return ['-machine', 'mte=on']
	return []


def kernel_cmdline(prepared: Prepared, req: BootRequest,
		   extra: str = '') -> str:
	"""console=ttyS0, panic=-1 (QEMU exits), the guest's parameters, a
	hook's (extra), and the user's --append last (the guest init takes the
	last value)."""
	console = arch_of(prepared.spec.arch).console
	shape = req.shape
	parts = [f'console={console}', 'panic=-1', 'printk.devkmsg=on',
		 boot_params(req.mode, req.stress, prepared.spec.alloc),
		 shape_params(shape.cpus, shape.total_nodes, shape.nodes),
		 extra, req.append]
	return ' '.join(p for p in parts if p)


def judge(run: GuestRun, req: BootRequest, log_path: str) -> BootOutcome:
	"""Reads the console: timeout, bad reports, KUnit, the guest verdict."""
	lines = run.lines
	errors = []
	verdict, detail, _ = guest_verdict(lines)
	if run.timed_out:
		if req.mode == 'shell':
			what = 'the shell session was still open'
		elif verdict:
			what = 'the guest printed its verdict but did not power off'
		else:
			what = 'the guest never printed its verdict'
		errors.append(f'QEMU was stopped after its timeout '
			      f'({fmt_duration(run.elapsed)}): {what}. Last console lines:\n'
			      f'{quote_lines(lines[-15:])}\nFull console log: {log_path}')
	if run.vm_stopped:
		errors.append(f'QEMU stopped the VM: "{run.vm_stopped}"; QEMU was '
			      f'ended at once rather than left to its timeout.\n'
			      f'Last console lines:\n{quote_lines(lines[-15:])}\n'
			      f'Full console log: {log_path}')
	findings = find_bad_reports(lines)
	errors.extend(describe_finding(lines, f, log_path) for f in findings)
	ktap = parse_ktap(lines)
	if ktap.failures() or ktap.incomplete:
		errors.append(describe_ktap_failures(lines, ktap, log_path))
	if req.mode != 'shell' and not run.timed_out and not run.vm_stopped:
		if verdict == 'FAIL':
			errors.append(describe_guest_failure(lines, detail, log_path))
		elif verdict is None:
			errors.append(f'the guest never printed its verdict (QEMU exit '
				      f'status {run.returncode}). Last console lines:\n'
				      f'{quote_lines(lines[-15:])}\nFull console log: {log_path}')
	if run.returncode not in (0, None) and not run.timed_out and \
	   not run.vm_stopped:
		errors.append(f'QEMU exited with status {run.returncode}. Last lines:\n'
			      f'{quote_lines(lines[-10:])}\nFull console log: {log_path}')
	return BootOutcome(log_path=log_path, run=run, verdict=verdict,
			   findings=findings, ktap=ktap, errors=errors)


def append_log(log_path: str, lines: List[str]) -> None:
	"""Adds harness lines (prefixed '# slqb: ') to a console log."""
	with open(log_path, 'a', encoding='utf-8') as f:
		for line in lines:
			f.write(f'# slqb: {line}\n')


def boot_kernel(paths: Paths, prepared: Prepared, req: BootRequest,
		name: str = '', log_name: str = '',
		hook: Optional[BootHook] = None) -> BootOutcome:
	"""Boots prepared in QEMU as req says and judges the console.

	This is every boot of the harness: `slqb boot`, the check groups and
	`slqb bench`, which reads its numbers from outcome.run.lines. name is
	the kernel's name in messages (default: its build's), log_name that of
	the console log (default: boot-<build>-<shape>). hook, if given, takes
	part in the boot (see BootHook).
	"""
	req.shape.validate(prepared.nr_cpus)
	hook = hook or BootHook()
	extras = hook.start(paths, prepared, req)
	try:
		cmdline = kernel_cmdline(prepared, req, extras.params)
		cmd = qemu_command(prepared.bzimage, extras.initrd or prepared.initrd,
				   req.shape, cmdline, icount=req.icount,
				   arch=prepared.spec.arch,
				   extra=machine_args(prepared.spec) + list(extras.qemu_args) +
				   list(req.qemu_extra), kvm=req.kvm,
				   binary=prepared.qemu)
		kernel = prepared.spec.name
		if name and name != kernel:
			kernel = f'{name} ({kernel})'
		log_path = paths.new_log(log_name or
					 f'boot-{prepared.spec.name}-{req.shape.label()}')
		append_log(log_path, [f'base: {prepared.base}', f'kernel: {kernel}',
				      f'shape: {req.shape.describe()}',
				      '$ ' + shlex.join(cmd)])
		log(f'boot: {kernel}; {req.shape.describe()}' +
		    ('; icount' if req.icount else '') + ('; KVM' if req.kvm else '') +
		    f'; guest mode {req.mode}' +
		    (f'; timeout {fmt_duration(req.timeout)}' if req.timeout else ''))
		log(f'console log: {log_path}')
		run = run_guest(cmd, log_path, req.timeout, req.console,
				on_line=hook.on_line)
	finally:
		hook.stop()
	outcome = judge(run, req, log_path)
	append_log(log_path, hook.judge(outcome) + outcome.ktap.summary() +
		   [f'verdict: {"PASS" if outcome.ok else "FAIL"} '
		    f'({len(outcome.errors)} problems)'])
	return outcome


def print_outcome(outcome: BootOutcome) -> None:
	"""The end of `slqb boot`: KUnit summary, problems, verdict, log path."""
	for line in outcome.ktap.summary():
		log(line)
	for error in outcome.errors:
		print(f'ERROR: {error}', flush=True)
	state = 'PASS' if outcome.ok else f'FAIL ({len(outcome.errors)} problems)'
	log(f'verdict: {state}; guest ran {fmt_duration(outcome.run.elapsed)}')
	log(f'console log: {outcome.log_path}')
