# SPDX-License-Identifier: GPL-2.0
"""Memory hotplug during a boot (`slqb boot --memory-hotplug`).

The package: this module (the hook, the driver, the module's build and
the checks), qmp.py (the QMP client) and test_slqb_memhp.py (their unit
tests). The churn module's source is a kbuild folder of its own,
tools/testing/slqb/memhp/.

QEMU starts with room for pc-dimms (Shape.memory_hotplug) and a QMP
socket. When the guest prints 'SLQB-GUEST: memhp add', the harness plugs
in one DIMM_MB dimm on the memoryless node (which so gains memory) and one
on node 0, over QMP (object-add of a RAM backend, device_add of a pc-dimm).
The guest sees their memory blocks appear in /sys/devices/system/memory
(ACPI memory devices), onlines them, churns caches with the memhp module
(memhp/slqb_memhp.c) meanwhile, offlines what it can and prints
'SLQB-GUEST: memhp remove nodeA nodeB'; the harness then unplugs those
dimms (device_del, DEVICE_DELETED) and the guest checks that the blocks
and their memory are gone.

The QMP work runs on a thread of its own, so that the console keeps
being read while QEMU and the guest process an unplug.

boot_kernel reaches all of it through one object, a MemoryHotplug (a
BootHook of slqb_boot): it builds the module and an initramfs with it,
gives the kernel parameters and QEMU's QMP socket, drives the dimms from
the console and judges what happened. The checks of `slqb test` on a
memory-hotplug boot (CHECKS) are here too.
"""

import dataclasses
import os
import queue
import re
import threading
from typing import Dict, List, Optional, Tuple

from slqb_arch import DEFAULT_ARCH
from slqb_boot import BootExtras, BootHook, BootOutcome, BootRequest, Prepared
from slqb_build import KernelSpec, build_external_module
from slqb_checks import CheckFailed, Context
from slqb_guest import (MEMHP_ADD, MEMHP_REMOVE_RE, MEMHP_SLABS_RE,
			marker_text, memhp_params, step_output, step_results)
from slqb_host import BuildLock
from slqb_initramfs import CpioList, InitramfsExtra, build_initramfs
from slqb_qemu import Shape
from slqb_util import HARNESS_DIR, Paths, SlqbError, log, quote_lines

from .qmp import QmpClient, QmpError, socket_path

DIMM_MB = 256
MOVABLE_NODE = 0
UNPLUG_TIMEOUT_S = 60
MODULE_SRC = os.path.join(HARNESS_DIR, 'memhp')
MODULE_SOURCES = ('slqb_memhp.c', 'Kbuild', 'Makefile')
# The churn module: where build_module builds it (below the kernel's build
# directory) and where guest/init.sh loads it from.
MODULE = os.path.join('slqb-memhp', 'slqb_memhp.ko')
GUEST_MODULE = '/lib/slqbtest-memhp/slqb_memhp.ko'


@dataclasses.dataclass(frozen=True)
class Dimm:
	"""One pc-dimm the harness plugs in: its node and how it is onlined."""
	node: int
	zone: str		# 'kernel' (online_kernel) or 'movable'
	index: int

	@property
	def device(self) -> str:
		return f'slqb-dimm{self.index}'

	@property
	def memdev(self) -> str:
		return f'slqb-dimm{self.index}-mem'


def plan_dimms(shape: Shape) -> List[Dimm]:
	"""The memoryless node's dimm (onlined for the kernel), node 0's
	(onlined movable)."""
	if not shape.memoryless:
		raise SlqbError('memory hotplug needs a shape with a memoryless node',
				exit_code=2)
	memoryless = shape.nodes	# see Shape.layout
	return [Dimm(node=memoryless, zone='kernel', index=0),
		Dimm(node=MOVABLE_NODE, zone='movable', index=1)]


def guest_params(shape: Shape) -> str:
	"""The slqbtest.memhp* parameters of a memory-hotplug boot."""
	dimms = {d.zone: d for d in plan_dimms(shape)}
	return memhp_params(DIMM_MB, dimms['kernel'].node, dimms['movable'].node)


def removal_request(said: str) -> Optional[List[int]]:
	"""The nodes of a 'memhp remove node2 node0' marker text (None for
	other text)."""
	m = MEMHP_REMOVE_RE.match(said)
	if not m:
		return None
	return [int(word[len('node'):]) for word in m.group(1).split()]


# ---------------------------------------------------------------- QMP side

@dataclasses.dataclass
class HotplugRecord:
	"""What the harness did over QMP during one boot."""
	asked_add: bool = False
	added: List[str] = dataclasses.field(default_factory=list)
	asked_remove: Optional[List[int]] = None
	removed: List[str] = dataclasses.field(default_factory=list)
	actions: List[str] = dataclasses.field(default_factory=list)
	errors: List[str] = dataclasses.field(default_factory=list)


