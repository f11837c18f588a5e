# SPDX-License-Identifier: GPL-2.0
"""Kernel source trees: the pristine 6.1 tree, the patched work tree, apply.

The pristine tree is Debian's linux-source-6.1 tarball, unpacked once under
the cache. The work tree is a hardlinked copy of it onto which the quilt
series in patches/ and the repository's new files are laid. The series is
always applied in a staging directory first, so a patch that does not apply
changes nothing, and only files whose content changed are written into the
work tree (unlink, then write: never through a hardlink into the pristine
tree), so that make rebuilds only what really changed.
"""

import dataclasses
import json
import os
import re
import shutil
import subprocess
import tempfile
from typing import Dict, List, Optional, Sequence

from slqb_util import (Paths, SlqbError, file_sha1, log, quote_lines,
		       read_text, run, sha1_of, write_text)

DEFAULT_TARBALL = '/usr/src/linux-source-6.1.tar.xz'
# Top-level entries of the repository that are not laid over the kernel.
NOT_OVERLAID = ('patches', 'README.slqb')
# Files that tell a 6.1 tree from anything else (besides its Makefile).
TREE_MARKERS = ('mm/Kconfig', 'include/linux/slab.h', 'scripts/kconfig/merge_config.sh')
# What patch(1) says when it refuses a patch without a failed hunk.
PATCH_FAILURE_HINTS = (
	('Reversed (or previously applied)', 'the tree already has it (or it is reversed)'),
	("can't find file to patch", 'a file it patches does not exist'),
	('malformed patch', 'the patch file is malformed'),
	('Only garbage was found', 'the patch file holds no patch'),
)


@dataclasses.dataclass
class Patch:
	"""One entry of patches/series, or a base fix (BASE_FIXES)."""
	name: str
	path: str
	strip: int = 1
	where: str = 'patches'


@dataclasses.dataclass
class TreeUpdate:
	"""What laying the series and the new files over a tree did."""
	patches: int = 0
	fixes: int = 0
	overlay: int = 0
	changed: int = 0
	removed: int = 0
	restored: int = 0
	kconfig_digest: str = ''

	def summary(self) -> str:
		fixes = f' (and {self.fixes} base fix(es))' if self.fixes else ''
		return (f'{self.patches} patches{fixes}, {self.overlay} new files; '
			f'{self.changed} files written, {self.removed} removed, '
			f'{self.restored} restored from pristine')


# ---------------------------------------------------------------- versions

def kernel_version(tree: str) -> str:
	"""'6.1.192' from a tree's top Makefile."""
	fields = {}
	text = read_text(os.path.join(tree, 'Makefile'), '')
	for key in ('VERSION', 'PATCHLEVEL', 'SUBLEVEL', 'EXTRAVERSION'):
		m = re.search(rf'^{key}\s*=[ \t]*(\S*)', text, re.M)
		fields[key] = m.group(1) if m else ''
	version = '.'.join(f for f in (fields['VERSION'], fields['PATCHLEVEL'],
				       fields['SUBLEVEL']) if f)
	return version + fields['EXTRAVERSION']


def check_kernel_tree(tree: str) -> str:
	"""Refuses anything but a Linux 6.1 source tree; returns its version."""
	if not os.path.isdir(tree):
		raise SlqbError(f'{tree}: no such directory (expected a Linux 6.1 '
				'source tree)', exit_code=2)
	version = kernel_version(tree)
	if not (version == '6.1' or version.startswith('6.1.')):
		found = f'its Makefile says {version}' if version else 'it has no kernel Makefile'
		raise SlqbError(f'{tree} is not a Linux 6.1 source tree: {found}',
				exit_code=2)
	missing = [m for m in TREE_MARKERS if not os.path.isfile(os.path.join(tree, m))]
	if missing:
		raise SlqbError(f'{tree} is not a complete Linux 6.1 source tree: '
				'missing ' + ', '.join(missing), exit_code=2)
	return version


def tarball_path() -> str:
	"""Debian's kernel source tarball ($SLQB_TARBALL overrides)."""
	return os.environ.get('SLQB_TARBALL') or DEFAULT_TARBALL


def tarball_stamp(path: str) -> Dict[str, object]:
	"""Identity of a tarball: a newer Debian upload changes size or mtime."""
	st = os.stat(path)
	return {'path': path, 'size': st.st_size, 'mtime_ns': st.st_mtime_ns}


