# SPDX-License-Identifier: GPL-2.0
"""A qemu-system-aarch64 that keeps one allocation tag per granule, for the
boots of KASAN's hardware tag-based mode.

QEMU before 8.0 finds the tag of any address at the start of its page
(fixes/qemu-7.2-mte-tag-address.patch says where): a page holds one tag, the
last one stored in it, and a KASAN_HW_TAGS kernel takes a tag-check fault
at its first slab allocations, whatever its allocator. Debian 12 has QEMU
7.2. On such a host the harness builds the emulator once, from Debian's own
source package of the installed QEMU with that one fix, into
<cache>/tools/qemu-mte-<digest>/ (about 4 minutes on two cores), and boots
the hardware-tag kernels with it. Every other boot keeps the system's QEMU.
"""

import glob
import os
import re
import shutil
from typing import Optional, Tuple

from slqb_host import ensure_packages
from slqb_util import (Paths, SlqbError, file_sha1, log, run, sha1_of,
		       write_text)

SYSTEM_QEMU = 'qemu-system-aarch64'
# The first release whose MTE looks tags up at the address's own granule.
FIXED_IN = (8, 0, 0)
FIX_PATCH = 'qemu-7.2-mte-tag-address.patch'
# The binary package of the system's qemu-system-aarch64.
BINARY_PACKAGE = 'qemu-system-arm'
# What fetching, unpacking and building the source package needs.
BUILD_PACKAGES = ('dpkg-dev', 'meson', 'ninja-build', 'pkg-config', 'gcc',
		  'make', 'python3', 'libglib2.0-dev', 'libpixman-1-dev',
		  'libfdt-dev', 'zlib1g-dev', 'ipxe-qemu')
# Debian 12's source archives, for apt-get source with private lists: the
# machine's own sources.list is left as it is.
SOURCES = ('deb-src http://deb.debian.org/debian bookworm main\n'
	   'deb-src http://deb.debian.org/debian bookworm-updates main\n'
	   'deb-src http://deb.debian.org/debian-security bookworm-security main\n')
# Where Debian's own binary looks for firmware (its debian/rules): the virt
# machine needs the option ROM of its NIC from there.
FIRMWARE = ('/usr/share/qemu', '/usr/share/seabios', '/usr/lib/ipxe/qemu')
# Only the TCG system emulator.
CONFIGURE = ('--target-list=aarch64-softmmu', '--without-default-features',
	     '--enable-tcg', '--enable-fdt=system', '--disable-docs',
	     '--disable-werror', '--firmwarepath=' + ':'.join(FIRMWARE))
VERSION_RE = re.compile(r'QEMU emulator version (\d+)\.(\d+)(?:\.(\d+))?')


def parse_version(text: str) -> Optional[Tuple[int, int, int]]:
	"""The version in the first line of `qemu-system-* --version`."""
	m = VERSION_RE.search(text)
	if not m:
		return None
	return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))


def needs_fix(version: Tuple[int, int, int]) -> bool:
	"""Whether a QEMU of this version shares one tag among a page's
	granules."""
	return version < FIXED_IN


def system_version() -> Tuple[int, int, int]:
	"""The system qemu-system-aarch64's version."""
	out = run([SYSTEM_QEMU, '--version'], timeout=60).stdout
	version = parse_version(out)
	if not version:
		raise SlqbError(f'cannot read the version of {SYSTEM_QEMU}: '
				f'{out.strip()[:200]!r}')
	return version


def source_version() -> str:
	"""The Debian version of the source package of the system's QEMU."""
	out = run(['dpkg-query', '-W', '-f=${source:Version}', BINARY_PACKAGE],
		  timeout=60, check=False)
	version = out.stdout.strip()
	if out.returncode != 0 or not version:
		raise SlqbError(f'{BINARY_PACKAGE} is not installed; the '
				'hardware-tag boots need its QEMU', exit_code=2)
	return version


def fix_patch(paths: Paths) -> str:
	"""The fix's path in the repository."""
	return os.path.join(paths.repo, 'tools', 'testing', 'slqb', 'fixes',
			    FIX_PATCH)


