# SPDX-License-Identifier: GPL-2.0
"""Configuring and building a kernel in an O= directory of the cache.

One build directory per (arch, allocator, extra options):
<cache>/build/x86_64-slub, <cache>/build/x86_64-slqb-1a2b3c4d, ...
The config is tinyconfig plus configs/base.config plus
configs/alloc-<allocator>.config plus --kconfig extras, merged with the
kernel's merge_config.sh and checked afterwards. With --base-config a
user's own .config (a distribution's, say) takes the place of tinyconfig
and the fragments: only the allocator is switched, and the options that
the switch changed are listed (x86_64-slqb-base-1a2b3c4d).
"""

import dataclasses
import gzip
import lzma
import os
import re
import shlex
import shutil
import subprocess
import time
from typing import Dict, List, Optional, Sequence, Tuple

from slqb_arch import DEFAULT_ARCH, arch_of
from slqb_util import (HARNESS_DIR, LineSplitter, Paths, SlqbError,
		       fmt_duration, log, pump, quote_lines, read_text, run,
		       sha1_of, stop_process, warn, write_text)

ARCH = DEFAULT_ARCH
ALLOCATORS = ('slqb', 'slub', 'slab', 'slob')
CONFIG_DIR = os.path.join(HARNESS_DIR, 'configs')
BUILD_TIMEOUT_S = 3 * 3600
CONFIG_TIMEOUT_S = 900
CCACHE_MAX_SIZE = '5G'
# Bump when the way configs are made changes, to redo every build's config.
CONFIG_RECIPE = 1

SET_RE = re.compile(r'^(CONFIG_[A-Za-z0-9_]+)=(.*)$')
UNSET_RE = re.compile(r'^# (CONFIG_[A-Za-z0-9_]+) is not set$')
VALUE_RE = re.compile(r'^(y|n|m|-?\d+|0x[0-9a-fA-F]+|"[^"]*")$')


# Options only clang builds: a kernel with one is built with LLVM=1 (and
# the name of its build directory comes from its --kconfig lines anyway).
CLANG_OPTIONS = ('CONFIG_KMSAN=y',)
CLANG_PACKAGES = ('clang', 'lld', 'llvm')


@dataclasses.dataclass(frozen=True)
class KernelSpec:
	"""Which kernel to build: an allocator, extra config lines and the
	architecture (see slqb_arch; left out of repr, so x86_64 keys stay)."""
	alloc: str
	extras: Tuple[str, ...] = ()
	arch: str = dataclasses.field(default=ARCH, repr=False)
	# --base-config: the user's .config as read (see read_base_config);
	# its digest names the build and keys its config.
	base_text: str = dataclasses.field(default='', repr=False, compare=False)
	base_digest: str = ''

	@property
	def name(self) -> str:
		"""x86_64-slub, x86_64-slub-<hash> with extras, or
		x86_64-slub-base-<hash> on a base config."""
		name = f'{self.arch}-{self.alloc}'
		if self.base_digest:
			name += '-base-' + sha1_of(self.base_digest, *self.extras)[:8]
		elif self.extras:
			name += '-' + sha1_of(*self.extras)[:8]
		return name

	@property
	def clang(self) -> bool:
		"""Whether the kernel needs LLVM's toolchain (LLVM=1): one of its
		--kconfig lines asks for a checker GCC cannot build."""
		return any(line in CLANG_OPTIONS for line in self.extras)

	def build_dir(self, paths: Paths) -> str:
		return os.path.join(paths.builds, self.name)

	def bzimage(self, paths: Paths) -> str:
		return os.path.join(self.build_dir(paths), arch_of(self.arch).image)


def parse_kconfig_option(text: str) -> Tuple[str, str]:
	"""'CONFIG_X=y' -> ('CONFIG_X', 'y'); refuses anything else."""
	m = SET_RE.match(text.strip())
	if not m or not VALUE_RE.match(m.group(2)):
		raise SlqbError(f'--kconfig {text!r}: expected CONFIG_NAME=VALUE with '
				'VALUE y, n, m, a number or a "string"', exit_code=2)
	return m.group(1), m.group(2)


