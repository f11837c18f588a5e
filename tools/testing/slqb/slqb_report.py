# SPDX-License-Identifier: GPL-2.0
"""Reading a guest's console: bad kernel reports, the verdict, KTAP, and
the judgments made from them (which reports a boot may show).

Everything here works on a list of console lines and has no side effects,
so that `slqb test` can check it on made-up logs.
"""

import dataclasses
import re
from typing import Callable, Collection, List, Optional, Sequence, Tuple

from slqb_guest import STEP_FAILED_RE, VERDICT_RE
from slqb_util import quote_lines

PRINTK_PREFIX = re.compile(r'^\[\s*\d+\.\d+\] ?(?:\[\s*[CT]\d+\] ?)?')

# (label, pattern): the first that matches a line names it, so the more
# specific patterns come first.
BAD_PATTERNS: List[Tuple[str, re.Pattern]] = [(label, re.compile(rx)) for label, rx in [
	('Kernel panic', r'Kernel panic'),
	('KASAN report', r'BUG: KASAN'),
	('KFENCE report', r'BUG: KFENCE'),
	('KCSAN report', r'BUG: KCSAN: '),
	('KMSAN report', r'BUG: KMSAN: '),
	('UBSAN report', r'\bUBSAN: '),
	('kmemleak report', r'kmemleak: \d+ new suspected memory leaks'),
	('kernel BUG', r'kernel BUG at'),
	('lockdep: circular locking', r'possible circular locking'),
	('lockdep: inconsistent lock state', r'inconsistent lock state'),
	('lockdep: recursive locking', r'possible recursive locking'),
	('lockdep', r'INFO: lockdep'),
	('suspicious RCU usage', r'suspicious RCU usage'),
	('DEBUG_LOCKS_WARN_ON', r'DEBUG_LOCKS_WARN_ON'),
	('RCU stall', r'rcu.*detected stalls'),
	('slab error report', r'\bBUG [\w.:-]+ \((?:Not t|T)ainted'),
	('general protection fault', r'general protection fault'),
	('Unable to handle', r'Unable to handle'),
	('Oops', r'\bOops\b'),
	('OOM kill', r'invoked oom-killer|Out of memory: Kill'),
	('BUG:', r'\bBUG:'),
	('WARNING:', r'\bWARNING:'),
]]

# stress-ng's own log lines ('stress-ng: warn:  [1069] pipe: WARNING:
# finished prematurely ...', which a stressor prints when it gives up
# after failed calls, as under fault injection) are user space, not kernel
# reports, and so is the rest of such a line that a kernel line broke in
# two ('  [1069] pipe: WARNING: ...' on the line after the kernel's): a
# pid in brackets, where a printk stamp has a decimal point. A line that
# also holds a printk time stamp has kernel output spliced into it: the
# kernel's part starts at the stamp, and only that part is read.
USER_SPACE_LINE = re.compile(r'^(?:stress-ng: (?:info|warn|fail|error|metrc|debug): |'
			     r'\s*\[\d+\] [\w.-]+: )')
PRINTK_STAMP_ANYWHERE = re.compile(r'\[\s*\d+\.\d+\]')

KTAP_RESULT_RE = re.compile(r'^(ok|not ok) (\d+)(?: (.*?))?(?: # (SKIP|TODO)\b ?(.*))?$')


def strip_printk(line: str) -> str:
	"""Removes the '[    1.234567] ' printk time stamp."""
	return PRINTK_PREFIX.sub('', line, count=1)


def excerpt(lines: Sequence[str], index: int, before: int = 2,
	    after: int = 10) -> str:
	"""Quoted lines around lines[index], the line itself marked with '>'."""
	start, end = max(0, index - before), min(len(lines), index + after + 1)
	out = []
	for i in range(start, end):
		out.append(('  > ' if i == index else '    ') + lines[i].rstrip())
	return '\n'.join(out)


# ---------------------------------------------------------------- reports

@dataclasses.dataclass
class Finding:
	"""A bad kernel report: its label and the line it starts on."""
	label: str
	index: int


def classify(line: str) -> Optional[str]:
	"""The label of the first bad pattern that matches line, if any (none
	on a line of stress-ng's own, and only the kernel's part of one with
	kernel output spliced in, see USER_SPACE_LINE)."""
	if USER_SPACE_LINE.match(line):
		stamp = PRINTK_STAMP_ANYWHERE.search(line)
		if not stamp:
			return None
		line = line[stamp.start():]
	for label, pattern in BAD_PATTERNS:
		if pattern.search(line):
			return label
	return None


