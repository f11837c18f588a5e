# SPDX-License-Identifier: GPL-2.0
"""The guest's initramfs: busybox, guest/init.sh, the workload tools, slqbinfo.

The archive is described in the kernel's gen_init_cpio list format, built
with usr/gen_init_cpio and gzipped. It is rebuilt only when its inputs
(the list, and the size and mtime of every host file in it) change. A
feature that needs more in the guest (the bench its module and tools,
memory hotplug its module) gives an InitramfsExtra, and its boots get an
archive of their own with those files added.
"""

import gzip
import os
import re
import shutil
import subprocess
from typing import Dict, List, Optional, Tuple

from slqb_arch import DEFAULT_ARCH, MINI_INIT_SOURCE, arch_of
from slqb_build import KernelSpec, first_build_error
from slqb_util import (HARNESS_DIR, Paths, SlqbError, file_sha1, log,
		       quote_lines, read_text, run, sha1_of, warn, write_text)

GUEST_DIR = os.path.join(HARNESS_DIR, 'guest')
# Dynamic workload tools copied in with their libraries (ldd).
WORKLOAD_TOOLS = ('stress-ng', 'hackbench')
# The kernel's own self-test modules; guest/init.sh loads them when the boot
# asks for slqbtest.selftests=1.
SELFTEST_MODULES = ('lib/test_meminit.ko', 'lib/test_xarray.ko')
# Test modules that report bugs on purpose, loaded only by boots that name
# them (slqbtest.load=NAME) and judge their reports.
EXTRA_MODULES = ('lib/test_slqb_debug.ko', 'mm/kfence/kfence_test.ko',
		 'mm/kasan/kasan_test.ko', 'mm/kmsan/kmsan_test.ko')

class CpioList:
	"""Builds a gen_init_cpio list; parent directories come by themselves."""

	def __init__(self) -> None:
		self.entries: Dict[str, str] = {}
		self.host_files: List[str] = []

	def add_dir(self, name: str, mode: str = '0755') -> None:
		parent = os.path.dirname(name)
		if parent not in ('/', '') and parent not in self.entries:
			self.add_dir(parent)
		self.entries.setdefault(name, f'dir {name} {mode} 0 0')

	def add_file(self, name: str, host: str, mode: str = '0755') -> None:
		self.add_dir(os.path.dirname(name))
		self.entries[name] = f'file {name} {host} {mode} 0 0'
		self.host_files.append(host)

	def add_link(self, name: str, target: str) -> None:
		self.add_dir(os.path.dirname(name))
		self.entries.setdefault(name, f'slink {name} {target} 0777 0 0')

	def add_node(self, name: str, mode: str, kind: str, major: int, minor: int) -> None:
		self.add_dir(os.path.dirname(name))
		self.entries[name] = f'nod {name} {mode} 0 0 {kind} {major} {minor}'

	def text(self) -> str:
		# Sorted by name, so every directory comes before what it holds.
		return ''.join(self.entries[n] + '\n' for n in sorted(self.entries))

	def key(self) -> str:
		"""Digest of the list and of the host files' identities."""
		stats = []
		for host in self.host_files:
			st = os.stat(host)
			stats.append((host, st.st_size, st.st_mtime_ns))
		return sha1_of(self.text(), stats)


class InitramfsExtra:
	"""Files that a feature adds to the guest's initramfs (memory hotplug
	its module, see slqb_memhp; the bench its module and workload tools,
	see slqb_bench). The archive with them is one of its own,
	<build>/slqb-<name>-initramfs.cpio.gz, so that the plain one, which
	every other boot of the kernel uses, stays as it is."""
	name = ''

	def add(self, cpio: 'CpioList', paths: Paths, spec: KernelSpec) -> None:
		"""Adds the feature's files to cpio."""


def shared_libraries(binary: str) -> List[Tuple[str, str]]:
	"""(path in guest, host file) of each library ldd lists for binary."""
	proc = run(['ldd', binary], timeout=60, check=False)
	libs = []
	for line in proc.stdout.splitlines():
		m = re.match(r'\s*(?:\S+ => )?(/\S+) \(0x', line)
		if m:
			libs.append((m.group(1), os.path.realpath(m.group(1))))
	return libs


