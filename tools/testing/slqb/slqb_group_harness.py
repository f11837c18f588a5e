# SPDX-License-Identifier: GPL-2.0
"""Harness self-checks for `slqb test`: the error paths, for real.

They run the slqb command itself (as a new user would) on bad arguments,
as an unprivileged user with a package missing, and `slqb apply` on small
scratch trees, one of them with a deliberately broken patch. The parsers'
checks on made-up consoles and build logs are the unit tests
(test_slqb_harness.py, group unit).
"""

import os
import shutil
import subprocess
from typing import Dict, Sequence

from slqb_checks import CheckFailed, Context, check_group
from slqb_host import BuildLock
from slqb_tree import (TREE_MARKERS, ensure_pristine, overlay_files,
		       patch_targets, read_series, repo_files, same_file,
		       series_targets)
from slqb_util import HARNESS_DIR, file_sha1, sha1_of

CLI = os.path.join(HARNESS_DIR, 'slqb.py')
CLI_TIMEOUT_S = 300
MISSING_PACKAGE = 'slqb-selftest-missing-package'
BROKEN_PATCH_NAME = '9999-slqb-selftest-broken.patch'
BROKEN_PATCH = '''Deliberately broken patch for `slqb test`: its context is not 6.1's.

--- a/Makefile
+++ b/Makefile
@@ -1,4 +1,4 @@
 # SPDX-License-Identifier: GPL-2.0
-VERSION = 5
+VERSION = 7
 PATCHLEVEL = 1
 SUBLEVEL = 0
'''

# (what, arguments, text the refusal must contain): each must exit 2
# before touching the cache.
BAD_ARGUMENTS = [
	('--cpus 0', ['boot', '--alloc', 'slub', '--cpus', '0'], 'at least 1 CPU'),
	('more nodes than CPUs', ['boot', '--alloc', 'slub', '--cpus', '2', '--nodes', '3'],
	 'too few'),
	('a memoryless node without a spare CPU',
	 ['boot', '--alloc', 'slub', '--cpus', '1', '--memoryless-node'], 'memoryless'),
	('--memory-hotplug without a memoryless node',
	 ['boot', '--alloc', 'slub', '--cpus', '4', '--nodes', '2', '--memory-hotplug'],
	 'needs --memoryless-node'),
	('more CPUs than NR_CPUS', ['boot', '--alloc', 'slub', '--cpus', '64'], 'NR_CPUS'),
	('a malformed --kconfig', ['boot', '--alloc', 'slub', '--kconfig', 'SMP=y'],
	 'CONFIG_NAME=VALUE'),
	('an unknown --alloc', ['boot', '--alloc', 'slab2'], 'invalid choice'),
	('--timeout 0', ['boot', '--alloc', 'slub', '--timeout', '0'], 'timeout'),
	('--stress -1', ['boot', '--alloc', 'slub', '--stress', '-1'], 'stress'),
	('apply to a missing directory', ['apply', '/nonexistent/slqb-tree'],
	 'no such directory'),
	('an unknown test group', ['test', '--group', 'no-such-group'],
	 'unknown check group'),
]



def run_cli(argv: Sequence[str], env: Dict[str, str], cli: str = CLI,
	    prefix: Sequence[str] = ()) -> subprocess.CompletedProcess:
	"""Runs the slqb command like a user would; output merged, as text."""
	try:
		return subprocess.run([*prefix, cli, *argv], env=env,
				      stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
				      stderr=subprocess.STDOUT, text=True,
				      errors='replace', timeout=CLI_TIMEOUT_S)
	except subprocess.TimeoutExpired:
		raise CheckFailed(f'slqb {" ".join(argv)} did not finish in {CLI_TIMEOUT_S}s')


def cli_env(ctx: Context, cache_name: str) -> Dict[str, str]:
	"""Our environment with SLQB_CACHE pointing into the scratch dir."""
	return dict(os.environ, SLQB_CACHE=os.path.join(ctx.scratch, cache_name))


