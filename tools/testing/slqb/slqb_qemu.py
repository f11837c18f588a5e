# SPDX-License-Identifier: GPL-2.0
"""Running a kernel in QEMU (TCG) with a given CPU and NUMA shape.

The console goes to a log file and, as asked, to the terminal. QEMU never
outlives its timeout, and after the guest's verdict line it gets a short
grace period to power off before it is stopped.
"""

import dataclasses
import re
import subprocess
import sys
import time
from typing import Callable, List, Optional, Sequence, Tuple

from slqb_arch import DEFAULT_ARCH, arch_of
from slqb_guest import VERDICT_RE, marker_text
from slqb_util import LineSplitter, SlqbError, pump, stop_process

QEMU = 'qemu-system-x86_64'
MEM_PER_NODE_MB = 512
MAX_CPUS = 8		# CONFIG_NR_CPUS in configs/base.config
MAX_NODES = 8
# --memory-hotplug: room for pc-dimms beyond the boot memory (-m ...,slots=,maxmem=)
HOTPLUG_SLOTS = 4
HOTPLUG_MAXMEM = '4G'
VERDICT_GRACE_S = 60	# from the verdict line to QEMU's exit
# QEMU's own line when KVM cannot go on (an instruction its emulator lacks,
# say): QEMU dumps the registers and then waits, with the VM stopped, for a
# monitor that is not there. Nothing more will come. Not anchored: SeaBIOS's
# escape sequences may be left at the start of the line.
VM_STOPPED_RE = re.compile(r'KVM internal error\b|KVM: entry failed\b|'
			   r'error: kvm run failed\b')
VM_STOPPED_GRACE_S = 3	# for the register dump that follows that line
TERMINAL_RESET = '\x1b[?7h\x1b[0m'	# line wrap on, attributes off


@dataclasses.dataclass(frozen=True)
class Shape:
	"""CPUs and NUMA nodes of the virtual machine.

	CPUs are spread over the nodes that have memory in contiguous runs.
	With memoryless, one more node, without memory, owns the last CPU.
	memory_hotplug leaves QEMU room to hot-add pc-dimms (slqb_memhp), and
	needs the memoryless node: it is the node that gains memory.
	prealloc: QEMU touches all guest RAM before the guest starts, so that
	no guest access pays a host page fault on first touch (which falls on
	whichever kernel first uses a page, and so on wall-clock figures).
	"""
	cpus: int = 2
	nodes: int = 1
	memoryless: bool = False
	memory_hotplug: bool = False
	prealloc: bool = False

	def validate(self, max_cpus: int = MAX_CPUS) -> None:
		"""Refuses shapes QEMU or the kernel config cannot give."""
		if self.cpus < 1:
			raise SlqbError(f'--cpus {self.cpus}: need at least 1 CPU', exit_code=2)
		if self.cpus > max_cpus:
			raise SlqbError(f'--cpus {self.cpus}: the kernel is built with '
					f'CONFIG_NR_CPUS={max_cpus}', exit_code=2)
		if not 1 <= self.nodes <= MAX_NODES:
			raise SlqbError(f'--nodes {self.nodes}: must be 1..{MAX_NODES}',
					exit_code=2)
		need = self.nodes + (1 if self.memoryless else 0)
		if self.cpus < need:
			extra = ' plus the memoryless node' if self.memoryless else ''
			raise SlqbError(f'--cpus {self.cpus} is too few for {self.nodes} '
					f'node(s){extra}: every node gets at least one CPU, '
					f'so use --cpus {need} or more', exit_code=2)
		if self.memory_hotplug and not self.memoryless:
			raise SlqbError('--memory-hotplug needs --memoryless-node: the '
					'memoryless node is the one that gains memory '
					'(and loses it again)', exit_code=2)

	@property
	def total_nodes(self) -> int:
		return self.nodes + (1 if self.memoryless else 0)

	def layout(self) -> List[Tuple[int, int, int, bool]]:
		"""(node id, first cpu, last cpu, has memory) per node."""
		memory_cpus = self.cpus - (1 if self.memoryless else 0)
		share, extra = divmod(memory_cpus, self.nodes)
		nodes, first = [], 0
		for node in range(self.nodes):
			count = share + (1 if node < extra else 0)
			nodes.append((node, first, first + count - 1, True))
			first += count
		if self.memoryless:
			nodes.append((self.nodes, self.cpus - 1, self.cpus - 1, False))
		return nodes

	def label(self) -> str:
		"""'2cpu-2node', '4cpu-2node-memoryless' or
		'4cpu-2node-memoryless-memhp'."""
		text = f'{self.cpus}cpu-{self.nodes}node'
		text += '-memoryless' if self.memoryless else ''
		return text + ('-memhp' if self.memory_hotplug else '')

	def describe(self) -> str:
		"""'2 CPUs; node0: cpu0, 512M; node1: cpu1, no memory'."""
		parts = [f'{self.cpus} CPUs']
		for node, first, last, memory in self.layout():
			cpus = f'cpu{first}' if first == last else f'cpu{first}-{last}'
			parts.append(f'node{node}: {cpus}, ' +
				     (f'{MEM_PER_NODE_MB}M' if memory else 'no memory'))
		if self.memory_hotplug:
			parts.append(f'memory hotplug: {HOTPLUG_SLOTS} slots, '
				     f'up to {HOTPLUG_MAXMEM}')
		if self.prealloc:
			parts.append('RAM preallocated')
		return '; '.join(parts)

	def qemu_args(self) -> List[str]:
		"""-m, -smp and the -object/-numa pairs for this shape."""
		# One CPU per socket: CPUs sharing a socket (an LLC) on different
		# nodes make the kernel WARN in topology_sane().
		memory = f'{MEM_PER_NODE_MB * self.nodes}M'
		if self.memory_hotplug:
			memory += f',slots={HOTPLUG_SLOTS},maxmem={HOTPLUG_MAXMEM}'
		args = ['-m', memory,
			'-smp', f'{self.cpus},sockets={self.cpus},cores=1,threads=1']
		for node, first, last, memory in self.layout():
			numa = f'node,nodeid={node},cpus={first}-{last}'
			if memory:
				args += ['-object', f'memory-backend-ram,id=m{node},'
					 f'size={MEM_PER_NODE_MB}M' +
					 (',prealloc=on' if self.prealloc else '')]
				numa += f',memdev=m{node}'
			args += ['-numa', numa]
		return args


