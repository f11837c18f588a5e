#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# This file is a Python 3 program with a short POSIX sh prelude, so that on
# a fresh Debian machine it can install python3 itself. sh runs the lines up
# to `exec` (the `''':'` line is the no-op `:` for sh); Python sees them as
# a string and skips them.
''':'
if ! command -v python3 >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ]; then
		export DEBIAN_FRONTEND=noninteractive
		apt-get install -y --no-install-recommends python3 ||
		{ apt-get update && apt-get install -y --no-install-recommends python3; } ||
		exit 2
	else
		echo "ERROR: python3 is missing. Install it, then rerun:" >&2
		echo "    sudo apt-get install -y --no-install-recommends python3" >&2
		exit 2
	fi
fi
exec python3 "$0" "$@"
'''

DESCRIPTION = """SLQB test harness: build Linux 6.1 with the SLQB series in patches/
and the new files of this repository, boot it in QEMU, and judge the boot.

  slqb.py boot [--alloc slqb|slub|slab|slob] [--cpus N] [--nodes N]
               [--memoryless-node [--memory-hotplug]] [--kconfig CONFIG_X=y ...]
               [--append ARGS] [--shell] [--timeout S] [--stress S]
               [--base-config FILE]
  slqb.py apply DIR      lay the series and the new files over a 6.1 tree
  slqb.py test           everything CI runs
  slqb.py test --sanitizers   SLQB under KCSAN, kmemleak and UBSAN
  slqb.py boot|test --arch arm64|i386   the same on another architecture
  slqb.py series [DIR]   export the series for git am, with a cover letter
  slqb.py bench [--quick] [--runs R] [--kernel NAME=ALLOC[:CONFIG_X=V,...]]
                [--nodes N] [--counters] [--base-config FILE]
                [--accel auto|tcg|kvm]
                         SLQB against SLAB, SLUB and SLOB

Cache (source trees, builds, logs): $SLQB_CACHE or <repo>/.slqb-cache.
tools/testing/slqb/README.rst describes every command and option."""

import argparse
import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))

import slqb_memhp
import slqb_series
from slqb_arch import ARCHES, DEFAULT_ARCH, arch_of
from slqb_group_arch import group_name
from slqb_boot import (DEFAULT_TIMEOUT_S, BootRequest, boot_kernel,
		       prepare_kernel, print_outcome)
from slqb_build import (ALLOCATORS, KernelSpec, base_spec,
			parse_kconfig_option)
from slqb_checks import run_all, select_groups
from slqb_host import ensure_packages
from slqb_qemu import MAX_CPUS, Shape
from slqb_tree import apply_to_tree, check_kernel_tree
from slqb_util import (HARNESS_DIR, REPO_ROOT, Paths, SlqbError,
		       fmt_duration, log)

# `slqb bench` is a package of its own, which the series adds in a patch
# after the rest of the harness: without it there is no bench command.
BENCH_PACKAGE = os.path.join(HARNESS_DIR, 'slqb_bench', '__init__.py')


def cmd_boot(args: argparse.Namespace) -> int:
	"""slqb boot: build (if needed) and boot one kernel."""
	extras = tuple('='.join(parse_kconfig_option(o)) for o in args.kconfig)
	if args.base_config is not None:
		if args.arch != DEFAULT_ARCH:
			raise SlqbError('--base-config is for x86_64 only', exit_code=2)
		if args.memory_hotplug:
			raise SlqbError('--memory-hotplug needs the harness\'s own '
					'kernel config (its module and ACPI memory '
					'devices); it does not go with --base-config',
					exit_code=2)
		spec = base_spec(args.alloc, extras, args.base_config)
	else:
		spec = KernelSpec(args.alloc, extras, args.arch)
	shape = Shape(args.cpus, args.nodes, args.memoryless_node,
		      args.memory_hotplug)
	nr_cpus = dict(parse_kconfig_option(o) for o in extras).get('CONFIG_NR_CPUS')
	shape.validate(int(nr_cpus) if nr_cpus else MAX_CPUS)
	if args.timeout is not None and args.timeout <= 0:
		raise SlqbError('--timeout must be more than 0 seconds', exit_code=2)
	if args.memory_hotplug and args.arch != DEFAULT_ARCH:
		raise SlqbError('--memory-hotplug is for x86_64 only (ACPI memory '
				'devices)', exit_code=2)
	if args.memory_hotplug and args.shell:
		raise SlqbError('--memory-hotplug runs in the workload; it does not '
				'go with --shell', exit_code=2)
	if args.stress < 0:
		raise SlqbError('--stress must be 0 (no stress-ng) or more seconds',
				exit_code=2)
	timeout = args.timeout
	if timeout is None and not args.shell:
		timeout = DEFAULT_TIMEOUT_S
	ensure_packages()
	ensure_packages(arch_of(args.arch).packages)
	paths = Paths.from_env()
	start = time.monotonic()
	prepared = prepare_kernel(paths, spec)
	req = BootRequest(shape=shape, mode='shell' if args.shell else 'boot',
			  stress=args.stress, append=args.append, timeout=timeout,
			  console='interactive' if args.shell else 'stream')
	outcome = boot_kernel(paths, prepared, req,
			      hook=slqb_memhp.hook_for(shape))
	print_outcome(outcome)
	log(f'total: {fmt_duration(time.monotonic() - start)}')
	return 0 if outcome.ok else 1


