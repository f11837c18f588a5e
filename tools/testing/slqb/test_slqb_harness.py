#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the SLQB harness (tools/testing/slqb), after the model of
tools/testing/kunit/kunit_tool_test.py.

They test the parsers and the pure logic: the console, KTAP and build-log
readers, the report judgments, machine shapes, QEMU command lines and the
boot hook, the results files, quilt patches and kconfig lines, on made-up
input from test_data/. Each feature package has its own tests
(slqb_memhp/test_slqb_memhp.py, slqb_series/test_slqb_series.py and
slqb_bench/test_slqb_bench.py, the tests of `slqb bench`). They need only
python3: no packages, no kernel tree, no network, no root, and they take
seconds. Run them alone with

	cd tools/testing/slqb && python3 -m unittest [-v]

`slqb test` runs them first, as the group unit (slqb_group_unit.py), with
each test case a check of its own.
"""

import dataclasses
import gzip
import lzma
import os
import re
import subprocess
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True

import slqb_build
import slqb_checks
import slqb_boot
import slqb_faults
import slqb_group_arch
import slqb_group_sanitizers
import slqb_guest
import slqb_initramfs
import slqb_qemu
import slqb_qemu_mte
import slqb_report
import slqb_results
import slqb_stats
import slqb_tree
import slqb_util
from slqb_boot import BootRequest, Prepared, judge, kernel_cmdline
from slqb_qemu import GuestRun, Shape
from slqb_util import Paths, SlqbError, fixture_path, fixture_lines
from slqb_unittest import REPO, Scratch

SCRATCH = Scratch('slqb-unit.')
setUpModule = SCRATCH.setup
tearDownModule = SCRATCH.teardown
write_tmp = SCRATCH.write



def guest_run(lines, returncode=0, timed_out=False) -> GuestRun:
	"""A finished QEMU run with this console."""
	return GuestRun(lines=list(lines), returncode=returncode,
			timed_out=timed_out, elapsed=12.0)


# ---------------------------------------------------------------- console

class ConsoleParserTest(unittest.TestCase):
	"""slqb_report: printk stamps, bad reports, the guest's verdict."""

	def test_strip_printk(self):
		strip = slqb_report.strip_printk
		self.assertEqual(strip('[    1.234567] hello'), 'hello')
		self.assertEqual(strip('[    1.234567] [    T1] hello'), 'hello')
		self.assertEqual(strip('[12345.000001] [  C3] x'), 'x')
		self.assertEqual(strip('no stamp [1.0] here'), 'no stamp [1.0] here')
		self.assertEqual(strip('[    1.0]     ok 1 a'), '    ok 1 a')

	def test_classify_specific_before_generic(self):
		classify = slqb_report.classify
		self.assertEqual(classify('WARNING: possible circular locking '
					  'dependency detected'), 'lockdep: circular locking')
		self.assertEqual(classify('BUG: KASAN: use-after-free in x'), 'KASAN report')
		self.assertEqual(classify('BUG: KFENCE: out-of-bounds read'), 'KFENCE report')
		self.assertEqual(classify('BUG kmalloc-64 (Tainted: G B): Redzone '
					  'overwritten'), 'slab error report')
		self.assertEqual(classify('rcu: INFO: rcu_preempt detected stalls on '
					  'CPUs/tasks:'), 'RCU stall')
		self.assertEqual(classify('Out of memory: Kill process 1'), 'OOM kill')
		self.assertEqual(classify('sh invoked oom-killer: gfp_mask=0x0'), 'OOM kill')
		self.assertEqual(classify('[ 1.0] WARNING: CPU: 0 PID: 1 at x'), 'WARNING:')
		self.assertIsNone(classify('Kernel command line: slqbtest.fake=BUG'))
		self.assertIsNone(classify('DEBUGBUG: nothing'))

	def test_find_bad_reports(self):
		lines = fixture_lines('console-reports.log')
		found = slqb_report.find_bad_reports(lines)
		self.assertEqual([(f.label, f.index) for f in found],
				 [('lockdep: circular locking', 2), ('KASAN report', 4),
				  ('BUG:', 5), ('WARNING:', 6), ('slab error report', 7),
				  ('general protection fault', 8), ('Kernel panic', 12)])

	def test_describe_finding_quotes_context(self):
		lines = fixture_lines('console-reports.log')
		finding = slqb_report.find_bad_reports(lines)[3]
		text = slqb_report.describe_finding(lines, finding, '/logs/x.log')
		self.assertIn('"WARNING:" (console line 7)', text)
		self.assertIn('  > ' + lines[6], text)
		self.assertIn('    ' + lines[4], text)
		self.assertTrue(text.endswith('Full console log: /logs/x.log'))

	def test_excerpt_bounds(self):
		lines = ['a', 'b', 'c']
		self.assertEqual(slqb_report.excerpt(lines, 0, before=2, after=1),
				 '  > a\n    b')
		self.assertEqual(slqb_report.excerpt(lines, 2, before=1, after=5),
				 '    b\n  > c')

	def test_guest_verdict(self):
		verdict = slqb_report.guest_verdict
		lines = fixture_lines('console-reports.log')
		self.assertEqual(verdict(lines), ('PASS', '', 11))
		self.assertEqual(verdict(['SLQB-GUEST: FAIL x', '[ 2.0] SLQB-GUEST: PASS']),
				 ('PASS', '', 1))
		self.assertEqual(verdict(['SLQB-GUEST: FAIL workload hotplug ']),
				 ('FAIL', 'workload hotplug', 0))
		self.assertEqual(verdict(['SLQB-GUEST: PASSED', 'PASS']), (None, '', -1))

	def test_describe_guest_failure(self):
		lines = ['SLQB-GUEST: step shape ok (0s)',
			 'SLQB-GUEST: step workload FAILED (3s)', 'SLQB-GUEST: FAIL workload']
		text = slqb_report.describe_guest_failure(lines, 'workload', 'l.log')
		self.assertIn('the guest reported FAIL: workload', text)
		self.assertIn('  > SLQB-GUEST: step workload FAILED (3s)', text)
		self.assertNotIn('\n\n', text)
		self.assertIn('(no reason given)',
			      slqb_report.describe_guest_failure(['x'], '', 'l.log'))


# ---------------------------------------------------------------- KTAP

class KtapParserTest(unittest.TestCase):
	"""slqb_report.parse_ktap on 6.1's built-in KUnit output."""

	def setUp(self):
		self.report = slqb_report.parse_ktap(fixture_lines('ktap-nested.log'))

	def test_suites_and_plan(self):
		self.assertTrue(self.report.seen)
		self.assertEqual(self.report.plan, 3)
		self.assertEqual([s.name for s in self.report.suites],
				 ['list-kernel-test', 'params'])
		self.assertEqual([s.ok for s in self.report.suites], [False, True])

	def test_nesting(self):
		lists, params = self.report.suites
		self.assertEqual([(c.name, c.ok, c.depth) for c in lists.children],
				 [('list_add_test', True, 1), ('list_del_test', False, 1)])
		[sizes] = params.children
		self.assertEqual([(c.name, c.skipped, c.depth) for c in sizes.children],
				 [('size-8', False, 2), ('size-16', True, 2)])
		self.assertEqual(lists.index, 9)

	def test_failures_deepest_first(self):
		self.assertEqual([f.name for f in self.report.failures()],
				 ['list_del_test', 'list-kernel-test'])

	def test_counts_and_incomplete(self):
		self.assertEqual(self.report.count(), (2, 1, 0))
		self.assertEqual(len(self.report.incomplete), 2)
		self.assertIn('"crashes" started but never reported', self.report.incomplete[0])
		self.assertEqual(self.report.incomplete[1], '1 of 3 planned suites never reported')
		self.assertFalse(self.report.clean())

	def test_summary(self):
		summary = self.report.summary()
		self.assertEqual(summary[0], 'KUnit: 2 suites: 2 passed, 1 failed, 0 skipped')
		self.assertEqual(summary[1], '  NOT OK list-kernel-test: 2 tests '
				 '(failed: list_del_test)')
		self.assertEqual(summary[2], '  ok     params: 1 tests')
		self.assertTrue(summary[3].startswith('  INCOMPLETE "crashes"'))

	def test_clean_report(self):
		lines = ['[ 1.0] KTAP version 1', '[ 1.0] 1..1', '[ 1.0]     KTAP version 1',
			 '[ 1.0]     # Subtest: slqb', '[ 1.0]     1..2',
			 '[ 1.0]     ok 1 slqb_test_alloc', '[ 1.0]     ok 2 slqb_test_gfp # SKIP no KFENCE',
			 '[ 1.0] ok 1 slqb']
		report = slqb_report.parse_ktap(lines)
		self.assertTrue(report.clean())
		self.assertEqual(report.count(), (1, 0, 1))
		self.assertEqual(report.suites[0].children[1].name, 'slqb_test_gfp')

	def test_chance_failures(self):
		"""The hardware-tag boot is repeated only if every failed case is
		one that can fail by chance."""
		def report(*cases):
			lines = ['KTAP version 1', '1..1', '    # Subtest: kasan', '    1..3']
			lines += [f'    {"ok" if ok else "not ok"} {i} {name}'
				  for i, (name, ok) in enumerate(cases, 1)]
			lines.append(('ok' if all(ok for _, ok in cases) else 'not ok') + ' 1 kasan')
			return slqb_report.parse_ktap(lines)
		retry = slqb_group_sanitizers.TAG_COLLISION_CASES
		chance = slqb_group_arch.chance_failures
		self.assertEqual(chance(report(('kmalloc_oob_right', True),
					       ('ksize_unpoisons_memory', False),
					       ('pagealloc_oob_right', False)), retry),
				 ['ksize_unpoisons_memory', 'pagealloc_oob_right'])
		self.assertEqual(chance(report(('kmalloc_oob_right', False),
					       ('ksize_unpoisons_memory', False)), retry), [])
		self.assertEqual(chance(report(('kmalloc_oob_right', True),
					       ('ksize_unpoisons_memory', True)), retry), [])
		self.assertEqual(chance(report(('ksize_unpoisons_memory', False)), ()), [])

	def test_no_ktap(self):
		report = slqb_report.parse_ktap(['ok 1 not ktap', 'hello'])
		self.assertFalse(report.seen)
		self.assertEqual(report.suites, [])
		self.assertFalse(report.clean())
		self.assertEqual(report.summary(), ['KUnit: no KTAP output on the console'])

	def test_unnamed_result(self):
		report = slqb_report.parse_ktap(['TAP version 14', 'not ok 1'])
		self.assertEqual([(s.name, s.ok) for s in report.suites], [('#1', False)])

	def test_module_suites_after_the_plan(self):
		"""A module's suite, loaded by the guest after the built-in plan
		was done, is read too, between guest lines without time stamps
		(the kernel's kunit_parser stops at the plan and passes this
		console)."""
		lines = fixture_lines('ktap-modules.log')
		report = slqb_report.parse_ktap(lines)
		self.assertEqual(report.plan, 1)
		self.assertEqual([(s.name, s.ok) for s in report.suites],
				 [('slqb', True), ('kfence', False)])
		self.assertEqual(report.incomplete, [])
		self.assertEqual(report.count(), (3, 1, 0))
		self.assertEqual([f.name for f in report.failures()],
				 ['test_use_after_free_read', 'kfence'])
		self.assertFalse(report.clean())
		kfence = slqb_report.ktap_suite(report, 'kfence')
		self.assertEqual(lines[kfence.index], '[    9.300003] not ok 2 kfence')
		case = kfence.children[1]
		self.assertEqual(lines[case.index].split('] ', 1)[1],
				 '    not ok 2 test_use_after_free_read')
		text = slqb_report.describe_ktap_failures(lines, report, 'm.log')
		self.assertIn('  > [    9.300001]     not ok 2 test_use_after_free_read', text)
		# the suite's span holds its own report, and only its own
		allowed = slqb_report.suite_reports(lines, kfence, 'kfence')
		self.assertEqual(slqb_report.unexpected_reports(lines, allowed), [])
		self.assertEqual(slqb_report.unexpected_reports(
			lines + ['[   9.9] BUG: KFENCE: use-after-free read in x+0x1/0x2'],
			allowed), ['[   9.9] BUG: KFENCE: use-after-free read in x+0x1/0x2'])

	def test_indented_header_first(self):
		"""A console whose first KTAP line is a module suite's indented
		header keeps its suite result at column 0."""
		lines = fixture_lines('kfence-console.log')
		report = slqb_report.parse_ktap(lines)
		self.assertEqual([(s.name, s.ok, s.index) for s in report.suites],
				 [('kfence', True, 6)])
		self.assertEqual(report.suites[0].children[0].name, 'test_out_of_bounds_read')
		self.assertTrue(report.clean())

	def test_describe_failures(self):
		lines = fixture_lines('ktap-nested.log')
		text = slqb_report.describe_ktap_failures(lines, self.report, 'k.log')
		self.assertIn('KUnit reported 2 failure(s): list_del_test, list-kernel-test', text)
		self.assertIn('KUnit output is incomplete', text)
		self.assertTrue(text.endswith('Full console log: k.log'))