class HotplugDriver:
	"""Acts on the guest's memhp markers; give on_line to run_guest."""

	def __init__(self, socket_path: str, dimms: List[Dimm],
		     unplug_timeout: float = UNPLUG_TIMEOUT_S) -> None:
		self.socket_path = socket_path
		self.dimms = dimms
		self.unplug_timeout = unplug_timeout
		self.record = HotplugRecord()
		self.client: Optional[QmpClient] = None
		self.jobs: 'queue.Queue[Optional[Tuple[str, List[int]]]]' = queue.Queue()
		self.thread: Optional[threading.Thread] = None
		self.lock = threading.Lock()

	def on_line(self, line: str) -> None:
		"""Queues the work a console line asks for."""
		said = marker_text(line)
		if said is None:
			return
		said = said.strip()
		if said == MEMHP_ADD:
			self.queue('add', [])
		else:
			nodes = removal_request(said)
			if nodes is not None:
				self.queue('remove', nodes)

	def queue(self, what: str, nodes: List[int]) -> None:
		if self.thread is None:
			self.thread = threading.Thread(target=self.work, daemon=True,
						       name='slqb-qmp')
			self.thread.start()
		self.jobs.put((what, nodes))

	def note(self, text: str) -> None:
		with self.lock:
			self.record.actions.append(text)
		log(f'memory hotplug: {text}')

	def fail(self, text: str) -> None:
		with self.lock:
			self.record.errors.append(text)
		log(f'memory hotplug: ERROR: {text}')

	def work(self) -> None:
		"""The QMP thread: one job at a time, until finish()."""
		while True:
			job = self.jobs.get()
			if job is None:
				return
			what, nodes = job
			try:
				if self.client is None:
					self.client = QmpClient.connect(self.socket_path)
				if what == 'add':
					self.add()
				else:
					self.remove(nodes)
			except QmpError as e:
				self.fail(str(e))

	def add(self) -> None:
		"""RAM backend plus pc-dimm for each planned dimm."""
		self.record.asked_add = True
		for dimm in self.dimms:
			self.client.execute('object-add', {
				'qom-type': 'memory-backend-ram', 'id': dimm.memdev,
				'size': DIMM_MB << 20})
			self.client.execute('device_add', {
				'driver': 'pc-dimm', 'id': dimm.device,
				'memdev': dimm.memdev, 'node': dimm.node})
			self.record.added.append(dimm.device)
			self.note(f'added {dimm.device}: {DIMM_MB}M on node {dimm.node}')
		self.check_present([d.device for d in self.dimms], True)

	def remove(self, nodes: List[int]) -> None:
		"""device_del of the dimms on nodes; waits for DEVICE_DELETED."""
		self.record.asked_remove = list(nodes)
		dimms = [d for d in self.dimms if d.node in nodes]
		unknown = sorted(set(nodes) - {d.node for d in dimms})
		if unknown:
			self.fail(f'the guest asked to remove dimms on nodes {unknown}, '
				  'which got none')
		for dimm in dimms:
			self.client.execute('device_del', {'id': dimm.device})
		for dimm in dimms:
			try:
				self.client.wait_event(
					'DEVICE_DELETED',
					lambda data, d=dimm: data.get('device') == d.device,
					timeout=self.unplug_timeout)
			except QmpError as e:
				self.fail(f'{dimm.device} (node {dimm.node}): no '
					  f'DEVICE_DELETED: {e}')
				continue
			self.client.execute('object-del', {'id': dimm.memdev})
			self.record.removed.append(dimm.device)
			self.note(f'removed {dimm.device} from node {dimm.node}')
		self.check_present([d.device for d in dimms], False)

	def check_present(self, devices: List[str], want: bool) -> None:
		"""query-memory-devices must (not) list devices."""
		listed = {entry.get('data', {}).get('id')
			  for entry in self.client.execute('query-memory-devices')}
		wrong = [d for d in devices if (d in listed) != want]
		if wrong:
			self.fail(f'query-memory-devices {"lacks" if want else "still lists"} '
				  f'{", ".join(wrong)}')

	def finish(self) -> HotplugRecord:
		"""Stops the QMP thread (after its current job) and returns the record."""
		if self.thread is not None:
			self.jobs.put(None)
			self.thread.join(timeout=self.unplug_timeout * len(self.dimms) + 30)
			if self.thread.is_alive():
				self.fail('the QMP thread did not finish its last job')
		if self.client is not None:
			self.client.close()
		return self.record


