# SPDX-License-Identifier: GPL-2.0
"""Getting a kernel ready (tree, config, build, initramfs), booting it, and
judging the boot from its console."""

import dataclasses
import json
import os
import shlex
from typing import List, Optional, Tuple

from slqb_arch import DEFAULT_ARCH, arch_of
from slqb_build import KernelSpec, build_kernel, config_value, configure
from slqb_guest import boot_params, shape_params
from slqb_host import BuildLock, wait_for_foreign_builds
from slqb_initramfs import build_initramfs
from slqb_memhp import (HotplugDriver, HotplugRecord, build_module,
			guest_params, plan_dimms, record_errors, slabs_on_node)
from slqb_qemu import GuestRun, Shape, qemu_command, run_guest
from slqb_qmp import socket_path
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


@dataclasses.dataclass
class BootRequest:
	"""How to boot: the machine shape and what the guest init does.

	icount: one vCPU under -icount (see qemu_command), for exact counts.
	"""
	shape: Shape
	mode: str = 'boot'
	stress: int = 10
	append: str = ''
	timeout: Optional[float] = DEFAULT_TIMEOUT_S
	console: str = 'stream'
	icount: bool = False


@dataclasses.dataclass
class BootOutcome:
	"""The judged result of one boot."""
	log_path: str
	run: GuestRun
	verdict: Optional[str]
	findings: List[Finding]
	ktap: KtapReport
	errors: List[str]
	memhp: Optional[HotplugRecord] = None

	@property
	def ok(self) -> bool:
		return not self.errors


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
	with BuildLock(paths):
		base, update = prepare_tree(paths)
		if spec.alloc == 'slqb' and not tree_has_slqb(paths.work):
			raise SlqbError(no_slqb_message(paths))
		stamp = json.dumps(read_json(pristine_stamp_path(paths)), sort_keys=True)
		configure(paths, spec, stamp, update.kconfig_digest)
		wait_for_foreign_builds()
		bzimage = build_kernel(paths, spec, base)
		if spec.arch == DEFAULT_ARCH and not spec.base_digest:
			build_module(paths, spec)
		initrd = build_initramfs(paths, spec)
	nr_cpus = int(config_value(paths, spec, 'CONFIG_NR_CPUS') or 1)
	return Prepared(spec=spec, base=base, bzimage=bzimage, initrd=initrd,
			nr_cpus=nr_cpus)


def kernel_cmdline(prepared: Prepared, req: BootRequest) -> str:
	"""console=ttyS0, panic=-1 (QEMU exits), the guest's parameters, and
	the user's --append last (the guest init takes the last value)."""
	console = arch_of(prepared.spec.arch).console
	shape = req.shape
	parts = [f'console={console}', 'panic=-1', 'printk.devkmsg=on',
		 boot_params(req.mode, req.stress, prepared.spec.alloc),
		 shape_params(shape.cpus, shape.total_nodes, shape.nodes),
		 guest_params(shape) if shape.memory_hotplug else '',
		 req.append]
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
	findings = find_bad_reports(lines)
	errors.extend(describe_finding(lines, f, log_path) for f in findings)
	ktap = parse_ktap(lines)
	if ktap.failures() or ktap.incomplete:
		errors.append(describe_ktap_failures(lines, ktap, log_path))
	if req.mode != 'shell' and not run.timed_out:
		if verdict == 'FAIL':
			errors.append(describe_guest_failure(lines, detail, log_path))
		elif verdict is None:
			errors.append(f'the guest never printed its verdict (QEMU exit '
				      f'status {run.returncode}). Last console lines:\n'
				      f'{quote_lines(lines[-15:])}\nFull console log: {log_path}')
	if run.returncode not in (0, None) and not run.timed_out:
		errors.append(f'QEMU exited with status {run.returncode}. Last lines:\n'
			      f'{quote_lines(lines[-10:])}\nFull console log: {log_path}')
	return BootOutcome(log_path=log_path, run=run, verdict=verdict,
			   findings=findings, ktap=ktap, errors=errors)