# ---------------------------------------------------------------- judge

class JudgeTest(unittest.TestCase):
	"""slqb_boot.judge: what makes a boot pass or fail."""

	PASS = ['[ 0.1] Linux version 6.1.192', '[ 0.2] Kernel command line: '
		'slqbtest.fake=BUG', 'SLQB-GUEST: PASS']

	def judge(self, run, mode='boot'):
		return judge(run, BootRequest(shape=Shape(), mode=mode), 'c.log')

	def test_clean_boot_passes(self):
		outcome = self.judge(guest_run(self.PASS))
		self.assertTrue(outcome.ok, outcome.errors)
		self.assertEqual(outcome.verdict, 'PASS')

	def test_reports_fail_a_pass(self):
		outcome = self.judge(guest_run(fixture_lines('console-reports.log')))
		self.assertFalse(outcome.ok)
		self.assertEqual(outcome.verdict, 'PASS')
		self.assertEqual(len(outcome.errors), 7)
		self.assertTrue(all('c.log' in e for e in outcome.errors))

	def test_missing_verdict(self):
		outcome = self.judge(guest_run(self.PASS[:2]))
		self.assertEqual(len(outcome.errors), 1)
		self.assertIn('never printed its verdict (QEMU exit status 0)', outcome.errors[0])

	def test_guest_fail(self):
		outcome = self.judge(guest_run(['SLQB-GUEST: FAIL memcg']))
		self.assertIn('the guest reported FAIL: memcg', outcome.errors[0])

	def test_timeouts(self):
		outcome = self.judge(guest_run(self.PASS[:2], None, True))
		self.assertEqual(len(outcome.errors), 1)
		self.assertIn('the guest never printed its verdict', outcome.errors[0])
		outcome = self.judge(guest_run(self.PASS, None, True))
		self.assertIn('printed its verdict but did not power off', outcome.errors[0])
		outcome = self.judge(guest_run(self.PASS[:2], None, True), mode='shell')
		self.assertIn('the shell session was still open', outcome.errors[0])

	def test_vm_stopped(self):
		lines = fixture_lines('kvm-internal-error.log')
		run = dataclasses.replace(guest_run(lines, -15),
					  vm_stopped='KVM internal error. Suberror: 1')
		outcome = self.judge(run)
		self.assertEqual(len(outcome.errors), 1)
		self.assertIn('QEMU stopped the VM: "KVM internal error. '
			      'Suberror: 1"', outcome.errors[0])
		self.assertIn('Code=', outcome.errors[0])
		# the first line stands alone: the bench's KVM probe quotes it
		self.assertTrue(outcome.errors[0].splitlines()[0].endswith(
			'rather than left to its timeout.'))

	def test_shell_needs_no_verdict(self):
		self.assertTrue(self.judge(guest_run(self.PASS[:2]), mode='shell').ok)

	def test_qemu_exit_status(self):
		outcome = self.judge(guest_run(self.PASS, returncode=1))
		self.assertEqual(len(outcome.errors), 1)
		self.assertIn('QEMU exited with status 1', outcome.errors[0])

	def test_kunit_excused_failures(self):
		lines = ['KTAP version 1', '1..1', '    # Subtest: s', '    1..2',
			 '    not ok 1 known', '    ok 2 fine', 'not ok 1 s']
		ktap = slqb_report.parse_ktap(lines)
		self.assertEqual([r.name for r in ktap.failures()], ['known', 's'])
		self.assertEqual(ktap.failures(['s.known']), [])
		self.assertTrue(ktap.clean(['s.known']))
		self.assertFalse(ktap.clean(['s.fine', 'other.known']))
		lines[5] = '    not ok 2 fine'
		ktap = slqb_report.parse_ktap(lines)
		self.assertEqual([r.name for r in ktap.failures(['s.known'])],
				 ['fine', 's'])
		# A suite that failed with no failing case is not excused.
		ktap = slqb_report.parse_ktap(lines[:4] + ['not ok 1 s'])
		self.assertEqual([r.name for r in ktap.failures(['s.known'])], ['s'])

	def test_kunit_failure(self):
		lines = ['KTAP version 1', '1..1', '    # Subtest: s', '    1..1',
			 '    not ok 1 case', 'not ok 1 s', 'SLQB-GUEST: PASS']
		outcome = self.judge(guest_run(lines))
		self.assertEqual(len(outcome.errors), 1)
		self.assertIn('KUnit reported 2 failure(s): case, s', outcome.errors[0])


class KfenceJudgmentTest(unittest.TestCase):
	"""slqb_report: only kfence_test's own KFENCE reports are allowed."""

	def test_reports_outside_the_suite(self):
		lines = fixture_lines('kfence-console.log')
		suite = slqb_report.ktap_suite(slqb_report.parse_ktap(lines), 'kfence')
		self.assertEqual((suite.name, suite.index), ('kfence', 6))
		allowed = slqb_report.suite_reports(lines, suite, 'kfence')
		self.assertEqual(slqb_report.unexpected_reports(lines, allowed),
				 [lines[0], lines[-1]])

	def test_no_suite_allows_nothing(self):
		lines = fixture_lines('kfence-console.log')[:1]
		suite = slqb_report.ktap_suite(slqb_report.parse_ktap(lines), 'kfence')
		self.assertIsNone(suite)
		allowed = slqb_report.suite_reports(lines, suite, 'kfence')
		self.assertEqual(slqb_report.unexpected_reports(lines, allowed), lines)

	def test_only_kfence_reports_inside(self):
		lines = fixture_lines('kfence-console.log')
		lines.insert(4, '[    9.050000] WARNING: CPU: 0 PID: 1 at mm/kfence/core.c:1')
		allowed = slqb_report.suite_reports(
			lines, slqb_report.ktap_suite(slqb_report.parse_ktap(lines), 'kfence'),
			'kfence')
		self.assertEqual(slqb_report.unexpected_reports(lines, allowed),
				 [lines[0], lines[4], lines[-1]])

	def test_kasan_suite_allows_only_kasan_reports(self):
		lines = [l.replace('kfence', 'kasan').replace('KFENCE', 'KASAN')
			 for l in fixture_lines('kfence-console.log')]
		lines.insert(4, '[    9.050000] BUG: KFENCE: out-of-bounds read in x+0x9/0x30')
		suite = slqb_report.ktap_suite(slqb_report.parse_ktap(lines), 'kasan')
		allowed = slqb_report.suite_reports(lines, suite, 'kasan')
		self.assertEqual(slqb_report.unexpected_reports(lines, allowed),
				 [lines[0], lines[4], lines[-1]])

	def test_unexpected_reports_callback(self):
		lines = ['BUG: x', 'fine', 'WARNING: y']
		seen = []

		def allowed(label, index, line):
			seen.append((label, index))
			return label == 'BUG:'
		self.assertEqual(slqb_report.unexpected_reports(lines, allowed), ['WARNING: y'])
		self.assertEqual(seen, [('BUG:', 0), ('WARNING:', 2)])


# ---------------------------------------------------------------- build log

class BuildLogTest(unittest.TestCase):
	"""slqb_build.first_build_error: what a failed build quotes."""

	def test_compiler_error_with_context(self):
		quoted = slqb_build.first_build_error(fixture_lines('build-error.log'))
		self.assertEqual(quoted, [
			"mm/slqb.c: In function 'kmem_cache_alloc':",
			"mm/slqb.c:42:9: error: expected ';' before 'return'",
			'   42 |  x = 1', '      |       ^', '      |       ;'])

	def test_link_error(self):
		lines = ['  LD      vmlinux.o', 'ld: mm/slqb.o: in function `f\':',
			 'slqb.c:(.text+0x1): undefined reference to `g\'',
			 'make[1]: *** [Makefile:1] Error 1']
		self.assertEqual(slqb_build.first_build_error(lines), [lines[2]])

	def test_make_error_then_tail(self):
		lines = ['  CC x.o', 'make: *** [Makefile:1: all] Error 2']
		self.assertEqual(slqb_build.first_build_error(lines), [lines[1]])
		tail = [f'line {i}' for i in range(40)]
		self.assertEqual(slqb_build.first_build_error(tail), tail[-15:])


# ---------------------------------------------------------------- kconfig

class KconfigTest(unittest.TestCase):
	"""slqb_build: --kconfig lines, .config parsing, build names."""

	def test_parse_option(self):
		parse = slqb_build.parse_kconfig_option
		self.assertEqual(parse('CONFIG_SLQB_STATS=y'), ('CONFIG_SLQB_STATS', 'y'))
		self.assertEqual(parse(' CONFIG_NR_CPUS=16 '), ('CONFIG_NR_CPUS', '16'))
		self.assertEqual(parse('CONFIG_X=0x10'), ('CONFIG_X', '0x10'))
		self.assertEqual(parse('CONFIG_X=-1'), ('CONFIG_X', '-1'))
		self.assertEqual(parse('CONFIG_S="a b"'), ('CONFIG_S', '"a b"'))

	def test_parse_option_refuses(self):
		for bad in ('SMP=y', 'CONFIG_X=yes', 'CONFIG_X=', 'CONFIG_X="open',
			    'CONFIG_X', 'CONFIG_X y'):
			with self.assertRaises(SlqbError, msg=bad) as cm:
				slqb_build.parse_kconfig_option(bad)
			self.assertEqual(cm.exception.exit_code, 2)
			self.assertIn('CONFIG_NAME=VALUE', str(cm.exception))

	def test_parse_config(self):
		with open(fixture_path('fragment.config'), encoding='utf-8') as f:
			options = slqb_build.parse_config(f.read())
		self.assertEqual(options, {
			'CONFIG_SLQB': 'y', 'CONFIG_NR_CPUS': '8',
			'CONFIG_CMDLINE': '"console=ttyS0"', 'CONFIG_TEST_SLQB_DEBUG': 'm',
			'CONFIG_SLUB': 'n', 'CONFIG_PHYSICAL_START': '0x1000000',
			'CONFIG_INDENTED': 'y', 'CONFIG_lowercase': 'y'})

	def test_spec_names(self):
		self.assertEqual(slqb_build.KernelSpec('slub').name, 'x86_64-slub')
		self.assertEqual(slqb_build.KernelSpec('slqb', arch='arm64').name, 'arm64-slqb')
		one = slqb_build.KernelSpec('slqb', ('CONFIG_SMP=n',)).name
		two = slqb_build.KernelSpec('slqb', ('CONFIG_SMP=y',)).name
		self.assertRegex(one, r'^x86_64-slqb-[0-9a-f]{8}$')
		self.assertNotEqual(one, two)
		self.assertEqual(one, slqb_build.KernelSpec('slqb', ('CONFIG_SMP=n',)).name)


	def test_clang_kernels(self):
		"""A spec that asks for KMSAN builds with LLVM=1, others with gcc."""
		paths = Paths(repo=REPO, cache='/c')
		gcc = slqb_build.KernelSpec('slqb', ('CONFIG_KASAN=y',))
		kmsan = slqb_build.KernelSpec('slqb', ('CONFIG_KMSAN=y', 'CONFIG_X=m'))
		self.assertFalse(gcc.clang)
		self.assertTrue(kmsan.clang)
		cmd = slqb_build.make_command(paths, kmsan, 'bzImage')
		self.assertIn('LLVM=1', cmd)
		self.assertIn('CC=ccache clang', cmd)
		self.assertEqual(cmd[-1], 'bzImage')
		cmd = slqb_build.make_command(paths, gcc, 'bzImage')
		self.assertNotIn('LLVM=1', cmd)
		self.assertIn('CC=ccache gcc', cmd)
		arm = slqb_build.make_command(paths, slqb_build.KernelSpec('slqb', arch='arm64'))
		self.assertIn('CC=ccache aarch64-linux-gnu-gcc', arm)