def record_errors(record: HotplugRecord, log_path: str) -> List[str]:
	"""Problems of the hotplug itself, as error paragraphs of the boot."""
	errors = [f'memory hotplug: {e}\nFull console log: {log_path}'
		  for e in record.errors]
	if not record.asked_add:
		errors.append('memory hotplug: the guest never asked for the dimms '
			      f'("SLQB-GUEST: {MEMHP_ADD}").\nFull console log: {log_path}')
	return errors


# ---------------------------------------------------------------- slabs files

def parse_slabs(text: str) -> Tuple[int, Dict[int, int]]:
	"""A /sys/kernel/slab/CACHE/slabs file: 'TOTAL N0=a N1=b' ->
	(TOTAL, {0: a, 1: b}). SLUB and SLQB print the same fields."""
	words = text.split()
	if not words or not words[0].isdigit():
		raise ValueError(f'not a slabs file: {text!r}')
	nodes = {}
	for word in words[1:]:
		m = re.fullmatch(r'N(\d+)=(\d+)', word)
		if not m:
			raise ValueError(f'bad per-node field {word!r} in {text!r}')
		nodes[int(m.group(1))] = int(m.group(2))
	return int(words[0]), nodes


def slabs_on_node(lines: List[str], node: int) -> Tuple[int, List[str]]:
	"""(caches dumped, 'CACHE: N<node>=count' for those with slabs on node)
	from the slqb-memhp-slabs lines of a console. Slabs files without any
	per-node field (a NUMA kernel always has slabs somewhere) count as bad:
	they could not show slabs on node either."""
	caches, bad, per_node = 0, [], 0
	for line in lines:
		m = MEMHP_SLABS_RE.search(line)
		if not m:
			continue
		caches += 1
		try:
			_, nodes = parse_slabs(m.group(2))
		except ValueError as e:
			bad.append(f'{m.group(1)}: {e}')
			continue
		per_node += 1 if nodes else 0
		if nodes.get(node, 0):
			bad.append(f'{m.group(1)}: N{node}={nodes[node]}')
	if caches and not per_node:
		bad.append(f'no slabs file of the {caches} caches has per-node '
			   'N<id>= fields')
	return caches, bad


# ---------------------------------------------------------------- the module

def module_path(paths: Paths, spec: KernelSpec) -> str:
	return os.path.join(spec.build_dir(paths), MODULE)


def build_module(paths: Paths, spec: KernelSpec) -> str:
	"""Copies memhp/ into <build>/slqb-memhp and builds its module there
	against the kernel (W=1), unless it is newer than its sources and the
	kernel. Returns the .ko path. The caller holds the build lock."""
	return build_external_module(paths, spec, MODULE_SRC, MODULE_SOURCES,
				     module_path(paths, spec), 'memhp')


class ModuleFiles(InitramfsExtra):
	"""The churn module in the initramfs of memory-hotplug boots."""
	name = 'memhp'

	def add(self, cpio: CpioList, paths: Paths, spec: KernelSpec) -> None:
		cpio.add_file(GUEST_MODULE, module_path(paths, spec), '0644')


# ---------------------------------------------------------------- the hook