def cmd_apply(args: argparse.Namespace) -> int:
	"""slqb apply DIR: the series and the new files over a 6.1 tree."""
	tree = os.path.abspath(args.dir)
	version = check_kernel_tree(tree)
	ensure_packages(['patch'])
	update = apply_to_tree(REPO_ROOT, tree)
	log(f'applied to {tree} (Linux {version}): {update.summary()}')
	return 0


def cmd_test(args: argparse.Namespace) -> int:
	"""slqb test: every check CI runs; exit 1 if one fails."""
	only = list(args.group)
	if args.sanitizers:
		only.append('sanitizers')
	if args.arch != DEFAULT_ARCH:
		only.append(group_name(args.arch))
	groups = select_groups(only)
	if args.boot is not None and not args.boot.strip():
		raise SlqbError('--boot needs a boot name or a pattern such as '
				'\'*kcsan*\'', exit_code=2)
	ensure_packages()
	return run_all(Paths.from_env(), args.verbose, groups, args.boot)


def positive_int(text: str) -> int:
	"""argparse type: an integer (range checks come later, with context)."""
	try:
		return int(text)
	except ValueError:
		raise argparse.ArgumentTypeError(f'not a whole number: {text!r}')


def parser() -> argparse.ArgumentParser:
	"""The command line."""
	top = argparse.ArgumentParser(prog='slqb.py', description=DESCRIPTION,
				      formatter_class=argparse.RawDescriptionHelpFormatter)
	sub = top.add_subparsers(dest='command', metavar='COMMAND')
	sub.required = True

	boot = sub.add_parser('boot', help='build and boot a kernel in QEMU')
	boot.add_argument('--alloc', choices=ALLOCATORS, default='slqb',
			  help='slab allocator (default: slqb)')
	boot.add_argument('--cpus', type=positive_int, default=2,
			  help='virtual CPUs (default: 2)')
	boot.add_argument('--nodes', type=positive_int, default=1,
			  help='NUMA nodes with memory, 512M each (default: 1)')
	boot.add_argument('--memoryless-node', action='store_true',
			  help='add a NUMA node without memory that owns the last CPU')
	boot.add_argument('--memory-hotplug', action='store_true',
			  help='hot-add memory to the memoryless node and node 0 '
			  'during the workload, then remove it (QEMU pc-dimms over '
			  'QMP; needs --memoryless-node)')
	boot.add_argument('--kconfig', action='append', default=[], metavar='CONFIG_X=V',
			  help='extra config line, applied last (own build directory)')
	boot.add_argument('--append', default='', metavar='ARGS',
			  help='extra kernel command line arguments')
	boot.add_argument('--shell', action='store_true',
			  help='interactive shell on the console instead of the workload')
	boot.add_argument('--timeout', type=float, default=None, metavar='S',
			  help=f'stop QEMU after S seconds (default: {DEFAULT_TIMEOUT_S}, '
			  'none with --shell)')
	boot.add_argument('--stress', type=positive_int, default=10, metavar='S',
			  help='seconds of stress-ng in the workload, 0 for none (default: 10)')
	boot.add_argument('--arch', choices=list(ARCHES), default=DEFAULT_ARCH,
			  help='architecture (default: x86_64; arm64 has 64K pages)')
	boot.add_argument('--base-config', metavar='FILE',
			  help='start from this .config (plain, .xz or .gz; e.g. '
			  'Debian\'s /usr/src/linux-config-6.1/*.xz) instead of '
			  'tinyconfig and the harness\'s fragments: only the '
			  'allocator is switched, and the options that changed '
			  'are listed; x86_64, no modules built')
	boot.set_defaults(func=cmd_boot)

	apply = sub.add_parser('apply', help='apply the series and new files to a 6.1 tree')
	apply.add_argument('dir', metavar='DIR', help='a Linux 6.1 source tree')
	apply.set_defaults(func=cmd_apply)

	test = sub.add_parser('test', help='run every check (what CI runs)')
	test.add_argument('--verbose', action='store_true',
			  help='stream each guest console instead of its marker lines')
	test.add_argument('--group', action='append', default=[], metavar='NAME',
			  help='run only this check group (repeatable)')
	test.add_argument('--boot', default=None, metavar='PATTERN',
			  help='run only the boots whose names match PATTERN '
			  '(shell-style, e.g. \'*kcsan*\'), and build only their '
			  'kernels; the other checks of the groups still run')
	test.add_argument('--sanitizers', action='store_true',
			  help='build and boot the sanitizer kernels (KCSAN; '
			  'kmemleak with UBSAN; KMSAN; KASAN hardware tags on '
			  'arm64): the group sanitizers, alone unless --group '
			  'names others')
	test.add_argument('--arch', choices=list(ARCHES), default=DEFAULT_ARCH,
			  help='boot SLQB on this architecture: its group arch-NAME, '
			  'instead of the x86_64 groups unless --group names them '
			  '(default: x86_64)')
	test.set_defaults(func=cmd_test)

	if os.path.isfile(BENCH_PACKAGE):
		import slqb_bench
		slqb_bench.add_parser(sub, positive_int)
	slqb_series.add_parser(sub)
	return top


def main() -> int:
	args = parser().parse_args()
	try:
		return args.func(args)
	except SlqbError as e:
		sys.stdout.flush()
		print(f'ERROR: {e}', file=sys.stderr, flush=True)
		return e.exit_code
	except KeyboardInterrupt:
		print('\ninterrupted', file=sys.stderr)
		return 130


if __name__ == '__main__':
	sys.exit(main())
