# SPDX-License-Identifier: GPL-2.0
"""`slqb test` group bench: what `slqb bench` can be checked on without
booting: its console parser and tables on made-up consoles, its refusal
of bad arguments, and the module's build (W=1) and checkpatch --strict
against a kernel the kernels group built. It runs after that group (see
GROUP_MODULES) and adds seconds, not minutes.
"""

import os
import shutil
import subprocess
import time
from typing import List, Optional, Tuple

from slqb_build import build_env
from slqb_checks import CheckFailed, Context, check_group
from slqb_util import HARNESS_DIR, Paths, quote_lines, run, warn

from . import BENCH_SRC, model
from .initramfs import build_sysbench
from .report import (Metric, Pairing, aggregate, behind_best, collect,
		     format_table, parse_console, table_rows)
def fake_console(kernel_factor: float, run_no: int) -> List[str]:
	"""A made-up bench console: printk stamps, noise, a mangled line."""
	pair = 250 * kernel_factor + run_no
	return [
		'SLQB-GUEST: init: mode bench',
		'SLQB-BENCH begin alloc=x kernel=6.1',
		'SLQB-BENCH mem stage=boot Slab=1000 SUnreclaim=600 slab_pages=250',
		'[    1.000000] slqb_bench: SLQB-BENCH start cpus=2 nodes=1 objs=8',
		f'[    1.100000] slqb_bench: SLQB-BENCH micro case=pair obj=kmalloc '
		f'size=64 cpus=1 ops=10 rounds=3 cycles_op={pair:.1f} ns_op={pair + 1:.1f}',
		'[    1.200000] slqb_bench: SLQB-BENCH micro case=pair obj=kmalloc size=128 cpus',
		f'[    1.300000] slqb_bench: SLQB-BENCH micro case=pair obj=kmalloc '
		f'size=128 cpus=1 ops=10 rounds=3 cycles_op={2 * pair:.1f} ns_op=9.0',
		'[    1.400000] slqb_bench: SLQB-BENCH skip case=node obj=kmalloc size=64 why=one-memory-node',
		f'SLQB-BENCH sys name=iperf3-tcp value={100 / kernel_factor:g} unit=Mbit/s',
		'SLQB-BENCH sys name=churn value=2.5 best=2.0 reps=3 unit=s',
		'SLQB-BENCH end rc=0',
		'SLQB-GUEST: PASS',
	]


def check_parser() -> None:
	"""The parser, statistics and tables on made-up consoles."""
	samples = []
	for run_no in range(3):
		for name, factor in (('slqb', 1.2), ('slub', 1.0)):
			parsed = parse_console(fake_console(factor, run_no), name, run_no, 'icount')
			if not parsed.begun or not parsed.ended or len(parsed.skips) != 1:
				raise CheckFailed(f'begin/end/skip not seen: {parsed}')
			samples += parsed.samples
	stats = collect(samples)
	pair64 = Metric('icount', 'pair', 'kmalloc-64', 'instr/op')
	if round(stats[pair64]['slqb'].median) != 301:
		raise CheckFailed(f'median of pair 64: {stats[pair64]}')
	rows = table_rows(stats, Pairing(['slqb', 'slub'], ['slqb'], ['slub']))
	want = {'icount pair kmalloc-64': '1.20', 'icount pair kmalloc-128': '1.20',
		'sys iperf3-tcp': '0.83', 'sys churn': '1.00~',
		'sys-best churn': '1.00~'}
	got = {r[0]: r[-1] for r in rows[1:]}
	for label, value in want.items():
		if got.get(label) != value:
			raise CheckFailed(f'{label}: ratio {got.get(label)!r}, expected '
					  f'{value!r}\n{format_table(rows)}')
	worst = {m.label for m, *_ in behind_best(stats, 'slqb', ['slub'])}
	if worst != {'sys iperf3-tcp', 'icount pair kmalloc-64',
		     'icount pair kmalloc-128'}:
		raise CheckFailed(f'furthest behind: {worst}')
	geo = collect(aggregate(samples))
	if Metric('icount', 'pair', 'geomean', 'instr/op') not in geo:
		raise CheckFailed('no geometric mean row')