def read_base_config(path: str) -> str:
	"""The text of a user's .config for --base-config: plain, .xz or .gz
	(Debian's linux-config-6.1 ships them as .xz). Refuses a missing or
	unreadable file, one that is no kernel config, or one that is not for
	x86_64, with exit code 2."""
	what = f'--base-config {path}'
	try:
		with open(path, 'rb') as f:
			data = f.read()
	except OSError as e:
		raise SlqbError(f'{what}: cannot read it: {e.strerror}', exit_code=2)
	try:
		if data[:6] == b'\xfd7zXZ\x00':
			data = lzma.decompress(data)
		elif data[:2] == b'\x1f\x8b':
			data = gzip.decompress(data)
		text = data.decode('utf-8')
	except (lzma.LZMAError, OSError, EOFError, UnicodeDecodeError) as e:
		raise SlqbError(f'{what}: not a readable config ({e})', exit_code=2)
	options = parse_config(text)
	if not any(value != 'n' for value in options.values()):
		raise SlqbError(f'{what}: not a kernel .config (no CONFIG_ option '
				'is set in it)', exit_code=2)
	if options.get('CONFIG_X86_64') != 'y':
		raise SlqbError(f'{what}: not an x86_64 config (CONFIG_X86_64 is '
				'not set in it)', exit_code=2)
	return text


def base_spec(alloc: str, extras: Tuple[str, ...], path: str) -> KernelSpec:
	"""The KernelSpec of `slqb boot --base-config path` (x86_64)."""
	text = read_base_config(path)
	return KernelSpec(alloc, extras, base_text=text,
			  base_digest=sha1_of(text.encode()))


def alloc_switch(alloc: str) -> str:
	"""The fragment that picks alloc and unsets the other allocators."""
	lines = [f'CONFIG_{alloc.upper()}=y']
	lines += [f'# CONFIG_{other.upper()} is not set'
		  for other in ALLOCATORS if other != alloc]
	return '\n'.join(lines) + '\n'


def config_changes(before: Dict[str, str], after: Dict[str, str]) -> List[str]:
	"""'CONFIG_X: old -> new' for every option whose value differs
	(an option that is absent counts as n), sorted by name."""
	names = sorted(set(before) | set(after))
	return [f'{name}: {before.get(name, "n")} -> {after.get(name, "n")}'
		for name in names if before.get(name, 'n') != after.get(name, 'n')]


def parse_config(text: str) -> Dict[str, str]:
	"""Options of a .config or fragment; unset ones map to 'n'."""
	options = {}
	for line in text.splitlines():
		line = line.strip()
		m = SET_RE.match(line) or UNSET_RE.match(line)
		if m:
			options[m.group(1)] = m.group(2) if m.re is SET_RE else 'n'
	return options


def alloc_label(spec: KernelSpec) -> str:
	"""The fragment whose every option must stick."""
	return 'allocator switch' if spec.base_digest else \
		f'alloc-{spec.alloc}.config'


def fragments(spec: KernelSpec, paths: Paths) -> List[Tuple[str, str]]:
	"""(label, path) of the config fragments for spec, in merge order."""
	if spec.base_digest:
		switch = os.path.join(spec.build_dir(paths), 'slqb-alloc-switch.config')
		write_text(switch, alloc_switch(spec.alloc))
		frags = [(alloc_label(spec), switch)]
	else:
		frags = [('base.config', os.path.join(CONFIG_DIR, 'base.config'))]
		arch_frag = os.path.join(CONFIG_DIR, f'arch-{spec.arch}.config')
		if os.path.isfile(arch_frag):
			frags.append((f'arch-{spec.arch}.config', arch_frag))
		frags += [(alloc_label(spec),
			   os.path.join(CONFIG_DIR, f'alloc-{spec.alloc}.config'))]
	if spec.extras:
		extra = os.path.join(spec.build_dir(paths), 'slqb-extra.config')
		write_text(extra, '\n'.join(spec.extras) + '\n')
		frags.append(('--kconfig', extra))
	return frags


def make_command(paths: Paths, spec: KernelSpec, *targets: str) -> List[str]:
	"""make -C <work> O=<build> ARCH=x86_64 -jN CC='ccache gcc' targets
	(with CROSS_COMPILE= for a cross-compiled architecture, and LLVM=1
	with CC='ccache clang' for a spec that needs clang)."""
	arch = arch_of(spec.arch)
	cross = [f'CROSS_COMPILE={arch.cross}'] if arch.cross else []
	tools = ['LLVM=1', 'CC=ccache clang'] if spec.clang else [f'CC={arch.cc}']
	return ['make', '-C', paths.work, f'O={spec.build_dir(paths)}',
		f'ARCH={arch.make_arch}', *cross, f'-j{os.cpu_count() or 1}',
		*tools, *targets]