class BaseConfigTest(unittest.TestCase):
	"""slqb_build: `slqb boot --base-config FILE`."""

	CONFIG = ('#\n# Linux/x86 6.1.192 Kernel Configuration\n#\n'
		  'CONFIG_X86_64=y\nCONFIG_SLUB=y\n# CONFIG_SLQB is not set\n'
		  'CONFIG_SLAB_FREELIST_RANDOM=y\n')

	def write_bytes(self, name: str, data: bytes) -> str:
		path = write_tmp(name, '')
		with open(path, 'wb') as f:
			f.write(data)
		return path

	def test_plain_xz_gz_read_alike(self):
		data = self.CONFIG.encode()
		for name, blob in (('base/plain', data), ('base/c.xz', lzma.compress(data)),
				   ('base/c.gz', gzip.compress(data))):
			self.assertEqual(slqb_build.read_base_config(
				self.write_bytes(name, blob)), self.CONFIG, name)

	def test_refusals(self):
		arm = self.CONFIG.replace('CONFIG_X86_64=y', 'CONFIG_ARM64=y')
		cases = [
			(os.path.join(SCRATCH.path, 'base', 'missing'), 'cannot read it'),
			(write_tmp('base/prose', 'hello\n'), 'not a kernel .config'),
			(write_tmp('base/unset', '# CONFIG_X86_64 is not set\n'),
			 'not a kernel .config'),
			(write_tmp('base/arm', arm), 'not an x86_64 config'),
			(self.write_bytes('base/bad.xz', b'\xfd7zXZ\x00broken'),
			 'not a readable config'),
			(self.write_bytes('base/latin1', b'CONFIG_X86_64=y\n# \xff\n'),
			 'not a readable config'),
		]
		for path, text in cases:
			with self.assertRaises(SlqbError, msg=path) as cm:
				slqb_build.read_base_config(path)
			self.assertEqual(cm.exception.exit_code, 2)
			self.assertIn(path, str(cm.exception))
			self.assertIn(text, str(cm.exception))

	def test_spec_name_follows_content(self):
		one = slqb_build.base_spec('slqb', (), write_tmp('base/one', self.CONFIG))
		same = slqb_build.base_spec('slqb', (), write_tmp('base/same', self.CONFIG))
		other = slqb_build.base_spec('slqb', (), write_tmp(
			'base/other', self.CONFIG + 'CONFIG_NUMA=y\n'))
		extra = slqb_build.base_spec('slqb', ('CONFIG_KASAN=y',),
					     write_tmp('base/one', self.CONFIG))
		self.assertRegex(one.name, r'^x86_64-slqb-base-[0-9a-f]{8}$')
		self.assertEqual(one.name, same.name)
		self.assertEqual(one, same)
		self.assertEqual(len({one.name, other.name, extra.name}), 3)

	def test_switch_and_changes(self):
		self.assertEqual(slqb_build.alloc_switch('slqb').splitlines(), [
			'CONFIG_SLQB=y', '# CONFIG_SLUB is not set',
			'# CONFIG_SLAB is not set', '# CONFIG_SLOB is not set'])
		switch = slqb_build.parse_config(slqb_build.alloc_switch('slub'))
		self.assertEqual([k for k, v in switch.items() if v == 'y'], ['CONFIG_SLUB'])
		before = {'CONFIG_SLUB': 'y', 'CONFIG_SLQB': 'n', 'CONFIG_SLUB_DEBUG': 'y',
			  'CONFIG_NR_CPUS': '8192'}
		after = {'CONFIG_SLUB': 'n', 'CONFIG_SLQB': 'y', 'CONFIG_SLQB_DEBUG': 'y',
			 'CONFIG_NR_CPUS': '8192'}
		self.assertEqual(slqb_build.config_changes(before, after), [
			'CONFIG_SLQB: n -> y', 'CONFIG_SLQB_DEBUG: n -> y',
			'CONFIG_SLUB: y -> n', 'CONFIG_SLUB_DEBUG: y -> n'])
		self.assertEqual(slqb_build.config_changes(before, before), [])

	def test_symvers(self):
		"""A base config's kernel gets vmlinux's exports as its
		Module.symvers, renewed when vmlinux is linked again."""
		build = os.path.join(SCRATCH.path, 'base', 'symvers')
		os.makedirs(build)
		module = os.path.join(build, 'Module.symvers')
		slqb_build.base_symvers(build)
		self.assertFalse(os.path.exists(module))	# nothing to copy
		vmlinux = write_tmp('base/symvers/vmlinux.symvers', '0x1\tkfree\tvmlinux\n')
		slqb_build.base_symvers(build)
		with open(module, encoding='utf-8') as f:
			self.assertEqual(f.read(), '0x1\tkfree\tvmlinux\n')
		write_tmp('base/symvers/vmlinux.symvers', '0x2\tkfree\tvmlinux\n')
		os.utime(vmlinux, (os.path.getmtime(module) + 10,) * 2)
		slqb_build.base_symvers(build)
		with open(module, encoding='utf-8') as f:
			self.assertEqual(f.read(), '0x2\tkfree\tvmlinux\n')

	def test_fragments(self):
		paths = slqb_util_paths()
		spec = slqb_build.base_spec('slqb', ('CONFIG_KASAN=y',),
					    write_tmp('base/frag', self.CONFIG))
		os.makedirs(spec.build_dir(paths), exist_ok=True)
		frags = slqb_build.fragments(spec, paths)
		self.assertEqual([label for label, _ in frags],
				 ['allocator switch', '--kconfig'])
		with open(frags[0][1], encoding='utf-8') as f:
			self.assertEqual(f.read(), slqb_build.alloc_switch('slqb'))
		plain = slqb_build.fragments(slqb_build.KernelSpec('slqb'), paths)
		self.assertEqual(plain[-1][0], 'alloc-slqb.config')


def slqb_util_paths() -> Paths:
	"""Paths of a scratch cache below the test's temporary folder."""
	return Paths(repo=REPO, cache=os.path.join(SCRATCH.path, 'cache'))


# ---------------------------------------------------------------- qemu

class ShapeTest(unittest.TestCase):
	"""slqb_qemu.Shape: CPUs over nodes, and what QEMU is told."""

	def test_layout(self):
		self.assertEqual(Shape(4, 2, True).layout(),
				 [(0, 0, 1, True), (1, 2, 2, True), (2, 3, 3, False)])
		self.assertEqual(Shape(5, 2).layout(), [(0, 0, 2, True), (1, 3, 4, True)])
		self.assertEqual(Shape(1).layout(), [(0, 0, 0, True)])
		self.assertEqual(Shape(4, 2, True).total_nodes, 3)

	def test_label_and_describe(self):
		shape = Shape(4, 2, True)
		self.assertEqual(shape.label(), '4cpu-2node-memoryless')
		self.assertEqual(Shape().label(), '2cpu-1node')
		self.assertEqual(shape.describe(), '4 CPUs; node0: cpu0-1, 512M; '
				 'node1: cpu2, 512M; node2: cpu3, no memory')

	def test_qemu_args(self):
		self.assertEqual(Shape(4, 2, True).qemu_args(), [
			'-m', '1024M', '-smp', '4,sockets=4,cores=1,threads=1',
			'-object', 'memory-backend-ram,id=m0,size=512M',
			'-numa', 'node,nodeid=0,cpus=0-1,memdev=m0',
			'-object', 'memory-backend-ram,id=m1,size=512M',
			'-numa', 'node,nodeid=1,cpus=2-2,memdev=m1',
			'-numa', 'node,nodeid=2,cpus=3-3'])

	def test_validate(self):
		cases = [(Shape(0), 'at least 1 CPU'), (Shape(9), 'CONFIG_NR_CPUS=8'),
			 (Shape(2, 3), 'too few for 3 node(s)'),
			 (Shape(2, 2, True), 'plus the memoryless node'),
			 (Shape(8, 9), 'must be 1..8'), (Shape(2, 0), 'must be 1..8')]
		for shape, text in cases:
			with self.assertRaises(SlqbError, msg=repr(shape)) as cm:
				shape.validate()
			self.assertIn(text, str(cm.exception))
			self.assertEqual(cm.exception.exit_code, 2)
		Shape(8, 2, True).validate()
		with self.assertRaises(SlqbError):
			Shape(4).validate(max_cpus=2)

	def test_qemu_command(self):
		cmd = slqb_qemu.qemu_command('bz', 'rd', Shape(2), 'console=ttyS0')
		self.assertEqual(cmd, [
			'qemu-system-x86_64', '-accel', 'tcg,thread=multi', '-cpu', 'max',
			'-m', '512M', '-smp', '2,sockets=2,cores=1,threads=1',
			'-object', 'memory-backend-ram,id=m0,size=512M',
			'-numa', 'node,nodeid=0,cpus=0-1,memdev=m0',
			'-nographic', '-no-reboot', '-kernel', 'bz', '-initrd', 'rd',
			'-append', 'console=ttyS0'])

	def test_qemu_command_icount_and_arch(self):
		cmd = slqb_qemu.qemu_command('bz', 'rd', Shape(1), 'x', icount=True)
		self.assertEqual(cmd[:5], ['qemu-system-x86_64', '-accel', 'tcg',
					   '-icount', 'shift=0,sleep=off'])
		with self.assertRaises(SlqbError):
			slqb_qemu.qemu_command('bz', 'rd', Shape(2), 'x', icount=True)
		cmd = slqb_qemu.qemu_command('Image', 'rd', Shape(2), 'x', arch='arm64')
		self.assertEqual(cmd[:6], ['qemu-system-aarch64', '-accel',
					   'tcg,thread=multi', '-M', 'virt', '-cpu'])
		cmd = slqb_qemu.qemu_command('bz', 'rd', Shape(2), 'x', arch='i386')
		self.assertIn('max,vendor=GenuineIntel', cmd)
		# arm64 brings its CPUs up through PSCI: icount with two works,
		# on one TCG thread
		cmd = slqb_qemu.qemu_command('Image', 'rd', Shape(2), 'x',
					     icount=True, arch='arm64')
		self.assertEqual(cmd[:5], ['qemu-system-aarch64', '-accel',
					   'tcg,thread=single', '-icount',
					   'shift=0,sleep=off'])
		with self.assertRaises(SlqbError):
			slqb_qemu.qemu_command('bz', 'rd', Shape(2), 'x',
					       icount=True, arch='i386')

	def test_qemu_command_kvm(self):
		"""KVM: -accel kvm and the host's CPU; x86_64 wall clock only."""
		cmd = slqb_qemu.qemu_command('bz', 'rd', Shape(2), 'x', kvm=True)
		self.assertEqual(cmd[:5], ['qemu-system-x86_64', '-accel', 'kvm',
					   '-cpu', 'host'])
		self.assertNotIn('max', cmd)
		for kw in ({'icount': True}, {'arch': 'arm64'}):
			with self.assertRaises(SlqbError, msg=kw):
				slqb_qemu.qemu_command('bz', 'rd', Shape(1), 'x',
						       kvm=True, **kw)

	def test_memory_hotplug(self):
		"""Room for the dimms of slqb_memhp."""
		shape = Shape(4, 2, True, True)
		self.assertEqual(shape.label(), '4cpu-2node-memoryless-memhp')
		self.assertEqual(shape.qemu_args()[:2], ['-m', '1024M,slots=4,maxmem=4G'])
		self.assertIn('memory hotplug: 4 slots, up to 4G', shape.describe())
		shape.validate()
		with self.assertRaises(SlqbError) as cm:
			Shape(4, 2, False, True).validate()
		self.assertIn('--memory-hotplug needs --memoryless-node', str(cm.exception))
		self.assertEqual(cm.exception.exit_code, 2)

	def test_qemu_command_extra(self):
		qmp = ['-qmp', 'unix:/c/q.sock,server=on,wait=off']
		cmd = slqb_qemu.qemu_command('bz', 'rd', Shape(4, 2, True, True), 'x',
					     extra=qmp)
		at = cmd.index('-qmp')
		self.assertEqual(cmd[at:at + 2], qmp)
		self.assertLess(max(i for i, a in enumerate(cmd) if a == '-numa'), at)
		self.assertEqual(cmd[at + 2], '-nographic')
		self.assertEqual(cmd[cmd.index('-m') + 1], '1024M,slots=4,maxmem=4G')
		self.assertNotIn('-qmp', slqb_qemu.qemu_command('bz', 'rd', Shape(2), 'x'))

	def test_prealloc(self):
		"""prealloc=on on every memory backend, and said in the description."""
		args = Shape(2, 2, prealloc=True).qemu_args()
		backends = [a for a in args if a.startswith('memory-backend-ram')]
		self.assertEqual(len(backends), 2)
		self.assertTrue(all(b.endswith(',prealloc=on') for b in backends))
		self.assertNotIn('prealloc', ' '.join(Shape(2, 2).qemu_args()))
		self.assertIn('RAM preallocated', Shape(1, 1, prealloc=True).describe())
		self.assertEqual(Shape(1, 1, prealloc=True).label(), '1cpu-1node')

	def test_mte_machine(self):
		"""KASAN's hardware tags on arm64 boot with QEMU's MTE on."""
		hw = slqb_build.KernelSpec('slqb', ('CONFIG_KASAN=y', 'CONFIG_KASAN_HW_TAGS=y'),
					   arch='arm64')
		self.assertEqual(slqb_boot.machine_args(hw), ['-machine', 'mte=on'])
		sw = slqb_build.KernelSpec('slqb', ('CONFIG_KASAN=y', 'CONFIG_KASAN_SW_TAGS=y'),
					   arch='arm64')
		self.assertEqual(slqb_boot.machine_args(sw), [])
		self.assertEqual(slqb_boot.machine_args(slqb_build.KernelSpec('slqb')), [])
		self.assertTrue(slqb_boot.needs_mte(hw))
		self.assertFalse(slqb_boot.needs_mte(sw))

	def test_mte_qemu_version(self):
		"""QEMU 7.2 (Debian 12's) shares a tag among a page's granules:
		the hardware-tag boots get a fixed build; 8.0 and later do not."""
		parse = slqb_qemu_mte.parse_version
		debian = 'QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)\n'
		self.assertEqual(parse(debian), (7, 2, 22))
		self.assertEqual(parse('QEMU emulator version 8.0\n'), (8, 0, 0))
		self.assertIsNone(parse('qemu-system-aarch64: no such option\n'))
		self.assertTrue(slqb_qemu_mte.needs_fix((7, 2, 22)))
		self.assertFalse(slqb_qemu_mte.needs_fix((8, 0, 0)))
		self.assertFalse(slqb_qemu_mte.needs_fix((9, 1, 2)))
		with mock.patch.object(slqb_qemu_mte, 'system_version',
				       return_value=(8, 2, 2)):
			self.assertEqual(slqb_qemu_mte.mte_qemu(Paths('/nonexistent', '/nonexistent')),
					 'qemu-system-aarch64')

	def test_mte_qemu_cached(self):
		"""A fixed build already made is used as it is, and its
		directory changes with the source version and the fix."""
		paths = Paths(repo=REPO, cache=os.path.join(SCRATCH.path, 'mte'))
		top = slqb_qemu_mte.build_dir(paths, '1:7.2+dfsg-7')
		self.assertNotEqual(top, slqb_qemu_mte.build_dir(paths, '1:7.2+dfsg-8'))
		os.makedirs(top)
		binary = os.path.join(top, 'qemu-system-aarch64')
		with open(binary, 'w', encoding='utf-8') as f:
			f.write('#!/bin/sh\n')
		os.chmod(binary, 0o755)
		with open(os.path.join(top, 'binary'), 'w', encoding='utf-8') as f:
			f.write(binary + '\n')
		with mock.patch.object(slqb_qemu_mte, 'system_version',
				       return_value=(7, 2, 22)), \
		     mock.patch.object(slqb_qemu_mte, 'source_version',
				       return_value='1:7.2+dfsg-7'), \
		     mock.patch.object(slqb_qemu_mte, 'build') as build:
			self.assertEqual(slqb_qemu_mte.mte_qemu(paths), binary)
			build.assert_not_called()
		cmd = slqb_qemu.qemu_command('Image', 'rd', Shape(2), 'x', arch='arm64',
					     binary='/c/qemu-system-aarch64')
		self.assertEqual(cmd[:3], ['/c/qemu-system-aarch64', '-accel',
					   'tcg,thread=multi'])

	def test_kernel_cmdline(self):
		prepared = Prepared(spec=slqb_build.KernelSpec('slub'), base='b',
				    bzimage='bz', initrd='rd', nr_cpus=8)
		req = BootRequest(shape=Shape(4, 2, True), mode='quick', stress=0,
				  append='slub_debug=FZ')
		self.assertEqual(kernel_cmdline(prepared, req),
				 'console=ttyS0 panic=-1 printk.devkmsg=on slqbtest.mode=quick '
				 'slqbtest.stress=0 slqbtest.alloc=slub slqbtest.cpus=4 '
				 'slqbtest.nodes=3 slqbtest.memnodes=2 slub_debug=FZ')
		arm = Prepared(spec=slqb_build.KernelSpec('slqb', arch='arm64'), base='b',
			       bzimage='bz', initrd='rd', nr_cpus=8)
		self.assertTrue(kernel_cmdline(arm, BootRequest(shape=Shape()))
				.startswith('console=ttyAMA0 '))