def debian_source_version() -> str:
	"""Version of the installed linux-source-6.1 package, or ''."""
	proc = run(['dpkg-query', '-W', '-f=${Version}', 'linux-source-6.1'],
		   timeout=60, check=False)
	return proc.stdout.strip() if proc.returncode == 0 else ''


def describe_base(paths: Paths) -> str:
	"""'Linux 6.1.192 (Debian linux-source-6.1 6.1.192-3, <tarball>)'."""
	tarball = tarball_path()
	origin = tarball
	if tarball == DEFAULT_TARBALL:
		origin = f'Debian linux-source-6.1 {debian_source_version()}, {tarball}'
	return f'Linux {kernel_version(paths.pristine)} ({origin})'


# ---------------------------------------------------------------- pristine

def pristine_stamp_path(paths: Paths) -> str:
	return os.path.join(paths.src, 'pristine.stamp')


def read_json(path: str) -> Optional[dict]:
	"""A JSON file's content, or None when missing or unreadable."""
	try:
		with open(path, encoding='utf-8') as f:
			return json.load(f)
	except (FileNotFoundError, ValueError):
		return None


def unpack_tarball(tarball: str, paths: Paths) -> None:
	"""Unpacks the tarball into <cache>/src/pristine (replacing it).

	Files get the unpack time as mtime (--touch), so builds made from an
	older pristine tree are rebuilt rather than trusted.
	"""
	tmp = os.path.join(paths.src, 'unpack.tmp')
	shutil.rmtree(tmp, ignore_errors=True)
	os.makedirs(tmp)
	log(f'unpacking {tarball} (once per Debian update; ~15 s)')
	run(['tar', '-xJf', tarball, '-C', tmp, '--touch', '--no-same-owner'],
	    timeout=1800)
	tops = os.listdir(tmp)
	if len(tops) != 1 or not os.path.isdir(os.path.join(tmp, tops[0])):
		raise SlqbError(f'{tarball}: expected one top directory, found {tops[:5]}')
	for stale in (paths.work, paths.pristine):
		if os.path.exists(stale):
			old = stale + '.old'
			shutil.rmtree(old, ignore_errors=True)
			os.rename(stale, old)
			shutil.rmtree(old, ignore_errors=True)
	os.rename(os.path.join(tmp, tops[0]), paths.pristine)
	os.rmdir(tmp)


def ensure_pristine(paths: Paths) -> str:
	"""Makes sure <cache>/src/pristine matches the tarball; returns the base."""
	tarball = tarball_path()
	if not os.path.isfile(tarball):
		raise SlqbError(f'kernel source tarball {tarball} is missing '
				'(apt-get install linux-source-6.1)', exit_code=2)
	want = tarball_stamp(tarball)
	if read_json(pristine_stamp_path(paths)) != want or \
	   not os.path.isdir(paths.pristine):
		os.makedirs(paths.src, exist_ok=True)
		try:
			os.unlink(pristine_stamp_path(paths))
		except FileNotFoundError:
			pass
		unpack_tarball(tarball, paths)
		write_text(pristine_stamp_path(paths), json.dumps(want))
	check_kernel_tree(paths.pristine)
	return describe_base(paths)


# ---------------------------------------------------------------- series

def read_series(repo: str) -> List[Patch]:
	"""The patches of <repo>/patches/series, in order (missing: none)."""
	series = os.path.join(repo, 'patches', 'series')
	patches = []
	for number, line in enumerate(read_text(series, '').splitlines(), 1):
		words = line.split('#', 1)[0].split()
		if not words:
			continue
		patch = Patch(name=words[0], path=os.path.join(repo, 'patches', words[0]))
		for option in words[1:]:
			m = re.fullmatch(r'-p(\d+)', option)
			if not m:
				raise SlqbError(f'patches/series line {number}: unsupported '
						f'option {option!r} (only -pN)')
			patch.strip = int(m.group(1))
		if not os.path.isfile(patch.path):
			raise SlqbError(f'patches/series line {number} names {words[0]}, '
					f'but patches/{words[0]} does not exist')
		patches.append(patch)
	return patches


# ---------------------------------------------------------------- base fixes

# Fixes to the base tree that the harness's kernels need and that are not
# SLQB's to send: each goes into the harness's work tree before the
# series, and only into a base tree that needs it. `slqb apply` and
# `slqb series` leave them out.
FIXES_DIR = os.path.join('tools', 'testing', 'slqb', 'fixes')


