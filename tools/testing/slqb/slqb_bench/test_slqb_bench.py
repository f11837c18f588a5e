#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of `slqb bench` (the package slqb_bench) and of what it
leaves in the repository (results/), after the model of
tools/testing/kunit/kunit_tool_test.py.

They test the bench console parser, its maths and tables, --kernel
variants, what a bench guest's initramfs gets, the results file a run
writes, the committed results files and the cover letter `slqb series`
makes of the newest one, and the bench's place in the series and in
`slqb test`. Like the other unit tests they need only python3 and take
seconds; `python3 -m unittest` in tools/testing/slqb finds them, and so
does the group unit of `slqb test`.
"""

import os
import re
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

# The harness's folder, which holds this package.
HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HARNESS)
sys.dont_write_bytecode = True

import slqb_bench
import slqb_checks
import slqb_guest
import slqb_initramfs
import slqb_results
import slqb_series
import slqb_stats
from slqb_bench import initramfs as bench_initramfs
from slqb_bench import model as bench_model
from slqb_bench import report as bench_report
from slqb_bench.report import Metric, Pairing, Sample, Summary
from slqb_build import KernelSpec
from slqb_qemu import Shape
from slqb_util import Paths, SlqbError, fixture_lines, fixture_path
from slqb_unittest import REPO, Scratch

SCRATCH = Scratch('slqb-unit-bench.')
setUpModule = SCRATCH.setup
tearDownModule = SCRATCH.teardown


# ---------------------------------------------------------------- bench

def never_boot(*args, **kwargs):
	raise AssertionError('booted')


def sample(kernel, run, group, case, obj, unit, value) -> Sample:
	return Sample(kernel, run, Metric(group, case, obj, unit), value)


class BenchConsoleTest(unittest.TestCase):
	"""slqb_bench.report.parse_console on a made-up bench console."""

	def setUp(self):
		self.lines = fixture_lines('bench-console.log')

	def test_tcg_console(self):
		parsed = bench_report.parse_console(self.lines, 'slqb', 1, 'tcg')
		self.assertTrue(parsed.begun and parsed.ended)
		got = [(s.metric.label, s.metric.unit, s.value) for s in parsed.samples]
		self.assertEqual(got, [
			('mem Slab boot', 'kB', 4000.0),
			('mem SUnreclaim boot', 'kB', 3400.0),
			('mem slab_pages boot', 'pages', 1000.0),
			('tcg pair kmalloc-64', 'ns/op', 628.5),
			('tcg-cycles pair kmalloc-64', 'cycles/op', 359.0),
			# the fastest round, where the line has one
			('tcg-min pair kmalloc-64', 'ns/op', 512.0),
			('tcg pair cache-200', 'ns/op', 600.0),
			('tcg-cycles pair cache-200', 'cycles/op', 349.0),
			('sys hackbench-proc-sock', 's', 0.866),
			('sys-best hackbench-proc-sock', 's', 0.451),
			('sys iperf3-tcp', 'Mbit/s', 1982.0),
			('sys-best iperf3-tcp', 'Mbit/s', 2400.0),
			('mem Slab dropped', 'kB', 6208.0),
			('mem SUnreclaim dropped', 'kB', 5316.0),
			('mem slab_pages dropped', 'pages', 1552.0)])
		self.assertTrue(all(s.kernel == 'slqb' and s.run == 1 for s in parsed.samples))
		self.assertEqual(parsed.skips, ['case=node obj=kmalloc size=64 why=one-memory-node'])
		self.assertEqual(parsed.errors, ['name=perf rc=1'])
		self.assertEqual(parsed.stats, [{'phase': 'before', 'case': 'pair',
						 'cache': 'kmalloc-64', 'alloc': '10',
						 'free': '5'}])

	def test_icount_console(self):
		parsed = bench_report.parse_console(self.lines, 'slub', 0, 'icount')
		got = [(s.metric.label, s.metric.unit, s.value) for s in parsed.samples]
		self.assertEqual(got, [('icount pair kmalloc-64', 'instr/op', 359.0),
				       ('icount pair cache-200', 'instr/op', 349.0),
				       ('sys hackbench-proc-sock', 's', 0.866),
				       ('sys-best hackbench-proc-sock', 's', 0.451),
				       ('sys iperf3-tcp', 'Mbit/s', 1982.0),
				       ('sys-best iperf3-tcp', 'Mbit/s', 2400.0)])

	def test_sys_icount_console(self):
		"""A sys-icount boot gives only its workloads' medians, as
		sys-icount rows; its micro and memory lines count for nothing."""
		parsed = bench_report.parse_console(self.lines, 'slqb', 0, 'sys-icount')
		got = [(s.metric.label, s.metric.unit, s.metric.better, s.value)
		       for s in parsed.samples]
		self.assertEqual(got, [
			('sys-icount hackbench-proc-sock', 's', 'lower', 0.866),
			('sys-icount iperf3-tcp', 'Mbit/s', 'higher', 1982.0)])
		# exact: one run each gives a plain ratio, no '?'
		stats = bench_report.collect(
			parsed.samples + bench_report.parse_console(
				self.lines, 'slub', 0, 'sys-icount').samples)
		pairing = bench_report.Pairing(['slqb', 'slub'], ['slqb'], ['slub'])
		rows = bench_report.table_rows(stats, pairing)
		self.assertEqual([r[-1] for r in rows[1:]], ['1.00', '1.00'])

	def test_control_lines(self):
		"""A workload with the same sys-icount rate under both kernels
		is a control: its sys ratio is reported as the noise floor; one
		whose instructions differ, or that has no sys-icount row, is not."""
		def s(kernel, run, group, name, value):
			return bench_report.Sample(kernel, run, bench_report.Metric(
				group, name, '', 'ops/s'), value)
		samples = [s('slqb', 0, 'sys-icount', 'loop-pipe', 1000.0),
			   s('slub', 0, 'sys-icount', 'loop-pipe', 1000.5),
			   s('slqb', 0, 'sys-icount', 'loop-mmap', 1200.0),
			   s('slub', 0, 'sys-icount', 'loop-mmap', 1000.0)]
		for run, (a, b) in enumerate(((70.0, 100.0), (90.0, 100.0))):
			samples += [s('slqb', run, 'sys', 'loop-pipe', a),
				    s('slub', run, 'sys', 'loop-pipe', b),
				    s('slqb', run, 'sys', 'loop-mmap', a),
				    s('slub', run, 'sys', 'loop-mmap', b),
				    s('slqb', run, 'sys', 'loop-open', a),
				    s('slub', run, 'sys', 'loop-open', b)]
		pairing = bench_report.Pairing(['slqb', 'slub'], ['slqb'], ['slub'])
		lines = bench_report.control_lines(bench_report.collect(samples), pairing)
		self.assertEqual(len(lines), 2, lines)
		self.assertTrue(lines[0].startswith('control workloads'))
		self.assertEqual(lines[1], '  sys loop-pipe: slqb/slub 0.80 '
				 '(same-run 0.70-0.90)')
		# without sys-icount rows there is no control
		self.assertEqual(bench_report.control_lines(bench_report.collect(
			[x for x in samples if x.metric.group == 'sys']), pairing), [])

	def test_locality_lines(self):
		"""A locality line gives three 'loc' samples, from the x86 icount
		boot only, and the summary takes their geomean over sizes."""
		lines = ['[ 2.0] slqb_bench: SLQB-BENCH locality case=batch-alloc '
			 'obj=kmalloc size=64 objs=2048 pages_k=16.0 slabs_k=16.0 dist=64',
			 'SLQB-BENCH locality case=batch-alloc obj=kmalloc size=128 '
			 'objs=2048 pages_k=64.0 slabs_k=32.0 dist=128',
			 'SLQB-BENCH locality case=bulk-alloc obj=cache size=200 objs=2048 '
			 'pages_k=x slabs_k=1 dist=1']
		parsed = bench_report.parse_console(lines, 'slqb', 0, 'icount')
		got = [(s.metric.label, s.metric.unit, s.value) for s in parsed.samples]
		self.assertEqual(got, [
			('loc batch-alloc pages kmalloc-64', 'pages/1000', 16.0),
			('loc batch-alloc slabs kmalloc-64', 'slabs/1000', 16.0),
			('loc batch-alloc dist kmalloc-64', 'bytes', 64.0),
			('loc batch-alloc pages kmalloc-128', 'pages/1000', 64.0),
			('loc batch-alloc slabs kmalloc-128', 'slabs/1000', 32.0),
			('loc batch-alloc dist kmalloc-128', 'bytes', 128.0)])
		self.assertTrue(all(s.metric.better == 'lower' for s in parsed.samples))
		for group in ('tcg', 'icount-arm64'):
			self.assertEqual(bench_report.parse_console(lines, 'slqb', 0,
								    group).samples, [])
		geo = {s.metric.label: s.value for s in bench_report.aggregate(parsed.samples)}
		self.assertAlmostEqual(geo['loc batch-alloc pages geomean'], 32.0)
		self.assertAlmostEqual(geo['loc batch-alloc dist geomean'], 64 * 2 ** 0.5)

	def test_icount_arm64_console(self):
		# arm64's get_cycles() ticks at 62.5 MHz: its rows take ns_op,
		# one guest instruction a nanosecond under -icount shift=0
		parsed = bench_report.parse_console(self.lines, 'slub', 0,
							 'icount-arm64')
		got = [(s.metric.label, s.metric.unit, s.value) for s in parsed.samples]
		self.assertEqual(got, [('icount-arm64 pair kmalloc-64', 'instr/op', 628.5),
				       ('icount-arm64 pair cache-200', 'instr/op', 600.0),
				       ('sys hackbench-proc-sock', 's', 0.866),
				       ('sys-best hackbench-proc-sock', 's', 0.451),
				       ('sys iperf3-tcp', 'Mbit/s', 1982.0),
				       ('sys-best iperf3-tcp', 'Mbit/s', 2400.0)])
		geo = bench_report.aggregate(parsed.samples)
		self.assertIn(bench_report.Metric('icount-arm64', 'pair', 'geomean',
						       'instr/op'),
			      [g.metric for g in geo])

	def guest_shell(self, *commands, more=(), env=None):
		"""Runs commands in sh after the guest's bench_say, valid_reps,
		repeat_stats and prof_count (and the functions named in more),
		as init.sh defines them."""
		with open(os.path.join(os.path.dirname(slqb_guest.__file__), 'guest',
				       'init.sh'), encoding='utf-8') as f:
			init = f.read()
		funcs = [init[init.index(f'\n{name}() {{') + 1:] for name in
			 ('bench_say', 'valid_reps', 'repeat_stats', 'prof_count') +
			 tuple(more)]
		text = '\n'.join(f[:f.index('\n}\n') + 3] for f in funcs)
		proc = subprocess.run(['sh', '-c', text + '\n'.join(commands)],
				      capture_output=True, text=True, timeout=60,
				      env=env)
		return proc.stdout.splitlines(), proc.returncode

	def test_guest_tbench_and_stressng(self):
		"""The guest's tbench and stress-ng rows, from the tools' own
		output (stand-ins on PATH print what Debian's print)."""
		tools = os.path.join(SCRATCH.path, 'guest-tools')
		os.makedirs(tools, exist_ok=True)
		scripts = {
			'tbench': 'echo " Flush   1363   0.025   2.649"\n'
				  'echo "Throughput 211.972 MB/sec  $1 clients  $1 procs  '
				  'max_latency=5.174 ms"',
			'tbench_srv': 'exec sleep 30',
			'nproc': 'echo 2',
			'stress-ng': 'p="stress-ng: metrc: [7]"\n'
				     'echo "$p stressor       bogo ops real time  usr time  '
				     'sys time   bogo ops/s     bogo ops/s"\n'
				     'echo "$p                           (secs)    (secs)    '
				     '(secs)   (real time) (usr+sys time)"\n'
				     'echo "$p ${1#--}            49475      1.00      0.16      '
				     '0.82     49433.57       50666.01"\n'
				     'echo "$p ${1#--}                 1.32 MB recv\'d per sec '
				     '(geometic mean of 1 instances)"',
		}
		for name, body in scripts.items():
			path = os.path.join(tools, name)
			with open(path, 'w', encoding='utf-8') as f:
				f.write(f'#!/bin/sh\n{body}\n')
			os.chmod(path, 0o755)
		env = dict(os.environ, PATH=tools + ':' + os.environ['PATH'])
		more = ('bench_rate', 'tbench_once', 'bench_tbench', 'stressng_rate')
		param = 'param() { [ "$1" = sysreps ] && echo 2 || echo "$2"; }'
		out, rc = self.guest_shell(param, 'tbench_once 4', more=more, env=env)
		self.assertEqual((out, rc), (['211.972'], 0))
		out, rc = self.guest_shell(param, 'stressng_rate rawudp', more=more,
					   env=env)
		self.assertEqual((out, rc), (['49433.57'], 0))
		# tbench's rows, and an earlier workload's failure survives them
		out, rc = self.guest_shell(param, 'b_status=1', 'bench_tbench',
					   'echo "rc=$? status=$b_status"',
					   more=more, env=env)
		self.assertEqual(out, [
			'SLQB-BENCH sys name=tbench-1x value=211.9720 best=211.9720 '
			'reps=2 unit=MB/s',
			'SLQB-BENCH sys name=tbench-4x value=211.9720 best=211.9720 '
			'reps=2 unit=MB/s', 'rc=0 status=1'])
		# a rate of zero, or none, is an error, not a row
		for rate in ('0.00', ''):
			out, rc = self.guest_shell(param, f'bench_rate x ops/s echo {rate}',
						   more=more, env=env)
			self.assertEqual((out[:1], rc),
					 (['SLQB-BENCH error name=x rc=0'], 1), rate)

	def test_guest_repeat_stats(self):
		# the median and the best of a workload's repeats: times lower,
		# rates (-r) higher; the median of an even count is the middle
		# value nearer the best
		out, rc = self.guest_shell('repeat_stats 0.3 0.1 0.25 0.2; echo',
					   'repeat_stats -r 2400 1100 2600; echo',
					   'repeat_stats 7; echo')
		self.assertEqual((out, rc), (['value=0.2000 best=0.1000',
					      'value=2400.0000 best=2600.0000',
					      'value=7.0000 best=7.0000'], 0))
		for bad in ('0', '100', 'x', '-1', ''):
			out, rc = self.guest_shell(f'valid_reps hb "{bad}"')
			self.assertEqual((out, rc),
					 ([f'SLQB-BENCH error name=hb rc=bad-sysreps-{bad}'], 1))
		self.assertEqual(self.guest_shell('valid_reps hb 99'), ([], 0))

	def test_allocator_symbols(self):
		# the functions of the allocator's objects, by nm; not those of
		# the rest of mm/, nor its data
		with tempfile.TemporaryDirectory() as build:
			mm = os.path.join(build, 'mm')
			os.makedirs(mm)
			for name, code in (('slqb.o', 'int slqb_data = 1;\n'
					    'static int __attribute__((noinline))\n'
					    'claim(int x) { return x + slqb_data; }\n'
					    'int kmem_cache_alloc(int x) { return claim(x); }\n'),
					   ('slab_common.o', 'void kfree(void *p) { (void)p; }\n'),
					   ('vmscan.o', 'int shrink_node(void) { return 0; }\n')):
				src = os.path.join(build, name[:-2] + '.c')
				with open(src, 'w', encoding='utf-8') as f:
					f.write(code)
				subprocess.run(['gcc', '-O2', '-c', '-o', os.path.join(mm, name),
						src], check=True, timeout=60)
			self.assertEqual(bench_initramfs.allocator_symbols(build),
					 ['claim', 'kfree', 'kmem_cache_alloc'])
			self.assertEqual(bench_initramfs.allocator_symbols(
				os.path.join(build, 'none')), [])

	def test_bench_files(self):
		"""What a bench guest's initramfs gets beyond the plain one."""
		paths = Paths(repo=REPO, cache=os.path.join(SCRATCH.path, 'files-cache'))
		tools = []
		host_loadfile = os.path.join(SCRATCH.path, 'client.txt')
		with open(host_loadfile, 'w', encoding='utf-8') as f:
			f.write(''.join(f'op {i}\n' for i in range(5)))

		def files(arch):
			spec = KernelSpec('slqb', arch=arch)
			cpio = slqb_initramfs.CpioList()
			with mock.patch.object(bench_initramfs, 'add_host_tools',
					       lambda c, names, user: tools.append(names)), \
			     mock.patch.object(bench_initramfs, 'TBENCH_HOST_LOADFILE', host_loadfile), \
			     mock.patch.object(bench_initramfs, 'TBENCH_LINES', 2), \
			     mock.patch.object(bench_initramfs, 'allocator_symbols',
					       lambda build: ['kfree', 'kmalloc']):
				bench_initramfs.BenchFiles().add(cpio, paths, spec)
			return spec, cpio.entries
		with self.assertRaisesRegex(SlqbError, 'build the bench module first'):
			files('x86_64')
		for arch in ('x86_64', 'arm64'):
			module = os.path.join(KernelSpec('slqb', arch=arch)
					      .build_dir(paths), bench_initramfs.BENCH_MODULE)
			os.makedirs(os.path.dirname(module))
			open(module, 'w').close()
		spec, entries = files('x86_64')
		self.assertEqual(entries[bench_initramfs.GUEST_MODULE],
				 f'file {bench_initramfs.GUEST_MODULE} {spec.build_dir(paths)}'
				 '/slqb-bench/slqb_bench.ko 0644 0 0')
		self.assertEqual(tools, [('iperf3', 'perf', 'tbench', 'tbench_srv')])
		# tbench's loadfile, cut to its first TBENCH_LINES lines
		loadfile = os.path.join(spec.build_dir(paths), 'slqb-tools',
					'tbench-client.txt')
		self.assertEqual(entries[bench_initramfs.TBENCH_LOADFILE],
				 f'file {bench_initramfs.TBENCH_LOADFILE} {loadfile} 0644 0 0')
		with open(loadfile, encoding='utf-8') as f:
			self.assertEqual(f.read(), 'op 0\nop 1\n')
		syms = os.path.join(spec.build_dir(paths), 'slqb-bench-alloc-syms.txt')
		self.assertIn(f'file {bench_initramfs.ALLOC_SYMS_GUEST} {syms} ',
			      entries[bench_initramfs.ALLOC_SYMS_GUEST])
		with open(syms, encoding='utf-8') as f:
			self.assertEqual(f.read(), 'kfree\nkmalloc\n')
		# elsewhere the module alone: the tools are x86_64 binaries
		_, entries = files('arm64')
		self.assertEqual([n for n in entries if not entries[n].startswith('dir ')],
				 [bench_initramfs.GUEST_MODULE])
		self.assertEqual(len(tools), 1)
		# the bench's archive keeps the name it has always had
		self.assertEqual(slqb_initramfs.initramfs_prefix(bench_initramfs.BenchFiles()),
				 'slqb-bench')
		# where the guest reads the allocator's function names
		with open(os.path.join(HARNESS, 'guest', 'init.sh'), encoding='utf-8') as f:
			init = f.read()
		self.assertIn(f'ALLOC_SYMS={bench_initramfs.ALLOC_SYMS_GUEST}\n', init)
		self.assertIn(bench_initramfs.GUEST_MODULE, init)

	def test_guest_prof_count(self):
		# idle (pid 0) and perf's own samples (pid 99) are not busy; the
		# allocator's are those whose symbol is listed in ALLOC_SYMS
		with tempfile.NamedTemporaryFile('w', suffix='.syms') as syms:
			syms.write('kmem_cache_alloc\nkfree\n')
			syms.flush()
			perf = ('0 ffffffff81000000 default_idle',
				'42 ffffffff81000100 kmem_cache_alloc',
				'42 ffffffff81000100 kmem_cache_alloc',
				'42 ffffffff81000200 pipe_write', '7 ffffffff81000300 kfree',
				'99 ffffffff81000100 kmem_cache_alloc',
				'7 7f0000001000 [unknown]')
			lines = ' '.join(repr(p) for p in perf)
			out, rc = self.guest_shell(
				f'ALLOC_SYMS={syms.name}',
				f'printf "%s\\n" {lines} | prof_count hb 99',
				': | prof_count hb 99')
		self.assertEqual((out, rc), (['SLQB-BENCH prof name=hb samples=7 busy=5 alloc=3 '
					      'top=kmem_cache_alloc:2,kfree:1',
					      'SLQB-BENCH error name=profile-hb rc=no-samples'], 0))

	def test_profile_text(self):
		lines = ['SLQB-BENCH prof name=hb samples=900 busy=400 alloc=40 '
			 'top=kfree:20,kmem_cache_alloc:10,bad,x:y',
			 'SLQB-BENCH prof name=hb samples=900 busy=600 alloc=20 top=kmem_cache_alloc:15',
			 'SLQB-BENCH prof name=idle samples=9 busy=0 alloc=0 top=-']
		profiles = bench_report.parse_console(lines, 'slqb', 0, 'tcg').profiles
		profiles += bench_report.parse_console(lines[:1], 'slub', 0, 'tcg').profiles
		self.assertEqual(bench_report.profile_text(profiles).splitlines(), [
			'hb                       slqb       1000 busy, allocator  6.0%: '
			'kmem_cache_alloc 2.5%, kfree 2.0%',
			'hb                       slub        400 busy, allocator 10.0%: '
			'kfree 5.0%, kmem_cache_alloc 2.5%'])
		self.assertEqual(bench_report.profile_top('-'), {})

	def test_prof_lines(self):
		lines = ['SLQB-BENCH prof name=hb samples=1000 busy=400 alloc=6',
			 'SLQB-BENCH prof name=idle samples=10 busy=0 alloc=0',
			 'SLQB-BENCH prof name=bad samples=10 busy=5 alloc=6',
			 'SLQB-BENCH prof name=short samples=10']
		parsed = bench_report.parse_console(lines, 'k', 0, 'tcg')
		self.assertEqual([(s.metric.label, s.metric.unit, s.value) for s in parsed.samples],
				 [('prof hb', '% busy', 1.5)])

	def test_sys_repeats(self):
		# one run of a workload has no fastest repeat of its own; a
		# malformed repeat count drops the line
		lines = ['SLQB-BENCH sys name=churn value=2.5 best=2.5 reps=1 unit=s',
			 'SLQB-BENCH sys name=perf value=1.2 best=0.6 reps=x unit=s',
			 'SLQB-BENCH sys name=hb value=0.4 best=0.25 reps=3 unit=s']
		parsed = bench_report.parse_console(lines, 'k', 0, 'tcg')
		got = [(s.metric.label, s.value) for s in parsed.samples]
		self.assertEqual(got, [('sys churn', 2.5), ('sys hb', 0.4),
				       ('sys-best hb', 0.25)])

	def test_unfinished_console(self):
		parsed = bench_report.parse_console(self.lines[:5], 'k', 0, 'tcg')
		self.assertTrue(parsed.begun)
		self.assertFalse(parsed.ended)
		parsed = bench_report.parse_console(['SLQB-GUEST: PASS'], 'k', 0, 'tcg')
		self.assertFalse(parsed.begun or parsed.ended or parsed.samples)


class BenchMathsTest(unittest.TestCase):
	"""slqb_bench.report: medians, spreads, ratios, geometric means."""

	def test_summarize(self):
		s = bench_report.summarize({0: 10.0, 1: 12.0, 2: 11.0})
		self.assertEqual((s.median, s.n), (11.0, 3))
		self.assertAlmostEqual(s.spread, 2 / 11)
		self.assertEqual(bench_report.summarize({0: 5.0}).spread, 0.0)
		self.assertEqual(bench_report.summarize({0: 0.0, 1: 0.0}).spread, 0.0)

	def test_ratio(self):
		ratio = bench_report.ratio
		subject = Summary(12.5, 0.0, 2, {0: 12.0, 1: 13.0})
		base = Summary(10.0, 0.0, 2, {0: 10.0, 1: 10.0})
		r = ratio(subject, base)
		self.assertAlmostEqual(r.value, 1.25)
		self.assertAlmostEqual(r.low, 1.2)
		self.assertAlmostEqual(r.high, 1.3)
		self.assertEqual(r.n, 2)
		self.assertFalse(r.noise)
		self.assertEqual(r.text(), '1.25')
		noisy = ratio(Summary(10.0, 0.0, 2, {0: 9.0, 1: 11.0}), base)
		self.assertTrue(noisy.noise)
		self.assertEqual(noisy.text(), '1.00~')
		self.assertIsNone(ratio(subject, Summary(0.0, 0.0, 1, {0: 0.0})))

	def test_ratio_single_run(self):
		ratio = bench_report.ratio
		one = ratio(Summary(3.0, 0.0, 1, {0: 3.0}), Summary(2.0, 0.0, 1, {0: 2.0}))
		self.assertEqual((one.n, one.noise), (1, False))
		self.assertEqual(one.text(), '1.50?')
		self.assertEqual(one.text(exact=True), '1.50')
		other_runs = ratio(Summary(3.0, 0.0, 1, {1: 3.0}), Summary(2.0, 0.0, 1, {0: 2.0}))
		self.assertEqual((other_runs.value, other_runs.n), (1.5, 1))

	def test_geomean(self):
		geomean = bench_report.geomean
		self.assertAlmostEqual(geomean([1.0, 4.0]), 2.0)
		self.assertAlmostEqual(geomean([2.0, 8.0, 4.0]), 4.0)
		self.assertEqual(geomean([]), 0.0)
		self.assertEqual(geomean([3.0, 0.0]), 0.0)
		self.assertEqual(geomean([3.0, -1.0]), 0.0)

	def test_aggregate(self):
		samples = [sample('k', 0, 'icount', 'pair', 'kmalloc-8', 'instr/op', 100.0),
			   sample('k', 0, 'icount', 'pair', 'kmalloc-64', 'instr/op', 400.0),
			   sample('k', 1, 'icount', 'pair', 'kmalloc-8', 'instr/op', 900.0),
			   sample('k', 0, 'tcg-cycles', 'pair', 'kmalloc-8', 'cycles/op', 1.0),
			   sample('k', 0, 'tcg-min', 'pair', 'kmalloc-8', 'ns/op', 2.0),
			   sample('k', 0, 'tcg-min', 'pair', 'kmalloc-64', 'ns/op', 8.0),
			   sample('k', 0, 'mem', 'Slab after-micro', '', 'kB', 5.0),
			   sample('k', 0, 'mem', 'SUnreclaim after-micro', '', 'kB', 4.0),
			   sample('k', 0, 'mem', 'SUnreclaim dropped', '', 'kB', 3.0),
			   sample('k', 0, 'sys', 'churn', '', 's', 2.0)]
		got = {(s.run, s.metric.label): s.value
		       for s in bench_report.aggregate(samples)}
		self.assertEqual(set(got), {(0, 'icount pair geomean'), (1, 'icount pair geomean'),
					    (0, 'tcg-min pair geomean'),
					    (0, 'mem Slab after-micro'),
					    (0, 'mem SUnreclaim dropped'), (0, 'sys churn')})
		self.assertAlmostEqual(got[(0, 'icount pair geomean')], 200.0)
		self.assertAlmostEqual(got[(1, 'icount pair geomean')], 900.0)
		self.assertAlmostEqual(got[(0, 'tcg-min pair geomean')], 4.0)

	def test_collect_orders_groups(self):
		samples = [sample('a', 0, 'mem', 'Slab boot', '', 'kB', 1.0),
			   sample('a', 0, 'sys', 'churn', '', 's', 1.0),
			   sample('a', 0, 'icount', 'pair', 'kmalloc-8', 'instr/op', 1.0),
			   sample('b', 0, 'icount', 'pair', 'kmalloc-8', 'instr/op', 2.0),
			   sample('a', 1, 'icount', 'pair', 'kmalloc-8', 'instr/op', 3.0)]
		stats = bench_report.collect(samples)
		self.assertEqual([m.group for m in stats], ['icount', 'sys', 'mem'])
		pair = Metric('icount', 'pair', 'kmalloc-8', 'instr/op')
		self.assertEqual(stats[pair]['a'].by_run, {0: 1.0, 1: 3.0})
		self.assertEqual(stats[pair]['a'].median, 2.0)
		self.assertEqual(stats[pair]['b'].n, 1)

	def test_metric(self):
		self.assertEqual(Metric('sys', 'iperf3-tcp', '', 'Mbit/s').better, 'higher')
		self.assertEqual(Metric('sys', 'churn', '', 's').better, 'lower')
		self.assertEqual(Metric('sys', 'churn', '', 's').label, 'sys churn')
		# slqb-sysbench's rates
		for unit in ('trans/s', 'dgram/s', 'ops/s'):
			self.assertEqual(Metric('sys', 'x', '', unit).better, 'higher')

	def test_table_rows(self):
		samples = []
		for run in (0, 1):
			samples += [sample('slqb', run, 'icount', 'pair', 'kmalloc-8', 'instr/op', 120.0),
				    sample('slub', run, 'icount', 'pair', 'kmalloc-8', 'instr/op', 100.0),
				    sample('slqb', run, 'sys', 'churn', '', 's', 2.0 + run)]
		samples.append(sample('slub', 0, 'sys', 'churn', '', 's', 2.5))
		rows = bench_report.table_rows(bench_report.collect(samples),
						    Pairing(['slqb', 'slub'], ['slqb'], ['slub']))
		self.assertEqual(rows, [
			['metric', 'unit', 'better', 'slqb', 'slub', 'slqb/slub'],
			['icount pair kmalloc-8', 'instr/op', 'lower', '120 ±0%', '100 ±0%', '1.20'],
			['sys churn', 's', 'lower', '2.5 ±40%', '2.5 ±0%', '1.00?']])

	def test_table_missing_kernel(self):
		stats = bench_report.collect([sample('a', 0, 'sys', 'x', '', 's', 1.0)])
		rows = bench_report.table_rows(stats, Pairing(['a', 'b'], ['a'], ['b']))
		self.assertEqual(rows[1][3:], ['1 ±0%', '-', '-'])

	def test_behind_best(self):
		samples = []
		for run in (0, 1):
			samples += [
				sample('slqb', run, 'icount', 'pair', 'kmalloc-8', 'instr/op', 200.0),
				sample('slub', run, 'icount', 'pair', 'kmalloc-8', 'instr/op', 100.0),
				sample('slab', run, 'icount', 'pair', 'kmalloc-8', 'instr/op', 150.0),
				sample('slqb', run, 'sys', 'iperf3-tcp', '', 'Mbit/s', 50.0),
				sample('slub', run, 'sys', 'iperf3-tcp', '', 'Mbit/s', 150.0),
				sample('slab', run, 'sys', 'iperf3-tcp', '', 'Mbit/s', 200.0),
				sample('slqb', run, 'sys', 'churn', '', 's', [9.0, 11.0][run]),
				sample('slub', run, 'sys', 'churn', '', 's', 10.0),
				sample('slqb', run, 'mem', 'Slab boot', '', 'kB', 900.0),
				sample('slub', run, 'mem', 'Slab boot', '', 'kB', 100.0),
				# a share of a profile, not an outcome: never "behind"
				sample('slqb', run, 'prof', 'churn', '', '% busy', 50.0),
				sample('slub', run, 'prof', 'churn', '', '% busy', 1.0)]
		stats = bench_report.collect(samples)
		worst = bench_report.behind_best(stats, 'slqb', ['slub', 'slab'])
		self.assertEqual([(m.label, who, round(times, 2)) for m, times, who, _ in worst],
				 [('sys iperf3-tcp', 'slab', 4.0), ('icount pair kmalloc-8', 'slub', 2.0)])
		self.assertEqual(len(bench_report.behind_best(stats, 'slqb', ['slub'],
								   count=1)), 1)

	def test_fmt_value(self):
		fmt = bench_report.fmt_value
		self.assertEqual([fmt(v) for v in (12345.4, 100.0, 12.34, 0.866, 5.0, 0.0001234)],
				 ['12345', '100', '12.3', '0.866', '5', '0.000123'])

	def test_format_table_and_csv(self):
		rows = [['a', 'bb'], ['ccc', 'd']]
		self.assertEqual(bench_report.format_table(rows),
				 'a    bb\n---  --\nccc   d')
		self.assertEqual(bench_report.csv_text([['a,b', 'c'], ['1', '2']]),
				 'a;b,c\n1,2\n')
		self.assertEqual(bench_report.samples_csv(
			[sample('k', 0, 'sys', 'churn', '', 's', 2.5)]),
			'kernel,run,group,case,object,unit,better,value\n'
			'k,0,sys,churn,,s,lower,2.5\n')

	def test_counter_deltas(self):
		before = {'phase': 'before', 'case': 'pair', 'cache': 'kmalloc-64'}
		after = {'phase': 'after', 'case': 'pair', 'cache': 'kmalloc-64'}
		before.update({c: '5' for c in slqb_bench.COUNTER_COLUMNS}, alloc='100')
		after.update({c: '7' for c in slqb_bench.COUNTER_COLUMNS}, alloc='2100',
			     free='x')
		small = dict(after, cache='kmalloc-8', alloc='150')
		rows = slqb_bench.counter_deltas([before, dict(before, cache='kmalloc-8'),
						  after, small])
		self.assertEqual(rows[0], ['case', 'cache'] + list(slqb_bench.COUNTER_COLUMNS))
		self.assertEqual(len(rows), 2)
		delta = dict(zip(rows[0], rows[1]))
		self.assertEqual((delta['alloc'], delta['free'], delta['trim_objects']),
				 ('2000', '0', '2'))
		view = slqb_bench.counter_view(rows)
		self.assertEqual(view[1][:4], ['pair', 'kmalloc-64', '2000', '0.1'])

	def test_page_trips_view(self):
		def ours(case, allocs, new, freed):
			return [case, 'kmalloc-64', str(allocs), new, freed]
		slqb = [['case', 'cache', 'alloc', 'alloc_slab_new', 'flush_slab_free'],
			ours('batch', 4000, '10', '10'), ours('bulk', 2000, '0', '0'),
			ours('pair', 1000, '1', '0'), ours('rcu', 5000, '3', '1')]
		slub = [['case', 'cache'] + list(slqb_bench.SLUB_COUNTER_COLUMNS),
			['batch', 'kmalloc-64', '9', '9', '8', '4'],
			['bulk', 'kmalloc-64', '0', '0', '0', '0'],
			['pair', 'kmalloc-64', '5', '5', '0', '0']]
		line, rows = slqb_bench.page_trips_view(slqb, slub)
		self.assertEqual(rows[1], ['batch', 'kmalloc-64', '4000', '10', '10',
					   '8', '4', '5.0', '3.0', '1.67'])
		self.assertEqual(rows[2][-3:], ['0.0', '0.0', '-'])
		self.assertEqual(rows[3][-3:], ['1.0', '0.0', 'inf'])
		# no SLUB row for rcu: left out rather than compared with nothing
		self.assertEqual(len(rows), 4)
		# pair: 1 trip against none in 1000 allocations counts, batch's
		# 20 against 12 in 4000 too
		self.assertIn('3 case/cache rows; SLQB makes more round trips than '
			      'SLUB in 2, more than 1.1x and by at least one per 1000 '
			      'allocations in 2: batch/kmalloc-64, pair/kmalloc-64',
			      line)
		slqb[1][3:5] = ['7', '6']	# 13 against 12: above, not by 1.1x
		line = slqb_bench.page_trips_view(slqb, slub)[0]
		self.assertIn('in 2, more than 1.1x and by at least one per 1000 '
			      'allocations in 1: pair/kmalloc-64', line)

	def test_workload_trips(self):
		def dump(cache, **counters):
			return dict({'phase': 'after', 'case': 'workloads',
				     'cache': cache},
				    **{k: str(v) for k, v in counters.items()})
		slqb = [dump('filp', alloc=1000, alloc_slab_new=30,
			     flush_slab_free=20),
			dump('kmalloc-64', alloc=3000, alloc_slab_new=5,
			     flush_slab_free=5),
			# a micro case's dump and a cache without counters count not
			dict(dump('filp', alloc=10 ** 6, alloc_slab_new=1,
				  flush_slab_free=1), case='pair'),
			dump('odd', alloc='x', alloc_slab_new=1, flush_slab_free=1)]
		self.assertEqual(slqb_bench.workload_trips(slqb, 'slqb'),
				 (4000, 35, 25))
		slub = [dump(':0000256', alloc_fastpath=900, alloc_slowpath=100,
			     alloc_slab=40, free_slab=30)]
		self.assertEqual(slqb_bench.workload_trips(slub, 'slub'),
				 (1000, 40, 30))
		# SLUB's dump has none of SLQB's names, and the other way round
		self.assertIsNone(slqb_bench.workload_trips(slub, 'slqb'))
		self.assertIsNone(slqb_bench.workload_trips(slqb, 'slub'))
		self.assertEqual(
			slqb_bench.workload_trips_line('SLQB', (4000, 35, 25)),
			'SLQB: 35 slabs taken and 25 given back for 4000 '
			'allocations, 15.0 round trips per 1000 allocations')
		self.assertEqual(slqb_bench.workload_trips_line('SLUB', None),
				 'SLUB: no counters after the workloads')

	def test_trim_view(self):
		def dump(cache, runs, ns, objs, batch, **extra):
			return dict({'phase': 'after', 'case': 'workloads',
				     'cache': cache, 'trim_runs': str(runs),
				     'trim_objects': str(3 * objs),
				     'trim_worst_ns': str(ns),
				     'trim_worst_objects': str(objs),
				     'hiwater': str(4 * batch),
				     'freebatch': str(batch)}, **extra)
		line, rows = slqb_bench.trim_view([
			dump('dentry', 4, 900, 16, 16),
			dump('kmalloc-64', 9, 4000, 200, 64),
			dump('idle', 0, 0, 0, 8),
			dump('kmalloc-8', 9, 50000, 1, 64, phase='before'),
			dump('pair-case', 9, 70000, 1, 64, case='pair'),
			dump('broken', 9, 'x', 1, 64)])
		self.assertEqual([r[0] for r in rows],
				 ['cache', 'kmalloc-64', 'dentry'])
		self.assertEqual(rows[1], ['kmalloc-64', '9', '600', '4000', '200',
					   '64', '256'])
		self.assertIn('2 caches trimmed; worst pass 4000 ns, most objects '
			      'in one pass 200; passes over freebatch in 1 of them',
			      line)
		self.assertEqual(slqb_bench.trim_view([])[1], [])


class BenchVariantTest(unittest.TestCase):
	"""slqb_bench: --kernel NAME=ALLOC[:CONFIG_X=V,...], --baseline."""

	def test_parse_variant(self):
		v = slqb_bench.parse_variant('nodebug=slqb')
		self.assertEqual((v.name, v.spec.alloc, v.asked), ('nodebug', 'slqb', ()))
		self.assertEqual(v.spec.extras, slqb_bench.BENCH_EXTRAS)
		v = slqb_bench.parse_variant('debug=slqb:CONFIG_SLQB_DEBUG=y,CONFIG_NR_CPUS=4')
		self.assertEqual(v.asked, ('CONFIG_SLQB_DEBUG=y', 'CONFIG_NR_CPUS=4'))
		self.assertEqual(v.spec.extras, slqb_bench.BENCH_EXTRAS + v.asked)
		self.assertEqual(slqb_bench.parse_variant('a.b+c_d-1=slob:').asked, ())

	def test_params_reach_only_their_kernels_boots(self):
		args = mock.Mock(cpus=2, nodes=1, icount_runs=1, timeout=60,
				 verbose=False, plugin='/p/slqb-cache.so', profile=True,
				 icount_sys=False)
		seen = []

		def boot(paths, prepared, name, run_no, shape, append, icount,
			 timeout, verbose, kvm=False, plugin=None, pcs=False):
			seen.append((name, icount, append, kvm))
			# the cache model rides on the icount boots only, and
			# with --profile attributes to functions
			self.assertEqual(plugin, args.plugin if icount else None)
			self.assertEqual(pcs, icount)
			self.assertEqual('model=1' in append, icount, append)
			# a kernel with KASLR gets nokaslr on its icount boots
			self.assertEqual(' nokaslr' in append, icount and name == 'a',
					 append)
			return mock.Mock()
		with mock.patch.object(slqb_bench, 'boot_bench', boot), \
		     mock.patch.object(slqb_bench, 'icount_fixed',
				       lambda paths, prep: ' nokaslr' if prep == 'A' else ''):
			slqb_bench.run_boots(None, {'a': 'A', 'b': 'B'}, ['a', 'b'],
					     args, slqb_bench.QUICK, 2,
					     params={'a': '', 'b': 'slqb_min_order=1'},
					     kvm=True)
		self.assertEqual(len(seen), 6)	# icount in run 0 only, tcg in both
		for name, icount, append, kvm in seen:
			self.assertEqual(append.endswith(' slqb_min_order=1'),
					 name == 'b', (name, icount, append))
			# KVM runs the wall-clock boots, never the icount ones
			self.assertEqual(kvm, not icount, (name, icount))

	def test_icount_sys_boots(self):
		"""--icount-sys: in the icount runs, one more 1-vCPU icount boot
		per kernel, of the workloads alone, without the cache model."""
		args = mock.Mock(cpus=2, nodes=1, icount_runs=1, timeout=60,
				 verbose=False, plugin='/p/slqb-cache.so', profile=False,
				 icount_sys=True)
		seen = []

		def boot(paths, prepared, name, run_no, shape, append, icount,
			 timeout, verbose, kvm=False, plugin=None, pcs=False,
			 group=None):
			seen.append((name, run_no, group))
			if group == 'sys-icount':
				self.assertTrue(icount)
				self.assertIsNone(plugin)
				self.assertEqual(shape.cpus, 1)
				self.assertEqual(timeout, 60 * slqb_bench.SYS_ICOUNT_TIMEOUT_FACTOR)
				workloads = re.search(r'slqbtest.bench=(\S+)', append).group(1)
				self.assertNotIn('micro', workloads.split(','))
				self.assertIn('net', workloads.split(','))
			return mock.Mock()
		with mock.patch.object(slqb_bench, 'boot_bench', boot), \
		     mock.patch.object(slqb_bench, 'icount_fixed', lambda p, q: ''):
			slqb_bench.run_boots(None, {'a': 'A', 'b': 'B'}, ['a', 'b'],
					     args, slqb_bench.QUICK, 2)
		self.assertEqual(sorted(s for s in seen if s[2] == 'sys-icount'),
				 [('a', 0, 'sys-icount'), ('b', 0, 'sys-icount')])
		# icount and sys-icount in run 0, tcg in both
		self.assertEqual(len(seen), 8)
		args.icount_sys = False
		seen.clear()
		with mock.patch.object(slqb_bench, 'boot_bench', boot), \
		     mock.patch.object(slqb_bench, 'icount_fixed', lambda p, q: ''):
			slqb_bench.run_boots(None, {'a': 'A'}, ['a'], args,
					     slqb_bench.QUICK, 1)
		self.assertEqual([s[2] for s in seen], [None, None])

	def test_choose_accel(self):
		"""--accel: tcg never probes; auto falls back with the reason;
		kvm fails with it."""
		def never():
			raise AssertionError('probed')
		self.assertEqual(slqb_bench.choose_accel('tcg', never),
				 (False, 'TCG (--accel tcg)'))
		kvm, text = slqb_bench.choose_accel('auto', lambda: None)
		self.assertTrue(kvm)
		self.assertIn('-accel kvm -cpu host', text)
		kvm, text = slqb_bench.choose_accel('auto', lambda: 'no /dev/kvm')
		self.assertFalse(kvm)
		self.assertIn('TCG, since KVM is unusable here (no /dev/kvm)', text)
		with self.assertRaises(SlqbError) as cm:
			slqb_bench.choose_accel('kvm', lambda: 'no /dev/kvm')
		self.assertEqual(cm.exception.exit_code, 1)
		self.assertIn('--accel kvm: no /dev/kvm', str(cm.exception))

	def test_probe_kvm(self):
		"""The probe: no device means no boot; a boot must run to the
		bench's end with a number, under KVM, in the shape asked for."""
		missing = os.path.join(SCRATCH.path, 'no-kvm')
		self.assertIn('No such file',
			      slqb_bench.kvm_device_problem(missing))
		self.assertIsNone(slqb_bench.kvm_device_problem('/dev/null'))
		lines = fixture_lines('bench-console.log')
		asked = []

		def boot(paths, prepared, req, name, log_name):
			asked.append(req)
			return mock.Mock(errors=errors, run=mock.Mock(lines=lines),
					 log_path='/l/probe.log')
		with mock.patch.object(slqb_bench, 'kvm_device_problem',
				       return_value=None), \
		     mock.patch.object(slqb_bench, 'boot_kernel', boot):
			errors = []
			self.assertIsNone(slqb_bench.probe_kvm(
				None, None, 'slqb', slqb_bench.QUICK, Shape(4, 2)))
			self.assertTrue(asked[0].kvm)
			self.assertFalse(asked[0].icount)
			self.assertEqual(asked[0].shape, Shape(4, 2))
			self.assertIn('cases=pair', asked[0].append)
			errors = ['QEMU exited with status 1. Last lines:\n  x']
			self.assertEqual(slqb_bench.probe_kvm(
				None, None, 'slqb', slqb_bench.QUICK, Shape(2)),
				'a KVM boot failed: QEMU exited with status 1. Last '
				'lines: (log: /l/probe.log)')
			errors, lines = [], lines[:3]	# no end line
			self.assertIn('did not finish', slqb_bench.probe_kvm(
				None, None, 'slqb', slqb_bench.QUICK, Shape(2)))
		with mock.patch.object(slqb_bench, 'kvm_device_problem',
				       return_value='/dev/kvm: gone'), \
		     mock.patch.object(slqb_bench, 'boot_kernel', never_boot):
			self.assertEqual(slqb_bench.probe_kvm(
				None, None, 'slqb', slqb_bench.QUICK, Shape(2)),
				'/dev/kvm: gone')

	def test_parse_variant_params(self):
		# kernel parameters: the same build as a plain kernel, booted
		# another way
		v = slqb_bench.parse_variant('ab=slqb:+slqb_min_order=1,+quiet,'
					     'CONFIG_NR_CPUS=4')
		self.assertEqual(v.params, ('slqb_min_order=1', 'quiet'))
		self.assertEqual(v.asked, ('CONFIG_NR_CPUS=4',))
		self.assertEqual(slqb_bench.parse_variant('p=slqb:+x=1').spec,
				 slqb_bench.parse_variant('q=slqb').spec)
		self.assertEqual(slqb_bench.kernels_field([v]),
				 'ab=slqb:CONFIG_NR_CPUS=4,+slqb_min_order=1,+quiet')

	def test_parse_variant_refuses(self):
		cases = [('slqb', 'expected NAME=ALLOC'), ('=slqb', 'expected NAME=ALLOC'),
			 ('-x=slqb', 'expected NAME=ALLOC'), ('a' * 33 + '=slqb', 'up to 32'),
			 ('x=slib', "unknown allocator 'slib'"),
			 ('x=slqb:CONFIG_A', "'CONFIG_A' is not CONFIG_X=V"),
			 ('x=slqb:,', 'no CONFIG_X=V or +PARAM after ":"'),
			 ('x=slqb:+', "'+' is not +PARAM"),
			 ('x=slqb:+a b', "'+a b' is not +PARAM"),
			 ('x=slqb:+a="b"', "is not +PARAM")]
		for text, words in cases:
			with self.assertRaises(SlqbError, msg=text) as cm:
				slqb_bench.parse_variant(text)
			self.assertIn(words, str(cm.exception))
			self.assertEqual(cm.exception.exit_code, 2)

	def test_on_base_config(self):
		"""--base-config: the variants' kernels come from the file, with
		their own config lines and none of the bench's."""
		path = os.path.join(SCRATCH.path, 'bench-base.config')
		with open(path, 'w', encoding='utf-8') as f:
			f.write('CONFIG_X86_64=y\nCONFIG_SLUB=y\nCONFIG_MEMCG=y\n')
		plain = slqb_bench.parse_variants(['a=slqb', 'b=slub:CONFIG_NR_CPUS=4'])
		based = slqb_bench.on_base_config(plain, path)
		self.assertEqual([(v.name, v.spec.alloc, v.spec.extras) for v in based],
				 [('a', 'slqb', ()), ('b', 'slub', ('CONFIG_NR_CPUS=4',))])
		self.assertEqual({v.spec.base_digest for v in based},
				 {based[0].spec.base_digest})
		self.assertIn('-base-', based[0].spec.name)
		self.assertNotEqual(based[0].spec.name, plain[0].spec.name)
		line = slqb_bench.kernels_line(based, path)
		self.assertIn(f'--base-config {path}', line)
		self.assertIn(slqb_bench.SWITCH_CHANGES, line)
		self.assertIn('CONFIG_KUNIT=n', slqb_bench.kernels_line(plain, ''))
		with self.assertRaises(SlqbError) as cm:
			slqb_bench.on_base_config(plain, path + '.missing')
		self.assertEqual(cm.exception.exit_code, 2)

	def test_check_args_base_config(self):
		"""--base-config turns the arm64 boots off by default and refuses
		them, and --counters, when asked for."""
		def args(**kw):
			base = dict(runs=None, timeout=None, cpus=2, nodes=1,
				    profile=False, counters=False, base_config=None,
				    icount_arm64=None, accel='auto', icount_sys=False)
			base.update(kw)
			return mock.Mock(**base)
		a = args()
		slqb_bench.check_args(a)
		self.assertIs(a.icount_arm64, True)
		a = args(base_config='x.config')
		slqb_bench.check_args(a)
		self.assertFalse(a.icount_arm64)
		for kw, words in (({'icount_arm64': True}, 'leave out --icount-arm64'),
				  ({'counters': True}, 'does not go with --base-config')):
			with self.assertRaises(SlqbError) as cm:
				slqb_bench.check_args(args(base_config='x.config', **kw))
			self.assertIn(words, str(cm.exception))
			self.assertEqual(cm.exception.exit_code, 2)
		# --accel kvm fails before any build where there is no device
		with mock.patch.object(slqb_bench, 'kvm_device_problem',
				       return_value='/dev/kvm: gone'):
			with self.assertRaisesRegex(SlqbError, '--accel kvm: /dev/kvm: gone'):
				slqb_bench.check_args(args(accel='kvm'))
			slqb_bench.check_args(args(accel='tcg'))
		with self.assertRaisesRegex(SlqbError, 'does not go with --accel'):
			slqb_bench.check_args(args(counters=True, accel='tcg'))

	def test_parse_variants(self):
		self.assertEqual([v.name for v in slqb_bench.parse_variants([])],
				 ['slqb', 'slub', 'slab', 'slob'])
		with self.assertRaisesRegex(SlqbError, 'used twice: a$'):
			slqb_bench.parse_variants(['a=slqb', 'b=slub', 'a=slab'])

	def test_pairing(self):
		pairing_for = slqb_bench.pairing_for
		default = slqb_bench.parse_variants([])
		p = pairing_for(default, None)
		self.assertEqual((p.subjects, p.baselines), (['slqb'], ['slub', 'slab', 'slob']))
		self.assertEqual(p.columns()[0], ('slqb', 'slub'))
		two = slqb_bench.parse_variants(['nodebug=slqb', 'debug=slqb'])
		p = pairing_for(two, None)
		self.assertEqual((p.subjects, p.baselines), (['nodebug'], ['debug']))
		p = pairing_for(two, ['nodebug'])
		self.assertEqual((p.subjects, p.baselines), (['debug'], ['nodebug']))
		mixed = slqb_bench.parse_variants(['x=slob', 'y=slqb', 'z=slub'])
		self.assertEqual(pairing_for(mixed, None).baselines, ['z', 'x'])
		with self.assertRaisesRegex(SlqbError, 'not a kernel of this run'):
			pairing_for(two, ['nosuch'])
		with self.assertRaisesRegex(SlqbError, 'nothing left'):
			pairing_for(two, ['nodebug', 'debug'])

	def test_boot_order(self):
		self.assertEqual(slqb_bench.boot_order(['a', 'b', 'c'], 1), ['b', 'c', 'a'])
		self.assertEqual(slqb_bench.boot_order(['a', 'b', 'c'], 3), ['a', 'b', 'c'])

	def test_bench_append(self):
		text = slqb_bench.bench_append(slqb_bench.QUICK, 'micro', 'pair,rcu')
		self.assertEqual(text.split(), [
			'random.trust_cpu=on', 'slqbtest.bench=micro',
			'slqbtest.benchmod=sizes=8,64,512,4096:rounds=3:loops=10000:'
			'objs=1024:rcu_objs=5000:cases=pair,rcu',
			'slqbtest.hackbench=2:30', 'slqbtest.churn=80', 'slqbtest.iperf=2',
			'slqbtest.statcases=' + slqb_bench.STAT_CASES, 'slqbtest.sysreps=3'])
		text = slqb_bench.bench_append(slqb_bench.QUICK, 'micro', 'remote',
					       serial=True)
		self.assertIn('slqbtest.benchmod=sizes=8,64,512,4096:rounds=3:'
			      'loops=10000:objs=1024:rcu_objs=5000:cases=remote:'
			      'serial=1', text.split())

	def test_bench_params_refuse_repeats(self):
		for reps in (0, 100):
			with self.assertRaisesRegex(ValueError, 'sysreps'):
				slqb_guest.bench_params('micro', 'x=1', '2:30', 80, 2,
							'pair', reps)

	def test_boot_group(self):
		self.assertEqual(slqb_bench.boot_group(True, 'x86_64'), 'icount')
		self.assertEqual(slqb_bench.boot_group(True, 'arm64'), 'icount-arm64')
		self.assertEqual(slqb_bench.boot_group(False, 'arm64'), 'tcg')
		v = slqb_bench.arm64_variant(slqb_bench.parse_variant('k=slqb'))
		self.assertEqual((v.name, v.spec.arch, v.spec.alloc),
				 ('k', 'arm64', 'slqb'))
		self.assertTrue(v.spec.name.startswith('arm64-slqb-'))


class BenchModelTest(unittest.TestCase):
	"""slqb_bench.model: the cache model's rows, from a real boot's
	console and plugin log (kmalloc-64, 3 rounds)."""

	def test_model_samples(self):
		console = fixture_lines('bench-model-console.log')
		plugin = fixture_lines('bench-model-plugin.log')
		got = {(s.metric.case, s.metric.obj): s.value for s in
		       bench_model.model_samples(console, plugin, 'slqb', 1)}
		self.assertAlmostEqual(got[('pair l1', 'kmalloc-64')], 140 / 15000)
		self.assertAlmostEqual(got[('pair tlb', 'kmalloc-64')], 76 / 15000)
		self.assertAlmostEqual(got[('batch-alloc l2', 'kmalloc-64')], 1903 / 6144)
		self.assertAlmostEqual(got[('batch-free l1', 'kmalloc-64')], 7362 / 6144)
		self.assertAlmostEqual(got[('bulk-free tlb', 'kmalloc-64')], 233 / 6144)
		# pair has one meter; report 2 has both; nothing else
		self.assertEqual(len(got), 3 * 5)
		samples = bench_model.model_samples(console, plugin, 'slqb', 1)
		self.assertEqual({(s.kernel, s.run, s.metric.group, s.metric.unit)
				  for s in samples}, {('slqb', 1, 'model', 'miss/op')})
		# a report the plugin did not write gives no row
		self.assertEqual(bench_model.model_samples(console, plugin[:2], 'k', 0)[-1]
				 .metric.case, 'pair tlb')
		self.assertEqual(bench_model.model_samples(console, [], 'k', 0), [])

	def test_plugin_reports(self):
		got = bench_model.plugin_reports([
			'SLQB-MODEL report=2 meter=1 insns=5 accesses=4 l1_miss=3 '
			'l2_miss=2 tlb_miss=1',
			'SLQB-MODEL report=x meter=1 l1_miss=3 l2_miss=2 tlb_miss=1',
			'SLQB-MODEL report=3 meter=0 l1_miss=3',
			'noise'])
		self.assertEqual(got, {(2, 1): {'l1_miss': 3, 'l2_miss': 2,
						'tlb_miss': 1}})

	def test_qemu_args_and_aggregate(self):
		self.assertEqual(bench_model.qemu_args('/c/p.so', '/l/m.log'),
				 ('-plugin', 'file=/c/p.so', '-d', 'plugin', '-D', '/l/m.log'))
		# the summary's model rows are arithmetic means: counts can be 0
		rows = bench_report.aggregate([
			sample('k', 0, 'model', 'pair l2', 'kmalloc-8', 'miss/op', 0.0),
			sample('k', 0, 'model', 'pair l2', 'kmalloc-64', 'miss/op', 0.5)])
		self.assertEqual([(r.metric.obj, r.value) for r in rows], [('mean', 0.25)])
		# not among the rows furthest behind: see behind_best()
		stats = bench_report.collect([
			sample('k', 0, 'model', 'pair l1', 'kmalloc-8', 'miss/op', 9.0),
			sample('b', 0, 'model', 'pair l1', 'kmalloc-8', 'miss/op', 1.0)])
		self.assertEqual(bench_report.behind_best(stats, 'k', ['b']), [])


class BenchAttributionTest(unittest.TestCase):
	"""slqb_bench.model: the attribution to functions (pcs=on), from a real
	boot's plugin lines for the batch case of kmalloc-64 (those with the
	most instructions or misses) and the System.map lines they need."""
	CONSOLE = ['SLQB-BENCH begin alloc=slqb kernel=6.1.192',
		   '[    1.544333] slqb_bench: SLQB-BENCH model report=1 '
		   'case=batch obj=kmalloc size=64 ops=2048 rounds=3 '
		   'meters=batch-alloc,batch-free']
	ALLOCATOR = ['__kmem_cache_free', '__kmem_cache_alloc_node', 'kfree',
		     'slab_post_alloc_hook', 'slab_pre_alloc_hook.constprop.0',
		     'slqb_flush_lifo']

	def attribution(self):
		return bench_model.attribution(
			self.CONSOLE, fixture_lines('bench-model-pcs.log'),
			bench_model.Symbols(open(fixture_path('bench-model-System.map'), encoding='utf-8').read()))

	def test_plugin_pcs(self):
		got = bench_model.plugin_pcs([
			'SLQB-MODEL-PC report=1 meter=0 pc=ffffffff810e4355 insns=6144 '
			'l1_miss=5 l2_miss=1 tlb_miss=0',
			'SLQB-MODEL-PC report=1 meter=0 pc=zz insns=1 l1_miss=0 '
			'l2_miss=0 tlb_miss=0',
			'SLQB-MODEL-PC report=1 meter=1 pc=10 insns=1',
			'SLQB-MODEL report=1 meter=0 insns=5 l1_miss=0 l2_miss=0 tlb_miss=0'])
		self.assertEqual(got, {(1, 0): {0xffffffff810e4355: [6144, 5, 1, 0]}})

	def test_symbols(self):
		syms = bench_model.Symbols(open(fixture_path('bench-model-System.map'), encoding='utf-8').read())
		self.assertEqual(syms.function(0xffffffff810e4355),
				 '__kmem_cache_alloc_node')
		# past the kernel's text, or before it: the bench module's
		self.assertEqual(syms.function(0xffffffffa00007e0),
				 bench_model.MODULE_FUNCTION)
		self.assertEqual(syms.function(0x1000), bench_model.MODULE_FUNCTION)
		self.assertEqual(bench_model.Symbols('').function(5),
				 bench_model.MODULE_FUNCTION)

	def test_attribution(self):
		att = self.attribution()
		self.assertEqual(set(att), {('batch-alloc', 'kmalloc-64'),
					    ('batch-free', 'kmalloc-64')})
		ops = 2048 * 3
		pcs = bench_model.plugin_pcs(fixture_lines('bench-model-pcs.log'))
		syms = bench_model.Symbols(open(fixture_path('bench-model-System.map'), encoding='utf-8').read())
		free = [c for pc, c in pcs[(1, 1)].items()
			if syms.function(pc) == '__kmem_cache_free']
		want = [sum(c[i] for c in free) / ops for i in range(4)]
		got = att[('batch-free', 'kmalloc-64')]['__kmem_cache_free']
		for w, g in zip(want, got):
			self.assertAlmostEqual(w, g)
		# the free writes each object's free pointer: a miss a free
		self.assertGreater(got[1], 0.99)
		self.assertLess(got[1], 1.01)
		# a report the console does not announce is not attributed
		self.assertEqual(bench_model.attribution(
			self.CONSOLE[:1], fixture_lines('bench-model-pcs.log'), syms), {})

	def test_kinds_and_rows(self):
		kinds = bench_model.function_kinds('/nonexistent', self.ALLOCATOR)
		self.assertEqual(kinds['kfree'], 'allocator')
		self.assertEqual(kinds['slab_post_alloc_hook'], 'hooks')
		self.assertEqual(kinds['slab_pre_alloc_hook.constprop.0'], 'hooks')
		self.assertEqual(bench_model.kind_of('memcpy', kinds), 'other')
		self.assertEqual(bench_model.kind_of(bench_model.MODULE_FUNCTION, kinds),
				 'bench')
		att = self.attribution()
		rows = {(s.metric.group, s.metric.case): s.value for s in
			bench_model.attribution_samples(att, kinds, 'slqb', 0)}
		free = att[('batch-free', 'kmalloc-64')]
		self.assertAlmostEqual(rows[('own', 'batch-free')],
				       sum(free[n][0] for n in free
					   if kinds.get(n) == 'allocator'))
		self.assertAlmostEqual(rows[('hooks', 'batch-alloc')],
				       att[('batch-alloc', 'kmalloc-64')]
				       ['slab_post_alloc_hook'][0] +
				       att[('batch-alloc', 'kmalloc-64')]
				       ['slab_pre_alloc_hook.constprop.0'][0])
		text = bench_model.attribution_text({'slqb': (att, kinds)})
		self.assertIn('batch-free kmalloc-64  (per operation', text)
		self.assertRegex(text, r'__kmem_cache_free +65\.0 1\.00\d/')
		# slqb_new_slab is not among the busiest, but misses: shown
		self.assertIn('slqb_new_slab', text)

	def test_own_rows_in_tables(self):
		# exact like icount, geometric means in the summary; hooks rows
		# (which can be 0) by arithmetic mean, and never "behind"
		rows = bench_report.aggregate([
			sample('k', 0, 'own', 'pair', 'kmalloc-8', 'instr/op', 4.0),
			sample('k', 0, 'own', 'pair', 'kmalloc-64', 'instr/op', 9.0),
			sample('k', 0, 'hooks', 'pair', 'kmalloc-8', 'instr/op', 0.0),
			sample('k', 0, 'hooks', 'pair', 'kmalloc-64', 'instr/op', 2.0)])
		self.assertEqual(sorted((r.metric.group, r.metric.obj, r.value)
					for r in rows),
				 [('hooks', 'mean', 1.0), ('own', 'geomean', 6.0)])
		stats = bench_report.collect([
			sample('k', 0, 'hooks', 'pair', 'kmalloc-8', 'instr/op', 9.0),
			sample('b', 0, 'hooks', 'pair', 'kmalloc-8', 'instr/op', 1.0),
			sample('k', 0, 'own', 'pair', 'kmalloc-8', 'instr/op', 9.0),
			sample('b', 0, 'own', 'pair', 'kmalloc-8', 'instr/op', 1.0)])
		self.assertEqual([m.group for m, _, _, _ in
				  bench_report.behind_best(stats, 'k', ['b'])], ['own'])
		table = bench_report.table_rows(stats, bench_report.Pairing(
			['k', 'b'], ['k'], ['b']))
		self.assertEqual([r[-1] for r in table[1:]], ['9.00', '9.00'])

	def test_write_profile(self):
		att = self.attribution()
		kinds = bench_model.function_kinds('/nonexistent', self.ALLOCATOR)

		def result(kernel, attribution, profiles):
			parsed = bench_report.Parsed([], [], [], [], True, True,
						     profiles, attribution, kinds)
			return slqb_bench.BootResult(kernel, 0, 'icount', parsed, [],
						     '/l/x.log', 1.0)
		out = os.path.join(SCRATCH.path, 'write-profile')
		os.makedirs(out, exist_ok=True)
		self.assertFalse(slqb_bench.write_profile(out, ['head'], [
			result('slqb', {}, [])]))
		self.assertFalse(os.path.exists(os.path.join(out, 'profile.txt')))
		perf = {'name': 'churn', 'kernel': 'slub', 'busy': '100',
			'alloc': '10', 'top': 'kfree:5'}
		self.assertTrue(slqb_bench.write_profile(out, ['head'], [
			result('slqb', att, []), result('slub', {}, [perf])]))
		with open(os.path.join(out, 'profile.txt'), encoding='utf-8') as f:
			text = f.read()
		self.assertTrue(text.startswith('head\n'), text[:50])
		self.assertIn(slqb_bench.PROFILE_HEAD, text)
		self.assertIn(slqb_bench.ATTRIBUTION_HEAD, text)
		self.assertIn('  slqb     allocator', text)

	def test_icount_fixed(self):
		prep = mock.Mock(spec=['spec'])
		for value, want in (('y', ' nokaslr'), (None, ''), ('n', '')):
			with mock.patch.object(slqb_bench, 'config_value',
					       lambda paths, spec, name, v=value:
					       v if name == 'CONFIG_RANDOMIZE_BASE' else 'y'):
				self.assertEqual(slqb_bench.icount_fixed(None, prep), want)

	def test_qemu_args_pcs(self):
		self.assertEqual(bench_model.qemu_args('/c/p.so', '/l/m.log', pcs=True),
				 ('-plugin', 'file=/c/p.so,pcs=on', '-d', 'plugin',
				  '-D', '/l/m.log'))


class BenchResultTest(unittest.TestCase):
	"""slqb_bench: result.rst, the run in the format of results/, written
	from the summary of the made-up bench console."""

	def summary(self, out_dir):
		"""summary.txt of a two-kernel run on bench-console.log."""
		lines = fixture_lines('bench-console.log')
		samples = []
		for run in (0, 1):
			for kernel in ('slqb', 'slub'):
				samples += bench_report.parse_console(lines, kernel,
									   run, 'tcg').samples
		variants = slqb_bench.parse_variants(['slqb=slqb', 'slub=slub'])
		with mock.patch.object(slqb_bench, 'host_description',
				       return_value='host: 2 x CPU, 1 GiB, QEMU 7.2'):
			head = slqb_bench.header_lines(variants, Shape(2, 1), 2,
						       slqb_bench.QUICK, True,
						       'Linux 6.1.192', False,
						       '2026-12-06 02:29 UTC')
		head.append('console logs: a.log, b.log (in /cache/logs)')
		pairing = slqb_bench.pairing_for(variants, None)
		with mock.patch.object(slqb_bench, 'write_plot', return_value=None):
			return slqb_bench.write_report(out_dir, head, samples, pairing,
						       ['name=perf rc=1'])

	def test_write_result(self):
		out_dir = os.path.join(SCRATCH.path, 'bench-result')
		summary = self.summary(out_dir)
		variants = slqb_bench.parse_variants(
			['slqb=slqb', 'rnd=slqb:CONFIG_SLAB_FREELIST_RANDOM=y'])
		path = slqb_bench.write_result(
			out_dir, '20261206-021243',
			'tools/testing/slqb/slqb.py bench --quick', '2026-12-06 02:29 UTC',
			'c047b2c-dirty', variants, '5m22s', summary)
		self.assertEqual(path, os.path.join(out_dir, 'result.rst'))
		with open(os.path.join(out_dir, 'summary.txt'), encoding='utf-8') as f:
			self.assertEqual(f.read(), summary)
		result = slqb_results.read_result(path)
		self.assertEqual((result.run_id, result.command, result.date, result.tree,
				  result.kernels, result.duration, result.showed),
				 ('20261206-021243', 'tools/testing/slqb/slqb.py bench --quick',
				  '2026-12-06 02:29 UTC', 'c047b2c-dirty',
				  'slqb=slqb, rnd=slqb:CONFIG_SLAB_FREELIST_RANDOM=y',
				  '5m22s', ''))
		# the summary as summary.txt has it, but for the local log names
		self.assertEqual(result.summary, [l for l in summary.rstrip().splitlines()
						  if not l.startswith('console logs:')])
		self.assertNotIn('console logs:', '\n'.join(result.summary))
		with open(path, encoding='utf-8') as f:
			text = f.read()
		self.assertTrue(text.startswith('.. SPDX-License-Identifier: GPL-2.0\n'))
		self.assertNotRegex(text, r'[ \t]\n')
		head, rows, behind = slqb_results.headline(result)
		self.assertEqual(head[0], 'slqb bench --quick: 2026-12-06 02:29 UTC, '
				 'Linux 6.1.192, 2 run(s), tcg shape 2 CPUs; node0: '
				 'cpu0-1, 512M; icount boots: 1 vCPU')
		self.assertEqual([slqb_results.row_metric(r) for r in rows[2:]], [
			'tcg pair geomean', 'tcg-min pair geomean',
			'mem Slab boot', 'mem SUnreclaim boot', 'mem slab_pages boot',
			'mem Slab dropped', 'mem SUnreclaim dropped',
			'mem slab_pages dropped'])
		self.assertEqual(slqb_results.split_summary(result.summary).rest,
				 ['1 problem(s):', '    name=perf rc=1'])

	def test_command_line(self):
		self.assertEqual(slqb_bench.command_line(
			['/x/slqb.py', 'bench', '--kernel', 'r=slqb:CONFIG_X="a b"']),
			'tools/testing/slqb/slqb.py bench --kernel \'r=slqb:CONFIG_X="a b"\'')
		self.assertEqual(slqb_bench.command_line(['slqb.py']),
				 'tools/testing/slqb/slqb.py')

	def test_tree_description(self):
		with mock.patch.object(slqb_bench, 'run', return_value=mock.Mock(
				returncode=0, stdout='c047b2c-dirty\n')) as run:
			self.assertEqual(slqb_bench.tree_description('/repo'), 'c047b2c-dirty')
		self.assertEqual(run.call_args[0][0],
				 ['git', '-C', '/repo', 'describe', '--always', '--dirty'])
		with mock.patch.object(slqb_bench, 'run', return_value=mock.Mock(
				returncode=128, stdout='')):
			self.assertIn('unknown', slqb_bench.tree_description('/repo'))

	def test_record_hint(self):
		hint = slqb_bench.record_hint('/cache/bench/20261206-021243/result.rst',
					      '20261206-021243')
		self.assertIn('cp /cache/bench/20261206-021243/result.rst '
			      'tools/testing/slqb/results/20261206-021243.rst', hint)
		self.assertIn('What it showed', hint)


# ---------------------------------------------------------------- in the repository

class CommittedResultsTest(unittest.TestCase):
	"""The results files of tools/testing/slqb/results/, and the cover
	letter that `slqb series` makes of the newest one."""

	def test_committed_results(self):
		"""Every file of tools/testing/slqb/results/ reads, and has the
		rows the cover letter takes."""
		files = slqb_results.result_files()
		self.assertTrue(files, 'tools/testing/slqb/results/ holds no results file')
		for path in files:
			with self.subTest(path=os.path.basename(path)):
				result = slqb_results.read_result(path)
				self.assertTrue(result.showed, 'no "What it showed" paragraph')
				head, rows, behind = slqb_results.headline(result)
				self.assertTrue(head[0].startswith('slqb bench'))
				self.assertTrue(behind)

	def test_bench_section_real(self):
		"""The cover letter's numbers, from the real newest results file."""
		path = slqb_results.latest_result()
		self.assertIsNotNone(path, 'tools/testing/slqb/results/ is empty')
		result = slqb_results.read_result(path)
		lines = slqb_series.bench_section(REPO)
		text = '\n'.join(lines)
		self.assertIn(f'tools/testing/slqb/results/{result.run_id}.rst', text)
		for field, value in (('Command', result.command), ('Date', result.date),
				     ('Tree', result.tree), ('Kernels', result.kernels)):
			self.assertRegex(text, rf'(?m)^  {field}: +{re.escape(value)}')
		self.assertIn(result.showed, text)
		parts = slqb_results.split_summary(result.summary)
		quoted = ['  ' + l for l in parts.head + parts.behind]
		self.assertTrue(all(l in lines for l in quoted))
		# the geometric means and the memory rows, nothing else of the table
		rows = [l[2:] for l in lines if l[2:] in parts.table[2:]]
		metrics = [slqb_results.row_metric(r) for r in rows]
		self.assertEqual(metrics, [slqb_results.row_metric(r) for r in parts.table[2:]
					   if r in slqb_results.headline_rows(parts.table)])
		self.assertTrue(any(m.endswith(' geomean') for m in metrics))
		self.assertTrue(any(m.startswith('mem ') for m in metrics))
		self.assertFalse([m for m in metrics if not m.endswith(' geomean') and
				  not m.startswith('mem ')])
		self.assertIn('  ' + parts.table[0], lines)
		self.assertTrue(any('furthest behind' in l for l in lines))

	def test_cover_letter_real(self):
		"""cover_letter() with the real results, git and date faked."""
		steps = slqb_series.read_plan(fixture_path('series-plan'))

		def fake_git(git_dir, *args, env=None):
			return {'shortlog': 'A (2):\n  one\n  two\n',
				'diff': ' 2 files changed\n'}[args[0]]
		bench = slqb_series.bench_section(REPO)
		with mock.patch.object(slqb_series, 'git', fake_git), \
		     mock.patch.object(slqb_series, 'run', return_value=mock.Mock(
			     stdout='Sun, 06 Dec 2026 02:29:00 +0000\n')):
			text = slqb_series.cover_letter('git-dir', steps, 'Linux 6.1.192',
							bench, '2026-12-06T02:29:00+00:00')
		lines = text.splitlines()
		self.assertEqual(lines[3], f'Subject: [PATCH 0/2] {slqb_series.COVER_SUBJECT}')
		self.assertIn('Linux 6.1.192.', lines)
		at = lines.index(bench[0])
		self.assertEqual(lines[at:at + len(bench)], bench)
		self.assertLess(at, lines.index('A (2):'))
		self.assertNotIn('no benchmark results', text)


class BenchPlaceTest(unittest.TestCase):
	"""Where the bench sits: its own exported patch, its check group, and
	the statistics its --counters view names."""

	def test_plan(self):
		steps = slqb_series.load_plan(REPO)
		names = [s.name for s in steps]
		bench = steps[names.index('09-bench')].files
		for path in ('tools/testing/slqb/slqb_bench/__init__.py',
			     'tools/testing/slqb/slqb_bench/report.py',
			     'tools/testing/slqb/slqb_bench/initramfs.py',
			     'tools/testing/slqb/slqb_bench/group.py',
			     'tools/testing/slqb/bench/slqb_bench.c',
			     'tools/testing/slqb/series/09-bench',
			     'tools/testing/slqb/test_data/bench-console.log'):
			self.assertIn(path, bench)
		self.assertIn(os.path.relpath(os.path.abspath(__file__), REPO), bench)
		self.assertTrue(slqb_results.result_files())
		for path in slqb_results.result_files():
			self.assertIn(os.path.relpath(path, REPO), bench)
		self.assertEqual([f for f in bench if not f.startswith('tools/testing/slqb/')], [])
		self.assertLess(names.index('08-harness'), names.index('09-bench'))

	def test_group(self):
		groups = list(slqb_checks.select_groups([]))
		self.assertEqual(groups[groups.index('kernels') + 1], 'bench')
		self.assertIn('slqb_bench.group', slqb_checks.GROUP_MODULES)

	def test_counter_columns(self):
		names = [name for _, name in slqb_stats.kernel_stats(REPO)]
		columns = slqb_bench.COUNTER_COLUMNS
		self.assertEqual(sorted(set(columns) - set(names)), [],
				 'slqb_bench COUNTER_COLUMNS names no such statistic')
		self.assertEqual(len(set(columns)), len(columns))


if __name__ == '__main__':
	unittest.main()