class RunGuestTest(unittest.TestCase):
	"""slqb_qemu.run_guest, on a process that behaves as QEMU does."""

	def test_vm_stopped_ends_the_run(self):
		# QEMU, after "KVM internal error", dumps the registers and waits:
		# the run must end there, not at its timeout. SeaBIOS's escape
		# sequences start the line, as on a real console.
		fixture = fixture_path('kvm-internal-error.log')
		log_path = os.path.join(SCRATCH.path, 'vm-stopped.log')
		script = (f"head -n 1 {fixture}; printf '\\033c\\033[?7l\\033[2J'; "
			  f"tail -n +2 {fixture}; exec sleep 120")
		run = slqb_qemu.run_guest(['sh', '-c', script], log_path, 60, 'markers')
		logged = slqb_util.read_text(log_path, '')
		self.assertEqual(run.vm_stopped, 'KVM internal error. Suberror: 1')
		self.assertFalse(run.timed_out)
		self.assertTrue(run.lines[-1].startswith('Code='))
		self.assertIn('Suberror: 1', logged)

	def test_plain_exit(self):
		run = slqb_qemu.run_guest(['sh', '-c', 'echo SLQB-GUEST: PASS'],
					  os.path.join(SCRATCH.path, 'exit.log'), 60,
					  'markers')
		self.assertEqual((run.vm_stopped, run.timed_out, run.returncode),
				 (None, False, 0))


class BootHookTest(unittest.TestCase):
	"""slqb_boot.boot_kernel: what a BootHook sees of a boot and adds to it."""

	class Hook(slqb_boot.BootHook):
		def __init__(self):
			self.calls = []

		def start(self, paths, prepared, req):
			self.calls.append('start')
			return slqb_boot.BootExtras(initrd='/h/rd', params='slqbtest.hook=1',
						    qemu_args=['-hook', 'x'])

		def on_line(self, line):
			self.calls.append(('line', line))

		def stop(self):
			self.calls.append('stop')

		def judge(self, outcome):
			self.calls.append('judge')
			outcome.errors.append('hook: no')
			return ['hook: did it']

	def boot(self, hook, run_guest):
		paths = Paths(repo=REPO, cache=os.path.join(SCRATCH.path, 'hook-cache'))
		prepared = Prepared(spec=slqb_build.KernelSpec('slub'), base='b',
				    bzimage='bz', initrd='rd', nr_cpus=8)
		with mock.patch.object(slqb_boot, 'run_guest', run_guest), \
		     mock.patch.object(slqb_boot, 'log'):
			return slqb_boot.boot_kernel(paths, prepared,
						     BootRequest(shape=Shape(), stress=0),
						     hook=hook)

	def guest(self, seen):
		def run_guest(cmd, log_path, timeout, console, on_line=None):
			seen.append(cmd)
			on_line('SLQB-GUEST: PASS')
			return guest_run(['SLQB-GUEST: PASS'])
		return run_guest

	def test_hook_takes_part(self):
		hook, seen = self.Hook(), []
		outcome = self.boot(hook, self.guest(seen))
		self.assertEqual(hook.calls, ['start', ('line', 'SLQB-GUEST: PASS'),
					      'stop', 'judge'])
		[cmd] = seen
		self.assertEqual(cmd[cmd.index('-initrd') + 1], '/h/rd')
		self.assertEqual(cmd[cmd.index('-hook') + 1], 'x')
		self.assertLess(cmd.index('-hook'), cmd.index('-nographic'))
		self.assertTrue(cmd[cmd.index('-append') + 1].endswith(
			'slqbtest.memnodes=1 slqbtest.hook=1'))
		self.assertEqual(outcome.errors, ['hook: no'])
		with open(outcome.log_path, encoding='utf-8') as f:
			self.assertIn('# slqb: hook: did it\n# slqb: KUnit:', f.read())

	def test_stop_after_a_failed_run(self):
		def run_guest(*args, **kwargs):
			raise SlqbError('qemu-system-x86_64 is missing')
		hook = self.Hook()
		with self.assertRaisesRegex(SlqbError, 'is missing'):
			self.boot(hook, run_guest)
		self.assertEqual(hook.calls, ['start', 'stop'])

	def test_no_hook(self):
		seen = []
		outcome = self.boot(None, self.guest(seen))
		self.assertEqual(seen[0][seen[0].index('-initrd') + 1], 'rd')
		self.assertNotIn('-qmp', seen[0])
		self.assertTrue(outcome.ok, outcome.errors)


# ---------------------------------------------------------------- guest

class GuestContractTest(unittest.TestCase):
	"""slqb_guest: the parameters init.sh reads and the markers it prints."""

	def test_params(self):
		self.assertEqual(slqb_guest.param('mode', 'boot'), 'slqbtest.mode=boot')
		self.assertEqual(slqb_guest.params(cpus=2, nodes=1),
				 'slqbtest.cpus=2 slqbtest.nodes=1')
		self.assertEqual(slqb_guest.load_params('a', 'b', debugcheck=True),
				 'slqbtest.load=a,b slqbtest.debugcheck=1')
		self.assertEqual(slqb_guest.fake_report_params('BUG'), 'slqbtest.fake=BUG')
		for name, value in (('Mode', 'x'), ('mode', 'a b'), ('mode', ''),
				    ('mo-de', 'x')):
			with self.assertRaises(ValueError):
				slqb_guest.param(name, value)
		with self.assertRaises(ValueError):
			slqb_guest.boot_params('sleep', 0, 'slqb')
		with self.assertRaises(ValueError):
			slqb_guest.fake_report_params('Oops')

	def test_every_mode_is_in_init_sh(self):
		with open(os.path.join(os.path.dirname(slqb_guest.__file__), 'guest',
				       'init.sh'), encoding='utf-8') as f:
			init = f.read()
		for mode in slqb_guest.GUEST_MODES:
			self.assertRegex(init, rf'\b{mode}\)', f'init.sh has no {mode}) case')

	def test_markers(self):
		self.assertEqual(slqb_guest.marker_text('[ 1.0] SLQB-GUEST: step x ok'),
				 'step x ok')
		self.assertIsNone(slqb_guest.marker_text('SLQB-BENCH end rc=0'))
		self.assertTrue(slqb_guest.STEP_FAILED_RE.search(
			'SLQB-GUEST: step workload FAILED (3s)'))


# ---------------------------------------------------------------- results