def kasan_hw_tags_unbuildable(tree: str) -> Optional[str]:
	"""Why tree cannot build KASAN's hardware tag mode for any allocator,
	or None. Debian's 6.1.192 has the backport that makes KASAN's reports
	call hw_suppress_tag_checks_start() from mm/kasan/report.c, but not
	the definitions of it in mm/kasan/kasan.h and arm64's asm/memory.h."""
	kasan = os.path.join(tree, 'mm', 'kasan')
	try:
		names = [n for n in os.listdir(kasan) if n.endswith(('.c', '.h'))]
	except OSError as e:
		return f'cannot read {kasan}: {e.strerror}'
	texts = {name: read_text(os.path.join(kasan, name), '') for name in names}
	used = 'hw_suppress_tag_checks_start()' in texts.get('report.c', '')
	defined = any(re.search(r'define\s+hw_suppress_tag_checks_start\b|'
				r'\bvoid\s+hw_suppress_tag_checks_start\s*\(', t)
		      for t in texts.values())
	if used and not defined:
		return ('mm/kasan/report.c calls hw_suppress_tag_checks_start(), '
			'which nothing in mm/kasan defines')
	return None


# Each fix, and the test of a base tree that says why it needs it.
BASE_FIXES = (
	('kasan-hw-tags-suppress-checks.patch', kasan_hw_tags_unbuildable),
)


def base_fixes(repo: str, tree: str) -> List[Patch]:
	"""The fixes of BASE_FIXES that tree needs, in order."""
	fixes = []
	for name, needed in BASE_FIXES:
		if not needed(tree):
			continue
		path = os.path.join(repo, FIXES_DIR, name)
		if not os.path.isfile(path):
			raise SlqbError(f'{FIXES_DIR}/{name} is missing')
		fixes.append(Patch(name=name, path=path, where=FIXES_DIR))
	return fixes


def strip_path(name: str, strip: int, patch: Patch) -> str:
	"""Applies -pN to a path from a ---/+++ line; refuses unsafe paths."""
	parts = [p for p in name.split('/') if p]
	rel = '/'.join(parts[strip:])
	if not rel or name.startswith('/') or '..' in parts[strip:]:
		raise SlqbError(f'patches/{patch.name}: unsupported path {name!r} '
				f'with -p{patch.strip}')
	return rel


def header_path(line: str) -> str:
	"""The path of a '--- a/x' or '+++ b/x' line (no timestamp)."""
	return line[4:].split('\t', 1)[0].strip()


def patch_targets(patch: Patch) -> Dict[str, str]:
	"""Files a patch touches: path -> 'modify', 'create' or 'delete'."""
	lines = read_text(patch.path).splitlines()
	targets = {}
	for old, new in zip(lines, lines[1:]):
		if not (old.startswith('--- ') and new.startswith('+++ ')):
			continue
		old_name, new_name = header_path(old), header_path(new)
		if new_name == '/dev/null':
			targets[strip_path(old_name, patch.strip, patch)] = 'delete'
		elif old_name == '/dev/null':
			targets[strip_path(new_name, patch.strip, patch)] = 'create'
		else:
			targets[strip_path(new_name, patch.strip, patch)] = 'modify'
	return targets


def series_targets(patches: Sequence[Patch]) -> List[str]:
	"""Every file the series touches, sorted."""
	paths = set()
	for patch in patches:
		paths.update(patch_targets(patch))
	return sorted(paths)


# ---------------------------------------------------------------- overlay

def repo_files(repo: str) -> List[str]:
	"""Tracked and untracked-but-not-ignored files of the repository."""
	try:
		proc = subprocess.run(['git', '-C', repo, 'ls-files', '-co',
				       '--exclude-standard', '-z'],
				      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
				      timeout=120)
		if proc.returncode == 0:
			names = [n for n in proc.stdout.decode().split('\0') if n]
			return sorted(n for n in set(names)
				      if os.path.isfile(os.path.join(repo, n)))
	except (FileNotFoundError, subprocess.TimeoutExpired):
		pass
	return walk_files(repo)


def walk_files(repo: str) -> List[str]:
	"""Fallback for repo_files without git: skip dotfiles and caches."""
	found = []
	for root, dirs, files in os.walk(repo):
		dirs[:] = [d for d in dirs if not d.startswith('.') and d != '__pycache__']
		for name in files:
			found.append(os.path.relpath(os.path.join(root, name), repo))
	return sorted(found)


