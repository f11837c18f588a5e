# SPDX-License-Identifier: GPL-2.0
"""SLQB's statistics: their names, read from the kernel's one list.

mm/slqb.h lists them once, as an X-macro, one item per line:

	#define SLQB_STATS(X)						\\
		X(ALLOC, alloc)		/* objects allocated */		\\
		...
		X(TRIM_WORST_NS, trim_worst_ns)	/* longest trim pass, ns */

the enum item, then the name of its file in /sys/kernel/slab/<cache>/.
The macro runs from its #define line to the first line that does not end
in a backslash. Whoever else needs the names reads them from there
(slqbinfo_test.py) or is checked against them by the unit tests
(tools/vm/slqbinfo.c, guest/init.sh, slqb_bench.py).
"""

import os
import re
from typing import List, Tuple

from slqb_util import REPO_ROOT, SlqbError, read_text

SLQB_H = 'mm/slqb.h'
MACRO_RE = re.compile(r'^\s*#\s*define\s+SLQB_STATS\(X\)')
ITEM_RE = re.compile(r'X\(([A-Z0-9_]+),\s*([a-z0-9_]+)\)')
# slqbinfo.c's table: static const char * const stat_name[NR_STATS] = {
SLQBINFO_TABLE_RE = re.compile(r'stat_name\[[A-Z_]*\]\s*=\s*\{(.*?)\};', re.S)
SLQBINFO_ITEM_RE = re.compile(r'\[(S_[A-Z0-9_]+)\]\s*=\s*"([a-z0-9_]+)"')


def parse_stats_macro(text: str) -> List[Tuple[str, str]]:
	"""(ITEM, name) of each X(ITEM, name) of the SLQB_STATS(X) macro."""
	lines = text.splitlines()
	start = next((i for i, line in enumerate(lines) if MACRO_RE.match(line)), None)
	if start is None:
		raise SlqbError('no "#define SLQB_STATS(X)" line')
	items = []
	for line in lines[start:]:
		items.extend(ITEM_RE.findall(line))
		if not line.rstrip().endswith('\\'):
			break
	if not items:
		raise SlqbError('the SLQB_STATS(X) macro lists no X(ITEM, name)')
	return items


def kernel_stats(repo: str = REPO_ROOT) -> List[Tuple[str, str]]:
	"""(ITEM, name) of every statistic, in mm/slqb.h's order."""
	path = os.path.join(repo, SLQB_H)
	if not os.path.isfile(path):
		raise SlqbError(f'{SLQB_H} is missing in {repo}: it holds the one '
				'list of the SLQB statistics (#define SLQB_STATS(X))')
	try:
		return parse_stats_macro(read_text(path))
	except SlqbError as e:
		raise SlqbError(f'{SLQB_H}: {e}') from None


def stat_names(repo: str = REPO_ROOT) -> List[str]:
	"""The sysfs file names of the statistics, in mm/slqb.h's order."""
	return [name for _, name in kernel_stats(repo)]


def slqbinfo_stat_names(text: str) -> List[Tuple[str, str]]:
	"""(S_ITEM, name) of the [S_ITEM] = "name" initializers of
	tools/vm/slqbinfo.c's stat_name[] table, in their order."""
	m = SLQBINFO_TABLE_RE.search(text)
	if not m:
		raise SlqbError('no stat_name[...] = { ... }; table')
	return SLQBINFO_ITEM_RE.findall(m.group(1))


def shell_words(text: str, variable: str) -> List[str]:
	"""The words of a shell assignment VARIABLE="..." (it may span lines)."""
	m = re.search(rf'^{re.escape(variable)}="([^"]*)"', text, re.M)
	if not m:
		raise SlqbError(f'no {variable}="..." assignment')
	return m.group(1).split()
