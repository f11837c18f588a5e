# SPDX-License-Identifier: GPL-2.0
"""The `series` check group: the exported series as a kernel developer
takes it.

It exports the series, applies it with git am to a git repository of the
pristine 6.1 tree (kept under <cache>/series/am, rebuilt when Debian's
tarball changes), compares the result with what the harness lays over its
work tree, runs checkpatch --strict on each patch and builds each patch on
x86_64 in order, stopping at the first that does not build.

A patch before `config SLQB` exists is built with SLUB on a small config
(SLUB_STEP_KCONFIG). Every later patch is built with the kernels group's SLQB config
of the last patch (SLQB_STATS, SLQB_DEBUG, the KUnit suite, the debug
test module, NUMA, SMP, KFENCE), made fit for the patch by olddefconfig,
as a bisect keeps its .config: options a patch does not know yet drop out
and the others stay, so a patch rebuilds only what its own options touch.
SLUB and SLQB steps have their own build directories under
<cache>/series/build/. The tree they build from, <cache>/series/src/work,
is a hardlinked copy of the pristine tree into which only the files that
differ from the previous step are written, so that each step rebuilds
only what it changed.

Cold, the builds cost little more than the kernels group's: the SLQB
build directory is first built at the last patch, whose kernel is the
kernels group's SLQB kernel, so ccache (see build_env) has it, and the
first patch's small SLUB kernel is a short build of its own. ccache
keys each object on the whole config (autoconf.h), so the patches in
between come from make alone: it recompiles what differs from the last
patch, the files they change and those that test the options they add.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time
from typing import List, Optional, Sequence, Tuple

from slqb_build import (CONFIG_TIMEOUT_S, KernelSpec, build_env,
			first_build_error, fragments, generate_config,
			make_command, parse_config, run_make_logged)
from slqb_checks import CheckFailed, Context, check_group
from slqb_host import BuildLock, ensure_packages, wait_for_foreign_builds
from slqb_tree import (describe_base, pristine_stamp_path, read_json,
		       same_file, stage_tree, tree_has_slqb)
from slqb_util import (Paths, SlqbError, fmt_duration, log, quote_lines,
		       read_text, run, sha1_of, write_text)

from . import (Step, export_series, git, load_plan, pristine_base,
	       series_patches)

CHECKPATCH_TIMEOUT_S = 900
BUILD_TIMEOUT_S = 3 * 3600
# Paths make bzImage/modules never reads: a patch that changes only these
# builds exactly what the patch before it built.
NOT_BUILD_INPUTS = ('Documentation/', 'MAINTAINERS', 'tools/vm/',
		    'tools/testing/slqb/')
# A patch from before `config SLQB` builds SLUB on tinyconfig with what
# the common slab code it changes varies on: 64 bits, SMP and NUMA. No
# other kernel of `slqb test` has this config, so its build is cold in CI:
# 4 minutes here (3m42s, 517 objects), where base.config's costs 10.
SLUB_STEP_KCONFIG = ('CONFIG_64BIT=y', 'CONFIG_SMP=y', 'CONFIG_NR_CPUS=8',
		     'CONFIG_NUMA=y', 'CONFIG_PRINTK=y')
TOTAL_RE = re.compile(r'^total: (\d+) errors?, (\d+) warnings?, (?:(\d+) checks?, )?')


def series_paths(paths: Paths) -> Paths:
	"""Paths whose work tree and build folders live in <cache>/series."""
	return Paths(repo=paths.repo, cache=os.path.join(paths.cache, 'series'))


# ---------------------------------------------------------------- git am

def hardlink_copy(src: str, dst: str) -> None:
	"""dst as a new folder of hardlinks to src's files.

	Copies src's content (src/.), so a src that is a symbolic link still
	gives a real folder: writing into dst must never reach src."""
	os.makedirs(dst)
	run(['cp', '-al', os.path.join(src, '.'), dst], timeout=1800)
	if os.path.islink(dst) or os.path.samefile(src, dst):
		raise SlqbError(f'{dst} is not a folder of its own')


def fresh_am_tree(paths: Paths, am: str) -> None:
	"""A git repository of the whole pristine tree, tagged 'pristine'."""
	log('series: making a git repository of the pristine tree (~30 s, once '
	    'per Debian update)')
	shutil.rmtree(am, ignore_errors=True)
	hardlink_copy(paths.pristine, am)
	env = dict(os.environ, GIT_AUTHOR_NAME='slqb', GIT_AUTHOR_EMAIL='slqb@localhost',
		   GIT_COMMITTER_NAME='slqb', GIT_COMMITTER_EMAIL='slqb@localhost')
	git(am, 'init', '-q')
	git(am, 'config', 'user.name', 'slqb')
	git(am, 'config', 'user.email', 'slqb@localhost')
	git(am, 'add', '-A', '-f')
	git(am, 'commit', '-q', '-m', f'Linux {describe_base(paths)}', env=env)
	git(am, 'tag', 'pristine')


def clean_am_tree(paths: Paths, am: str) -> None:
	"""The am repository at the pristine commit, nothing else in it.

	Files git is about to rewrite are unlinked by git first, so the
	hardlinks into the pristine tree are never written through.
	"""
	stamp_file = am + '.stamp'
	stamp = repr(read_json(pristine_stamp_path(paths)))
	if read_text(stamp_file, '') != stamp or not os.path.isdir(os.path.join(am, '.git')):
		if os.path.exists(stamp_file):
			os.unlink(stamp_file)
		fresh_am_tree(paths, am)
		write_text(stamp_file, stamp)
		return
	run(['git', '-C', am, 'am', '--abort'], timeout=120, check=False)
	git(am, 'checkout', '-q', '-f', '--detach', 'pristine')
	git(am, 'clean', '-q', '-f', '-d', '-x')


def git_am(am: str, patch_files: Sequence[str]) -> List[str]:
	"""git am of the series; returns the new commits, oldest first."""
	proc = run(['git', '-C', am, 'am', '--empty=drop', *patch_files],
		   timeout=600, check=False)
	if proc.returncode != 0:
		said = proc.stdout.strip().splitlines()[-12:]
		run(['git', '-C', am, 'am', '--abort'], timeout=120, check=False)
		raise CheckFailed('git am refused the series:\n' + quote_lines(said))
	commits = git(am, 'rev-list', '--reverse', 'pristine..HEAD').split()
	if len(commits) != len(patch_files) - 1:
		raise CheckFailed(f'git am made {len(commits)} commits from '
				  f'{len(patch_files) - 1} patches')
	return commits


# ---------------------------------------------------------------- compare

def compare_with_work(paths: Paths, am: str, base: str) -> None:
	"""The am result equals what the harness lays over its work tree."""
	with tempfile.TemporaryDirectory(prefix='slqb-series-stage.') as stage:
		desired = stage_tree(paths.pristine, paths.repo, stage, base)
		changed = set(git(am, 'diff', '--name-only', 'pristine', 'HEAD').split())
		problems = []
		for path, kind in sorted(desired.items()):
			there = os.path.join(am, path)
			if kind == 'deleted':
				if os.path.lexists(there):
					problems.append(f'{path}: should be deleted')
			elif not os.path.isfile(there):
				problems.append(f'{path}: missing after git am')
			elif not same_file(os.path.join(stage, path), there):
				problems.append(f'{path}: content or mode differs')
		problems += [f'{p}: changed by the series, not by the harness'
			     for p in sorted(changed - set(desired))]
	if problems:
		raise CheckFailed(f'{len(problems)} paths differ from the harness '
				  'work tree:\n' + quote_lines(problems[:12]))


# ---------------------------------------------------------------- checkpatch

def checkpatch(paths: Paths, tree: str, patch: str,
	       ignore: Sequence[str] = ()) -> Tuple[int, int, int, List[str]]:
	"""scripts/checkpatch.pl --strict on one patch (with --ignore for the
	types in ignore): errors, warnings, checks and the report lines."""
	script = os.path.join(paths.pristine, 'scripts', 'checkpatch.pl')
	ignoring = ['--ignore', ','.join(ignore)] if ignore else []
	proc = run(['perl', script, '--strict', '--no-color', '--show-types',
		    *ignoring, '--root', tree, patch],
		   timeout=CHECKPATCH_TIMEOUT_S, check=False, cwd=tree)
	lines = proc.stdout.splitlines()
	for line in lines:
		m = TOTAL_RE.match(line)
		if m:
			return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0), lines
	raise CheckFailed('checkpatch printed no total line:\n' +
			  quote_lines(lines[-10:]))


def reports_of(lines: Sequence[str]) -> List[str]:
	"""checkpatch's ERROR and WARNING paragraphs (message, where, line)."""
	out = []
	for i, line in enumerate(lines):
		if re.match(r'^(ERROR|WARNING)', line):
			out += [l for l in lines[i:i + 3] if l.strip()]
	return out