def overlay_files(repo: str) -> List[str]:
	"""The repository's new kernel files: all but patches/, README, dotfiles."""
	chosen = []
	for name in repo_files(repo):
		parts = name.split('/')
		if parts[0].startswith('.') or parts[0] in NOT_OVERLAID or \
		   len(parts) == 1 or '__pycache__' in parts:
			continue
		chosen.append(name)
	return chosen


# ---------------------------------------------------------------- staging

def hunk_from_reject(reject: str, limit: int = 16) -> List[str]:
	"""The first hunk of a .rej file, at most limit lines."""
	lines = read_text(reject, '').splitlines()
	start = next((i for i, l in enumerate(lines) if l.startswith('@@')), None)
	if start is None:
		return lines[:limit]
	end = next((i for i in range(start + 1, len(lines))
		    if lines[i].startswith(('@@', '--- '))), len(lines))
	hunk = lines[start:end]
	return hunk[:limit] + (['...'] if len(hunk) > limit else [])


def describe_patch_failure(patch: Patch, output: str, stage: str,
			   base: str) -> str:
	"""One paragraph on why patch(1) refused a patch."""
	current = '?'
	failed = []
	for line in output.splitlines():
		m = re.match(r'(?:patching|checking) file (.+)', line)
		if m:
			current = m.group(1).strip().strip("'")
		m = re.match(r'Hunk #(\d+) FAILED at (\d+)', line)
		if m:
			failed.append((current, m.group(1), m.group(2)))
	said = quote_lines(output.strip().splitlines()[-8:])
	head = f'patch {patch.where}/{patch.name} does not apply to {base}'
	tail = ('Nothing was changed: the series is tried in a staging copy first.\n'
		f'patch(1) said:\n{said}')
	if not failed:
		reasons = [why for text, why in PATCH_FAILURE_HINTS if text in output]
		return f'{head}' + (f': {reasons[0]}' if reasons else '') + f'.\n{tail}'
	path, hunk, line = failed[0]
	reject = quote_lines(hunk_from_reject(os.path.join(stage, path + '.rej')))
	return (f'{head}: hunk #{hunk} of {path} FAILED (at line {line}; '
		f'{len(failed)} hunk(s) failed in all). Rejected hunk:\n{reject}\n{tail}')


def apply_patch(patch: Patch, stage: str, base: str) -> None:
	"""Applies one patch inside the staging directory, or explains why not."""
	cmd = ['patch', f'-p{patch.strip}', '--forward', '--batch',
	       '--no-backup-if-mismatch', '-d', stage, '-i', patch.path]
	proc = run(cmd, timeout=300, check=False)
	if proc.returncode != 0:
		raise SlqbError(describe_patch_failure(patch, proc.stdout, stage, base))
	for line in proc.stdout.splitlines():
		if 'with fuzz' in line:
			log(f'note: patches/{patch.name}: {line.strip()}')


def copy_file(src: str, dst: str) -> None:
	"""Writes dst as a fresh file with src's content and mode.

	dst is unlinked first, so a hardlink to the pristine tree is broken,
	never written through.
	"""
	os.makedirs(os.path.dirname(dst), exist_ok=True)
	if os.path.lexists(dst):
		os.unlink(dst)
	shutil.copyfile(src, dst)
	shutil.copymode(src, dst)


def stage_tree(base_tree: str, repo: str, stage: str, base: str,
	       fixes: Sequence[Patch] = ()) -> Dict[str, str]:
	"""Builds, in stage, the desired content of every file the repo touches.

	Copies base_tree's versions of the patched files, applies the fixes
	and the series, then adds the new files. Returns path -> 'file' or
	'deleted'.
	"""
	patches = list(fixes) + read_series(repo)
	targets = series_targets(patches)
	for path in targets:
		src = os.path.join(base_tree, path)
		if os.path.isfile(src):
			copy_file(src, os.path.join(stage, path))
	for patch in patches:
		apply_patch(patch, stage, base)
	desired = {p: 'file' if os.path.isfile(os.path.join(stage, p)) else 'deleted'
		   for p in targets}
	for path in overlay_files(repo):
		copy_file(os.path.join(repo, path), os.path.join(stage, path))
		desired[path] = 'file'
	return desired


def same_file(a: str, b: str) -> bool:
	"""True when both exist with equal content and equal exec bits."""
	try:
		sa, sb = os.stat(a), os.stat(b)
	except FileNotFoundError:
		return False
	if sa.st_size != sb.st_size or (sa.st_mode & 0o111) != (sb.st_mode & 0o111):
		return False
	return file_sha1(a) == file_sha1(b)