def qemu_command(bzimage: str, initrd: str, shape: Shape, append: str,
		 icount: bool = False, arch: str = DEFAULT_ARCH,
		 extra: Sequence[str] = (), kvm: bool = False,
		 binary: str = '') -> List[str]:
	"""The full qemu-system-x86_64 (or arch's QEMU) command line.

	icount: -icount shift=0,sleep=off, so that guest time counts guest
	instructions: one vCPU, or on an architecture whose SMP bring-up works
	under it (Arch.icount_smp) several, taking turns on one TCG thread.
	extra: more arguments, after the machine shape's (a boot hook's, such
	as the QMP socket of memory hotplug).
	kvm: -accel kvm with the host's CPU model instead of TCG (x86_64 on an
	x86_64 host; see slqb_bench's probe), never with icount.
	binary: the emulator to run instead of the arch's (see slqb_qemu_mte).
	"""
	if kvm and (icount or arch != DEFAULT_ARCH):
		raise SlqbError('KVM runs x86_64 wall-clock boots only, never '
				'icount ones', exit_code=2)
	if icount and shape.cpus != 1 and not arch_of(arch).icount_smp:
		raise SlqbError(f'-icount needs 1 vCPU on {arch}, not {shape.cpus} '
				'(SMP bring-up hangs under it)', exit_code=2)
	if icount:
		thread = 'tcg,thread=single' if shape.cpus > 1 else 'tcg'
		accel = ['-accel', thread, '-icount', 'shift=0,sleep=off']
	elif kvm:
		accel = ['-accel', 'kvm']
	else:
		accel = ['-accel', 'tcg,thread=multi']
	machine = list(arch_of(arch).qemu)
	if kvm:
		machine[machine.index('-cpu') + 1] = 'host'
	return [binary or machine[0], *accel, *machine[1:],
		*shape.qemu_args(), *extra, '-nographic', '-no-reboot',
		'-kernel', bzimage, '-initrd', initrd, '-append', append]


@dataclasses.dataclass
class GuestRun:
	"""What came out of one QEMU run."""
	lines: List[str]
	returncode: Optional[int]
	timed_out: bool
	elapsed: float
	vm_stopped: Optional[str] = None	# the VM_STOPPED_RE line, if any


def run_guest(cmd: Sequence[str], log_path: str, timeout: Optional[float],
	      console: str,
	      on_line: Optional[Callable[[str], None]] = None) -> GuestRun:
	"""Runs QEMU, logging the console; console is how the terminal sees it:

	'stream' echoes everything, 'markers' only the guest's SLQB-GUEST lines,
	'interactive' echoes everything and gives QEMU the terminal's stdin.
	on_line sees each console line as it comes (it must not block).
	"""
	lines: List[str] = []
	splitter = LineSplitter()
	start = time.monotonic()
	limit = [start + timeout if timeout else None]
	stopped: List[str] = []
	stdin = None if console == 'interactive' else subprocess.DEVNULL
	try:
		proc = subprocess.Popen(list(cmd), stdin=stdin, stdout=subprocess.PIPE,
					stderr=subprocess.STDOUT)
	except FileNotFoundError:
		raise SlqbError(f'{cmd[0]} is missing (apt-get install qemu-system-x86)',
				exit_code=2)
	with open(log_path, 'ab') as out:
		def take(data: bytes) -> None:
			out.write(data)
			out.flush()
			if console != 'markers':
				sys.stdout.buffer.write(data)
				sys.stdout.flush()
			for line in splitter.feed(data):
				lines.append(line)
				if on_line:
					on_line(line)
				said = marker_text(line)
				if console == 'markers' and said is not None:
					print('    guest: ' + said, flush=True)
				if VERDICT_RE.search(line):
					grace = time.monotonic() + VERDICT_GRACE_S
					limit[0] = min(limit[0] or grace, grace)
				elif not stopped and (m := VM_STOPPED_RE.search(line)):
					stopped.append(line[m.start():].strip())
					grace = time.monotonic() + VM_STOPPED_GRACE_S
					limit[0] = min(limit[0] or grace, grace)
		finished = False
		try:
			finished = pump(proc, take, lambda: limit[0])
		finally:
			stop_process(proc, grace=30 if finished else 0)
		lines.extend(splitter.flush())
	if console != 'markers' and sys.stdout.isatty():
		sys.stdout.write(TERMINAL_RESET)	# SeaBIOS turns line wrap off
		sys.stdout.flush()
	return GuestRun(lines=lines, returncode=proc.returncode,
			timed_out=not finished and not stopped,
			elapsed=time.monotonic() - start,
			vm_stopped=stopped[0] if stopped else None)