def checkpatch_check(paths: Paths, tree: str, patch: str, step: Step) -> None:
	"""Fails unless checkpatch --strict says 0 errors and 0 warnings
	(but for the types the step's plan file ignores, with a reason)."""
	errors, warnings, checks, lines = checkpatch(paths, tree, patch,
						     sorted(step.ignore))
	ignored = ''.join(f'; {kind} ignored: {why}'
			  for kind, why in sorted(step.ignore.items()))
	log(f'series: checkpatch {os.path.basename(patch)}: {errors} errors, '
	    f'{warnings} warnings, {checks} checks{ignored}')
	if errors or warnings:
		raise CheckFailed(f'checkpatch --strict: {errors} errors, {warnings} '
				  'warnings:\n' + quote_lines(reports_of(lines)[:24]))


# ---------------------------------------------------------------- builds

def fresh_build_tree(spaths: Paths, paths: Paths) -> None:
	"""<cache>/series/src/work as a hardlinked copy of pristine."""
	log('series: creating the build tree (hardlinked copy of pristine)')
	shutil.rmtree(spaths.work, ignore_errors=True)
	hardlink_copy(paths.pristine, spaths.work)


def git_blob(am: str, commit: str, path: str) -> bytes:
	"""A file's bytes at a commit."""
	proc = subprocess.run(['git', '-C', am, 'show', f'{commit}:{path}'],
			      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
			      timeout=60, check=False)
	if proc.returncode != 0:
		raise SlqbError(f'git show {commit}:{path} failed: '
				f'{proc.stderr.decode(errors="replace").strip()}')
	return proc.stdout