class ResultsFileTest(unittest.TestCase):
	"""slqb_results: the files of tools/testing/slqb/results/."""

	RESULT = slqb_results.BenchResult(
		run_id='20261206-021243', command='tools/testing/slqb/slqb.py bench',
		date='2026-12-06 02:29 UTC', tree='c047b2c', kernels='a=slqb, b=slub',
		summary=['slqb bench: 2026-12-06 02:29 UTC, Linux 6.1.192', 'host: h',
			 '', 'metric               unit  better    a    b  a/b',
			 '---------------  --------  ------  ---  ---  ---',
			 'icount pair geomean  instr/op  lower  1 ±0%  2 ±0%  0.50',
			 'icount pair kmalloc-8  instr/op  lower  1 ±0%  2 ±0%  0.50',
			 'sys churn         s   lower  1 ±0%  1 ±0%  1.00',
			 'mem Slab boot    kB   lower  1 ±0%  1 ±0%  1.00', '',
			 'a: furthest behind the best of b (every row, ...):',
			 '  sys churn (s, lower is better): 1.00x b (...)'],
		showed='It showed\nthis.')

	def test_round_trip(self):
		text = slqb_results.result_text(self.RESULT)
		self.assertEqual(slqb_results.parse_result(text, 'x'), self.RESULT)
		bare = dataclasses.replace(self.RESULT, showed='', duration='')
		text = slqb_results.result_text(bare)
		self.assertNotIn('What it showed', text)
		self.assertNotIn(':Duration:', text)
		self.assertEqual(slqb_results.parse_result(text, 'x'), bare)
		# a field wrapped over two lines, as an editor may leave it
		wrapped = text.replace(':Kernels: a=slqb, b=slub', ':Kernels: a=slqb,\n   b=slub')
		self.assertEqual(slqb_results.parse_result(wrapped, 'x').kernels,
				 'a=slqb, b=slub')

	def test_parse_refuses(self):
		good = slqb_results.result_text(self.RESULT)
		cases = [(good.replace('=====', '-----', 1), 'no title'),
			 (good.replace('run 20261206-021243', 'run 2026-12-06'), 'is not YYYYmmdd'),
			 (good.replace(':Tree: c047b2c\n', ''), 'no :Tree: field'),
			 (good.replace(':Tree:', ':Commit:'), 'unknown field :Commit:'),
			 (good.replace(':Tree: c047b2c', 'Tree c047b2c'), 'is not a field'),
			 (good.replace('Summary\n-------', 'Table\n-----'), 'no "Summary" section'),
			 (good.replace('::\n', 'The table:\n'), 'not one literal block'),
			 (good[:good.index('::\n') + 3], 'block is empty')]
		for text, words in cases:
			with self.assertRaises(SlqbError, msg=words) as cm:
				slqb_results.parse_result(text, 'results/x.rst')
			self.assertIn(words, str(cm.exception))
			self.assertIn('results/x.rst: ', str(cm.exception))
		with self.assertRaisesRegex(SlqbError, 'run id'):
			slqb_results.result_text(dataclasses.replace(self.RESULT, run_id='x'))

	def test_latest_and_names(self):
		folder = os.path.join(SCRATCH.path, 'results')
		self.assertEqual(slqb_results.latest_result(folder), None)
		text = slqb_results.result_text(self.RESULT)
		for name in ('20261205-231337.rst', '20261206-021243.rst', 'README.rst',
			     '20261207-000000.txt', 'notes'):
			write_tmp(f'results/{name}', text)
		self.assertEqual(slqb_results.result_files(folder),
				 [os.path.join(folder, '20261205-231337.rst'),
				  os.path.join(folder, '20261206-021243.rst')])
		latest = slqb_results.latest_result(folder)
		self.assertEqual(slqb_results.read_result(latest), self.RESULT)
		with self.assertRaisesRegex(SlqbError, 'holds run 20261206-021243: name '
					    'it 20261206-021243.rst'):
			slqb_results.read_result(os.path.join(folder, '20261205-231337.rst'))
		self.assertEqual(slqb_results.latest_result(os.path.join(folder, 'none')),
				 None)

	def test_headline(self):
		head, rows, behind = slqb_results.headline(self.RESULT)
		self.assertEqual(head, self.RESULT.summary[:2])
		self.assertEqual([slqb_results.row_metric(r) for r in rows],
				 ['metric', '---------------', 'icount pair geomean',
				  'mem Slab boot'])
		self.assertEqual(behind, self.RESULT.summary[-2:])
		no_rows = dataclasses.replace(self.RESULT, summary=self.RESULT.summary[:5])
		with self.assertRaisesRegex(SlqbError, 'no table with geomean or memory'):
			slqb_results.headline(no_rows)


# ---------------------------------------------------------------- quilt

class QuiltPatchTest(unittest.TestCase):
	"""slqb_tree: patches/series and what each patch touches."""

	def test_patch_targets(self):
		patch = slqb_tree.Patch('quilt-example.patch', fixture_path('quilt-example.patch'))
		self.assertEqual(slqb_tree.patch_targets(patch), {
			'mm/Kconfig': 'modify', 'mm/slqb_new.c': 'create', 'mm/old.c': 'delete'})
		self.assertEqual(slqb_tree.series_targets([patch]),
				 ['mm/Kconfig', 'mm/old.c', 'mm/slqb_new.c'])

	def test_unsafe_paths(self):
		for old, new in (('a/../etc/x', 'b/../etc/x'), ('/etc/x', '/etc/x'),
				 ('a', 'b')):
			path = write_tmp('unsafe.patch', f'--- {old}\n+++ {new}\n@@ -1 +1 @@\n-a\n+b\n')
			with self.assertRaisesRegex(SlqbError, 'unsupported path', msg=old):
				slqb_tree.patch_targets(slqb_tree.Patch('unsafe.patch', path))

	def test_read_series(self):
		repo = os.path.join(SCRATCH.path, 'series-repo')
		write_tmp('series-repo/patches/a.patch', '')
		write_tmp('series-repo/patches/b.patch', '')
		write_tmp('series-repo/patches/series', '# comment\na.patch\n\nb.patch -p0 # x\n')
		got = [(p.name, p.strip) for p in slqb_tree.read_series(repo)]
		self.assertEqual(got, [('a.patch', 1), ('b.patch', 0)])
		write_tmp('series-repo/patches/series', 'a.patch -R\n')
		with self.assertRaisesRegex(SlqbError, "line 1: unsupported option '-R'"):
			slqb_tree.read_series(repo)
		write_tmp('series-repo/patches/series', 'a.patch\nc.patch\n')
		with self.assertRaisesRegex(SlqbError, 'line 2 names c.patch'):
			slqb_tree.read_series(repo)
		self.assertEqual(slqb_tree.read_series(os.path.join(SCRATCH.path, 'nothing')), [])

	def test_stage_tree_fixes_first(self):
		"""A base fix goes in before the series, which may build on it."""
		write_tmp('fix-base/mm/f.c', 'one\n')
		repo = os.path.join(SCRATCH.path, 'fix-repo')
		write_tmp('fix-repo/patches/series', 's.patch\n')
		write_tmp('fix-repo/patches/s.patch', '--- a/mm/f.c\n+++ b/mm/f.c\n'
			  '@@ -1 +1 @@\n-two\n+three\n')
		fix = slqb_tree.Patch('f.patch', write_tmp(
			'fix-repo/f.patch', '--- a/mm/f.c\n+++ b/mm/f.c\n@@ -1 +1 @@\n'
			'-one\n+two\n'), where='fixes')
		base = os.path.join(SCRATCH.path, 'fix-base')
		stage = os.path.join(SCRATCH.path, 'fix-stage')
		desired = slqb_tree.stage_tree(base, repo, stage, 'base', [fix])
		self.assertEqual(desired['mm/f.c'], 'file')
		self.assertEqual(slqb_util.read_text(os.path.join(stage, 'mm/f.c')),
				 'three\n')
		stage = os.path.join(SCRATCH.path, 'fix-stage2')
		with self.assertRaisesRegex(SlqbError, 'patch patches/s.patch does '
					    'not apply'):
			slqb_tree.stage_tree(base, repo, stage, 'base')

	def test_kernel_version(self):
		tree = os.path.join(SCRATCH.path, 'tree')
		write_tmp('tree/Makefile', '# SPDX\nVERSION = 6\nPATCHLEVEL = 1\n'
			  'SUBLEVEL = 192\nEXTRAVERSION =\nNAME = Hurr durr\n')
		self.assertEqual(slqb_tree.kernel_version(tree), '6.1.192')
		write_tmp('tree/Makefile', 'VERSION = 5\nPATCHLEVEL = 10\nSUBLEVEL = 0\n'
			  'EXTRAVERSION = -rc1\n')
		self.assertEqual(slqb_tree.kernel_version(tree), '5.10.0-rc1')
		with self.assertRaisesRegex(SlqbError, 'its Makefile says 5.10.0-rc1'):
			slqb_tree.check_kernel_tree(tree)


# ---------------------------------------------------------------- statistics

class StatsListTest(unittest.TestCase):
	"""slqb_stats: the list of include/linux/slqb_stats.h and the copies
	it is checked against."""

	def test_parse_list(self):
		with open(fixture_path('slqb-stats-list.txt'), encoding='utf-8') as f:
			items = slqb_stats.parse_stats_list(f.read())
		self.assertEqual(items, [('ALLOC', 'alloc'), ('ALLOC_SLAB_FILL', 'alloc_slab_fill'),
					 ('FREE', 'free'), ('INDENTED', 'indented'),
					 ('TRIM_WORST_NS', 'trim_worst_ns')])

	def test_comments_and_defines_do_not_count(self):
		text = ('/*\n * SLQB_STAT(A, a)\n */\n#define SLQB_STAT(x, y) x,\n'
			'SLQB_STAT(B, b) /* c */\n  SLQB_STAT(C, c)\n')
		self.assertEqual(slqb_stats.parse_stats_list(text), [('B', 'b'), ('C', 'c')])

	def test_odd_entry_refused(self):
		for bad in ('SLQB_STAT(A, a) SLQB_STAT(B, b)\n', 'x SLQB_STAT(A, a)\n',
			    'SLQB_STAT(A, a),\n'):
			with self.assertRaisesRegex(SlqbError, 'line 1: .* alone on its line'):
				slqb_stats.parse_stats_list(bad)

	def test_parse_list_refuses(self):
		with self.assertRaisesRegex(SlqbError, 'lists no SLQB_STAT'):
			slqb_stats.parse_stats_list('#define SLQB_STAT(item, name)\titem,\n')
		with self.assertRaisesRegex(SlqbError, 'alone on its line'):
			slqb_stats.parse_stats_list('SLQB_STAT(alloc, ALLOC)\n')
		with self.assertRaisesRegex(SlqbError, 'include/linux/slqb_stats.h is missing'):
			slqb_stats.kernel_stats(SCRATCH.path)
		write_tmp('bad-repo/include/linux/slqb_stats.h', '/* nothing */\n')
		with self.assertRaisesRegex(SlqbError, '^include/linux/slqb_stats.h: lists no'):
			slqb_stats.kernel_stats(os.path.join(SCRATCH.path, 'bad-repo'))

	def test_slqbinfo_reads_list(self):
		inc = slqb_stats.SLQBINFO_INCLUDE
		good = (f'enum stat_item {{\n#define SLQB_STAT(item, name)\tS_##item,\n{inc}\n'
			'\tNR_STATS\n};\nstatic const char * const stat_name[NR_STATS] = {\n'
			f'#define SLQB_STAT(item, name)\t(#name),\n{inc}\n}};\n')
		slqb_stats.slqbinfo_reads_list(good)
		with self.assertRaisesRegex(SlqbError, 'for both'):
			slqb_stats.slqbinfo_reads_list(good.replace(inc, '', 1))
		own = good.replace('(#name),\n', '(#name),\n\t"extra",\n')
		with self.assertRaisesRegex(SlqbError, 'names of its own'):
			slqb_stats.slqbinfo_reads_list(own)
		with self.assertRaisesRegex(SlqbError, 'no stat_name'):
			slqb_stats.slqbinfo_reads_list(f'{inc}\n{inc}\n')

	def test_shell_words(self):
		text = 'A="x"\nSLQB_STATS="a b\nc"\nB="y"\n'
		self.assertEqual(slqb_stats.shell_words(text, 'SLQB_STATS'), ['a', 'b', 'c'])
		with self.assertRaisesRegex(SlqbError, 'no C="..."'):
			slqb_stats.shell_words(text, 'C')