def build_env(paths: Paths) -> Dict[str, str]:
	"""Environment for make: our ccache directory unless one is set, and
	<cache> as ccache's base directory unless one is set. kbuild passes
	absolute source paths; ccache hashes them relative to the build
	directory below the base, and that relative path is the same for the
	work tree's builds (<cache>/build/X -> <cache>/src/work) and the
	series group's (<cache>/series/build/X -> <cache>/series/src/work),
	so one tree's builds fill the cache for the other's."""
	env = dict(os.environ)
	if not env.get('CCACHE_BASEDIR'):
		env['CCACHE_BASEDIR'] = os.path.abspath(paths.cache)
	if not env.get('CCACHE_DIR'):
		env['CCACHE_DIR'] = os.path.join(paths.cache, 'ccache')
		if not os.path.isfile(os.path.join(env['CCACHE_DIR'], 'ccache.conf')):
			os.makedirs(env['CCACHE_DIR'], exist_ok=True)
			run(['ccache', '--max-size', CCACHE_MAX_SIZE], timeout=60, env=env)
	return env


# ---------------------------------------------------------------- config

def config_key(spec: KernelSpec, frags: Sequence[Tuple[str, str]],
	       pristine_stamp: str, kconfig_digest: str) -> str:
	"""Everything the generated .config depends on."""
	return sha1_of(CONFIG_RECIPE, spec, pristine_stamp, kconfig_digest,
		       *[read_text(path) for _, path in frags])


def generate_config(paths: Paths, spec: KernelSpec,
		    frags: Sequence[Tuple[str, str]]) -> None:
	"""tinyconfig (or the base config), merge_config.sh of the
	fragments, olddefconfig."""
	build = spec.build_dir(paths)
	env = build_env(paths)
	config = os.path.join(build, '.config')
	merge = os.path.join(paths.work, 'scripts', 'kconfig', 'merge_config.sh')
	start = [make_command(paths, spec, 'tinyconfig')]
	if spec.base_digest:
		write_text(config, spec.base_text)
		start = []
	steps = start + \
		[['sh', merge, '-m', '-O', build, config, *[p for _, p in frags]],
		 make_command(paths, spec, 'olddefconfig')]
	for cmd in steps:
		run(cmd, timeout=CONFIG_TIMEOUT_S, env=env, cwd=build)
	if spec.base_digest:
		write_text(os.path.join(build, SWITCH_CHANGES),
			   '\n'.join(switch_changes(paths, spec, env)) + '\n')


SWITCH_CHANGES = 'slqb-switch-changes.txt'


def switch_changes(paths: Paths, spec: KernelSpec,
		   env: Dict[str, str]) -> List[str]:
	"""What the allocator switch (and --kconfig) changed: the base
	config as olddefconfig makes it for this tree, in <build>/slqb-base,
	against the build's .config."""
	unswitched = os.path.join(spec.build_dir(paths), 'slqb-base')
	os.makedirs(unswitched, exist_ok=True)
	write_text(os.path.join(unswitched, '.config'), spec.base_text)
	cmd = make_command(paths, spec, 'olddefconfig')
	cmd = [f'O={unswitched}' if a.startswith('O=') else a for a in cmd]
	run(cmd, timeout=CONFIG_TIMEOUT_S, env=env, cwd=unswitched)
	before = parse_config(read_text(os.path.join(unswitched, '.config')))
	after = parse_config(read_text(os.path.join(spec.build_dir(paths), '.config')))
	return config_changes(before, after)


def verify_config(paths: Paths, spec: KernelSpec,
		  frags: Sequence[Tuple[str, str]]) -> None:
	"""Checks every requested option landed in .config.

	Later fragments override earlier ones. A miss in the allocator fragment
	is an error; a miss elsewhere (a Kconfig dependency said no) a warning.
	"""
	final = parse_config(read_text(os.path.join(spec.build_dir(paths), '.config')))
	wanted: Dict[str, Tuple[str, str]] = {}
	for label, path in frags:
		for name, value in parse_config(read_text(path)).items():
			wanted[name] = (value, label)
	misses = {}
	for name, (value, label) in wanted.items():
		have = final.get(name, 'n')
		if have != value:
			misses.setdefault(label, []).append(f'{name}={value} ({label}) is {have}')
	strict = alloc_label(spec)
	if strict in misses:
		raise SlqbError(f'the {spec.alloc} config did not come out as asked; '
				'check the Kconfig dependencies:\n' +
				quote_lines(misses[strict]))
	others = [m for label in misses for m in misses[label]]
	if others:
		warn(f'{len(others)} requested config options did not stick in '
		     f'{spec.name} (Kconfig dependencies):\n' + quote_lines(others))


