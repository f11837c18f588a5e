# SPDX-License-Identifier: GPL-2.0
"""`slqb test` group unit: the harness's unit tests, one check per test.

test_slqb_harness.py (the core's) and the test_slqb_*.py of each
feature package (slqb_memhp/, slqb_series/, and slqb_bench/, which the
series adds in a patch of its own) are plain unittest suites: `python3
-m unittest` in this folder finds them all. Here every test_slqb_*.py of the folder and of its packages
runs in-process, first of all groups since they take seconds and need
nothing from the machine, and each test case is reported as `PASS: unit:
Class.test` or `FAIL: ...` with the assertion's message and the
traceback below it.
"""

import glob
import os
import unittest
from typing import List, Optional, Sequence

from slqb_checks import Context, check_group
from slqb_util import HARNESS_DIR

TEST_PREFIX = 'test_slqb_'


def test_modules() -> List[str]:
	"""The unit test modules of the harness's folder and of its packages
	(folders with an __init__.py), by name: 'test_slqb_harness',
	'slqb_memhp.test_slqb_memhp'."""
	names = []
	for path in glob.glob(os.path.join(HARNESS_DIR, TEST_PREFIX + '*.py')) + \
		    glob.glob(os.path.join(HARNESS_DIR, '*', TEST_PREFIX + '*.py')):
		folder = os.path.dirname(path)
		if folder != HARNESS_DIR and \
		   not os.path.isfile(os.path.join(folder, '__init__.py')):
			continue
		module = os.path.relpath(path, HARNESS_DIR)[:-len('.py')]
		names.append(module.replace(os.sep, '.'))
	return sorted(names)


def check_name(test: unittest.TestCase) -> str:
	"""'unit: KtapParserTest.test_nesting', without the test module and
	its package (module-level errors keep the description unittest gives
	them)."""
	name = test.id()
	parts = name.split('.')
	for at, part in enumerate(parts[:-1]):
		if part.startswith(TEST_PREFIX):
			name = '.'.join(parts[at + 1:])
			break
	return f'unit: {name}'


class CheckResult(unittest.TestResult):
	"""A TestResult that records each test as a check of ctx."""

	def __init__(self, ctx: Context) -> None:
		super().__init__()
		self.ctx = ctx

	def addSuccess(self, test: unittest.TestCase) -> None:
		super().addSuccess(test)
		self.ctx.record(check_name(test), True)

	def _fail(self, test: unittest.TestCase, err, what: str) -> None:
		exc_type, exc, _ = err
		reason = f'{what}: {exc_type.__name__}: {exc}' if what == 'crashed' \
			else str(exc) or exc_type.__name__
		self.ctx.record(check_name(test), False, reason,
				self._exc_info_to_string(err, test))

	def addFailure(self, test: unittest.TestCase, err) -> None:
		super().addFailure(test, err)
		self._fail(test, err, 'failed')

	def addError(self, test: unittest.TestCase, err) -> None:
		super().addError(test, err)
		self._fail(test, err, 'crashed')

	def addSubTest(self, test: unittest.TestCase, subtest, err) -> None:
		"""A failing subTest fails its test (unittest then reports no
		success for it); a passing one is part of its test's PASS."""
		super().addSubTest(test, subtest, err)
		if err is not None:
			failed = issubclass(err[0], test.failureException)
			self._fail(subtest, err, 'failed' if failed else 'crashed')

	def addSkip(self, test: unittest.TestCase, reason: str) -> None:
		super().addSkip(test, reason)
		self.ctx.skip(check_name(test), reason)

	def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
		super().addUnexpectedSuccess(test)
		self.ctx.record(check_name(test), False, 'passed, but was expected to fail')

	def addExpectedFailure(self, test: unittest.TestCase, err) -> None:
		super().addExpectedFailure(test, err)
		self.ctx.record(check_name(test), True)


def load_suite(names: Optional[Sequence[str]] = None) -> unittest.TestSuite:
	"""The unit tests of the named modules, by default every one of the
	folder; a module that does not import becomes one failing test
	(unittest's own handling)."""
	return unittest.defaultTestLoader.loadTestsFromNames(
		list(names) if names is not None else test_modules())


@check_group('unit')
def unit_tests(ctx: Context) -> None:
	"""Runs the unit test modules and records each of their tests."""
	result = CheckResult(ctx)
	modules = test_modules()
	load_suite(modules).run(result)
	if result.testsRun == 0:
		ctx.record('unit: the unit tests ran', False,
			   f'{", ".join(modules) or "no test module"}: no tests')