def find_bad_reports(lines: Sequence[str]) -> List[Finding]:
	"""The first line of each kind of bad report, in console order."""
	seen = {}
	for index, line in enumerate(lines):
		label = classify(line)
		if label and label not in seen:
			seen[label] = Finding(label, index)
	return sorted(seen.values(), key=lambda f: f.index)


def describe_finding(lines: Sequence[str], finding: Finding, log_path: str) -> str:
	"""One paragraph quoting a bad report with context."""
	return (f'the kernel reported "{finding.label}" (console line '
		f'{finding.index + 1}):\n{excerpt(lines, finding.index)}\n'
		f'Full console log: {log_path}')


# ---------------------------------------------------------------- verdict

def guest_verdict(lines: Sequence[str]) -> Tuple[Optional[str], str, int]:
	"""('PASS'|'FAIL'|None, detail, line index) from the guest's marker."""
	for index in range(len(lines) - 1, -1, -1):
		m = VERDICT_RE.search(lines[index])
		if m:
			return m.group(1), m.group(2).strip(), index
	return None, '', -1


def describe_guest_failure(lines: Sequence[str], detail: str, log_path: str) -> str:
	"""One paragraph on the steps the guest init reported as failed."""
	failed = [i for i, l in enumerate(lines) if STEP_FAILED_RE.search(l)]
	where = excerpt(lines, failed[0], before=10, after=0) if failed else ''
	return (f'the guest reported FAIL: {detail or "(no reason given)"}\n'
		f'{where}\nFull console log: {log_path}').replace('\n\n', '\n')


# ---------------------------------------------------------------- KTAP

@dataclasses.dataclass
class KtapResult:
	"""An `ok`/`not ok` line: a suite, a test case or a parameter."""
	name: str
	ok: bool
	skipped: bool
	depth: int
	index: int
	children: List['KtapResult'] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class KtapReport:
	"""What the console said about KUnit."""
	seen: bool = False
	plan: Optional[int] = None
	suites: List[KtapResult] = dataclasses.field(default_factory=list)
	incomplete: List[str] = dataclasses.field(default_factory=list)

	def failures(self, excused: Collection[str] = ()) -> List[KtapResult]:
		"""Every `not ok` result, deepest first within a suite, but the
		cases named in excused ('suite.case') and a suite that failed for
		those alone."""
		found = []
		for suite in self.suites:
			mine: List[KtapResult] = []
			seen_excused = False

			def walk(result: KtapResult, suite: KtapResult = suite) -> None:
				nonlocal seen_excused
				for child in result.children:
					walk(child)
				if result.ok or result is suite:
					return
				if f'{suite.name}.{result.name}' in excused:
					seen_excused = True
				else:
					mine.append(result)
			walk(suite)
			if not suite.ok and (mine or not seen_excused):
				mine.append(suite)
			found.extend(mine)
		return found

	def count(self) -> Tuple[int, int, int]:
		"""(passed, failed, skipped) test cases over all suites."""
		cases = [c for s in self.suites for c in (s.children or [s])]
		passed = sum(1 for c in cases if c.ok and not c.skipped)
		skipped = sum(1 for c in cases if c.skipped)
		return passed, len(cases) - passed - skipped, skipped

	def clean(self, excused: Collection[str] = ()) -> bool:
		"""Results seen, at least one suite, nothing failed (but what is
		excused, see failures()) or missing."""
		return self.seen and bool(self.suites) and \
			not self.failures(excused) and not self.incomplete

	def summary(self) -> List[str]:
		"""Plain-text report lines: one per suite plus a total."""
		if not self.seen:
			return ['KUnit: no KTAP output on the console']
		passed, failed, skipped = self.count()
		out = [f'KUnit: {len(self.suites)} suites: {passed} passed, '
		       f'{failed} failed, {skipped} skipped']
		for suite in self.suites:
			status = 'ok    ' if suite.ok else 'NOT OK'
			bad = [c.name for c in suite.children if not c.ok]
			note = f' (failed: {", ".join(bad)})' if bad else ''
			out.append(f'  {status} {suite.name}: {len(suite.children)} tests{note}')
		out.extend('  INCOMPLETE ' + msg for msg in self.incomplete)
		return out