class MemoryHotplug(BootHook):
	"""Memory hotplug during one boot: give it to boot_kernel.

	start() builds the module and an initramfs with it (under the build
	lock) and opens the QMP socket's place; the console lines go to a
	HotplugDriver; judge() makes the hotplug's problems the boot's, and
	record says what was done.
	"""

	def __init__(self, shape: Shape,
		     unplug_timeout: float = UNPLUG_TIMEOUT_S) -> None:
		self.dimms = plan_dimms(shape)
		self.kernel_node = shape.nodes	# the memoryless node (Shape.layout)
		self.unplug_timeout = unplug_timeout
		self.socket = ''
		self.driver: Optional[HotplugDriver] = None
		self.record = HotplugRecord()

	def start(self, paths: Paths, prepared: Prepared,
		  req: BootRequest) -> BootExtras:
		spec = prepared.spec
		if spec.arch != DEFAULT_ARCH:
			raise SlqbError('--memory-hotplug is for x86_64 only (ACPI memory '
					'devices)', exit_code=2)
		if spec.base_digest:
			raise SlqbError('--memory-hotplug needs the harness\'s own kernel '
					'config (its module and ACPI memory devices)',
					exit_code=2)
		if not req.shape.memory_hotplug:
			raise SlqbError('memory hotplug needs a shape with room for the '
					'dimms (Shape.memory_hotplug)', exit_code=2)
		with BuildLock(paths):
			build_module(paths, spec)
			initrd = build_initramfs(paths, spec, extra=ModuleFiles())
		self.socket = socket_path(paths.cache, f'qmp-{os.getpid()}.sock')
		if os.path.exists(self.socket):
			os.unlink(self.socket)
		self.driver = HotplugDriver(self.socket, self.dimms, self.unplug_timeout)
		self.record = self.driver.record
		return BootExtras(initrd=initrd, params=guest_params(req.shape),
				  qemu_args=['-qmp', f'unix:{self.socket},server=on,wait=off'])

	def on_line(self, line: str) -> None:
		if self.driver:
			self.driver.on_line(line)

	def stop(self) -> None:
		if self.driver:
			self.record = self.driver.finish()
		if self.socket and os.path.exists(self.socket):
			os.unlink(self.socket)

	def judge(self, outcome: BootOutcome) -> List[str]:
		"""The hotplug's own problems, and slabs left on the node whose
		memory went away, become errors of the boot."""
		record, node, log_path = self.record, self.kernel_node, outcome.log_path
		outcome.errors.extend(record_errors(record, log_path))
		if record.asked_remove is not None and node in record.asked_remove:
			caches, bad = slabs_on_node(outcome.run.lines, node)
			if not caches:
				outcome.errors.append('memory hotplug: the guest printed no '
						      'slqb-memhp-slabs lines after the removal.\n'
						      f'Full console log: {log_path}')
			elif bad:
				outcome.errors.append(
					f'memory hotplug: {len(bad)} of {caches} caches still '
					f'have slabs on node {node}, whose memory was removed:\n'
					f'{quote_lines(bad[:10])}\nFull console log: {log_path}')
		return [f'memory hotplug: {a}' for a in record.actions] + \
			[f'memory hotplug: ERROR: {e}' for e in record.errors]


def hook_for(shape: Shape) -> Optional[MemoryHotplug]:
	"""The hook a boot of shape needs: a MemoryHotplug when the shape asks
	for memory hotplug, else none."""
	return MemoryHotplug(shape) if shape.memory_hotplug else None


# ---------------------------------------------------------------- checks

# The checks of `slqb test` on a memory-hotplug boot: (name, guest steps
# that must be ok, what of the harness's own record must hold).
CHECKS = [
	('memory hot-added and onlined', ('memhp-online',), 'added'),
	('node-local after hotplug', ('memhp-churn', 'memhp-local'), ''),
	('memory offlined and removed', ('memhp-remove',), 'removed'),
	('slab memory back after removal', ('memhp-slab-memory',), ''),
	('no slabs on the removed node', ('memhp-slabs',), 'slabs'),
]


def problems(outcome: BootOutcome, record: Optional[HotplugRecord],
	     steps: Tuple[str, ...], needs: str, kernel_node: int) -> List[str]:
	"""Why one of CHECKS fails ([] when it holds); kernel_node is the node
	that gained memory and must lose it again."""
	if record is None:
		return ['the boot ran without memory hotplug']
	results = step_results(outcome.run.lines)
	found = []
	for step in steps:
		if step not in results:
			found.append(f'the guest never finished step {step}')
		elif not results[step]:
			found.append(f'step {step} FAILED:\n' + quote_lines(
				step_output(outcome.run.lines, step)[-15:]))
	if needs == 'added' and len(record.added) != 2:
		found.append(f'the harness plugged in {record.added or "no dimms"}')
	if needs == 'removed' and (MOVABLE_NODE not in (record.asked_remove or []) or
				   len(record.removed) != len(record.asked_remove)):
		found.append(f'the guest asked to remove nodes {record.asked_remove}, '
			     f'the harness removed {record.removed or "nothing"}')
	if needs == 'slabs':
		found += [e for e in outcome.errors if 'still have slabs' in e or
			  'no slqb-memhp-slabs' in e]
	if needs in ('added', 'removed'):
		found += [f'QMP: {e}' for e in record.errors]
	if found:
		found.append(f'Full console log: {outcome.log_path}')
	return found


def report_checks(ctx: Context, prefix: str, outcome: BootOutcome,
		  record: Optional[HotplugRecord], kernel_node: int) -> None:
	"""The CHECKS of a memory-hotplug boot, named '<prefix>: <check>'."""
	for name, steps, needs in CHECKS:
		if needs == 'slabs' and record and \
		   kernel_node not in (record.asked_remove or []):
			ctx.skip(f'{prefix}: {name}', f'node {kernel_node} kept its memory: '
				 'its ZONE_NORMAL blocks stayed busy (best effort, see '
				 'memhp_remove in guest/init.sh)')
			continue

		def holds(steps=steps, needs=needs) -> None:
			found = problems(outcome, record, steps, needs, kernel_node)
			if found:
				raise CheckFailed('\n'.join(found))
		ctx.check(f'{prefix}: {name}', holds)