def output_excerpt(proc: subprocess.CompletedProcess) -> str:
	return '\n'.join(proc.stdout.strip().splitlines()[-12:])


def require(condition: bool, reason: str, proc: subprocess.CompletedProcess = None) -> None:
	"""Fails the check with reason (and the command's output) unless condition."""
	if not condition:
		raise CheckFailed(reason + ('\n' + output_excerpt(proc) if proc else ''))


def expect_refusal(ctx: Context, argv: Sequence[str], text: str) -> None:
	"""slqb ARGV exits 2 with text in its message, no traceback, no cache."""
	env = cli_env(ctx, 'refused-cache')
	proc = run_cli(argv, env)
	require(proc.returncode == 2, f'exit status {proc.returncode}, expected 2', proc)
	require(text in proc.stdout, f'message lacks {text!r}', proc)
	require('Traceback' not in proc.stdout, 'printed a Python traceback', proc)
	require(not os.path.exists(env['SLQB_CACHE']),
		'created the cache before refusing', proc)


def copy_files(src_root: str, names: Sequence[str], dst_root: str) -> None:
	"""Copies the named relative files from src_root into dst_root."""
	for name in names:
		dst = os.path.join(dst_root, name)
		os.makedirs(os.path.dirname(dst), exist_ok=True)
		shutil.copy2(os.path.join(src_root, name), dst)


def scratch_repo(ctx: Context, name: str) -> str:
	"""A copy of the repository's (non-ignored) files."""
	root = os.path.join(ctx.scratch, name)
	copy_files(ctx.paths.repo, repo_files(ctx.paths.repo), root)
	return root


def scratch_tree(ctx: Context, name: str, repo: str) -> str:
	"""A small 6.1 tree: the files `apply` checks, reads or patches."""
	root = os.path.join(ctx.scratch, name)
	wanted = ['Makefile', *TREE_MARKERS, *series_targets(read_series(repo))]
	present = [p for p in dict.fromkeys(wanted)
		   if os.path.isfile(os.path.join(ctx.paths.pristine, p))]
	copy_files(ctx.paths.pristine, present, root)
	return root


def tree_digest(root: str) -> str:
	"""Digest of every file under root (names and content)."""
	items = []
	for dirpath, _, files in os.walk(root):
		for name in files:
			path = os.path.join(dirpath, name)
			items.append((os.path.relpath(path, root), file_sha1(path)))
	return sha1_of(sorted(items))


def check_not_root_missing_package(ctx: Context) -> None:
	"""An unprivileged user missing a package gets the exact apt-get line."""
	base = os.path.join(ctx.scratch, 'not-root')
	harness = os.path.join(base, 'repo', 'tools', 'testing', 'slqb')
	shutil.copytree(HARNESS_DIR, harness,
			ignore=shutil.ignore_patterns('__pycache__'))
	with open(os.path.join(harness, 'packages.txt'), 'a') as f:
		f.write(f'{MISSING_PACKAGE}\n')
	for dirpath, dirs, files in os.walk(ctx.scratch):
		os.chmod(dirpath, 0o755)
	env = {'PATH': '/usr/sbin:/usr/bin:/sbin:/bin', 'HOME': '/',
	       'SLQB_CACHE': os.path.join(base, 'cache')}
	prefix = []
	if os.geteuid() == 0:
		prefix = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--']
	proc = run_cli(['boot', '--alloc', 'slub'], env, os.path.join(harness, 'slqb.py'), prefix)
	want = f'sudo apt-get install -y --no-install-recommends {MISSING_PACKAGE}'
	require(proc.returncode == 2, f'exit status {proc.returncode}, expected 2', proc)
	require(want in proc.stdout, f'no {want!r} line', proc)
	require('Traceback' not in proc.stdout, 'printed a Python traceback', proc)