def check_refusals(ctx: Context) -> None:
	"""Bad arguments get exit 2 and a message naming the problem."""
	slqb = os.path.join(HARNESS_DIR, 'slqb.py')
	cases = [(['--runs', '0'], '--runs 0'),
		 (['--kernel', 'x=slib'], "unknown allocator 'slib'"),
		 (['--kernel', 'x=slqb:CONFIG_A'], "'CONFIG_A' is not CONFIG_X=V"),
		 (['--kernel', 'a=slqb', '--kernel', 'a=slub'], 'used twice'),
		 (['--kernel', 'slqb'], 'expected NAME=ALLOC'),
		 (['--baseline', 'nosuch'], 'not a kernel of this run'),
		 (['--profile', '--counters'], '--counters runs boots of its own'),
		 (['--icount-sys', '--counters'], '--icount-sys adds boots'),
		 (['--base-config', '/nonexistent/slqb.config'], 'cannot read it'),
		 (['--base-config', '/nonexistent/slqb.config', '--icount-arm64'],
		  'leave out --icount-arm64')]
	for argv, words in cases:
		proc = run([slqb, 'bench', *argv], timeout=60, check=False)
		if proc.returncode != 2 or words not in proc.stdout:
			raise CheckFailed(f'slqb bench {" ".join(argv)}: exit '
					  f'{proc.returncode}, expected 2 and {words!r}:\n'
					  f'{proc.stdout[-500:]}')


def module_build_dir(paths: Paths) -> Optional[str]:
	"""A built x86_64 harness kernel to compile the module against."""
	if not os.path.isdir(paths.builds):
		return None
	for name in sorted(os.listdir(paths.builds)):
		if not name.startswith('x86_64-'):
			continue	# the bench is x86_64 only
		build = os.path.join(paths.builds, name)
		if os.path.exists(os.path.join(build, 'Module.symvers')) and \
		   os.path.exists(os.path.join(build, 'scripts', 'mod', 'modpost')):
			return build
	return None


def check_module_builds(ctx: Context, build: str) -> None:
	"""bench/ builds against build with W=1 and no warnings, and passes
	checkpatch --strict."""
	mod_dir = os.path.join(ctx.scratch, 'slqb-bench')
	shutil.copytree(BENCH_SRC, mod_dir, dirs_exist_ok=True)
	proc = run(['make', '-C', ctx.paths.work, f'O={build}', f'M={mod_dir}',
		    'W=1', 'CC=ccache gcc', 'modules'], timeout=600,
		   env=build_env(ctx.paths), check=False)
	bad = [l for l in proc.stdout.splitlines() if 'warning:' in l or 'error:' in l]
	if proc.returncode != 0 or bad:
		raise CheckFailed(f'make exit {proc.returncode}:\n' +
				  quote_lines((bad or proc.stdout.splitlines())[-15:]))
	checkpatch = os.path.join(ctx.paths.work, 'scripts', 'checkpatch.pl')
	proc = run(['perl', checkpatch, '--strict', '--no-tree', '--quiet', '-f',
		    os.path.join(BENCH_SRC, 'slqb_bench.c')], timeout=120, check=False)
	if proc.returncode != 0:
		raise CheckFailed('checkpatch --strict:\n' +
				  quote_lines(proc.stdout.splitlines()[-15:]))


# Every workload of guest/slqb-sysbench.c, as the guest runs it, with one
# worker for a second; and arguments it must refuse (exit 2).
SYSBENCH_RUNS = (['rr', 'tcp', '1', '1'], ['rr', 'udp', '1', '1'],
		 ['stream', 'udp', '1', '1', '4096']) + tuple(
	['loop', name, '1', '1'] for name in
	('mmap', 'brk', 'open', 'signal', 'pipe', 'eventfd', 'threadspawn'))
