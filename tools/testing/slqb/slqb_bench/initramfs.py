# SPDX-License-Identifier: GPL-2.0
"""What a bench boot's initramfs holds beyond the plain one: the bench
module, the tools of the system workloads and the allocator's function
names for the profile step (an InitramfsExtra of slqb_initramfs; the
archive is <build>/slqb-bench-initramfs.cpio.gz).
"""

import os
import re
from typing import List

from slqb_arch import DEFAULT_ARCH
from slqb_build import KernelSpec
from slqb_initramfs import GUEST_DIR, CpioList, InitramfsExtra, add_host_tools
from slqb_util import Paths, SlqbError, read_text, run, warn, write_text

# The bench module, built into <build>/slqb-bench, and where the guest
# loads it from.
BENCH_MODULE = os.path.join('slqb-bench', 'slqb_bench.ko')
GUEST_MODULE = '/lib/slqbtest/slqb_bench.ko'
# The tools of the system workloads: Debian's, and ours (built statically
# from guest/, into the kernel's build directory).
BENCH_TOOLS = ('iperf3', 'perf', 'tbench', 'tbench_srv')
# tbench's loadfile, where Debian's dbench keeps it and tbench looks for
# it. The guest gets its first TBENCH_LINES operations (1.1 MB), more
# than a TCG guest gets through in a bench's run, where tbench starts
# over at the end: the whole file, 25 MiB, would sit in every guest's
# RAM for the whole boot.
TBENCH_LOADFILE = '/usr/share/dbench/client.txt'
TBENCH_HOST_LOADFILE = TBENCH_LOADFILE
TBENCH_LINES = 20000
SYSBENCH_SOURCE = os.path.join(GUEST_DIR, 'slqb-sysbench.c')
SYSBENCH_GUEST = '/usr/bin/slqb-sysbench'
# The objects of the slab allocators and of their common code, and where
# the guest finds their function names (the bench's profile step).
ALLOC_OBJ_RE = re.compile(r'^(slab_common|sl[aouq]b(_[a-z]+)?)\.o$')
ALLOC_SYMS_GUEST = '/lib/slqbtest/alloc-syms'


def add_bench_module(cpio: CpioList, paths: Paths, spec: KernelSpec) -> None:
	"""The benchmark module of `slqb bench`, built against spec."""
	module = os.path.join(spec.build_dir(paths), BENCH_MODULE)
	if not os.path.exists(module):
		raise SlqbError(f'{module} is missing: build the bench module first')
	cpio.add_file(GUEST_MODULE, module, '0644')


def build_sysbench(build: str) -> str:
	"""guest/slqb-sysbench.c, compiled statically with the host's gcc (as
	for every x86_64 guest tool): the path of the program."""
	out = os.path.join(build, 'slqb-tools', 'slqb-sysbench')
	if os.path.exists(out) and \
	   os.path.getmtime(out) >= os.path.getmtime(SYSBENCH_SOURCE):
		return out
	os.makedirs(os.path.dirname(out), exist_ok=True)
	proc = run(['gcc', '-O2', '-Wall', '-Wextra', '-Werror', '-static',
		    '-pthread', '-o', out, SYSBENCH_SOURCE], timeout=300,
		   check=False)
	if proc.returncode != 0:
		raise SlqbError('guest/slqb-sysbench.c does not compile:\n' +
				proc.stdout.strip())
	return out


def tbench_loadfile(build: str) -> str:
	"""The first TBENCH_LINES lines of the host's tbench loadfile, in
	<build>/slqb-tools/tbench-client.txt; '' without dbench."""
	if not os.path.isfile(TBENCH_HOST_LOADFILE):
		return ''
	with open(TBENCH_HOST_LOADFILE, encoding='utf-8', errors='replace') as f:
		text = ''.join(line for _, line in zip(range(TBENCH_LINES), f))
	out = os.path.join(build, 'slqb-tools', 'tbench-client.txt')
	if read_text(out, '') != text:
		os.makedirs(os.path.dirname(out), exist_ok=True)
		write_text(out, text)
	return out


def allocator_symbols(build: str) -> List[str]:
	"""The functions that the kernel in build has from its slab allocator's
	own files (mm/slab_common.c and mm/sl?b*.c, whichever it built), by
	the names perf gives them, from nm. Empty if none of them is there."""
	mm = os.path.join(build, 'mm')
	objs = sorted(f for f in os.listdir(mm) if ALLOC_OBJ_RE.match(f)) \
		if os.path.isdir(mm) else []
	names = set()
	for obj in objs:
		proc = run(['nm', '--defined-only', os.path.join(mm, obj)],
			   timeout=60, check=False)
		for line in proc.stdout.splitlines():
			fields = line.split()
			if len(fields) == 3 and fields[1] in 'tTwW':
				names.add(fields[2])
	return sorted(names)


class BenchFiles(InitramfsExtra):
	"""The bench's files: on x86_64 the module, the workload tools and the
	allocator's function names; elsewhere the module alone (the tools
	are x86_64 binaries, and guest/mini-init.c runs no workloads)."""
	name = 'bench'

	def add(self, cpio: CpioList, paths: Paths, spec: KernelSpec) -> None:
		add_bench_module(cpio, paths, spec)
		if spec.arch != DEFAULT_ARCH:
			return
		add_host_tools(cpio, BENCH_TOOLS, 'the benchmark')
		build = spec.build_dir(paths)
		loadfile = tbench_loadfile(build)
		if loadfile:
			cpio.add_file(TBENCH_LOADFILE, loadfile, '0644')
		cpio.add_file(SYSBENCH_GUEST, build_sysbench(build), '0755')
		names = allocator_symbols(build)
		if names:
			path = os.path.join(build, 'slqb-bench-alloc-syms.txt')
			text = ''.join(n + '\n' for n in names)
			if read_text(path, '') != text:
				write_text(path, text)
			cpio.add_file(ALLOC_SYMS_GUEST, path, '0644')
		else:
			warn(f'no allocator objects in {build}/mm: the bench profile '
			     'step will skip')