def check_apply(ctx: Context) -> None:
	"""`slqb apply` lays the series and the new files over a 6.1 tree."""
	repo = ctx.paths.repo
	tree = scratch_tree(ctx, 'apply-tree', repo)
	proc = run_cli(['apply', tree], cli_env(ctx, 'apply-cache'))
	require(proc.returncode == 0, f'exit status {proc.returncode}', proc)
	for patch in read_series(repo):
		for path, kind in patch_targets(patch).items():
			there = os.path.join(tree, path)
			if kind == 'delete':
				require(not os.path.exists(there), f'{path} not deleted')
			elif kind == 'modify':
				require(not same_file(there, os.path.join(ctx.paths.pristine, path)),
					f'{path} not patched')
			else:
				require(os.path.isfile(there), f'{path} not created')
	for path in overlay_files(repo):
		require(same_file(os.path.join(repo, path), os.path.join(tree, path)),
			f'{path} not laid over the tree')


def check_apply_refuses_other_tree(ctx: Context) -> None:
	"""`slqb apply` refuses a tree that is not 6.1, changing nothing."""
	tree = os.path.join(ctx.scratch, 'old-tree')
	os.makedirs(tree)
	with open(os.path.join(tree, 'Makefile'), 'w') as f:
		f.write('VERSION = 5\nPATCHLEVEL = 10\nSUBLEVEL = 0\n')
	before = tree_digest(tree)
	proc = run_cli(['apply', tree], cli_env(ctx, 'old-tree-cache'))
	require(proc.returncode == 2, f'exit status {proc.returncode}, expected 2', proc)
	require('not a Linux 6.1 source tree' in proc.stdout, 'unclear refusal', proc)
	require(tree_digest(tree) == before, 'the tree was changed')


def check_broken_patch(ctx: Context) -> None:
	"""A patch that does not apply is named with its hunk and file, and
	the tree is left exactly as it was."""
	repo = scratch_repo(ctx, 'broken-repo')
	patches = os.path.join(repo, 'patches')
	os.makedirs(patches, exist_ok=True)
	with open(os.path.join(patches, BROKEN_PATCH_NAME), 'w') as f:
		f.write(BROKEN_PATCH)
	with open(os.path.join(patches, 'series'), 'a') as f:
		f.write(f'{BROKEN_PATCH_NAME}\n')
	tree = scratch_tree(ctx, 'broken-tree', repo)
	before = tree_digest(tree)
	cli = os.path.join(repo, 'tools', 'testing', 'slqb', 'slqb.py')
	proc = run_cli(['apply', tree], cli_env(ctx, 'broken-cache'), cli)
	require(proc.returncode == 1, f'exit status {proc.returncode}, expected 1', proc)
	for text in (f'patches/{BROKEN_PATCH_NAME}', 'hunk #1 of Makefile FAILED',
		     '-VERSION = 5'):
		require(text in proc.stdout, f'message lacks {text!r}', proc)
	require('Traceback' not in proc.stdout, 'printed a Python traceback', proc)
	require(tree_digest(tree) == before, 'the tree was changed')


@check_group('harness')
def harness_selfchecks(ctx: Context) -> None:
	"""The harness's own error paths."""
	checks = [(f'refuses {what}', lambda a=argv, t=text: expect_refusal(ctx, a, t))
		  for what, argv, text in BAD_ARGUMENTS]
	checks += [
		('not root + missing package: prints the apt-get line',
		 lambda: check_not_root_missing_package(ctx)),
		('apply: series and new files laid over a 6.1 tree', lambda: check_apply(ctx)),
		('apply: refuses a tree that is not 6.1',
		 lambda: check_apply_refuses_other_tree(ctx)),
		('apply: a broken patch is named with hunk and file; tree unchanged',
		 lambda: check_broken_patch(ctx)),
	]
	ctx.expect([name for name, _ in checks])
	with BuildLock(ctx.paths):
		ensure_pristine(ctx.paths)	# the apply checks copy from it
	for name, func in checks:
		ctx.check(name, func)