SYSBENCH_REFUSED = (['rr', 'sctp', '1', '1'], ['loop', 'nosuch', '1', '1'],
		    ['rr', 'tcp', '0', '1'], ['stream', 'udp', '1', '1', 'big'])


def want_rate(cmd: List[str], what: str, cwd: Optional[str] = None) -> None:
	"""Runs cmd, which must exit 0 with a positive rate as the last word
	of its output; CheckFailed naming what otherwise."""
	proc = run(cmd, timeout=120, check=False, cwd=cwd)
	try:
		rate = float(proc.stdout.split()[-1])
	except (IndexError, ValueError):
		rate = 0.0
	if proc.returncode != 0 or rate <= 0:
		raise CheckFailed(f'{what}: exit {proc.returncode}, output '
				  f'{proc.stdout.strip()[-300:]!r}')


def check_sysbench(ctx: Context) -> None:
	"""guest/slqb-sysbench.c builds warning-free; each workload runs on the
	host and prints a positive rate; bad arguments exit 2."""
	prog = build_sysbench(ctx.scratch)
	for argv in SYSBENCH_RUNS:
		want_rate([prog, *argv], f'slqb-sysbench {" ".join(argv)}')
	for argv in SYSBENCH_REFUSED:
		proc = run([prog, *argv], timeout=60, check=False)
		if proc.returncode != 2 or 'usage' not in proc.stdout:
			raise CheckFailed(f'slqb-sysbench {" ".join(argv)}: exit '
					  f'{proc.returncode}, expected 2 and its usage')


# The guest's functions that run Debian's tools and read their rates, run
# on the host with the same tools for two seconds each: (function, argument).
GUEST_RATES = (('tbench_once', '1'), ('stressng_rate', 'rawudp'),
	       ('stressng_rate', 'rawpkt'))
INIT_SH = os.path.join(HARNESS_DIR, 'guest', 'init.sh')


def guest_function(name: str) -> str:
	"""The text of one shell function of guest/init.sh, 'name() {' to the
	'}' that ends it; CheckFailed if there is none."""
	with open(INIT_SH, encoding='utf-8') as f:
		lines = f.read().splitlines()
	for i, line in enumerate(lines):
		if line.startswith(f'{name}() {{') and '}' in lines[i:]:
			end = lines.index('}', i)
			return '\n'.join(lines[i:end + 1]) + '\n'
	raise CheckFailed(f'guest/init.sh has no function {name}')


def guest_rates() -> List[Tuple[str, str]]:
	"""GUEST_RATES as this host can run them: stress-ng's raw sockets
	need root (CAP_NET_RAW), rawpkt needs AF_PACKET; what is left out is
	warned about."""
	rates = list(GUEST_RATES)
	if os.geteuid() != 0:
		warn('the bench group runs stress-ng\'s rawudp and rawpkt only as '
		     'root (raw sockets); as another user it checks tbench alone')
		rates = [r for r in rates if r[0] != 'stressng_rate']
	elif not os.path.exists('/proc/net/packet'):
		warn('no AF_PACKET on this host: the bench group leaves out rawpkt')
		rates.remove(('stressng_rate', 'rawpkt'))
	return rates


