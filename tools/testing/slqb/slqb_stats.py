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
slqb_bench).
"""

import os
import re
from typing import List, Tuple

from slqb_util import REPO_ROOT, SlqbError, read_text

STATS_H = 'include/linux/slqb_stats.h'
# One entry, alone on its line.
ITEM_RE = re.compile(r'^SLQB_STAT\(\s*([A-Z0-9_]+)\s*,\s*([a-z0-9_]+)\s*\)\s*$')
# How tools/vm/slqbinfo.c reads the list, relative to itself.
SLQBINFO_INCLUDE = '#include "../../include/linux/slqb_stats.h"'
# A name written out by hand: "[S_ITEM] = "name"" or a bare "name" string
# in its stat_name[] table.
SLQBINFO_TABLE_RE = re.compile(r'stat_name\[[A-Z_]*\]\s*=\s*\{(.*?)\};', re.S)


def parse_stats_list(text: str) -> List[Tuple[str, str]]:
	"""(ITEM, name) of each SLQB_STAT(ITEM, name) line, in order. Outside
	comments and #define lines, every SLQB_STAT( must be such a line, so
	that nothing the compiler takes is passed over here."""
	code = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'),
		      text, flags=re.S)
	items = []
	for number, line in enumerate(code.splitlines(), 1):
		if 'SLQB_STAT(' not in line or line.lstrip().startswith('#'):
			continue
		m = ITEM_RE.match(line.strip())
		if not m:
			raise SlqbError(f'line {number}: {line.strip()!r} is not '
					'"SLQB_STAT(ITEM, name)" alone on its line')
		items.append(m.groups())
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


def slqbinfo_reads_list(text: str) -> None:
	"""tools/vm/slqbinfo.c makes its stat enum and its stat_name[] table
	from the kernel's list, and writes no name out itself."""
	if text.count(SLQBINFO_INCLUDE) < 2:
		raise SlqbError(f'does not {SLQBINFO_INCLUDE} for both its enum '
				'and its stat_name[] table')
	m = SLQBINFO_TABLE_RE.search(text)
	if not m:
		raise SlqbError('no stat_name[...] = { ... }; table')
	if '"' in m.group(1).replace(SLQBINFO_INCLUDE, ''):
		raise SlqbError('its stat_name[] table spells out names of its own')
	if SLQBINFO_INCLUDE not in m.group(1):
		raise SlqbError('its stat_name[] table is not made from the list')


def shell_words(text: str, variable: str) -> List[str]:
	"""The words of a shell assignment VARIABLE="..." (it may span lines)."""
	m = re.search(rf'^{re.escape(variable)}="([^"]*)"', text, re.M)
	if not m:
		raise SlqbError(f'no {variable}="..." assignment')
	return m.group(1).split()
