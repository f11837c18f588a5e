# SPDX-License-Identifier: GPL-2.0
"""Results files of `slqb bench`: one reStructuredText file per run.

A recorded run lives in tools/testing/slqb/results/<run id>.rst, the run
id being the time the run began (YYYYmmdd-HHMMSS, as its folder under
<cache>/bench/ is named). `slqb bench` writes the file as result.rst in
its run folder; to record the run, copy it into results/ under its run id
and say in a short paragraph what the run showed. `slqb series` puts the
newest file, by run id, into the cover letter. The layout, readable as
plain text:

	.. SPDX-License-Identifier: GPL-2.0

	slqb bench run 20261206-021243
	==============================

	:Command: tools/testing/slqb/slqb.py bench --profile
	:Date: 2026-12-06 02:29 UTC
	:Tree: c047b2c
	:Kernels: slqb=slqb, slub=slub, slab=slab
	:Duration: 17m40s

	What it showed
	--------------

	A paragraph (`slqb bench` leaves this section out).

	Summary
	-------

	::

	    the run's summary.txt, without the names of its console logs

Command, Date, Tree (git describe of the repository) and Kernels (as
--kernel takes them) are required; Duration is not. The summary is the
header of the run (base, shapes, host, the kernels' common config, the
notes on reading the table), the table of geometric means, system
workloads and memory, and the list of rows where SLQB is furthest behind.
"""

import dataclasses
import os
import re
from typing import Dict, List, Optional, Sequence, Tuple

from slqb_util import HARNESS_DIR, SlqbError, read_text

RESULTS_DIR = os.path.join(HARNESS_DIR, 'results')
RUN_ID_RE = re.compile(r'^\d{8}-\d{6}$')
TITLE_PREFIX = 'slqb bench run '
FIELDS = ('Command', 'Date', 'Tree', 'Kernels', 'Duration')
REQUIRED = ('Command', 'Date', 'Tree', 'Kernels')
SHOWED_HEAD = 'What it showed'
SUMMARY_HEAD = 'Summary'
# The summary line that names the console logs: local files, not kept.
LOGS_PREFIX = 'console logs: '
BEHIND_RE = re.compile(r'^\S.*: furthest behind the best of ')


@dataclasses.dataclass
class BenchResult:
	"""One run of `slqb bench`, as its results file has it."""
	run_id: str
	command: str
	date: str
	tree: str
	kernels: str
	summary: List[str]
	duration: str = ''
	showed: str = ''


@dataclasses.dataclass
class SummaryParts:
	"""A run's summary cut at its blank lines: the header, the table
	(column heads, rule, rows), the furthest-behind list and the rest
	(problems, if the run had any)."""
	head: List[str]
	table: List[str]
	behind: List[str]
	rest: List[str]


def heading(title: str, mark: str) -> List[str]:
	"""A reStructuredText section title."""
	return [title, mark * len(title)]


def result_text(result: BenchResult) -> str:
	"""The text of a results file."""
	if not RUN_ID_RE.match(result.run_id):
		raise SlqbError(f'run id {result.run_id!r} is not YYYYmmdd-HHMMSS')
	values = {'Command': result.command, 'Date': result.date,
		  'Tree': result.tree, 'Kernels': result.kernels,
		  'Duration': result.duration}
	lines = ['.. SPDX-License-Identifier: GPL-2.0', '']
	lines += heading(TITLE_PREFIX + result.run_id, '=') + ['']
	lines += [f':{key}: {values[key]}' for key in FIELDS if values[key]]
	if result.showed.strip():
		lines += [''] + heading(SHOWED_HEAD, '-') + ['']
		lines += result.showed.strip().splitlines()
	lines += [''] + heading(SUMMARY_HEAD, '-') + ['', '::', '']
	lines += [('    ' + l).rstrip() for l in result.summary]
	return '\n'.join(l.rstrip() for l in lines) + '\n'


def summary_lines(summary: str) -> List[str]:
	"""summary.txt as a results file keeps it: without the line naming
	the console logs (files of the local cache) and trailing blanks."""
	lines = [l.rstrip() for l in summary.splitlines()
		 if not l.startswith(LOGS_PREFIX)]
	while lines and not lines[-1]:
		lines.pop()
	return lines


def section_bounds(lines: Sequence[str]) -> Dict[str, int]:
	"""Where each '-'-underlined section title is: title -> line index."""
	return {lines[i]: i for i in range(len(lines) - 1)
		if lines[i].strip() and re.fullmatch(r'-{3,}', lines[i + 1]) and
		len(lines[i + 1]) >= len(lines[i])}