class StatNamesCrossCheckTest(unittest.TestCase):
	"""The statistics names of the repository's files against the one
	list of them, include/linux/slqb_stats.h. Without that list every
	test here fails saying so (none is skipped)."""

	@classmethod
	def setUpClass(cls):
		try:
			cls.items = slqb_stats.kernel_stats(REPO)
			cls.error = ''
		except SlqbError as e:
			cls.items = []
			cls.error = str(e)

	def names(self):
		if self.error:
			self.fail(f'cannot check against the kernel list: {self.error}')
		return [name for _, name in self.items]

	def read(self, path):
		with open(os.path.join(REPO, path), encoding='utf-8') as f:
			return f.read()

	def test_kernel_list(self):
		names = self.names()
		self.assertEqual(names, [item.lower() for item, _ in self.items],
				 'each name is its item lower-cased')
		self.assertEqual(len(set(names)), len(names), 'a name is listed twice')
		self.assertEqual(names[0], 'alloc')

	def test_slqbinfo_c(self):
		self.names()
		slqb_stats.slqbinfo_reads_list(self.read('tools/vm/slqbinfo.c'))

	def test_slqbinfo_test_py(self):
		"""slqbinfo_test.py's fixtures get the kernel's list (it reads it)."""
		self.names()
		import slqbinfo_test
		self.assertEqual(slqbinfo_test.STATS_ERROR, '')
		self.assertIs(slqbinfo_test.stat_names, slqb_stats.stat_names)

	def test_documentation(self):
		names = self.names()
		text = self.read('Documentation/mm/slqb.rst')
		start = text.index('The counters are')
		listed = re.findall(r'``([a-z0-9_]+)``', text[start:text.index('The\nkernel lists', start)])
		self.assertEqual(listed, names, 'Documentation/mm/slqb.rst lists other counters')

	def test_init_sh(self):
		names = self.names()
		words = slqb_stats.shell_words(self.read('tools/testing/slqb/guest/init.sh'),
					       'SLQB_STATS')
		self.assertEqual(words, names, 'guest/init.sh SLQB_STATS differs from the kernel list')


# ---------------------------------------------------------------- groups

class UnitGroupTest(unittest.TestCase):
	"""slqb_group_unit: every test, and every failing subTest, is a check."""

	class Recorder:
		def __init__(self):
			self.records = []

		def record(self, name, ok, reason='', details=''):
			self.records.append((name, ok))

		def skip(self, name, reason):
			self.records.append((name, 'skip'))

	def test_results_are_checks(self):
		import slqb_group_unit

		class Sample(unittest.TestCase):
			def test_pass(self):
				pass

			def test_fail(self):
				self.fail('no')

			def test_sub(self):
				for i in range(3):
					with self.subTest(i=i):
						self.assertNotEqual(i, 1)

		ctx = self.Recorder()
		result = slqb_group_unit.CheckResult(ctx)
		unittest.defaultTestLoader.loadTestsFromTestCase(Sample).run(result)
		verdicts = sorted((name.rsplit('.', 1)[-1], ok) for name, ok in ctx.records)
		self.assertEqual(verdicts, [('test_fail', False), ('test_pass', True),
					    ('test_sub (i=1)', False)])


class GroupRegistryTest(unittest.TestCase):
	"""slqb_checks: which groups a `slqb test` runs."""

	def test_default_groups(self):
		groups = list(slqb_checks.select_groups([]))
		self.assertEqual(groups[0], 'unit')
		# bench, when its package is there: slqb_bench/test_slqb_bench.py
		# checks it
		self.assertEqual([g for g in groups if g != 'bench'],
				 ['unit', 'harness', 'slqbinfo', 'kernels', 'series'])

	def test_on_request_groups(self):
		self.assertEqual(list(slqb_checks.select_groups(['arch-arm64'])), ['arch-arm64'])
		self.assertEqual(list(slqb_checks.select_groups(['arch-i386', 'unit'])),
				 ['unit', 'arch-i386'])
		with self.assertRaises(SlqbError) as cm:
			slqb_checks.select_groups(['unit', 'no-such'])
		self.assertEqual(cm.exception.exit_code, 2)
		self.assertIn('unknown check group(s): no-such', str(cm.exception))

	def test_group_modules_are_named_after_their_groups(self):
		"""Group NAME is in slqb_group_NAME.py or in the package slqb_NAME's
		group.py, and every such module is listed in GROUP_MODULES."""
		here = os.path.dirname(os.path.abspath(__file__))
		named = re.compile(r'^(?:slqb_group_([a-z]+)|slqb_([a-z]+)\.group)$')
		for module in slqb_checks.GROUP_MODULES:
			self.assertRegex(module, named)
		# every group module of the folder is listed, so none is left out
		files = sorted(n[:-3] for n in os.listdir(here)
			       if n.startswith('slqb_group_') and n.endswith('.py'))
		files += sorted(f'{n}.group' for n in os.listdir(here)
				if n.startswith('slqb_') and
				os.path.isfile(os.path.join(here, n, 'group.py')))
		self.assertEqual([f for f in files if f not in slqb_checks.GROUP_MODULES], [])
		self.assertIn('slqb_group_unit', files)
		self.assertIn('slqb_series.group', files)
		for group, func in slqb_checks.load_groups().items():
			m = named.match(func.__module__)
			self.assertEqual(m.group(1) or m.group(2), group.split('-')[0], group)


class BootFilterTest(unittest.TestCase):
	"""`slqb test --boot PATTERN`: only matching boots run, only their
	kernels are built, and a pattern that matches nothing fails."""

	def test_run_table_filters(self):
		import slqb_group_kernels as kernels
		table = [kernels.Boot('slqb', '2cpu-1node'),
			 kernels.Boot('slqb', '4cpu-2node-kcsan', kconfig=('CONFIG_KCSAN=y',)),
			 kernels.Boot('slub', '2cpu-1node-slub')]
		ctx = slqb_checks.Context(paths=None, verbose=False, scratch='',
					  boots='*kcsan*')
		ctx.facts['slqb_available'] = True
		built, booted = [], []
		with mock.patch.object(kernels, 'slqb_available', return_value=True), \
		     mock.patch.object(kernels, 'prepare_kernel',
				       side_effect=lambda p, spec: built.append(spec.name) or spec), \
		     mock.patch.object(kernels, 'run_boot',
				       side_effect=lambda c, p, b, j: booted.append(b.name)):
			kernels.run_table(ctx, table)
		self.assertEqual(booted, ['4cpu-2node-kcsan'])
		self.assertEqual(len(built), 1)
		self.assertEqual(ctx.matched, {'4cpu-2node-kcsan'})
		# without a pattern, every boot
		ctx = slqb_checks.Context(paths=None, verbose=False, scratch='')
		self.assertTrue(all(ctx.wants_boot(b.name) for b in table))

	def test_no_match_fails(self):
		groups = {'empty': lambda ctx: ctx.record('a check', True)}
		with mock.patch('builtins.print') as out:
			self.assertEqual(slqb_checks.run_all(None, False, groups,
							     boots='no-such*'), 1)
		printed = ' '.join(str(c.args[0]) for c in out.call_args_list)
		self.assertIn('FAIL: a boot matches --boot no-such*', printed)
		self.assertIn('1 passed, 1 failed', printed)
		with mock.patch('builtins.print'):
			self.assertEqual(slqb_checks.run_all(None, False, groups), 0)

# ---------------------------------------------------------------- fault injection

def faults_outcome(lines) -> slqb_boot.BootOutcome:
	"""A judged boot with this console, as the faults checks get it."""
	return slqb_boot.BootOutcome(log_path='c.log', run=guest_run(lines),
				     verdict='PASS', findings=[],
				     ktap=slqb_report.KtapReport(), errors=[])


class CheckRecorder:
	"""A Context for check functions: keeps each check's failure (None
	when it passed), in order."""

	def __init__(self):
		self.results = {}

	def check(self, name, func):
		try:
			func()
		except slqb_checks.CheckFailed as e:
			self.results[name] = str(e)
			return None
		self.results[name] = None


class FaultsConsoleTest(unittest.TestCase):
	"""slqb_faults: the guest's fault counts, the module's verdict, and
	what the report scanner makes of a console with allocation failures."""

	LINES = fixture_lines('console-faults.log')

	def test_params(self):
		self.assertEqual(slqb_faults.guest_params(), 'slqbtest.faults=1')
		self.assertEqual(slqb_faults.guest_params('0:1:0'),
				 'slqbtest.faults=1 slqbtest.faultrate=0:1:0')
		for rate in ('10', '1:2', 'a:b:c', '1:2:3 x'):
			with self.assertRaises(ValueError, msg=rate):
				slqb_faults.guest_params(rate)

	def test_injected(self):
		injected = slqb_faults.injected
		self.assertEqual(injected(self.LINES), {'stress': (1089, 173),
							'slqb': (0, 69)})
		# only a marker counts, and the last one of a phase
		self.assertEqual(injected(['faults stress failslab=1 fail_page_alloc=2']), {})
		self.assertEqual(injected(['[ 1.0] SLQB-GUEST: faults stress failslab=1 '
					   'fail_page_alloc=2',
					   'SLQB-GUEST: faults stress failslab=3 '
					   'fail_page_alloc=4']), {'stress': (3, 4)})

	def test_module_verdict(self):
		verdict = slqb_faults.module_verdict(self.LINES)
		self.assertEqual(verdict.verdict, 'PASS')
		self.assertEqual({k: verdict.counts[k] for k in
				  ('cpus', 'bulk_part_way', 'fallback_slabs', 'order', 'bad')},
				 {'cpus': 4, 'bulk_part_way': 16, 'fallback_slabs': 31,
				  'order': 3, 'bad': 0})
		cut = [l for l in self.LINES if 'PASS cpus' not in l]
		self.assertIsNone(slqb_faults.module_verdict(cut))
		verdict = slqb_faults.module_verdict(
			['[ 5.0] slqb_faults: FAIL: no memory for the cache or the workers'])
		self.assertEqual((verdict.verdict, verdict.counts), ('FAIL', {}))
		self.assertIsNone(slqb_faults.module_verdict(
			['slqb_faults: cpu 0 node 0: rounds=1 bulk_ok=1 bad=0']))

	def test_allocation_failures_are_no_bad_reports(self):
		"""warn_alloc()'s reports with their stacks and Mem-Info, SLQB's
		no-slab reports, the page fault handler's note and stress-ng's own
		WARNINGs are expected; a kernel warning or BUG among them is not."""
		self.assertEqual(slqb_report.find_bad_reports(self.LINES), [])
		self.assertTrue(judge(guest_run(self.LINES),
				      BootRequest(shape=Shape(4, 2, True)), 'c.log').ok)
		lines = list(self.LINES)
		lines.insert(20, '[   80.101210] WARNING: CPU: 1 PID: 812 at mm/slqb.c:551 '
			     'alloc_slow+0x1a/0x2b0')
		lines.insert(40, '[   80.101900] BUG: unable to handle page fault for '
			     'address: 0000000000001234')
		self.assertEqual([(f.label, f.index) for f in slqb_report.find_bad_reports(lines)],
				 [('WARNING:', 20), ('BUG:', 40)])

	def test_stress_ng_lines_are_user_space(self):
		classify = slqb_report.classify
		own = 'stress-ng: warn:  [1069] pipe: WARNING: finished prematurely after just 10.58s'
		self.assertIn(own, self.LINES)
		self.assertIsNone(classify(own))
		self.assertIsNone(classify('stress-ng: fail:  [3] x: BUG: from user space'))
		# kernel output spliced into one of its lines is read as ever
		self.assertEqual(classify('stress-ng: warn:  [1069] pipe: WAR[   50.1] WARNING: '
					  'CPU: 1 PID: 2 at mm/slqb.c:551 alloc_slow'), 'WARNING:')
		# but the user space part before the splice is not (CI of 26c810f)
		self.assertIsNone(classify('stress-ng: warn:  [1090] msg: WARNING: finished '
					   'prematurely after just 4.35s[   30.225645] Huh '
					   'VM_FAULT_OOM leaked out to the #PF handler. Retrying PF'))
		self.assertEqual(classify('stress-ng: warn:  [1090] msg: WARNING: x[   30.2] '
					  'BUG: KASAN: use-after-free in y'), 'KASAN report')
		# nor the rest of one that a kernel line broke in two (CI of ecbddb3)
		self.assertIsNone(classify('  [1078] pipe: WARNING: finished prematurely after '
					   'just 6.29s'))
		self.assertEqual(classify('  [1078] pipe: x[   35.8] WARNING: CPU: 1 PID: 2 at '
					  'mm/slqb.c:551 alloc_slow'), 'WARNING:')
		# and a kernel line of a task called stress-ng is the kernel's
		self.assertEqual(classify('[   50.1] stress-ng: info: BUG: x'), 'BUG:')
		self.assertEqual(classify('stress-ng-fork: WARNING: x'), 'WARNING:')


