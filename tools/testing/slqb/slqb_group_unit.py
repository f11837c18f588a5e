# SPDX-License-Identifier: GPL-2.0
"""`slqb test` group unit: the harness's unit tests, one check per test.

test_slqb_harness.py is a plain unittest suite (run it alone with
`python3 -m unittest` in this folder). Here it runs in-process, first of
all groups since it takes seconds and needs nothing from the machine, and
each test case is reported as `PASS: unit: Class.test` or `FAIL: ...`
with the assertion's message and the traceback below it.
"""

import unittest
from slqb_checks import Context, check_group

TEST_MODULE = 'test_slqb_harness'


def check_name(test: unittest.TestCase) -> str:
	"""'unit: KtapParserTest.test_nesting' (module-level errors keep the
	description unittest gives them)."""
	name = test.id()
	if name.startswith(TEST_MODULE + '.'):
		name = name[len(TEST_MODULE) + 1:]
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


def load_suite(name: str = TEST_MODULE) -> unittest.TestSuite:
	"""The unit tests; a module that does not import becomes one failing
	test (unittest's own handling)."""
	return unittest.defaultTestLoader.loadTestsFromName(name)


@check_group('unit')
def unit_tests(ctx: Context) -> None:
	"""Runs test_slqb_harness.py and records each of its tests."""
	result = CheckResult(ctx)
	load_suite().run(result)
	if result.testsRun == 0:
		ctx.record('unit: the unit tests ran', False, f'{TEST_MODULE} has no tests')
