# SPDX-License-Identifier: GPL-2.0
"""`slqb test` group for the user-space tools: slqbinfo against fixtures.

slqbinfo_test.py builds tools/vm/slqbinfo.c, generates fixture trees (with
and without statistics, and broken ones) and prints one PASS/FAIL line per
check; each of those lines becomes a check of `slqb test`.
"""

import os
import re
import subprocess
import sys

from slqb_checks import CheckFailed, Context, check_group
from slqb_util import HARNESS_DIR

SLQBINFO_TEST = os.path.join(HARNESS_DIR, 'slqbinfo_test.py')
LINE_RE = re.compile(r'^(PASS|FAIL): (.*?)(?: - (.*))?$')


@check_group('slqbinfo')
def slqbinfo_checks(ctx: Context) -> None:
	"""Runs slqbinfo's fixture tests and records each of their checks."""
	ctx.expect(['slqbinfo: fixture tests ran'])
	try:
		run = subprocess.run([sys.executable, SLQBINFO_TEST],
				     capture_output=True, text=True, timeout=600)
	except subprocess.TimeoutExpired:
		ctx.record('slqbinfo: fixture tests ran', False,
			   'slqbinfo_test.py ran past 10 minutes')
		return
	results = [m.groups() for m in map(LINE_RE.match, run.stdout.splitlines())
		   if m]

	def ran() -> None:
		if not results:
			raise CheckFailed('slqbinfo_test.py printed no results (exit '
					  f'{run.returncode}):\n{run.stdout[-2000:]}'
					  f'{run.stderr[-2000:]}')
	ctx.check('slqbinfo: fixture tests ran', ran)
	for status, name, reason in results:
		ctx.record(f'slqbinfo: {name}', status == 'PASS', reason or '')