class RateLimitTest(unittest.TestCase):
	"""slqb_faults: whether reports kept within their rate limits."""

	def test_within_rate_limit(self):
		ok = slqb_faults.within_rate_limit
		self.assertTrue(ok([], 10, 1))
		self.assertTrue(ok([0.0, 10.5, 21.0, 40.0], 10, 1))
		self.assertFalse(ok([0.0, 5.0], 10, 1))
		self.assertFalse(ok([3.0, 0.0, 8.5], 10, 1))
		# a time stamp may lag its __ratelimit() call by up to the slack
		self.assertTrue(ok([0.6, 10.2], 10, 1))
		self.assertFalse(ok([0.6, 10.2], 10, 1, slack=0.1))
		burst = [0.001 * i for i in range(10)]
		self.assertTrue(ok(burst + [5.1 + t for t in burst], 5, 10))
		self.assertFalse(ok(burst + [0.5], 5, 10))
		# a run that ends late need not start a new one: nine at once, a
		# tenth 4.5 s on, then ten after the interval is over
		spread = [0.1 * i for i in range(9)] + [4.5] + [5.05 + t for t in burst]
		self.assertTrue(ok(spread, 5, 10))
		self.assertFalse(ok(spread + [9.0], 5, 10))

	def test_densest(self):
		self.assertEqual(slqb_faults.densest([], 5), (0, 0.0))
		self.assertEqual(slqb_faults.densest([20.0, 0.0, 1.0, 2.0], 5), (3, 0.0))
		self.assertEqual(slqb_faults.densest([0.0, 9.0, 10.0, 11.0], 5), (3, 9.0))

	def test_console(self):
		lines = fixture_lines('console-faults.log')
		problems, summary = slqb_faults.rate_limit_problems(lines)
		self.assertEqual(problems, [])
		self.assertEqual(summary, [
			'allocation failure warnings (warn_alloc): 2 (at most 1 per 10 s)',
			"SLQB's no-slab reports: 3 (at most 10 per 5 s)",
			'VM_FAULT_OOM notes of the page fault handler: 2 (at most 10 per 5 s)',
			'"warn_alloc: N callbacks suppressed": 3 suppressed in all'])

	def test_flood_and_silence(self):
		flood = [f'[   {50 + i * 0.5:.6f}] kworker/1:1: page allocation failure: '
			 'order:0, mode:0xcc0(GFP_KERNEL)' for i in range(4)]
		quiet = ['SLQB-GUEST: PASS']
		problems, _ = slqb_faults.rate_limit_problems(flood)
		self.assertEqual(len(problems), 2)
		self.assertIn('allocation failure warnings (warn_alloc): 4 within 10 s from '
			      '50.000 s, more than a rate limit of 1 per 10 s lets through',
			      problems[0])
		self.assertIn("SLQB's no-slab reports: none on the console", problems[1])
		# the guest's own echo of a line (no time stamp) is not a report
		problems, summary = slqb_faults.rate_limit_problems(
			quiet + ['SLQB: kmalloc-2k: no new slab on node 0, gfp 0xcc0()'])
		self.assertIn("SLQB's no-slab reports: none", problems[0])


class FaultsChecksTest(unittest.TestCase):
	"""slqb_faults.report_checks on a faults boot's console."""

	LINES = fixture_lines('console-faults.log')

	def results(self, lines):
		rec = CheckRecorder()
		slqb_faults.report_checks(rec, 'slqb f', faults_outcome(lines))
		self.assertEqual(list(rec.results),
				 [f'slqb f: {c}' for c in slqb_faults.CHECKS])
		return {name[len('slqb f: '):]: why for name, why in rec.results.items()}

	def edit(self, old, new):
		"""The fixture with every line that holds old replaced by new
		(dropped if new is None)."""
		out = []
		for line in self.LINES:
			if old not in line:
				out.append(line)
			elif new is not None:
				out.append(new)
		return out

	def test_fixture_passes(self):
		self.assertEqual(self.results(self.LINES),
				 {c: None for c in slqb_faults.CHECKS})

	def test_nothing_injected(self):
		"""A guest whose faults stayed off (rate 0:1:0) fails the checks
		that need faults, rather than passing vacuously."""
		lines = [l for l in self.LINES if 'SLQB: ' not in l]
		lines = [l.replace('failslab=1089 fail_page_alloc=173',
				   'failslab=0 fail_page_alloc=0')
			 .replace('fail_page_alloc=69', 'fail_page_alloc=0')
			 .replace('bulk_part_way=16 fallback_slabs=31',
				  'bulk_part_way=0 fallback_slabs=0') for l in lines]
		got = self.results(lines)
		self.assertIn('failslab injected 0 failures and fail_page_alloc 0 into the '
			      'stress: want some of each', got['faults injected into the stress'])
		self.assertIn('no object of 47 bulk allocations came from a slab below '
			      'order 3; fail_page_alloc injected 0 failures',
			      got['order fallback reached'])
		self.assertIn('none of 63 bulk allocations failed; fail_page_alloc '
			      'injected 0', got['bulk allocation failed part way'])
		self.assertIn("SLQB's no-slab reports: none on the console",
			      got['allocation failure reports rate-limited'])
		self.assertIsNone(got['objects intact under faults'])
		self.assertIsNone(got['slab memory back after the faults'])
		self.assertTrue(all(why.endswith('Full console log: c.log')
				    for why in got.values() if why))
		# one kind injected, the other not
		got = self.results(self.edit('failslab=1089', 'SLQB-GUEST: faults stress '
					     'failslab=5 fail_page_alloc=0'))
		self.assertIn('failslab injected 5 failures and fail_page_alloc 0',
			      got['faults injected into the stress'])

	def test_no_counts_or_verdict(self):
		got = self.results(self.edit('faults stress', None))
		self.assertIn('the guest printed no "faults stress" counts',
			      got['faults injected into the stress'])
		lines = self.edit('slqb_faults: PASS', None)
		got = self.results(lines)
		for name in ('order fallback reached', 'bulk allocation failed part way',
			     'objects intact under faults'):
			self.assertIn('the faults module gave no verdict: step faults-slqb '
				      'ended without a "slqb_faults: PASS|FAIL" line', got[name])
		lines = [l for l in lines if 'step faults-slqb ok' not in l]
		self.assertIn('the guest never finished step faults-slqb',
			      self.results(lines)['order fallback reached'])

	def test_module_failure(self):
		bad = ('[   67.945391] slqb_faults: FAIL cpus=4 rounds=63 bulk_ok=47 '
		       'bulk_part_way=16 fallback_slabs=31 order=3 bad=2')
		lines = self.edit('slqb_faults: PASS', bad)
		lines = [l.replace('faults-slqb ok (1s)', 'faults-slqb FAILED (exit 1)')
			 for l in lines]
		got = self.results(lines)
		self.assertIn('slqb_faults: FAIL cpus=4', got['objects intact under faults'])
		self.assertIn('step faults-slqb FAILED', got['objects intact under faults'])
		self.assertIsNone(got['order fallback reached'])
		got = self.results(self.edit('slqb_faults: PASS', bad.replace(
			'order=3', 'order=0').replace('fallback_slabs=31', 'fallback_slabs=0')))
		self.assertIn('slabs of order 0: no larger order to fall back from',
			      got['order fallback reached'])

	def test_memory_and_rate_limits(self):
		lines = [l.replace('faults-slab-memory ok (0s)', 'faults-slab-memory FAILED (exit 1)')
			 for l in self.LINES]
		got = self.results(lines)
		self.assertIn('step faults-slab-memory FAILED:', got['slab memory back after the faults'])
		self.assertIn('after shrink 13700 kB', got['slab memory back after the faults'])
		flood = [f'[   84.{i:06d}] SLQB: kmalloc-1k: no new slab on node 1, '
			 'gfp 0xcc0(GFP_KERNEL)' for i in range(11)]
		got = self.results(self.LINES[:10] + flood + self.LINES[10:])
		self.assertIn("SLQB's no-slab reports: 11 within 5 s from 84.000 s",
			      got['allocation failure reports rate-limited'])


	def test_memcg_charges(self):
		"""The cgroup's charge after the failed bulk allocations of the
		module's memcg=1 run: a leak fails, and so do too few failures
		to tell one, a bad count and a missing line."""
		name = 'failed bulk allocations keep no memcg charge'
		[line] = [l for l in self.LINES if 'faults-memcg:' in l]
		m = slqb_faults.MEMCG_RE.search(line)
		current, unsettled = m.group(1), m.group(4)

		def judged(new):
			return self.results(self.edit('faults-memcg:', new))[name]
		leak = line.replace(f'memory.current={current}',
				    f'memory.current={int(unsettled) // 2}')
		self.assertIn('more than the 2097152 bytes of slack is still charged',
			      judged(leak))
		few = line.replace(f'unsettled={unsettled}', 'unsettled=1048576')
		self.assertIn('too few to tell a leak', judged(few))
		self.assertIn('2 bulk allocations returned neither 0 nor all',
			      judged(line.replace('bad=0', 'bad=2')))
		self.assertIn('the guest printed no "faults-memcg:" line', judged(None))