def add_program(cpio: CpioList, name: str, host: str) -> None:
	"""Adds a program and, when it is dynamic, its libraries."""
	cpio.add_file(name, os.path.realpath(host))
	for guest_path, host_path in shared_libraries(host):
		cpio.add_file(guest_path, host_path)


def gen_init_cpio(paths: Paths) -> str:
	"""The kernel's usr/gen_init_cpio, compiled once into <cache>/tools."""
	src = os.path.join(paths.pristine, 'usr', 'gen_init_cpio.c')
	out = os.path.join(paths.tools, 'gen_init_cpio')
	if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
		os.makedirs(paths.tools, exist_ok=True)
		run(['gcc', '-O2', '-o', out, src], timeout=300)
	return out


def slqbinfo_binary(paths: Paths, spec: KernelSpec) -> Optional[str]:
	"""A static slqbinfo: <build>/tools/slqbinfo, else tools/vm/slqbinfo.c
	compiled here. None (with a warning if it does not compile) otherwise."""
	build = spec.build_dir(paths)
	prebuilt = os.path.join(build, 'tools', 'slqbinfo')
	if os.access(prebuilt, os.X_OK):
		return prebuilt
	src = os.path.join(paths.work, 'tools', 'vm', 'slqbinfo.c')
	if not os.path.isfile(src):
		return None
	out = os.path.join(build, 'slqb-tools', 'slqbinfo')
	if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(src):
		return out
	os.makedirs(os.path.dirname(out), exist_ok=True)
	proc = run(['gcc', '-O2', '-Wall', '-static', '-o', out, src],
		   timeout=300, check=False)
	if proc.returncode != 0:
		warn('tools/vm/slqbinfo.c does not compile; booting without '
		     '/bin/slqbinfo. First error:\n' +
		     quote_lines(first_build_error(proc.stdout.splitlines())))
		return None
	return out


def busybox_path() -> str:
	"""busybox from busybox-static."""
	path = shutil.which('busybox')
	if not path:
		raise SlqbError('busybox is missing (apt-get install busybox-static)',
				exit_code=2)
	return path


def add_host_tools(cpio: CpioList, tools, user: str) -> None:
	"""The host's copies of tools as /usr/bin/<tool>; a missing one is
	warned about, since user (what runs them) skips it."""
	for tool in tools:
		host = shutil.which(tool)
		if host:
			add_program(cpio, f'/usr/bin/{tool}', host)
		else:
			warn(f'{tool} not found; {user} will skip it')


def describe_initramfs(paths: Paths, spec: KernelSpec,
		       extra: Optional[InitramfsExtra] = None) -> CpioList:
	"""The list of everything that goes into the guest's initramfs (with
	extra, also its files)."""
	cpio = CpioList()
	for name in ('/proc', '/sys', '/root', '/mnt', '/etc', '/bin', '/sbin',
		     '/usr/bin', '/usr/sbin'):
		cpio.add_dir(name)
	cpio.add_dir('/tmp', '1777')
	cpio.add_dir('/dev')
	cpio.add_node('/dev/console', '0600', 'c', 5, 1)
	cpio.add_node('/dev/null', '0666', 'c', 1, 3)
	cpio.add_file('/init', os.path.join(GUEST_DIR, 'init.sh'))
	cpio.add_file('/etc/passwd', os.path.join(GUEST_DIR, 'passwd'), '0644')
	cpio.add_file('/etc/group', os.path.join(GUEST_DIR, 'group'), '0644')
	busybox = busybox_path()
	add_program(cpio, '/bin/busybox', busybox)
	add_host_tools(cpio, WORKLOAD_TOOLS, 'the guest workload')
	slqbinfo = slqbinfo_binary(paths, spec)
	if slqbinfo:
		add_program(cpio, '/bin/slqbinfo', slqbinfo)
	for module in SELFTEST_MODULES:
		host = os.path.join(spec.build_dir(paths), module)
		if os.path.exists(host):
			cpio.add_file('/lib/slqbtest/' + os.path.basename(module),
				      host, '0644')
	for module in EXTRA_MODULES:
		host = os.path.join(spec.build_dir(paths), module)
		if os.path.exists(host):
			cpio.add_file('/lib/slqbtest-extra/' + os.path.basename(module),
				      host, '0644')
	if extra:
		extra.add(cpio, paths, spec)
	applets = run([busybox, '--list-full'], timeout=60).stdout.split()
	for applet in applets:
		cpio.add_link('/' + applet, '/bin/busybox')
	return cpio