def read_bytes(path: str) -> Optional[bytes]:
	"""A file's bytes, or None when it is missing."""
	try:
		with open(path, 'rb') as f:
			return f.read()
	except FileNotFoundError:
		return None


def sync_step(am: str, commit: str, tree: str, touched: Sequence[str]) -> int:
	"""Writes the touched paths as they are at commit; returns how many
	changed. Unchanged files keep their mtime, so make skips them; a
	changed one is unlinked first, never written through a hardlink."""
	present = set(git(am, 'ls-tree', '-r', '--name-only', commit).split('\n'))
	changed = 0
	for path in touched:
		dst = os.path.join(tree, path)
		if path not in present:
			if os.path.lexists(dst):
				os.unlink(dst)
				changed += 1
			continue
		data = git_blob(am, commit, path)
		if read_bytes(dst) != data:
			if os.path.lexists(dst):
				os.unlink(dst)
			os.makedirs(os.path.dirname(dst), exist_ok=True)
			with open(dst, 'wb') as f:
				f.write(data)
			changed += 1
	return changed


def kconfig_key(tree: str, touched: Sequence[str]) -> str:
	"""Digest of the Kconfig files the series touches, as they are now."""
	kconfigs = sorted(p for p in touched if os.path.basename(p).startswith('Kconfig'))
	return sha1_of(*[(p, read_text(os.path.join(tree, p), '')) for p in kconfigs])


def reference_config(spaths: Paths, touched: Sequence[str]) -> str:
	"""The kernels group's SLQB config (tinyconfig + base + alloc-slqb)
	for the tree as it is now, the last patch's; made again only when a
	Kconfig file or a fragment changed. Returns its text."""
	spec = KernelSpec('slqb')
	build = spec.build_dir(spaths)
	os.makedirs(build, exist_ok=True)
	frags = fragments(spec, spaths)
	key = sha1_of(spec, kconfig_key(spaths.work, touched),
		      *[read_text(p) for _, p in frags])
	saved = os.path.join(spaths.builds, 'reference.config')
	key_file = saved + '.key'
	if read_text(key_file, '').strip() != key or not os.path.isfile(saved):
		if os.path.exists(key_file):
			os.unlink(key_file)
		generate_config(spaths, spec, frags)
		write_text(saved, read_text(os.path.join(build, '.config')))
		write_text(key_file, key + '\n')
	return read_text(saved)


def configure_step(spaths: Paths, spec: KernelSpec, reference: str) -> None:
	"""The reference config, made fit for this step by olddefconfig, as a
	bisect keeps its .config: options the step does not know yet drop
	out, the others stay, so a step rebuilds only what its options touch.
	The allocator itself must come out as spec asks."""
	build = spec.build_dir(spaths)
	os.makedirs(build, exist_ok=True)
	write_text(os.path.join(build, '.config'), reference)
	run(make_command(spaths, spec, 'olddefconfig'), timeout=CONFIG_TIMEOUT_S,
	    env=build_env(spaths), cwd=build)
	config = parse_config(read_text(os.path.join(build, '.config')))
	want = f'CONFIG_{spec.alloc.upper()}'
	if config.get(want) != 'y':
		raise CheckFailed(f'the {spec.name} config has no {want}=y')


