#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of `slqb series` (the package slqb_series), after the model
of tools/testing/kunit/kunit_tool_test.py.

They test the plan files (made-up ones from test_data/series-plan, and
the real tools/testing/slqb/series/, which must carry every quilt patch
and new file of the repository exactly once), the headers of the quilt
patches and the export of their diffs, the checkpatch call of the series
check, and that the harness's exported patch stands without the bench's:
a copy of the repository without the bench's files must offer its
commands and pass its unit tests. Like the other unit tests they need
only python3; `python3 -m unittest` in tools/testing/slqb finds them, and
so does the group unit of `slqb test`.
"""

import os
import re
import shutil
import subprocess
import sys
import unittest
from unittest import mock

# The harness's folder, which holds this package.
HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HARNESS)
sys.dont_write_bytecode = True

import slqb_series
import slqb_tree
from slqb_util import Paths, SlqbError, fixture_path
from slqb_unittest import REPO, Scratch

# Set in the copy of the repository that test_harness_patch_stands_alone
# runs the unit tests of.
ALONE_ENV = 'SLQB_UNIT_HARNESS_ALONE'
SCRATCH = Scratch('slqb-unit-series.')
setUpModule = SCRATCH.setup
tearDownModule = SCRATCH.teardown
write_tmp = SCRATCH.write



# ---------------------------------------------------------------- the plan

class SeriesPlanTest(unittest.TestCase):
	"""slqb_series: the plan files of tools/testing/slqb/series/."""

	PLAN = fixture_path('series-plan')
	GOOD = ('Subject: s\nQuilt: a.patch\n\nWhy.\n\n'
		'Signed-off-by: A <a@example.org>\n')

	def test_read_plan(self):
		core, harness = slqb_series.read_plan(self.PLAN)
		self.assertEqual((core.name, core.subject, core.author, core.exempt),
				 ('01-core', 'mm: add the SLQB slab allocator',
				  slqb_series.DEFAULT_AUTHOR, ''))
		self.assertEqual(core.quilt, ['0001-core.patch'])
		self.assertEqual(core.patterns, ['mm/slqb.c', 'include/linux/slqb_def.h'])
		self.assertEqual(core.body, 'Why the core is added.\n\n'
				 'Signed-off-by: SLQB developers <slqb@example.org>\n')
		self.assertEqual((harness.author, harness.exempt),
				 ('A Tester <tester@example.org>', 'Python, not kernel C'))

	def test_parse_step_refuses(self):
		cases = [('Subject: s\nWhy.\n', 'a header block, a blank line'),
			 ('Subject: s\n\n\n', 'a header block, a blank line'),
			 ('Subject: s\n\nWhy.\n', 'no Signed-off-by'),
			 ('Sujbect: s\n\nWhy.\n\nSigned-off-by: A <a@b>\n', "bad header line 'Sujbect: s'"),
			 ('Quilt:\n\nWhy.\n\nSigned-off-by: A <a@b>\n', 'bad header line'),
			 ('Subject: s\nSubject: t\n\nWhy.\n\nSigned-off-by: A <a@b>\n',
			  'exactly one Subject:'),
			 ('Quilt: a\n\nWhy.\n\nSigned-off-by: A <a@b>\n', 'exactly one Subject:'),
			 ('Subject: s\nCheckpatch-ignore: FILE_PATH_CHANGES\n\nWhy.\n\n'
			  'Signed-off-by: A <a@b>\n', 'is not "TYPE REASON"'),
			 ('Subject: s\nCheckpatch-ignore: no-type why\n\nWhy.\n\n'
			  'Signed-off-by: A <a@b>\n', 'is not "TYPE REASON"')]
		for text, words in cases:
			with self.assertRaises(SlqbError, msg=text) as cm:
				slqb_series.parse_step('09-x', text)
			self.assertIn(words, str(cm.exception))
			self.assertIn('tools/testing/slqb/series/09-x', str(cm.exception))
		self.assertEqual(slqb_series.parse_step('x', self.GOOD).quilt, ['a.patch'])

	def test_checkpatch_ignore(self):
		step = slqb_series.parse_step('09-x', 'Subject: s\n'
					      'Checkpatch-ignore: FILE_PATH_CHANGES MAINTAINERS has it\n'
					      'Checkpatch-ignore: SPDX_LICENSE_TAG  not a source file\n\n'
					      'Why.\n\nSigned-off-by: A <a@b>\n')
		self.assertEqual(step.ignore, {'FILE_PATH_CHANGES': 'MAINTAINERS has it',
					       'SPDX_LICENSE_TAG': 'not a source file'})
		self.assertEqual(slqb_series.parse_step('x', self.GOOD).ignore, {})
		# the series check passes the types to checkpatch, and only those
		from slqb_series import group
		calls = []

		def fake_run(cmd, timeout, check=True, cwd=None):
			calls.append(cmd)
			return mock.Mock(stdout='total: 0 errors, 0 warnings, 0 checks, 9 lines '
					 'checked\n')
		paths = Paths(repo=REPO, cache=os.path.join(SCRATCH.path, 'cache'))
		with mock.patch.object(group, 'run', fake_run):
			group.checkpatch_check(paths, '/am', '/x.patch', step)
			group.checkpatch_check(
				paths, '/am', '/x.patch', slqb_series.parse_step('x', self.GOOD))
		self.assertIn('--ignore', calls[0])
		self.assertEqual(calls[0][calls[0].index('--ignore') + 1],
				 'FILE_PATH_CHANGES,SPDX_LICENSE_TAG')
		self.assertNotIn('--ignore', calls[1])

	def test_read_plan_missing(self):
		with self.assertRaisesRegex(SlqbError, 'is missing'):
			slqb_series.read_plan(os.path.join(SCRATCH.path, 'no-plan'))
		empty = os.path.join(SCRATCH.path, 'empty-plan')
		os.makedirs(empty, exist_ok=True)
		with self.assertRaisesRegex(SlqbError, 'holds no plan files'):
			slqb_series.read_plan(empty)

	def test_assign_quilt(self):
		steps = slqb_series.read_plan(self.PLAN)
		slqb_series.assign_quilt(steps, ['0001-core.patch', '0002-harness.patch'])
		with self.assertRaisesRegex(SlqbError, r'patches/0003-x.patch is in '
					    'patches/series but no exported patch carries it'):
			slqb_series.assign_quilt(steps, ['0001-core.patch', '0002-harness.patch',
							 '0003-x.patch'])
		with self.assertRaisesRegex(SlqbError, '0002-harness.patch is not in patches/series'):
			slqb_series.assign_quilt(steps, ['0001-core.patch'])
		with self.assertRaisesRegex(SlqbError, 'another order'):
			slqb_series.assign_quilt(steps, ['0002-harness.patch', '0001-core.patch'])
		steps[1].quilt.append('0001-core.patch')
		with self.assertRaisesRegex(SlqbError, 'also in 01-core'):
			slqb_series.assign_quilt(steps, ['0001-core.patch', '0002-harness.patch'])

	def test_assign_files(self):
		steps = slqb_series.read_plan(self.PLAN)
		files = ['include/linux/slqb_def.h', 'mm/slqb.c', 'tools/testing/slqb/slqb.py',
			 'tools/testing/slqb/guest/init.sh']
		slqb_series.assign_files(steps, files)
		self.assertEqual(steps[0].files, ['include/linux/slqb_def.h', 'mm/slqb.c'])
		self.assertEqual(steps[1].files, files[2:])
		with self.assertRaisesRegex(SlqbError, 'lib/x.c is a new file, but no exported'):
			slqb_series.assign_files(steps, files + ['lib/x.c'])
		with self.assertRaisesRegex(SlqbError, 'Files: include/linux/slqb_def.h matches no'):
			slqb_series.assign_files(steps, files[1:])
		steps[0].patterns.append('tools/testing/slqb/')
		with self.assertRaisesRegex(SlqbError, 'slqb.py is carried by more than one '
					    r'exported patch: 01-core \(Files: tools/testing/slqb/\), '
					    r'02-harness \(Files: tools/testing/slqb/\)'):
			slqb_series.assign_files(steps, files)

	def test_assign_files_most_specific(self):
		"""A path beats a folder, a folder below another beats that one."""
		steps = slqb_series.read_plan(self.PLAN)
		files = ['mm/slqb.c', 'include/linux/slqb_def.h', 'tools/testing/slqb/slqb.py',
			 'tools/testing/slqb/bench/slqb_bench.c',
			 'tools/testing/slqb/test_data/bench.log',
			 'tools/testing/slqb/test_data/console.log']
		bench = slqb_series.parse_step('03-bench', 'Subject: bench\n'
					       'Files: tools/testing/slqb/bench/\n'
					       'Files: tools/testing/slqb/test_data/bench.log\n\n'
					       'Why.\n\nSigned-off-by: A <a@b>\n')
		steps.append(bench)
		slqb_series.assign_files(steps, files)
		self.assertEqual(steps[1].files, ['tools/testing/slqb/slqb.py',
						  'tools/testing/slqb/test_data/console.log'])
		self.assertEqual(bench.files, ['tools/testing/slqb/bench/slqb_bench.c',
					       'tools/testing/slqb/test_data/bench.log'])
		# the order of the plan files does not matter
		slqb_series.assign_files([steps[2], steps[0], steps[1]], files)
		self.assertEqual(bench.files, ['tools/testing/slqb/bench/slqb_bench.c',
					       'tools/testing/slqb/test_data/bench.log'])
		self.assertEqual(slqb_series.specificity('tools/'),
				 (False, len('tools/')))
		self.assertGreater(slqb_series.specificity('a/b/'),
				   slqb_series.specificity('a/'))
		self.assertGreater(slqb_series.specificity('a/b'),
				   slqb_series.specificity('a/bcdefgh/'))
		# a pattern whose every file a more specific one takes
		steps[0].patterns.append('tools/testing/slqb/bench/')
		with self.assertRaisesRegex(SlqbError, 'slqb_bench.c is carried by more '
					    'than one exported patch'):
			slqb_series.assign_files(steps, files)
		steps[0].patterns[-1] = 'tools/testing/'
		with self.assertRaisesRegex(SlqbError, '01-core: Files: tools/testing/ '
					    'carries no file: more specific'):
			slqb_series.assign_files(steps, files)

	def test_real_plan(self):
		"""tools/testing/slqb/series/ carries every quilt patch and new file
		of the repository exactly once."""
		steps = slqb_series.load_plan(REPO)
		carried = [f for s in steps for f in s.files]
		self.assertEqual(sorted(carried), slqb_tree.overlay_files(REPO))
		harness = next(s for s in steps if s.name == '08-harness').files
		self.assertIn('tools/testing/slqb/README.rst', harness)
		self.assertIn(os.path.relpath(os.path.abspath(__file__), REPO), harness)

	def test_harness_patch_stands_alone(self):
		"""The tree as of 08-harness, a copy of the repository without the
		files of the exported patches after it (the bench, with its plan
		file), offers every command but bench, and its unit tests pass."""
		if os.environ.get(ALONE_ENV):
			self.skipTest('the run inside the copy that this test made')
		steps = slqb_series.load_plan(REPO)
		names = [s.name for s in steps]
		later = {f for s in steps[names.index('08-harness') + 1:] for f in s.files}
		self.assertIn('tools/testing/slqb/series/09-bench', later)
		root = os.path.join(SCRATCH.path, 'harness-alone')
		for name in slqb_tree.repo_files(REPO):
			if name not in later:
				os.makedirs(os.path.dirname(os.path.join(root, name)), exist_ok=True)
				shutil.copy2(os.path.join(REPO, name), os.path.join(root, name))
		harness = os.path.join(root, 'tools', 'testing', 'slqb')
		env = dict(os.environ, PYTHONDONTWRITEBYTECODE='1', **{ALONE_ENV: '1'})

		def run(*argv):
			return subprocess.run([sys.executable, *argv], cwd=harness, env=env,
					      capture_output=True, text=True, timeout=300)
		top = run('slqb.py', '--help')
		self.assertEqual(top.returncode, 0, top.stderr)
		commands = re.findall(r'(?m)^    ([a-z]+)  +\S', top.stdout)
		self.assertEqual(sorted(commands), ['apply', 'boot', 'series', 'test'])
		for command in commands:
			proc = run('slqb.py', command, '--help')
			self.assertEqual(proc.returncode, 0, f'{command} --help: {proc.stderr}')
		unit = run('-m', 'unittest')
		self.assertEqual(unit.returncode, 0, unit.stderr[-3000:])
		self.assertRegex(unit.stderr, r'Ran [1-9]\d* tests')

	def test_matches(self):
		self.assertTrue(slqb_series.matches('tools/', 'tools/x/y'))
		self.assertFalse(slqb_series.matches('tools/', 'toolsx'))
		self.assertTrue(slqb_series.matches('mm/slqb.c', 'mm/slqb.c'))
		self.assertFalse(slqb_series.matches('mm/slqb.c', 'mm/slqb.c.orig'))

	def test_bench_section_refuses(self):
		repo = os.path.join(SCRATCH.path, 'no-results-repo')
		os.makedirs(os.path.join(repo, 'tools/testing/slqb/results'), exist_ok=True)
		with self.assertRaisesRegex(SlqbError, 'tools/testing/slqb/results/ holds no '
					    'results file, so the cover letter would have no numbers'):
			slqb_series.bench_section(repo)
		write_tmp('no-results-repo/tools/testing/slqb/results/20261206-021243.rst',
			  'slqb bench run 20261206-021243\n=====\n\n:Command: x\n')
		with self.assertRaisesRegex(SlqbError, '20261206-021243.rst: no "Summary" section'):
			slqb_series.bench_section(repo)


# ---------------------------------------------------------------- quilt patches

class QuiltHeaderTest(unittest.TestCase):
	"""slqb_series: a quilt patch's header names its changelog; only the
	diff is exported."""

	def read(self):
		with open(fixture_path('quilt-example.patch'), encoding='utf-8') as f:
			return f.read()

	def test_split(self):
		header, diff = slqb_series.split_quilt_patch(self.read())
		self.assertEqual(header, ['Changelog: tools/testing/slqb/series/01-core', ''])
		self.assertTrue(diff.startswith('--- a/mm/Kconfig\n+++ b/mm/Kconfig\n'))
		self.assertTrue(diff.endswith('-/* gone */\n'))
		header, diff = slqb_series.split_quilt_patch(
			'Subject: x\n---\n--- not a diff\ndiff --git a/f b/f\n--- a/f\n')
		self.assertEqual(header, ['Subject: x', '---', '--- not a diff'])
		self.assertEqual(diff, 'diff --git a/f b/f\n--- a/f\n')
		self.assertEqual(slqb_series.split_quilt_patch('only words\n'), (['only words'], ''))

	def test_changelog(self):
		self.assertEqual(slqb_series.quilt_changelog('x.patch', self.read()),
				 'tools/testing/slqb/series/01-core')
		diff = '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n'
		cases = [('', '0 header lines'),
			 ('Changelog: tools/testing/slqb/series/01-core\nWhy.\n', '2 header lines'),
			 ('Subject: x\n', "not 'Subject: x'"),
			 ('Changelog: series/01-core\n', "not 'Changelog: series/01-core'"),
			 ('Changelog:  tools/testing/slqb/series/01-core\n', 'not')]
		for head, words in cases:
			with self.assertRaises(SlqbError, msg=head) as cm:
				slqb_series.quilt_changelog('x.patch', head + diff)
			self.assertIn(words, str(cm.exception))
			self.assertIn('patches/x.patch: its header must be exactly one line',
				      str(cm.exception))
		with self.assertRaisesRegex(SlqbError, 'no diff after its header'):
			slqb_series.quilt_changelog('x.patch', 'Changelog: '
						    'tools/testing/slqb/series/01-core\n')

	def test_export_applies_only_the_diff(self):
		repo = os.path.join(SCRATCH.path, 'export-repo')
		write_tmp('export-repo/patches/0001-core.patch', self.read())
		step = slqb_series.read_plan(SeriesPlanTest.PLAN)[0]
		step.files = []
		applied, messages = [], []

		def fake_run(cmd, timeout, **kwargs):
			with open(cmd[cmd.index('-i') + 1], encoding='utf-8') as f:
				applied.append(f.read())
			return mock.Mock(returncode=0, stdout='patching file mm/Kconfig\n')

		def fake_git(git_dir, *args, env=None):
			if args[0] == 'commit':
				messages.append(args[args.index('-m') + 1])
			return ' M mm/Kconfig\n' if args[0] == 'status' else ''
		with mock.patch.object(slqb_series, 'run', fake_run), \
		     mock.patch.object(slqb_series, 'git', fake_git):
			slqb_series.commit_step('git-dir', repo, step, '2026-01-01T00:00:00+00:00')
		self.assertEqual(applied, [slqb_series.split_quilt_patch(self.read())[1]])
		self.assertNotIn('Changelog:', applied[0])
		self.assertEqual(messages, ['mm: add the SLQB slab allocator\n\n' + step.body])


class QuiltHeaderCrossCheckTest(unittest.TestCase):
	"""Every patch of patches/series names its changelog in
	tools/testing/slqb/series/, which carries it (fails, saying which
	patch, while a patch header still holds its own changelog)."""

	def test_every_patch_names_its_plan_file(self):
		patches = slqb_tree.read_series(REPO)
		self.assertTrue(patches, 'patches/series lists no patch')
		problems = []
		for patch in patches:
			with open(patch.path, encoding='utf-8') as f:
				text = f.read()
			try:
				plan = slqb_series.quilt_changelog(patch.name, text)
			except SlqbError as e:
				problems.append(str(e))
				continue
			path = os.path.join(REPO, plan)
			if not os.path.isfile(path):
				problems.append(f'patches/{patch.name}: {plan} does not exist')
				continue
			with open(path, encoding='utf-8') as f:
				step = slqb_series.parse_step(os.path.basename(plan), f.read())
			if patch.name not in step.quilt:
				problems.append(f'patches/{patch.name}: {plan} has no "Quilt: '
						f'{patch.name}" line')
		if problems:
			self.fail('\n'.join(problems))


if __name__ == '__main__':
	unittest.main()