def mini_init_initramfs(paths: Paths, spec: KernelSpec,
			extra: Optional[InitramfsExtra] = None) -> CpioList:
	"""Other architectures: guest/mini-init.c, compiled statically with
	the arch's cross compiler, as /init, and nothing else but extra's
	files (for the bench, its module: the workload tools are x86_64
	binaries)."""
	out = os.path.join(spec.build_dir(paths), 'slqb-tools', 'mini-init')
	if not os.path.exists(out) or \
	   os.path.getmtime(out) < os.path.getmtime(MINI_INIT_SOURCE):
		os.makedirs(os.path.dirname(out), exist_ok=True)
		proc = run([arch_of(spec.arch).user_cc, '-O2', '-Wall', '-static',
			    '-o', out, MINI_INIT_SOURCE], timeout=300, check=False)
		if proc.returncode != 0:
			raise SlqbError('guest/mini-init.c does not compile for '
					f'{spec.arch}:\n' + quote_lines(
						first_build_error(proc.stdout.splitlines())))
	cpio = CpioList()
	for name in ('/proc', '/sys', '/dev', '/tmp'):
		cpio.add_dir(name)
	cpio.add_node('/dev/console', '0600', 'c', 5, 1)
	cpio.add_file('/init', out)
	if extra:
		extra.add(cpio, paths, spec)
	return cpio


def initramfs_prefix(extra: Optional[InitramfsExtra] = None) -> str:
	"""'slqb', or 'slqb-<extra.name>' for the archive with extra's files."""
	return f'slqb-{extra.name}' if extra else 'slqb'


def build_initramfs(paths: Paths, spec: KernelSpec,
		    extra: Optional[InitramfsExtra] = None) -> str:
	"""Builds (or reuses) <build>/slqb-initramfs.cpio.gz (with extra,
	slqb-<name>-initramfs.cpio.gz); returns its path. The caller holds
	the build lock."""
	build = spec.build_dir(paths)
	prefix = initramfs_prefix(extra)
	out = os.path.join(build, f'{prefix}-initramfs.cpio.gz')
	key_file = out + '.key'
	if spec.arch != DEFAULT_ARCH:
		cpio = mini_init_initramfs(paths, spec, extra)
	else:
		cpio = describe_initramfs(paths, spec, extra)
	tool = gen_init_cpio(paths)
	key = sha1_of(cpio.key(), file_sha1(tool))
	if os.path.isfile(out) and read_text(key_file, '').strip() == key:
		log(f'initramfs: {out} (unchanged)')
		return out
	list_file = os.path.join(build, f'{prefix}-initramfs.list')
	write_text(list_file, cpio.text())
	try:
		archive = subprocess.run([tool, list_file],
					 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
					 timeout=300, check=True).stdout
	except subprocess.CalledProcessError as e:
		raise SlqbError(f'gen_init_cpio failed on {list_file}:\n' +
				quote_lines(e.stderr.decode(errors='replace').splitlines()[-10:]))
	except subprocess.TimeoutExpired:
		raise SlqbError('gen_init_cpio timed out')
	with open(out + '.tmp', 'wb') as f:
		f.write(gzip.compress(archive, compresslevel=6))
	os.replace(out + '.tmp', out)
	write_text(key_file, key + '\n')
	size = os.path.getsize(out) / 1e6
	log(f'initramfs: {out} ({size:.1f} MB, {len(cpio.entries)} entries'
	    f'{", with slqbinfo" if "/bin/slqbinfo" in cpio.entries else ""})')
	return out