def configure(paths: Paths, spec: KernelSpec, pristine_stamp: str,
	      kconfig_digest: str) -> None:
	"""Makes <build>/.config for spec unless its inputs are unchanged."""
	build = spec.build_dir(paths)
	os.makedirs(build, exist_ok=True)
	frags = fragments(spec, paths)
	key = config_key(spec, frags, pristine_stamp, kconfig_digest)
	key_file = os.path.join(build, '.slqb-config-key')
	config = os.path.join(build, '.config')
	if os.path.isfile(config) and read_text(key_file, '').strip() == key:
		log(f'config: {spec.name} unchanged')
	else:
		start = 'base config' if spec.base_digest else 'tinyconfig'
		log(f'config: generating {spec.name}: {start} + ' +
		    ' + '.join(label for label, _ in frags))
		if os.path.exists(key_file):
			os.unlink(key_file)	# no stale key if we are cut off
		generate_config(paths, spec, frags)
		write_text(key_file, key + '\n')
	verify_config(paths, spec, frags)
	if spec.base_digest:
		changes = read_text(os.path.join(build, SWITCH_CHANGES), '').splitlines()
		log(f'config: the switch to {spec.alloc} changed {len(changes)} '
		    'options of the base config:\n' + quote_lines(changes))


def config_value(paths: Paths, spec: KernelSpec, name: str) -> Optional[str]:
	"""A value from the build's .config (None if unset or no config)."""
	text = read_text(os.path.join(spec.build_dir(paths), '.config'), '')
	value = parse_config(text).get(name)
	return None if value in (None, 'n') else value


# ---------------------------------------------------------------- build

def first_build_error(lines: Sequence[str]) -> List[str]:
	"""The first compiler error with gcc's context, else the log's tail."""
	patterns = [re.compile(r'\berror:'), re.compile(r'undefined reference to'),
		    re.compile(r'^make(\[\d+\])?: \*\*\*')]
	for pattern in patterns:
		for i, line in enumerate(lines):
			if not pattern.search(line):
				continue
			start = i - 1 if i > 0 and re.search(r': In (function|member)', lines[i - 1]) else i
			end = i + 1
			while end < len(lines) and end < i + 5 and \
			      re.match(r'^\s+(\d+\s*)?\|', lines[end]):
				end += 1
			return list(lines[start:end])
	return list(lines[-15:])


def run_make_logged(cmd: Sequence[str], env: Dict[str, str], log_path: str,
		    timeout: float) -> Tuple[int, List[str]]:
	"""Runs make, writing its output to log_path, with a progress line
	every 30 s. Returns (exit status, output lines)."""
	lines: List[str] = []
	splitter = LineSplitter()
	start = time.monotonic()
	next_note = [start + 30]

	def note() -> None:
		if time.monotonic() > next_note[0]:
			last = lines[-1].strip() if lines else ''
			log(f'build: {fmt_duration(time.monotonic() - start)} so far '
			    f'({len(lines)} lines; last: {last[:70]})')
			next_note[0] += 30

	with open(log_path, 'ab') as out:
		out.write(('$ ' + ' '.join(cmd) + '\n').encode())
		out.flush()
		proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
					stdout=subprocess.PIPE, stderr=subprocess.STDOUT)

		def take(data: bytes) -> None:
			out.write(data)
			lines.extend(splitter.feed(data))
		finished = False
		try:
			finished = pump(proc, take, lambda: start + timeout, note)
		finally:
			stop_process(proc, grace=60 if finished else 0)
		lines.extend(splitter.flush())
	if not finished:
		raise SlqbError(f'kernel build timed out after {fmt_duration(timeout)}; '
				f'log: {log_path}')
	return proc.wait(), lines


def build_targets(spec: KernelSpec, config: str,
		  objects: Sequence[str] = ()) -> List[str]:
	"""What make builds for spec with this .config: the objects if given,
	else the kernel image, and the modules if the config has any. A base
	config's modules (a distribution's thousand) are not built, since the
	guest's workload needs none; modules_prepare makes what the harness's
	own modules then link with (scripts/module.lds)."""
	if objects:
		return list(objects)
	targets = [arch_of(spec.arch).target]
	if re.search(r'=m$', config, re.M):
		targets.append('modules_prepare' if spec.base_digest else 'modules')
	return targets