def sync_tree(target: str, stage: str, desired: Dict[str, str],
	      update: TreeUpdate) -> None:
	"""Writes into target only the staged files that differ from it."""
	for path, kind in sorted(desired.items()):
		dst = os.path.join(target, path)
		if kind == 'deleted':
			if os.path.lexists(dst):
				os.unlink(dst)
				update.removed += 1
		elif not same_file(os.path.join(stage, path), dst):
			copy_file(os.path.join(stage, path), dst)
			update.changed += 1


def restore_untouched(work: str, pristine: str, paths: Sequence[str],
		      update: TreeUpdate) -> None:
	"""Files touched last time but not now go back to the pristine content."""
	for path in paths:
		src, dst = os.path.join(pristine, path), os.path.join(work, path)
		if os.path.isfile(src):
			if not same_file(src, dst):
				copy_file(src, dst)	# a new mtime, so make rebuilds
				update.restored += 1
		elif os.path.lexists(dst):
			os.unlink(dst)
			update.removed += 1


def kconfig_digest(tree: str, desired: Dict[str, str]) -> str:
	"""Digest of the touched Kconfig files (they change what config means)."""
	kconfigs = sorted(p for p in desired if os.path.basename(p).startswith('Kconfig'))
	return sha1_of(*[(p, file_sha1(os.path.join(tree, p))) for p in kconfigs])


# ---------------------------------------------------------------- work tree

def manifest_path(paths: Paths) -> str:
	return os.path.join(paths.src, 'work.manifest.json')


def save_manifest(paths: Paths, stamp: object, files: Dict[str, str]) -> None:
	write_text(manifest_path(paths), json.dumps({'pristine': stamp, 'files': files},
						    indent=0, sort_keys=True))


def fresh_work_tree(paths: Paths) -> None:
	"""Recreates <cache>/src/work as a hardlinked copy of pristine."""
	log('creating the work tree (hardlinked copy of pristine)')
	tmp = paths.work + '.tmp'
	for stale in (tmp, paths.work):
		shutil.rmtree(stale, ignore_errors=True)
	run(['cp', '-al', paths.pristine, tmp], timeout=1800)
	os.rename(tmp, paths.work)


def prepare_work_tree(paths: Paths, base: str) -> TreeUpdate:
	"""Brings <cache>/src/work to pristine + series + new files."""
	stamp = read_json(pristine_stamp_path(paths))
	manifest = read_json(manifest_path(paths)) or {}
	if manifest.get('pristine') != stamp or not os.path.isdir(paths.work):
		fresh_work_tree(paths)
		manifest = {'pristine': stamp, 'files': {}}
		save_manifest(paths, stamp, {})
	previous = manifest.get('files', {})
	update = TreeUpdate()
	with tempfile.TemporaryDirectory(prefix='stage.', dir=paths.src) as stage:
		fixes = base_fixes(paths.repo, paths.pristine)
		desired = stage_tree(paths.pristine, paths.repo, stage, base, fixes)
		# Record the union first: if we are cut off, the next run still
		# knows every file that may differ from pristine.
		save_manifest(paths, stamp, {**previous, **desired})
		sync_tree(paths.work, stage, desired, update)
		restore_untouched(paths.work, paths.pristine,
				  sorted(set(previous) - set(desired)), update)
		save_manifest(paths, stamp, desired)
	update.patches = len(read_series(paths.repo))
	update.fixes = len(fixes)
	update.overlay = len(overlay_files(paths.repo))
	update.kconfig_digest = kconfig_digest(paths.work, desired)
	return update


def tree_has_slqb(tree: str) -> bool:
	"""Whether the tree's Kconfig offers `config SLQB`."""
	for kconfig in ('mm/Kconfig', 'init/Kconfig'):
		text = read_text(os.path.join(tree, kconfig), '')
		if re.search(r'^config SLQB\s*$', text, re.M):
			return True
	return False


# ---------------------------------------------------------------- apply

def apply_to_tree(repo: str, tree: str) -> TreeUpdate:
	"""`slqb apply DIR`: lays the series and the new files over DIR.

	The whole series is first applied to copies in a staging directory,
	so a series that does not apply leaves DIR unchanged.
	"""
	version = check_kernel_tree(tree)
	update = TreeUpdate(patches=len(read_series(repo)),
			    overlay=len(overlay_files(repo)))
	with tempfile.TemporaryDirectory(prefix='slqb-apply.') as stage:
		desired = stage_tree(tree, repo, stage, f'Linux {version} in {tree}')
		sync_tree(tree, stage, desired, update)
	return update
