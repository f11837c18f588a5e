# SPDX-License-Identifier: GPL-2.0
"""The architectures the harness builds and boots: a data table, ARCHES.

x86_64 is the default and the only one `slqb test` runs without --arch.
arm64 (64 KiB pages, cross-compiled, qemu-system-aarch64 -M virt) and
i386 (32 bits) boot with a small static /init (guest/mini-init.c) instead
of the busybox userspace; their packages are installed only when asked
for. configs/arch-<name>.config, when it exists, is merged after
configs/base.config.
"""

import dataclasses
import os
from typing import Tuple

from slqb_util import HARNESS_DIR, SlqbError

DEFAULT_ARCH = 'x86_64'
MINI_INIT_SOURCE = os.path.join(HARNESS_DIR, 'guest', 'mini-init.c')


@dataclasses.dataclass(frozen=True)
class Arch:
	"""How to build and boot a kernel for one architecture."""
	name: str
	make_arch: str			# make ARCH=
	cross: str			# CROSS_COMPILE= ('' for the host gcc)
	target: str			# make target of the boot image
	image: str			# the boot image, relative to the build dir
	qemu: Tuple[str, ...]		# QEMU binary and machine options
	console: str			# console= device
	user_cc: str			# compiler of the static mini init ('': busybox)
	packages: Tuple[str, ...]	# Debian packages this arch needs
	# -icount boots with more than one vCPU: arm64's secondary CPUs come
	# up through PSCI and boot under one TCG thread; x86's INIT/SIPI
	# bring-up hangs there (QEMU 7.2, MACHINE.md)
	icount_smp: bool = False

	@property
	def cc(self) -> str:
		"""The kernel compiler, through ccache."""
		return f'ccache {self.cross}gcc'


ARCHES = {
	'x86_64': Arch('x86_64', 'x86_64', '', 'bzImage', 'arch/x86/boot/bzImage',
		       ('qemu-system-x86_64', '-cpu', 'max'), 'ttyS0', '', ()),
	'arm64': Arch('arm64', 'arm64', 'aarch64-linux-gnu-', 'Image',
		      'arch/arm64/boot/Image',
		      ('qemu-system-aarch64', '-M', 'virt', '-cpu', 'max'),
		      'ttyAMA0', 'aarch64-linux-gnu-gcc',
		      ('gcc-aarch64-linux-gnu', 'libc6-dev-arm64-cross',
		       'qemu-system-arm'), icount_smp=True),
	# TCG's 'max' CPU says AuthenticAMD family 6, an Athlon to a 32-bit
	# kernel, whose SMP check then warns that the CPUs are not fit for
	# SMP: the same CPU with Intel's vendor string boots clean.
	'i386': Arch('i386', 'i386', '', 'bzImage', 'arch/x86/boot/bzImage',
		     ('qemu-system-i386', '-cpu', 'max,vendor=GenuineIntel'),
		     'ttyS0',
		     'i686-linux-gnu-gcc',
		     ('gcc-i686-linux-gnu', 'libc6-dev-i386-cross')),
}


def arch_of(name: str) -> Arch:
	"""The table entry for name; refuses unknown architectures."""
	try:
		return ARCHES[name]
	except KeyError:
		raise SlqbError(f'unknown architecture {name!r}; known: '
				f'{", ".join(ARCHES)}', exit_code=2)
