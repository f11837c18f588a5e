# SPDX-License-Identifier: GPL-2.0
"""`slqb test`: named checks in groups, each printed as PASS or FAIL.

A check group is a function that takes a Context and runs checks with
ctx.check(name, func). Register one with the @check_group decorator in a
module listed in GROUP_MODULES: slqb_group_<group>.py for the core's, or
a feature package's group.py (slqb_<group>/group.py):

	@check_group('slqbinfo')
	def slqbinfo_checks(ctx):
		ctx.expect(['slqbinfo: -h works'])
		ctx.check('slqbinfo: -h works', lambda: ...)

func passes by returning (its value is handed back by ctx.check) and fails
by raising CheckFailed('reason') (or SlqbError). Names given to ctx.expect()
that never get a result count as failures when the group ends, and so does
a group that crashes.
"""

import dataclasses
import fnmatch
import importlib
import os
import shutil
import tempfile
import traceback
from typing import Any, Callable, Dict, List, Optional, Sequence, Set

from slqb_util import HARNESS_DIR, Paths, SlqbError, quote_lines

# Modules whose @check_group functions `slqb test` runs, in this order.
# slqb_group_NAME.py or the package slqb_NAME's group.py holds the group
# NAME (or, for arch, arch-<name>). One that is not in the folder is left
# out: the series adds the bench (slqb_bench.group) in a patch after the
# rest of the harness.
GROUP_MODULES = ('slqb_group_unit', 'slqb_group_harness', 'slqb_group_slqbinfo',
		 'slqb_group_kernels', 'slqb_bench.group', 'slqb_series.group',
		 'slqb_group_arch', 'slqb_group_peers', 'slqb_group_sanitizers')

GROUPS: Dict[str, Callable[['Context'], None]] = {}
# Groups that run only when named (--group, or --arch for arch-*), not in
# a plain `slqb test`.
ON_REQUEST: Set[str] = set()


class CheckFailed(Exception):
	"""Raised by a check function: the check failed, for this reason."""


def check_group(name: str, on_request: bool = False) -> Callable:
	"""Decorator registering a check group under name; with on_request,
	the group runs only when it is asked for by name."""
	def register(func: Callable[['Context'], None]) -> Callable:
		GROUPS[name] = func
		if on_request:
			ON_REQUEST.add(name)
		return func
	return register


@dataclasses.dataclass
class Context:
	"""What a check group gets: paths, options, a scratch dir, results."""
	paths: Paths
	verbose: bool
	scratch: str
	passed: int = 0
	failed: int = 0
	recorded: set = dataclasses.field(default_factory=set)
	expected: List[str] = dataclasses.field(default_factory=list)
	# Facts groups share, worked out once (e.g. whether the tree has SLQB).
	facts: Dict[str, Any] = dataclasses.field(default_factory=dict)
	# `slqb test --boot PATTERN`: only the boots whose names match it (a
	# shell-style pattern) run, and only their kernels are built.
	boots: Optional[str] = None
	matched: Set[str] = dataclasses.field(default_factory=set)

	def wants_boot(self, name: str) -> bool:
		"""Whether the boot called name is to run (see boots)."""
		if self.boots is None:
			return True
		if fnmatch.fnmatchcase(name, self.boots):
			self.matched.add(name)
			return True
		return False

	def record(self, name: str, ok: bool, reason: str = '',
		   details: str = '') -> None:
		"""Prints and counts one result."""
		self.recorded.add(name)
		if ok:
			self.passed += 1
			print(f'PASS: {name}', flush=True)
		else:
			self.failed += 1
			first, _, rest = reason.strip().partition('\n')
			print(f'FAIL: {name} - {first}', flush=True)
			more = '\n'.join(x for x in (rest, details) if x.strip())
			if more:
				print(quote_lines(more.splitlines()), flush=True)

	def check(self, name: str, func: Callable[[], Any]) -> Any:
		"""Runs func as check `name`; returns its value (None on failure)."""
		try:
			value = func()
		except CheckFailed as e:
			self.record(name, False, str(e))
			return None
		except SlqbError as e:
			self.record(name, False, str(e))
			return None
		except Exception as e:	# a bug in the check: report, go on
			self.record(name, False, f'crashed: {type(e).__name__}: {e}',
				    traceback.format_exc())
			return None
		self.record(name, True)
		return value

	def expect(self, names: Sequence[str]) -> None:
		"""Declares checks that must report; missing ones fail later."""
		self.expected.extend(names)

	def fail_missing(self, why: str) -> None:
		"""Fails every expected check that has not reported."""
		for name in self.expected:
			if name not in self.recorded:
				self.record(name, False, why)
		self.expected = []

	def skip(self, name: str, why: str) -> None:
		"""A check that does not apply here (not counted, not missing)."""
		self.recorded.add(name)
		print(f'SKIP: {name} - {why}', flush=True)


def load_groups() -> Dict[str, Callable[[Context], None]]:
	"""Imports GROUP_MODULES so their groups register; returns them in
	GROUP_MODULES order (whoever imported a group module first)."""
	for module in GROUP_MODULES:
		path = os.path.join(HARNESS_DIR, *module.split('.')) + '.py'
		if os.path.isfile(path):
			importlib.import_module(module)

	def rank(item) -> int:
		module = item[1].__module__
		return GROUP_MODULES.index(module) if module in GROUP_MODULES \
			else len(GROUP_MODULES)
	return dict(sorted(GROUPS.items(), key=rank))


def run_group(ctx: Context, name: str, func: Callable[[Context], None]) -> None:
	"""Runs one group; a crash and any unreported expected check fail."""
	print(f'--- group: {name}', flush=True)
	try:
		func(ctx)
	except Exception as e:	# SlqbError included: the group could not go on
		detail = '' if isinstance(e, SlqbError) else traceback.format_exc()
		ctx.record(f'{name}: group ran to the end', False,
			   f'{type(e).__name__}: {e}', detail)
	ctx.fail_missing(f'no result (group {name} stopped early)')


def select_groups(only: Sequence[str]) -> Dict[str, Callable[[Context], None]]:
	"""The groups to run: those named in only (refusing unknown ones), or
	without names every group but those that run on request."""
	groups = load_groups()
	unknown = sorted(set(only) - set(groups))
	if unknown:
		raise SlqbError(f'unknown check group(s): {", ".join(unknown)}; '
				f'groups: {", ".join(groups)}', exit_code=2)
	return {name: func for name, func in groups.items()
		if name in only or (not only and name not in ON_REQUEST)}


def run_all(paths: Paths, verbose: bool,
	    groups: Dict[str, Callable[[Context], None]],
	    boots: Optional[str] = None) -> int:
	"""Runs the groups and prints 'N passed, M failed'; 0 if none failed.
	With boots, only the boots whose names match that pattern run."""
	scratch = tempfile.mkdtemp(prefix='slqb-test.')
	ctx = Context(paths=paths, verbose=verbose, scratch=scratch, boots=boots)
	try:
		for name, func in groups.items():
			run_group(ctx, name, func)
	finally:
		shutil.rmtree(scratch, ignore_errors=True)
	if boots is not None and not ctx.matched:
		ctx.record(f'a boot matches --boot {boots}', False,
			   f'no boot of the groups run ({", ".join(groups)}) is '
			   f'called {boots!r}; --group picks the groups (the '
			   'sanitizer and arch boots run on request only)')
	if ctx.passed + ctx.failed == 0:
		ctx.record('at least one check ran', False, 'nothing was checked')
	print(f'{ctx.passed} passed, {ctx.failed} failed', flush=True)
	return 0 if ctx.failed == 0 else 1