def configure_slub_step(spaths: Paths, spec: KernelSpec) -> None:
	"""tinyconfig + alloc-slub + SLUB_STEP_KCONFIG, for a patch from
	before SLQB (no base.config: see SLUB_STEP_KCONFIG)."""
	os.makedirs(spec.build_dir(spaths), exist_ok=True)
	generate_config(spaths, spec, [f for f in fragments(spec, spaths)
				       if f[0] != 'base.config'])
	config = parse_config(read_text(os.path.join(spec.build_dir(spaths), '.config')))
	if config.get('CONFIG_SLUB') != 'y':
		raise CheckFailed(f'the {spec.name} config has no CONFIG_SLUB=y')


def build_step(paths: Paths, spaths: Paths, spec: KernelSpec, label: str) -> str:
	"""make bzImage (and modules) for the tree as it is; returns a note."""
	config = read_text(os.path.join(spec.build_dir(spaths), '.config'))
	targets = ['bzImage'] + (['modules'] if re.search(r'=m$', config, re.M) else [])
	log_path = paths.new_log(f'series-build-{label}')
	wait_for_foreign_builds()
	start = time.monotonic()
	status, lines = run_make_logged(make_command(spaths, spec, *targets),
					build_env(paths), log_path, BUILD_TIMEOUT_S)
	took = fmt_duration(time.monotonic() - start)
	if status != 0:
		first = [l.replace(spaths.work + '/', '') for l in first_build_error(lines)]
		raise CheckFailed(f'does not build ({spec.name}, make exit {status}). '
				  f'First error:\n{quote_lines(first)}\nBuild log: {log_path}')
	compiled = sum(1 for l in lines if re.match(r'\s+(CC|LD|AS)\s', l))
	return f'{spec.name}, {compiled} objects compiled or linked in {took}'


def build_slqbinfo(tree: str) -> None:
	"""tools/vm/slqbinfo.c compiles warning-free with tools/vm's flags."""
	src = os.path.join(tree, 'tools', 'vm', 'slqbinfo.c')
	with tempfile.TemporaryDirectory(prefix='slqb-series-tool.') as tmp:
		proc = run(['gcc', '-Wall', '-Wextra', '-I', os.path.join(tree, 'tools', 'lib'),
			    '-o', os.path.join(tmp, 'slqbinfo'), src], timeout=300, check=False)
	if proc.returncode != 0 or proc.stdout.strip():
		raise CheckFailed('tools/vm/slqbinfo.c does not build cleanly:\n' +
				  quote_lines(proc.stdout.strip().splitlines()[:10]))


def step_paths(am: str, commit: str) -> List[str]:
	"""The paths a commit changes."""
	return git(am, 'diff-tree', '--no-commit-id', '--name-only', '-r',
		   commit).split()


def kernel_inputs_changed(changed: Sequence[str]) -> bool:
	"""Whether make bzImage could see any of the changed paths (a
	Kconfig file anywhere counts as one: Kconfig sources Documentation/).
	kbuild never reads Makefiles below tools/vm or tools/testing for
	bzImage or modules."""
	def is_input(path: str) -> bool:
		return not path.startswith(NOT_BUILD_INPUTS) or \
			os.path.basename(path).startswith('Kconfig')
	return any(is_input(p) for p in changed)


def build_all(ctx: Context, am: str, commits: Sequence[str],
	      names: Sequence[str]) -> None:
	"""Builds each step in order; the first failure stops the rest."""
	paths = ctx.paths
	touched = git(am, 'diff', '--name-only', 'pristine', 'HEAD').split()
	env_ccache = os.environ.get('CCACHE_DIR')
	os.environ['CCACHE_DIR'] = build_env(paths)['CCACHE_DIR']	# not <series>/ccache
	try:
		with BuildLock(paths):
			build_steps(ctx, am, commits, names, touched)
	finally:
		if env_ccache is None:
			del os.environ['CCACHE_DIR']
		else:
			os.environ['CCACHE_DIR'] = env_ccache