def parse_result(text: str, where: str) -> BenchResult:
	"""Reads a results file; where names it in errors."""
	def error(what: str) -> SlqbError:
		return SlqbError(f'{where}: {what} (the top of the harness\'s '
				 'slqb_results.py gives the format)')

	lines = [l.rstrip() for l in text.splitlines()]
	title = next((i for i, l in enumerate(lines) if l.startswith(TITLE_PREFIX)),
		     None)
	if title is None or title + 1 >= len(lines) or \
	   not re.fullmatch(r'={3,}', lines[title + 1]):
		raise error(f'no title "{TITLE_PREFIX}<run id>" underlined with "="')
	run_id = lines[title][len(TITLE_PREFIX):].strip()
	if not RUN_ID_RE.match(run_id):
		raise error(f'run id {run_id!r} is not YYYYmmdd-HHMMSS')
	sections = section_bounds(lines)
	if SUMMARY_HEAD not in sections:
		raise error(f'no "{SUMMARY_HEAD}" section')
	first = min(sections.values())
	fields: Dict[str, str] = {}
	key = ''
	for line in lines[title + 2:first]:
		m = re.match(r'^:(\w+): ?(.*)$', line)
		if m:
			key = m.group(1)
			if key not in FIELDS:
				raise error(f'unknown field :{key}: (expected '
					    f'{", ".join(FIELDS)})')
			fields[key] = m.group(2).strip()
		elif line.startswith((' ', '\t')) and line.strip() and key:
			fields[key] += ' ' + line.strip()
		elif line.strip():
			raise error(f'{line!r} is not a field (:Name: value)')
		else:
			key = ''
	missing = [k for k in REQUIRED if not fields.get(k)]
	if missing:
		raise error(f'no :{missing[0]}: field')
	showed = ''
	if SHOWED_HEAD in sections:
		start = sections[SHOWED_HEAD] + 2
		end = min([i for i in sections.values() if i > start] + [len(lines)])
		showed = '\n'.join(lines[start:end]).strip()
	body = lines[sections[SUMMARY_HEAD] + 2:]
	while body and not body[0]:
		body.pop(0)
	if not body or body[0] != '::':
		raise error(f'the "{SUMMARY_HEAD}" section is not one literal block '
			    '("::", then the summary indented)')
	summary = []
	for line in body[1:]:
		if line and not line.startswith('    '):
			break
		summary.append(line[4:])
	while summary and not summary[0]:
		summary.pop(0)
	while summary and not summary[-1]:
		summary.pop()
	if not summary:
		raise error(f'the "{SUMMARY_HEAD}" block is empty')
	return BenchResult(run_id=run_id, command=fields['Command'],
			   date=fields['Date'], tree=fields['Tree'],
			   kernels=fields['Kernels'], summary=summary,
			   duration=fields.get('Duration', ''), showed=showed)


def read_result(path: str) -> BenchResult:
	"""Reads a results file, whose name, when it is a run id, must be
	that of the run it holds."""
	where = os.path.relpath(path)
	result = parse_result(read_text(path), where)
	name = os.path.basename(path)[:-len('.rst')] if path.endswith('.rst') else ''
	if RUN_ID_RE.match(name) and name != result.run_id:
		raise SlqbError(f'{where} holds run {result.run_id}: name it '
				f'{result.run_id}.rst')
	return result


def result_files(results_dir: str = RESULTS_DIR) -> List[str]:
	"""The results files of results_dir, oldest run first."""
	if not os.path.isdir(results_dir):
		return []
	names = sorted(n for n in os.listdir(results_dir)
		       if n.endswith('.rst') and RUN_ID_RE.match(n[:-len('.rst')]))
	return [os.path.join(results_dir, n) for n in names]


def latest_result(results_dir: str = RESULTS_DIR) -> Optional[str]:
	"""The results file of the newest run, or None."""
	files = result_files(results_dir)
	return files[-1] if files else None


def split_summary(summary: Sequence[str]) -> SummaryParts:
	"""Cuts a summary into its header, table, furthest-behind list and
	the rest; a part that is not there is empty."""
	blocks: List[List[str]] = [[]]
	for line in summary:
		if line.strip():
			blocks[-1].append(line)
		elif blocks[-1]:
			blocks.append([])
	blocks = [b for b in blocks if b]
	parts = SummaryParts([], [], [], [])
	for block in blocks:
		if not parts.head and not parts.table and not block[0].startswith('metric'):
			parts.head = block
		elif not parts.table and block[0].startswith('metric') and \
		     len(block) > 1 and block[1].startswith('---'):
			parts.table = block
		elif BEHIND_RE.match(block[0]) and not parts.behind:
			parts.behind = block
		else:
			parts.rest += ([''] if parts.rest else []) + block
	return parts


def row_metric(row: str) -> str:
	"""The metric of a table row: its first column (columns are two or
	more spaces apart; a metric has single spaces inside)."""
	return re.split(r'\s{2,}', row.strip())[0]


def headline_rows(table: Sequence[str]) -> List[str]:
	"""The column heads, the rule, and the geometric-mean and memory rows
	of a summary table."""
	if len(table) < 2:
		return []
	keep = [r for r in table[2:] if row_metric(r).endswith(' geomean') or
		row_metric(r).startswith('mem ')]
	return list(table[:2]) + keep


def headline(result: BenchResult) -> Tuple[List[str], List[str], List[str]]:
	"""(header, geomean and memory rows, furthest-behind list) of a run,
	for the cover letter; an error when its summary has no such table."""
	parts = split_summary(result.summary)
	rows = headline_rows(parts.table)
	if len(rows) <= 2:
		raise SlqbError(f'run {result.run_id}: its summary has no table with '
				'geomean or memory rows')
	return parts.head, rows, parts.behind
