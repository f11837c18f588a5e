# SPDX-License-Identifier: GPL-2.0
"""The contract between the harness and the guest's /init.

The harness tells the guest (guest/init.sh, or guest/mini-init.c on the
other architectures) what to do with slqbtest.NAME=VALUE kernel
parameters. The guest answers on the console: lines starting with
'SLQB-GUEST: ' say how it is doing, and the last of them is the verdict,
'SLQB-GUEST: PASS' or 'SLQB-GUEST: FAIL <failed steps>'; in bench mode it
and the bench module also print 'SLQB-BENCH <kind> key=value ...' lines.

Both sides of the contract live here: the parameters are made only by
these functions and the markers are read only with these patterns, so a
change to guest/init.sh has one place to follow it on the host.
"""

import re
from typing import Dict, List, Optional

PARAM_PREFIX = 'slqbtest.'
PARAM_NAME_RE = re.compile(r'^[a-z]+$')
# slqbtest.mode= values that guest/init.sh knows.
GUEST_MODES = ('boot', 'quick', 'shell', 'hang', 'modules', 'bench')

MARKER = 'SLQB-GUEST: '
VERDICT_RE = re.compile(r'SLQB-GUEST: (PASS|FAIL)\b ?(.*)')
STEP_FAILED_RE = re.compile(r'SLQB-GUEST: step .* FAILED')
STEP_END_RE = re.compile(r'SLQB-GUEST: step (\S+) (ok|FAILED)\b')
KMEMLEAK_RE = re.compile(r'SLQB-GUEST: kmemleak: (\d+) suspected leaks')
BENCH_RE = re.compile(r'SLQB-BENCH (\w+)((?: [\w.-]+=\S*)*)\s*$')
BENCH_PAIR_RE = re.compile(r'([\w.-]+)=(\S*)')


# ---------------------------------------------------------------- host to guest

def param(name: str, value: object) -> str:
	"""'slqbtest.NAME=VALUE'; refuses what the guest's parser cannot read
	(init.sh splits the command line at blanks and takes NAME as given)."""
	text = str(value)
	if not PARAM_NAME_RE.match(name):
		raise ValueError(f'bad guest parameter name {name!r}')
	if not text or any(c.isspace() for c in text):
		raise ValueError(f'guest parameter {name}={text!r}: the value must '
				 'be one word')
	return f'{PARAM_PREFIX}{name}={text}'


def params(**values: object) -> str:
	"""Several parameters, in the order given, joined by blanks."""
	return ' '.join(param(name, value) for name, value in values.items())


def boot_params(mode: str, stress: int, alloc: str) -> str:
	"""What every boot tells the guest: its mode, the stress-ng seconds and
	the allocator of the kernel (slqb shows slqbinfo)."""
	if mode not in GUEST_MODES:
		raise ValueError(f'unknown guest mode {mode!r}; the guest knows '
				 f'{", ".join(GUEST_MODES)}')
	return params(mode=mode, stress=stress, alloc=alloc)


def shape_params(cpus: int, nodes: int, memnodes: int) -> str:
	"""The machine shape the guest must find: CPUs, all nodes, and the
	nodes with memory."""
	return params(cpus=cpus, nodes=nodes, memnodes=memnodes)


def bench_params(workloads: str, benchmod: str, hackbench: str, churn: int,
		 iperf: int, statcases: str, sysreps: int = 1) -> str:
	"""What a bench boot runs: the workloads in order, the bench module's
	parameters (joined by ':'), hackbench groups:loops, the churn rounds,
	iperf3 seconds, the micro cases of the counters run, and how many
	times each timed workload (hackbench, perf, churn) runs in a row."""
	if not 1 <= sysreps <= 99:
		raise ValueError(f'sysreps={sysreps}: the guest repeats a workload '
				 '1 to 99 times')
	return params(bench=workloads, benchmod=benchmod, hackbench=hackbench,
		      churn=churn, iperf=iperf, statcases=statcases,
		      sysreps=sysreps)


def memhp_params(size_mb: int, kernel_node: int, movable_node: int) -> str:
	"""Memory hotplug: the guest asks for size_mb pc-dimms ('memhp add'),
	onlines the one on kernel_node as online_kernel and the one on
	movable_node as online_movable, and later offlines them and asks for
	their removal ('memhp remove nodeN ...')."""
	return params(memhp=size_mb, memhpkernel=kernel_node,
		      memhpmovable=movable_node)


def selftest_params(*names: str) -> str:
	"""Load the kernel's own slab self-test modules: those named, or all."""
	return params(selftests=','.join(names) if names else 1)


def load_params(*modules: str, debugcheck: bool = False) -> str:
	"""Load these extra modules (modules mode); with debugcheck, validate
	the slqb_dbg_* caches after them."""
	text = param('load', ','.join(modules))
	return text + (' ' + param('debugcheck', 1) if debugcheck else '')


def fake_report_params(kind: str) -> str:
	"""Print a fake kernel report (BUG or WARNING) for the harness to catch."""
	if kind not in ('BUG', 'WARNING'):
		raise ValueError(f'the guest fakes BUG or WARNING reports, not {kind!r}')
	return param('fake', kind)


# ---------------------------------------------------------------- guest to host

# What the guest says to have memory plugged in and taken out again.
MEMHP_ADD = 'memhp add'
MEMHP_REMOVE_RE = re.compile(r'^memhp remove((?: node\d+)*)\s*$')
# After the removal the guest prints each cache's `slabs` file on a line
# 'slqb-memhp-slabs CACHE: TOTAL N0=a N1=b' (not a marker: there are many).
MEMHP_SLABS_RE = re.compile(r'slqb-memhp-slabs (\S+): (.*)$')

def marker_text(line: str) -> Optional[str]:
	"""What the guest said on a 'SLQB-GUEST: ' line (None on other lines)."""
	at = line.find(MARKER)
	return None if at < 0 else line[at + len(MARKER):]


def step_results(lines: List[str]) -> Dict[str, bool]:
	"""Whether each step the guest ended was ok (the last run of a name)."""
	results = {}
	for line in lines:
		m = STEP_END_RE.search(line)
		if m:
			results[m.group(1)] = m.group(2) == 'ok'
	return results


def step_output(lines: List[str], name: str) -> List[str]:
	"""The console lines of step name, from its start marker to its end."""
	start = f'{MARKER}step {name}'
	out: List[str] = []
	for line in lines:
		said = line.find(MARKER)
		if said >= 0 and line[said:].rstrip() == start:
			out = [line]
		elif out:
			out.append(line)
			if STEP_END_RE.search(line) and STEP_END_RE.search(line).group(1) == name:
				return out
	return out