def check_guest_rates(ctx: Context) -> None:
	"""tbench (against a tbench_srv of its own) and stress-ng's rawudp and
	rawpkt, run on the host through init.sh's own functions under
	busybox's sh, as the guest runs them, with a 2-second slqbtest.iperf,
	each give a positive rate."""
	missing = [t for t in ('tbench', 'tbench_srv', 'stress-ng', 'busybox')
		   if not shutil.which(t)]
	if missing:
		raise CheckFailed(f'not installed: {", ".join(missing)} (they are '
				  'in the harness\'s Debian packages)')
	rates = guest_rates()
	funcs = ''.join(guest_function(f) for f in sorted({f for f, _ in rates}))
	# tbench's first second is its set-up: with -t 1 it reports 0 MB/s.
	stub = 'param() { [ "$1" = iperf ] && echo 2 || echo "$2"; }\n'
	server = subprocess.Popen(['tbench_srv'], stdout=subprocess.DEVNULL,
				  stderr=subprocess.DEVNULL, cwd=ctx.scratch)
	try:
		time.sleep(1)
		if server.poll() is not None:
			raise CheckFailed(f'tbench_srv exited at once (status '
					  f'{server.returncode}): is port 7003 taken?')
		for func, arg in rates:
			want_rate(['busybox', 'sh', '-c', f'{stub}{funcs}{func} {arg}'],
				  f'{func} {arg}', cwd=ctx.scratch)
	finally:
		server.kill()
		server.wait()


def check_plugin(ctx: Context) -> None:
	"""plugin/slqb-cache.c builds with -Werror and, with its header,
	passes checkpatch --strict; QEMU loads it, plain and with pcs=on
	(and keeps running a machine without CPUs until stopped), and refuses
	it when its install function fails (an argument it does not know)."""
	plugin = model.build_plugin(ctx.scratch)
	checkpatch = os.path.join(ctx.paths.work, 'scripts', 'checkpatch.pl')
	for name in ('slqb-cache.c', 'slqb-qemu-plugin.h'):
		proc = run(['perl', checkpatch, '--strict', '--no-tree', '--quiet',
			    '-f', os.path.join(os.path.dirname(model.PLUGIN_SOURCE),
					       name)], timeout=120, check=False)
		if proc.returncode != 0:
			raise CheckFailed(f'checkpatch --strict {name}:\n' +
					  quote_lines(proc.stdout.splitlines()[-15:]))
	base = ['qemu-system-x86_64', '-M', 'none', '-display', 'none']
	for arg in (f'file={plugin}', f'file={plugin},pcs=on'):
		try:
			proc = subprocess.run(base + ['-plugin', arg],
					      stdin=subprocess.DEVNULL,
					      capture_output=True, text=True, timeout=5)
			raise CheckFailed(f'QEMU exited ({proc.returncode}) with the '
					  f'plugin loaded ({arg}): '
					  f'{proc.stderr.strip()[-300:]}')
		except subprocess.TimeoutExpired:
			pass
	proc = subprocess.run(base + ['-plugin', f'file={plugin},bad=on'],
			      stdin=subprocess.DEVNULL, capture_output=True,
			      text=True, timeout=60)
	if proc.returncode == 0 or 'qemu_plugin_install' not in proc.stderr:
		raise CheckFailed(f'QEMU took the plugin with an argument: exit '
				  f'{proc.returncode}, {proc.stderr.strip()[-300:]}')


@check_group('bench')
def bench_checks(ctx: Context) -> None:
	"""`slqb test` group bench: parser, refusals, module build; no boots."""
	sysbench = 'bench: slqb-sysbench builds and runs each workload'
	ctx.expect(['bench: parser and tables on a made-up console',
		    'bench: bad arguments are refused', sysbench,
		    'bench: the guest reads tbench\'s and stress-ng\'s rates',
		    'bench: the cache-model plugin builds and QEMU loads it'])
	ctx.check('bench: parser and tables on a made-up console', check_parser)
	ctx.check('bench: bad arguments are refused', lambda: check_refusals(ctx))
	ctx.check(sysbench, lambda: check_sysbench(ctx))
	ctx.check('bench: the guest reads tbench\'s and stress-ng\'s rates',
		  lambda: check_guest_rates(ctx))
	ctx.check('bench: the cache-model plugin builds and QEMU loads it',
		  lambda: check_plugin(ctx))
	build = module_build_dir(ctx.paths)
	name = 'bench: the module builds (W=1) and passes checkpatch --strict'
	if build:
		ctx.check(name, lambda: check_module_builds(ctx, build))
	else:
		ctx.skip(name, 'no built harness kernel with modules in the cache yet')