def parse_ktap(lines: Sequence[str]) -> KtapReport:
	"""Parses the KTAP that built-in KUnit prints on the console.

	In 6.1 suites are announced with '    # Subtest: name', their test
	cases report at 4 spaces, parameters at 8, and the suite's own result
	comes at column 0 after its cases. A result at depth d takes the
	results collected at depth d + 1 as its children.

	The suites of modules loaded after boot come after the built-in plan
	with no plan of their own, lines may lack the printk time stamp, and
	each result keeps its console line: why this is not the kernel's
	tools/testing/kunit/kunit_parser.py (README.rst, Layout).
	"""
	report = KtapReport()
	pending = {}
	names = {}
	for index, raw in enumerate(lines):
		text = strip_printk(raw.rstrip('\r\n'))
		body = text.lstrip(' ')
		depth = (len(text) - len(body)) // 4
		if body.startswith(('KTAP version', 'TAP version')):
			report.seen = True
			continue
		if not report.seen:
			continue
		plan = re.fullmatch(r'1\.\.(\d+)', body)
		if plan and depth == 0 and report.plan is None:
			report.plan = int(plan.group(1))
		elif body.startswith('# Subtest: '):
			names[depth] = body[len('# Subtest: '):].strip()
		else:
			m = KTAP_RESULT_RE.match(body)
			if m:
				result = KtapResult(name=m.group(3) or f'#{m.group(2)}',
						    ok=m.group(1) == 'ok',
						    skipped=m.group(4) == 'SKIP',
						    depth=depth, index=index,
						    children=pending.pop(depth + 1, []))
				names.pop(depth + 1, None)
				pending.setdefault(depth, []).append(result)
	report.suites = pending.pop(0, [])
	for depth in sorted(set(pending) | set(names)):
		if depth > 0:
			name = names.get(depth, '?')
			report.incomplete.append(f'"{name}" started but never reported '
						 'its result (crash or cut off?)')
	if report.plan is not None and len(report.suites) < report.plan:
		report.incomplete.append(f'{report.plan - len(report.suites)} of '
					 f'{report.plan} planned suites never reported')
	return report


def describe_ktap_failures(lines: Sequence[str], report: KtapReport,
			   log_path: str) -> str:
	"""One paragraph on KUnit failures, quoting the first failing test."""
	failures = report.failures()
	parts = []
	if failures:
		names = ', '.join(f.name for f in failures[:8])
		parts.append(f'KUnit reported {len(failures)} failure(s): {names}\n'
			     f'{excerpt(lines, failures[0].index, before=10, after=0)}')
	if report.incomplete:
		parts.append('KUnit output is incomplete:\n' +
			     quote_lines(report.incomplete))
	return '\n'.join(parts) + f'\nFull console log: {log_path}'


# ---------------------------------------------------------------- judgments

# allowed(label, index, line): whether a bad report on the console is one
# that the boot provokes on purpose.
Allowed = Callable[[str, int, str], bool]


def unexpected_reports(lines: Sequence[str], allowed: Allowed) -> List[str]:
	"""Console lines with a bad report that allowed(label, index, line) refuses."""
	bad = []
	for index, line in enumerate(lines):
		label = classify(line)
		if label and not allowed(label, index, line):
			bad.append(line)
	return bad


# KUnit suites that provoke reports on purpose: suite name -> the label of
# the reports it may show (see BAD_PATTERNS).
REPORTING_SUITES = {'kfence': 'KFENCE report', 'kasan': 'KASAN report',
		    'kmsan': 'KMSAN report'}


def ktap_suite(ktap: KtapReport, name: str) -> Optional[KtapResult]:
	"""The result of the KUnit suite called name, if the console has one."""
	return next((s for s in ktap.suites if s.name == name), None)


def suite_reports(lines: Sequence[str], suite: Optional[KtapResult],
		  name: str) -> Allowed:
	"""allowed() for unexpected_reports: the reports of REPORTING_SUITES[name]
	inside that suite's output.

	kfence_test, kasan_test and kmsan_test provoke reports on purpose; one anywhere else
	on the console, before the module loads or after its result, is a bug
	that the tool found in the kernel or the allocator.
	"""
	label_ok = REPORTING_SUITES[name]
	span = range(0)
	if suite is not None:
		starts = [i for i in range(suite.index)
			  if strip_printk(lines[i]).strip() == f'# Subtest: {name}']
		span = range(starts[-1] if starts else suite.index, suite.index + 1)
	return lambda label, index, line: label == label_ok and index in span