def prime_slqb_build(paths: Paths, spaths: Paths, reference: str) -> None:
	"""Builds the SLQB build directory at the last patch, the tree as it
	is when this is called: the kernels group's SLQB kernel, so ccache
	has its objects, and the SLQB patches then rebuild only what differs
	from it. Not a check: the last patch's own build is one."""
	if not tree_has_slqb(spaths.work):
		return
	spec = KernelSpec('slqb')
	try:
		configure_step(spaths, spec, reference)
		note = build_step(paths, spaths, spec, 'last')
	except CheckFailed as e:
		log(f'series: the last patch\'s SLQB kernel does not build; the '
		    f'patch builds below say where it breaks ({str(e).splitlines()[0]})')
		return
	log(f'series: SLQB build directory made at the last patch: {note}')


def build_steps(ctx: Context, am: str, commits: Sequence[str],
		names: Sequence[str], touched: Sequence[str]) -> None:
	"""build_all's work, under the build lock."""
	paths = ctx.paths
	spaths = series_paths(paths)
	if read_text(os.path.join(spaths.src, 'tree.stamp'), '') != \
	   repr(read_json(pristine_stamp_path(paths))) or not os.path.isdir(spaths.work):
		fresh_build_tree(spaths, paths)
		write_text(os.path.join(spaths.src, 'tree.stamp'),
			   repr(read_json(pristine_stamp_path(paths))))
	sync_step(am, commits[-1], spaths.work, touched)
	reference = reference_config(spaths, touched)
	prime_slqb_build(paths, spaths, reference)
	failed: Optional[str] = None
	for number, (commit, name) in enumerate(zip(commits, names), 1):
		if failed:
			ctx.record(name, False, f'not built: {failed} does not build')
			continue

		def one(commit: str = commit, number: int = number) -> bool:
			changed = sync_step(am, commit, spaths.work, touched)
			paths_here = step_paths(am, commit)
			if number > 1 and not kernel_inputs_changed(paths_here):
				note = ('no kernel build input changed: the kernel of '
					'the patch before stands')
			else:
				if tree_has_slqb(spaths.work):
					spec = KernelSpec('slqb')
					configure_step(spaths, spec, reference)
				else:
					spec = KernelSpec('slub', SLUB_STEP_KCONFIG)
					configure_slub_step(spaths, spec)
				note = build_step(paths, spaths, spec, f'{number:04d}')
			if any(p.startswith('tools/vm/') for p in paths_here):
				build_slqbinfo(spaths.work)
				note += '; slqbinfo built'
			log(f'series: patch {number}: {changed} files changed; {note}')
			return True
		if ctx.check(name, one) is None:
			failed = f'patch {number}'


# ---------------------------------------------------------------- group

def check_names(steps: Sequence[Step]) -> Tuple[List[str], List[str]]:
	"""The per-patch checkpatch and build check names."""
	n = len(steps)
	cp = [f'series: {i}/{n} checkpatch --strict: {s.subject}' for i, s in enumerate(steps, 1)]
	bd = [f'series: {i}/{n} builds (x86_64): {s.subject}' for i, s in enumerate(steps, 1)]
	return cp, bd


@check_group('series')
def series_checks(ctx: Context) -> None:
	"""Export, git am on pristine 6.1, compare, checkpatch, bisect builds."""
	start = time.monotonic()
	ensure_packages(['git', 'patch', 'perl'])
	paths = ctx.paths
	fixed = ['series: the plan carries every quilt patch and new file once',
		 'series: slqb series exports it', 'series: git am on a clean 6.1 tree',
		 'series: the result equals the harness work tree']
	ctx.expect(fixed[:2])
	steps = ctx.check(fixed[0], lambda: load_plan(paths.repo))
	if not steps:
		return
	cp_names, build_names = check_names(steps)
	ctx.expect(fixed[2:] + cp_names + build_names)
	out = os.path.join(ctx.scratch, 'series')
	exported = ctx.check(fixed[1], lambda: export_series(paths, out))
	if not exported:
		return
	files, base = exported
	am = os.path.join(series_paths(paths).cache, 'am')
	pristine_base(paths)
	clean_am_tree(paths, am)
	commits = ctx.check(fixed[2], lambda: git_am(am, files))
	if not commits:
		return
	ctx.check(fixed[3], lambda: compare_with_work(paths, am, base))
	for name, patch, step in zip(cp_names, series_patches(files), steps):
		if step.exempt:
			errors, warnings, checks, _ = checkpatch(paths, am, patch)
			ctx.skip(name, f'exempt ({step.exempt}); checkpatch says '
				 f'{errors} errors, {warnings} warnings, {checks} checks')
			ctx.expected.remove(name)
			continue
		ctx.check(name, lambda p=patch, s=step: checkpatch_check(paths, am, p, s))
	build_all(ctx, am, commits, build_names)
	log(f'series: group took {fmt_duration(time.monotonic() - start)}')