class FaultsBootTest(unittest.TestCase):
	"""The faults boot of the kernels group, its hook and the guest's side."""

	def test_in_the_table_without_a_build_of_its_own(self):
		import slqb_group_kernels as kernels
		[boot] = [b for b in kernels.BOOTS if b.faults]
		self.assertEqual((boot.alloc, boot.name, boot.cpus, boot.nodes,
				  boot.memoryless, boot.memory_hotplug, boot.kconfig),
				 ('slqb', '4cpu-2node-memoryless-faults', 4, 2, True, False, ()))
		others = [b for b in kernels.BOOTS if b is not boot]
		self.assertEqual(kernels.kernel_specs(others), kernels.kernel_specs())
		prefix = 'slqb 4cpu-2node-memoryless-faults'
		self.assertEqual(kernels.check_names(boot),
				 [f'{prefix}: guest PASS', f'{prefix}: no bad kernel reports',
				  f'{prefix}: KUnit all ok'] +
				 [f'{prefix}: {c}' for c in slqb_faults.CHECKS])
		self.assertFalse(any(b.faults for b in kernels.PEER_BOOTS))

	def start(self, spec):
		prepared = Prepared(spec=spec, base='b', bzimage='bz', initrd='rd',
				    nr_cpus=8)
		paths = Paths(repo=REPO, cache=os.path.join(SCRATCH.path, 'faults-cache'))
		calls = []
		with mock.patch.object(slqb_faults, 'build_module',
				       lambda p, s: calls.append(('module', s.name))), \
		     mock.patch.object(slqb_faults, 'build_initramfs',
				       lambda p, s, extra: calls.append(('initramfs', extra.name))
				       or '/b/slqb-faults-initramfs.cpio.gz'), \
		     mock.patch.object(slqb_faults, 'BuildLock', mock.MagicMock()):
			extras = slqb_faults.hook_for(True).start(
				paths, prepared, BootRequest(shape=Shape(4, 2, True)))
		return extras, calls

	def test_build_targets(self):
		spec = slqb_build.KernelSpec('slqb')
		base = dataclasses.replace(spec, base_digest='ab')
		mods = 'CONFIG_A=y\nCONFIG_B=m\n'
		self.assertEqual(slqb_build.build_targets(spec, mods),
				 ['bzImage', 'modules'])
		self.assertEqual(slqb_build.build_targets(spec, 'CONFIG_A=y\n'),
				 ['bzImage'])
		# a distribution's modules are not built, but ours must link
		self.assertEqual(slqb_build.build_targets(base, mods),
				 ['bzImage', 'modules_prepare'])
		self.assertEqual(slqb_build.build_targets(base, mods, ('mm/slqb.o',)),
				 ['mm/slqb.o'])

	def test_hook(self):
		extras, calls = self.start(slqb_build.KernelSpec('slqb'))
		self.assertEqual(calls, [('module', 'x86_64-slqb'), ('initramfs', 'faults')])
		self.assertEqual((extras.initrd, extras.params, tuple(extras.qemu_args)),
				 ('/b/slqb-faults-initramfs.cpio.gz', 'slqbtest.faults=1', ()))
		for spec in (slqb_build.KernelSpec('slqb', arch='arm64'),
			     dataclasses.replace(slqb_build.KernelSpec('slqb'), base_digest='ab')):
			with self.assertRaisesRegex(SlqbError, 'own x86_64 kernel config'):
				self.start(spec)
		self.assertIsNone(slqb_faults.hook_for(False))
		cpio = slqb_initramfs.CpioList()
		slqb_faults.ModuleFiles().add(cpio, Paths(repo=REPO, cache='/c'),
					      slqb_build.KernelSpec('slqb'))
		self.assertIn(slqb_faults.GUEST_MODULE, cpio.entries)

	def test_init_sh_side(self):
		"""init.sh reads the parameters, loads the module from where the
		initramfs has it, prints the marker and runs the steps the checks
		read."""
		with open(os.path.join(os.path.dirname(slqb_faults.__file__), 'guest',
				       'init.sh'), encoding='utf-8') as f:
			init = f.read()
		self.assertIn('param faults 0', init)
		self.assertIn('param faultrate 10:10:20', init)
		self.assertIn(f'FAULTS_MOD={slqb_faults.GUEST_MODULE}\n', init)
		self.assertIn('say "faults $1$counts"', init)
		for step in ('faults-setup', 'faults-slqb', 'faults-slab-memory', 'stress'):
			self.assertRegex(init, rf'\bstep {step} ')
		for source in slqb_faults.MODULE_SOURCES:
			self.assertTrue(os.path.isfile(os.path.join(slqb_faults.MODULE_SRC, source)))

	FAULT_OPTIONS = ('CONFIG_FAULT_INJECTION', 'CONFIG_FAILSLAB',
			 'CONFIG_FAIL_PAGE_ALLOC', 'CONFIG_FAULT_INJECTION_DEBUG_FS')

	def test_kernel_config(self):
		"""base.config has fault injection and its debugfs files."""
		base = slqb_build.parse_config(slqb_util.read_text(os.path.join(
			slqb_build.CONFIG_DIR, 'base.config')))
		for option in self.FAULT_OPTIONS + ('CONFIG_DEBUG_FS',):
			self.assertEqual(base.get(option), 'y', option)

	@unittest.skipUnless(os.path.isfile(os.path.join(slqb_util.HARNESS_DIR,
							 'slqb_bench', '__init__.py')),
			     'no slqb bench here (its patch comes after the harness)')
	def test_bench_kernels_leave_it_out(self):
		import slqb_bench
		bench = dict(slqb_build.parse_kconfig_option(o) for o in slqb_bench.BENCH_EXTRAS)
		self.assertEqual({o: bench.get(o) for o in self.FAULT_OPTIONS},
				 {o: 'n' for o in self.FAULT_OPTIONS})


if __name__ == '__main__':
	unittest.main()

# ---------------------------------------------------------------- sanitizers

KCSAN_ELSEWHERE = [
	'[   40.1] ==================================================================',
	'[   40.1] BUG: KCSAN: data-race in atime_needs_update / touch_atime',
	'[   40.1] write to 0xffff888003d2e9a0 of 8 bytes by task 80 on cpu 2:',
]
KMSAN_ELSEWHERE = [
	'[  222.1] BUG: KMSAN: uninit-value in ip_send_unicast_reply+0x12d5/0x138b',
	'[  222.1]  ip_send_unicast_reply+0x12d5/0x138b',
	'[  222.1]  slqb_new_slab+0x353/0x11a7',
]
KMSAN_OURS = [
	'[   51.0] BUG: KMSAN: uninit-value in track_stack+0x1bc/0x225',
]
KCSAN_OURS = [
	'[   41.2] BUG: KCSAN: data-race in slqb_trim.constprop.0+0x5a/0x200 / '
	'kmem_cache_free+0x11/0x40',
]


class SanitizerTest(unittest.TestCase):
	"""The sanitizers group: whose KCSAN and KMSAN reports fail,
	kmemleak's count."""

	def test_reports_are_classified(self):
		classify = slqb_report.classify
		self.assertEqual(classify(KCSAN_ELSEWHERE[1]), 'KCSAN report')
		self.assertEqual(classify('[ 3.1] UBSAN: shift-out-of-bounds in '
					  'mm/slqb.c:12:3'), 'UBSAN report')
		self.assertEqual(classify('kmemleak: 3 new suspected memory leaks '
					  '(see /sys/kernel/debug/kmemleak)'), 'kmemleak report')
		self.assertIsNone(classify('kmemleak: Kernel memory leak detector initialized'))
		self.assertEqual(classify('[ 9.2] BUG: KMSAN: uninit-value in '
					  'slqb_alloc+0x1/0x2'), 'KMSAN report')

	def test_kmsan_boots(self):
		"""The KMSAN kernel is one clang build with its suite as a module;
		kmsan_test's reports are allowed only inside it."""
		import slqb_group_sanitizers as san
		kmsan = [b for b in san.SANITIZER_BOOTS if 'CONFIG_KMSAN=y' in b.kconfig]
		self.assertEqual(len({b.kconfig for b in kmsan}), 1)
		self.assertTrue(slqb_build.KernelSpec('slqb', kmsan[0].kconfig).clang)
		self.assertEqual(sorted(b.expect for b in kmsan), ['kmsan', 'pass'])
		self.assertEqual(slqb_report.REPORTING_SUITES['kmsan'], 'KMSAN report')
		self.assertIn('CONFIG_KASAN_HW_TAGS=y', san.KASAN_HW_TAGS.kconfig)

	def test_loaded_modules_are_packed(self):
		"""Every module a boot loads (slqbtest.load=) is one the
		initramfs packs: kmsan_test was not, and its boot could only
		fail."""
		import slqb_group_arch as arch
		import slqb_group_kernels as kernels
		import slqb_group_sanitizers as san
		packed = {os.path.basename(m)[:-3] for m in slqb_initramfs.EXTRA_MODULES}
		boots = (kernels.BOOTS + kernels.PEER_BOOTS + san.SANITIZER_BOOTS +
			 [san.KASAN_HW_TAGS] + [b for t in arch.ARCH_KASAN.values() for b in t])
		loaded = set()
		for boot in boots:
			for word in boot.append.split():
				if word.startswith('slqbtest.load='):
					loaded.update(word.split('=', 1)[1].split(','))
		self.assertIn('kmsan_test', loaded)
		self.assertEqual(sorted(loaded - packed), [])

	def test_hw_tags_base_fix(self):
		"""A tree whose report.c calls hw_suppress_tag_checks_start()
		without a definition gets the base fix, and says why; a tree
		with one does not."""
		tree = os.path.join(SCRATCH.path, 'hwtags')
		SCRATCH.write('hwtags/mm/kasan/report.c',
			      'static void s(void) { hw_suppress_tag_checks_start(); }\n')
		SCRATCH.write('hwtags/mm/kasan/kasan.h', '#define KASAN_X 1\n')
		self.assertIn('which nothing in mm/kasan defines',
			      slqb_tree.kasan_hw_tags_unbuildable(tree))
		fixes = slqb_tree.base_fixes(REPO, tree)
		self.assertEqual([f.name for f in fixes],
				 ['kasan-hw-tags-suppress-checks.patch'])
		self.assertTrue(os.path.isfile(fixes[0].path))
		SCRATCH.write('hwtags/mm/kasan/kasan.h',
			      '#define hw_suppress_tag_checks_start()\tarch_x()\n')
		self.assertIsNone(slqb_tree.kasan_hw_tags_unbuildable(tree))
		self.assertEqual(slqb_tree.base_fixes(REPO, tree), [])
		self.assertIn('cannot read',
			      slqb_tree.kasan_hw_tags_unbuildable('/nonexistent'))

	def test_kcsan_header_functions(self):
		import slqb_group_sanitizers as san
		self.assertEqual(san.report_functions(KCSAN_OURS[0]),
				 ['slqb_trim', 'kmem_cache_free'])
		self.assertEqual(san.report_functions('BUG: KCSAN: data-race in f'), ['f'])
		self.assertEqual(san.report_functions(KCSAN_ELSEWHERE[2]), [])
		self.assertEqual(san.report_functions(KMSAN_ELSEWHERE[0]),
				 ['ip_send_unicast_reply'])

	def test_slqb_functions_come_from_slqb_objects(self):
		import slqb_group_sanitizers as san
		build = os.path.join(SCRATCH.path, 'san-build')
		src = SCRATCH.write('san-build/mm/slqb_x.c',
				    'int slqb_data = 1;\n'
				    'static int __attribute__((noinline)) helper(int x)'
				    ' { return x + slqb_data; }\n'
				    'int slqb_entry(int x) { return helper(x); }\n')
		other = SCRATCH.write('san-build/mm/other.c', 'int other_fn(void) { return 0; }\n')
		for c in (src, other):
			subprocess.run(['gcc', '-O2', '-c', c, '-o', c[:-2] + '.o'], check=True)
		ours = san.slqb_functions(build)
		self.assertIn('slqb_entry', ours)
		self.assertIn('helper', ours)
		self.assertNotIn('slqb_data', ours)
		self.assertNotIn('other_fn', ours)
		with self.assertRaisesRegex(SlqbError, 'no SLQB objects'):
			san.slqb_functions(os.path.join(SCRATCH.path, 'no-build'))

	def judged(self, lines, label='KCSAN report'):
		import slqb_group_kernels as kernels
		import slqb_group_sanitizers as san
		boot = kernels.Boot('slqb', 'k')
		outcome = slqb_boot.BootOutcome(
			log_path='c.log', run=guest_run(lines), verdict='PASS',
			findings=slqb_report.find_bad_reports(lines),
			ktap=slqb_report.KtapReport(), errors=[])
		ctx = CheckRecorder()
		allowed = san.reports_elsewhere(
			frozenset({'slqb_trim', 'kmem_cache_free', 'track_stack'}), label)
		with mock.patch('builtins.print'):
			kernels.judge_pass(ctx, boot, outcome, None, allowed)
		return ctx.results['slqb k: no bad kernel reports']

	def test_kcsan_reports_fail_only_in_slqb(self):
		self.assertIsNone(self.judged(KCSAN_ELSEWHERE))
		failure = self.judged(KCSAN_ELSEWHERE + KCSAN_OURS)
		self.assertIn('1 report lines', failure)
		self.assertIn('slqb_trim.constprop.0', failure)
		# Any other report still fails.
		self.assertIn('kernel BUG', self.judged(['kernel BUG at mm/slqb.c:10!']))

	def test_kmsan_reports_fail_only_in_slqb(self):
		self.assertIsNone(self.judged(KMSAN_ELSEWHERE, 'KMSAN report'))
		failure = self.judged(KMSAN_ELSEWHERE + KMSAN_OURS, 'KMSAN report')
		self.assertIn('track_stack+0x1bc', failure)
		# a KCSAN report is not excused in a KMSAN boot, nor the reverse
		self.assertIn('atime_needs_update',
			      self.judged(KCSAN_ELSEWHERE, 'KMSAN report'))
		self.assertIn('ip_send_unicast_reply', self.judged(KMSAN_ELSEWHERE))

	def test_kmemleak_count(self):
		import slqb_group_sanitizers as san
		[boot] = [b for b in san.SANITIZER_BOOTS if san.kmemleak_check_name(b)]
		self.assertIn('slqbtest.kmemleak=1', boot.append.split())
		name = san.kmemleak_check_name(boot)

		def judge(lines):
			ctx = CheckRecorder()
			san.judge_kmemleak(ctx, name, faults_outcome(lines))
			return ctx.results[name]
		self.assertIsNone(judge(['SLQB-GUEST: kmemleak: 0 suspected leaks']))
		failure = judge(['SLQB-GUEST: kmemleak: 2 suspected leaks',
				 'unreferenced object 0xffff888004a1c000 (size 64):',
				 '  backtrace:', '    kmalloc_trace+0x20/0x60'])
		self.assertIn('2 suspected leaks', failure)
		self.assertIn('unreferenced object 0xffff888004a1c000', failure)
		self.assertIn('printed no kmemleak count', judge(['SLQB-GUEST: PASS']))