def build_kernel(paths: Paths, spec: KernelSpec, base: str,
		 objects: Sequence[str] = ()) -> str:
	"""Builds bzImage (and modules if any) for spec, or only the given
	objects (paths in the tree such as mm/slqb.o); returns bzImage path."""
	config = read_text(os.path.join(spec.build_dir(paths), '.config'))
	targets = build_targets(spec, config, objects)
	log_path = paths.new_log(f'build-{spec.name}')
	write_text(log_path, f'# slqb build of {spec.name} on {base}\n')
	log(f'build: {spec.name} ({" ".join(targets)}), log: {log_path}')
	start = time.monotonic()
	status, lines = run_make_logged(make_command(paths, spec, *targets),
					build_env(paths), log_path, BUILD_TIMEOUT_S)
	if status != 0:
		# Paths relative to the work tree are the repository's paths.
		first = [l.replace(paths.work + '/', '') for l in first_build_error(lines)]
		raise SlqbError(f'the {spec.name} kernel build failed (make exit '
				f'{status}). First error:\n{quote_lines(first)}\n'
				f'Full build log: {log_path}')
	if spec.base_digest and not objects:
		base_symvers(spec.build_dir(paths))
	compiled = sum(1 for l in lines if re.match(r'\s+(CC|LD|AS)\s', l))
	log(f'build: done in {fmt_duration(time.monotonic() - start)} '
	    f'({compiled} objects compiled or linked)')
	return spec.bzimage(paths)


def base_symvers(build: str) -> None:
	"""Module.symvers for a base config's kernel, whose modules are not
	built: vmlinux's own exports (vmlinux.symvers), all that an external
	module of the harness links against. Without it, modpost refuses
	such a module, or with CONFIG_MODVERSIONS builds one that the kernel
	will not load."""
	vmlinux = os.path.join(build, 'vmlinux.symvers')
	module = os.path.join(build, 'Module.symvers')
	if os.path.isfile(vmlinux) and (
			not os.path.isfile(module) or
			os.path.getmtime(module) < os.path.getmtime(vmlinux)):
		shutil.copyfile(vmlinux, module)


def make_module(paths: Paths, spec: KernelSpec, mod_dir: str, what: str) -> None:
	"""Builds the external module in mod_dir against spec's kernel (W=1).
	A build error is an SlqbError quoting it; warnings are warned about."""
	cmd = make_command(paths, spec, f'M={mod_dir}', 'W=1', 'modules')
	proc = run(cmd, timeout=600, env=build_env(paths), check=False)
	lines = proc.stdout.splitlines()
	if proc.returncode != 0:
		raise SlqbError(f'the {what} module does not build against {spec.name}:\n'
				f'{quote_lines(first_build_error(lines))}\n'
				f'$ {shlex.join(cmd)}')
	warnings = [l for l in lines if 'warning:' in l]
	if warnings:
		warn(f'the {what} module builds with warnings:\n' + quote_lines(warnings[:10]))


def build_external_module(paths: Paths, spec: KernelSpec, src_dir: str,
			  sources: Sequence[str], ko: str, what: str) -> str:
	"""Copies sources from src_dir into the folder of ko, in spec's build
	directory, and builds the module there against the kernel (W=1),
	unless ko is newer than its sources and the kernel. Returns ko. The
	caller holds the build lock."""
	mod_dir = os.path.dirname(ko)
	os.makedirs(mod_dir, exist_ok=True)
	for name in sources:
		src, dst = os.path.join(src_dir, name), os.path.join(mod_dir, name)
		with open(src, 'rb') as f:
			data = f.read()
		if not os.path.exists(dst) or read_bytes(dst) != data:
			shutil.copyfile(src, dst)
	inputs = [os.path.join(mod_dir, n) for n in sources] + \
		[os.path.join(spec.build_dir(paths), 'Module.symvers')]
	newest = max(os.path.getmtime(p) for p in inputs if os.path.exists(p))
	if os.path.exists(ko) and os.path.getmtime(ko) >= newest:
		return ko
	make_module(paths, spec, mod_dir, what)
	log(f'{what} module: {ko}')
	return ko


def read_bytes(path: str) -> bytes:
	"""The contents of path."""
	with open(path, 'rb') as f:
		return f.read()
