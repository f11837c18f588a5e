# SPDX-License-Identifier: GPL-2.0
"""SLQB's statistics: their names, read from the kernel's one list.

include/linux/slqb_stats.h lists them once, one line each:

	/* objects allocated */
	SLQB_STAT(ALLOC, alloc)
	...

the enum item, then the name of its file in /sys/kernel/slab/<cache>/;
the kernel defines SLQB_STAT() before it includes the list. Whoever else
needs the names reads them from there (slqbinfo_test.py) or is checked
against them by the unit tests (tools/vm/slqbinfo.c, guest/init.sh,
slqb_bench.py).
"""

import os
import re
from typing import List, Tuple

from slqb_util import REPO_ROOT, SlqbError, read_text

STATS_H = 'include/linux/slqb_stats.h'
# One entry: at the start of its line, so that comments do not count.
ITEM_RE = re.compile(r'^SLQB_STAT\(\s*([A-Z0-9_]+)\s*,\s*([a-z0-9_]+)\s*\)\s*$')
# slqbinfo.c's table: static const char * const stat_name[NR_STATS] = {
SLQBINFO_TABLE_RE = re.compile(r'stat_name\[[A-Z_]*\]\s*=\s*\{(.*?)\};', re.S)
SLQBINFO_ITEM_RE = re.compile(r'\[(S_[A-Z0-9_]+)\]\s*=\s*"([a-z0-9_]+)"')


def parse_stats_list(text: str) -> List[Tuple[str, str]]:
	"""(ITEM, name) of each SLQB_STAT(ITEM, name) line, in order."""
	items = [m.groups() for m in map(ITEM_RE.match, text.splitlines()) if m]
	if not items:
		raise SlqbError('lists no SLQB_STAT(ITEM, name) line')
	return items


def kernel_stats(repo: str = REPO_ROOT) -> List[Tuple[str, str]]:
	"""(ITEM, name) of every statistic, in the kernel list's order."""
	path = os.path.join(repo, STATS_H)
	if not os.path.isfile(path):
		raise SlqbError(f'{STATS_H} is missing in {repo}: it holds the one '
				'list of the SLQB statistics (SLQB_STAT(ITEM, name))')
	try:
		return parse_stats_list(read_text(path))
	except SlqbError as e:
		raise SlqbError(f'{STATS_H}: {e}') from None


def stat_names(repo: str = REPO_ROOT) -> List[str]:
	"""The sysfs file names of the statistics, in the kernel list's order."""
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