def judge_memhp(outcome: BootOutcome, record: HotplugRecord,
		kernel_node: int) -> None:
	"""The hotplug's own problems, and slabs left on the node whose
	memory went away, become errors of the boot."""
	log_path = outcome.log_path
	outcome.memhp = record
	outcome.errors.extend(record_errors(record, log_path))
	if record.asked_remove is None or kernel_node not in record.asked_remove:
		return
	caches, bad = slabs_on_node(outcome.run.lines, kernel_node)
	if not caches:
		outcome.errors.append('memory hotplug: the guest printed no '
				      'slqb-memhp-slabs lines after the removal.\n'
				      f'Full console log: {log_path}')
	elif bad:
		outcome.errors.append(f'memory hotplug: {len(bad)} of {caches} caches '
				      f'still have slabs on node {kernel_node}, whose '
				      f'memory was removed:\n{quote_lines(bad[:10])}\n'
				      f'Full console log: {log_path}')


def append_log(log_path: str, lines: List[str]) -> None:
	"""Adds harness lines (prefixed '# slqb: ') to a console log."""
	with open(log_path, 'a', encoding='utf-8') as f:
		for line in lines:
			f.write(f'# slqb: {line}\n')


def boot_kernel(paths: Paths, prepared: Prepared, req: BootRequest,
		name: str = '', log_name: str = '') -> BootOutcome:
	"""Boots prepared in QEMU as req says and judges the console.

	This is every boot of the harness: `slqb boot`, the check groups and
	`slqb bench`, which reads its numbers from outcome.run.lines. name is
	the kernel's name in messages (default: its build's), log_name that of
	the console log (default: boot-<build>-<shape>).
	"""
	req.shape.validate(prepared.nr_cpus)
	cmdline = kernel_cmdline(prepared, req)
	driver = None
	qmp = ''
	if req.shape.memory_hotplug:
		if prepared.spec.arch != DEFAULT_ARCH:
			raise SlqbError('--memory-hotplug is for x86_64 only (ACPI memory '
					'devices)', exit_code=2)
		qmp = socket_path(paths.cache, f'qmp-{os.getpid()}.sock')
		if os.path.exists(qmp):
			os.unlink(qmp)
		driver = HotplugDriver(qmp, plan_dimms(req.shape))
	cmd = qemu_command(prepared.bzimage, prepared.initrd, req.shape, cmdline,
			   icount=req.icount, arch=prepared.spec.arch, qmp_socket=qmp)
	kernel = prepared.spec.name
	if name and name != kernel:
		kernel = f'{name} ({kernel})'
	log_path = paths.new_log(log_name or
				 f'boot-{prepared.spec.name}-{req.shape.label()}')
	append_log(log_path, [f'base: {prepared.base}', f'kernel: {kernel}',
			      f'shape: {req.shape.describe()}', '$ ' + shlex.join(cmd)])
	log(f'boot: {kernel}; {req.shape.describe()}' +
	    ('; icount' if req.icount else '') + f'; guest mode {req.mode}' +
	    (f'; timeout {fmt_duration(req.timeout)}' if req.timeout else ''))
	log(f'console log: {log_path}')
	try:
		run = run_guest(cmd, log_path, req.timeout, req.console,
				on_line=driver.on_line if driver else None)
	finally:
		record = driver.finish() if driver else None
		if qmp and os.path.exists(qmp):
			os.unlink(qmp)
	outcome = judge(run, req, log_path)
	if record is not None:
		append_log(log_path, [f'memory hotplug: {a}' for a in record.actions] +
			   [f'memory hotplug: ERROR: {e}' for e in record.errors])
		judge_memhp(outcome, record, req.shape.nodes)
	append_log(log_path, outcome.ktap.summary() +
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