def build_dir(paths: Paths, version: str) -> str:
	"""Where the fixed QEMU of this source version is built."""
	digest = sha1_of(version, file_sha1(fix_patch(paths)), CONFIGURE)[:8]
	return os.path.join(paths.tools, f'qemu-mte-{digest}')


def fetch_source(top: str, version: str) -> str:
	"""Downloads and unpacks Debian's qemu source package of version
	into top/src; returns the unpacked tree."""
	apt = os.path.join(top, 'apt')
	lists = os.path.join(apt, 'lists')
	os.makedirs(os.path.join(lists, 'partial'), exist_ok=True)
	sources = os.path.join(apt, 'sources.list')
	with open(sources, 'w', encoding='utf-8') as f:
		f.write(SOURCES)
	opts = ['-o', f'Dir::Etc::sourcelist={sources}',
		'-o', 'Dir::Etc::sourceparts=-',
		'-o', f'Dir::State::Lists={lists}']
	src = os.path.join(top, 'src')
	shutil.rmtree(src, ignore_errors=True)
	os.makedirs(src)
	run(['apt-get', *opts, 'update'], timeout=900)
	run(['apt-get', *opts, 'source', f'qemu={version}'], cwd=src,
	    timeout=1800)
	trees = [d for d in glob.glob(os.path.join(src, 'qemu-*'))
		 if os.path.isdir(d)]
	if len(trees) != 1:
		raise SlqbError(f'apt-get source qemu={version} left '
				f'{len(trees)} source trees in {src}')
	return trees[0]


def build(paths: Paths, top: str, version: str) -> str:
	"""Fetches, fixes, configures and builds qemu-system-aarch64 in top.
	Returns the binary."""
	if os.geteuid() != 0:
		raise SlqbError(f'QEMU {".".join(map(str, system_version()))} '
				'loses MTE tags (see slqb_qemu_mte.py); building a fixed '
				'one needs apt-get as root: rerun as root', exit_code=2)
	ensure_packages(BUILD_PACKAGES)
	log(f'qemu: building qemu-system-aarch64 from Debian\'s qemu {version} '
	    f'with fixes/{FIX_PATCH}, in {top}')
	tree = fetch_source(top, version)
	run(['patch', '-p1', '--forward', '--batch', '-i', fix_patch(paths)],
	    cwd=tree, timeout=60)
	out = os.path.join(tree, 'build')
	os.makedirs(out, exist_ok=True)
	run([os.path.join(tree, 'configure'), *CONFIGURE], cwd=out,
	    timeout=900)
	jobs = str(os.cpu_count() or 1)
	run(['make', f'-j{jobs}', 'qemu-system-aarch64'], cwd=out, timeout=5400)
	binary = os.path.join(out, 'qemu-system-aarch64')
	got = parse_version(run([binary, '--version'], timeout=60).stdout)
	if not got:
		raise SlqbError(f'the QEMU built in {out} does not run')
	return binary


def link_firmware(binary: str) -> None:
	"""Run from its build directory, QEMU looks for firmware under its
	qemu-bundle/ there instead of at FIRMWARE: point the one at the
	other."""
	bundle = os.path.join(os.path.dirname(binary), 'qemu-bundle')
	for path in FIRMWARE:
		link = os.path.join(bundle, path.lstrip('/'))
		if not os.path.lexists(link):
			os.makedirs(os.path.dirname(link), exist_ok=True)
			os.symlink(path, link)


def mte_qemu(paths: Paths) -> str:
	"""The qemu-system-aarch64 for a KASAN_HW_TAGS kernel: the system's if
	its MTE is right, else the fixed build, made first if need be. The
	caller holds the build lock."""
	version = system_version()
	if not needs_fix(version):
		return SYSTEM_QEMU
	source = source_version()
	top = build_dir(paths, source)
	done = os.path.join(top, 'binary')
	if os.path.isfile(done):
		with open(done, encoding='utf-8') as f:
			binary = f.read().strip()
		if os.access(binary, os.X_OK):
			link_firmware(binary)
			return binary
	binary = build(paths, top, source)
	link_firmware(binary)
	write_text(done, binary + '\n')
	log(f'qemu: {binary} (QEMU {".".join(map(str, version))} with the MTE '
	    'fix) boots the hardware-tag kernels')
	return binary
