#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of memory hotplug (the package slqb_memhp), after the model
of tools/testing/kunit/kunit_tool_test.py.

They test the QMP client and the hotplug driver against a made-up QMP
server on a real unix socket, the hook that boot_kernel is handed (what
it builds, adds and refuses), the guest's markers and slabs files, and
the judgments and checks of a memory-hotplug boot on made-up consoles
from test_data/. Like the other unit tests they need only python3 and
take seconds; `python3 -m unittest` in tools/testing/slqb finds them, and
so does the group unit of `slqb test`.
"""

import dataclasses
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from unittest import mock

# The harness's folder, which holds this package.
HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, HARNESS)
sys.dont_write_bytecode = True

import slqb_build
import slqb_group_kernels
import slqb_guest
import slqb_initramfs
import slqb_memhp
from slqb_boot import BootRequest, Prepared, judge, kernel_cmdline
from slqb_memhp import qmp
from slqb_qemu import GuestRun, Shape
from slqb_util import Paths, SlqbError, fixture_lines
from slqb_unittest import REPO, Scratch

SCRATCH = Scratch('slqb-unit-memhp.')
setUpModule = SCRATCH.setup
tearDownModule = SCRATCH.teardown


# ---------------------------------------------------------------- QMP

class FakeQmp(threading.Thread):
	"""A QMP server on a real unix socket, for one client.

	reply(request) gives the raw bytes to send back for each request line
	(any framing: several messages in one piece, one in several pieces);
	the requests, as parsed JSON, are kept in order.
	"""

	def __init__(self, reply, greeting=b'{"QMP": {"version": {}, "capabilities": []}}\r\n'):
		super().__init__(daemon=True)
		self.path = tempfile.mktemp(suffix='.sock', dir=SCRATCH.path)
		self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
		self.server.bind(self.path)
		self.server.listen(1)
		self.reply = reply
		self.greeting = greeting
		self.requests = []
		self.start()

	def run(self):
		conn, _ = self.server.accept()
		with conn:
			for piece in self.pieces(self.greeting):
				conn.sendall(piece)
			buffer = b''
			while True:
				data = conn.recv(4096)
				if not data:
					return
				buffer += data
				while b'\n' in buffer:
					line, buffer = buffer.split(b'\n', 1)
					request = json.loads(line)
					self.requests.append(request)
					answer = self.reply(request)
					if answer is None:
						return		# hang up
					for piece in self.pieces(answer):
						conn.sendall(piece)
						time.sleep(0.01)

	@staticmethod
	def pieces(answer):
		return answer if isinstance(answer, list) else [answer]

	def close(self):
		self.server.close()
		self.join(timeout=5)
		os.unlink(self.path)


def qmp_return(request, value=None):
	return json.dumps({'return': value if value is not None else {},
			   'id': request.get('id')}).encode() + b'\r\n'


def qmp_event(name, **data):
	return json.dumps({'event': name, 'data': data,
			   'timestamp': {'seconds': 1, 'microseconds': 2}}).encode() + b'\r\n'


class QmpClientTest(unittest.TestCase):
	"""qmp.QmpClient against FakeQmp over a real socket."""

	def client(self, reply, **kwargs):
		server = FakeQmp(reply, **kwargs)
		self.addCleanup(server.close)
		client = qmp.QmpClient.connect(server.path, timeout=5)
		self.addCleanup(client.close)
		return server, client

	def test_handshake_and_framing(self):
		def reply(request):
			if request['execute'] == 'query-status':
				whole = qmp_event('RESUME') + qmp_return(request, {'running': True})
				return [whole[:7], whole[7:30], whole[30:]]	# split anywhere
			return qmp_return(request)
		server, client = self.client(reply)
		self.assertEqual(client.execute('query-status'), {'running': True})
		self.assertEqual([r['execute'] for r in server.requests],
				 ['qmp_capabilities', 'query-status'])
		self.assertEqual(server.requests[1]['id'], 2)
		self.assertNotIn('arguments', server.requests[1])
		# The event that came before the reply was kept.
		self.assertEqual(client.wait_event('RESUME', timeout=1)['event'], 'RESUME')
		self.assertEqual(client.events, [])

	def test_error_reply_then_usable(self):
		def reply(request):
			if request['execute'] == 'device_add':
				return json.dumps({'error': {'class': 'GenericError',
							     'desc': "Duplicate device ID 'd0'"},
						   'id': request['id']}).encode() + b'\r\n'
			return qmp_return(request, [])
		server, client = self.client(reply)
		with self.assertRaises(qmp.QmpError) as cm:
			client.execute('device_add', {'driver': 'pc-dimm', 'id': 'd0'})
		self.assertIn('device_add failed: GenericError: Duplicate device ID', str(cm.exception))
		self.assertEqual(server.requests[1]['arguments'], {'driver': 'pc-dimm', 'id': 'd0'})
		self.assertEqual(client.execute('query-memory-devices'), [])

	def test_timeout_then_late_reply_dropped(self):
		late = []

		def reply(request):
			if request['execute'] == 'slow':
				late.append(qmp_return(request, 'late'))
				return b''
			return late + [qmp_return(request, 'fresh')]
		_, client = self.client(reply)
		with self.assertRaises(qmp.QmpError) as cm:
			client.execute('slow', timeout=0.3)
		self.assertIn('timed out waiting for the reply to slow', str(cm.exception))
		self.assertEqual(client.execute('next'), 'fresh')

	def test_wait_event_matches_data(self):
		def reply(request):
			return [qmp_return(request), qmp_event('DEVICE_DELETED', path='/x'),
				qmp_event('DEVICE_DELETED', device='d1', path='/y')]
		_, client = self.client(reply)
		client.execute('device_del', {'id': 'd1'})
		event = client.wait_event('DEVICE_DELETED',
					  lambda data: data.get('device') == 'd1', timeout=2)
		self.assertEqual(event['data']['path'], '/y')
		self.assertEqual(len(client.events), 1)	# the other one stays
		with self.assertRaises(qmp.QmpError) as cm:
			client.wait_event('DEVICE_DELETED', lambda d: d.get('device') == 'd2',
					  timeout=0.3)
		self.assertIn('timed out waiting for event DEVICE_DELETED', str(cm.exception))

	def test_bad_peers(self):
		cases = [(lambda r: b'this is not json\r\n', 'not JSON'),
			 (lambda r: b'[1, 2]\r\n', 'not a JSON object'),
			 (lambda r: None, 'closed the connection'),
			 (lambda r: b'{"id": %d, "ok": 1}\r\n' % r['id'], 'neither return nor error')]
		for index, (reply, text) in enumerate(cases):
			def first_ok(request, reply=reply):
				if request['execute'] == 'qmp_capabilities':
					return qmp_return(request)
				return reply(request)
			_, client = self.client(first_ok)
			with self.assertRaises(qmp.QmpError, msg=text) as cm:
				client.execute('x', timeout=2)
			self.assertIn(text, str(cm.exception))
		with self.assertRaises(qmp.QmpError) as cm:
			self.client(lambda r: qmp_return(r), greeting=b'{"hello": 1}\n')
		self.assertIn('expected a greeting', str(cm.exception))

	def test_no_socket(self):
		with self.assertRaises(qmp.QmpError) as cm:
			qmp.QmpClient.connect(os.path.join(SCRATCH.path, 'none.sock'),
						   timeout=0.3)
		self.assertIn('cannot connect', str(cm.exception))


# ---------------------------------------------------------------- memory hotplug

class HotplugDriverTest(unittest.TestCase):
	"""slqb_memhp.HotplugDriver: markers in, QMP commands out, over FakeQmp."""

	def test_add_and_remove(self):
		present = {}

		def reply(request):
			name, args = request['execute'], request.get('arguments', {})
			if name == 'device_add':
				present[args['id']] = args
			if name == 'query-memory-devices':
				return qmp_return(request, [{'type': 'dimm', 'data': {'id': d}}
							    for d in present] or [])
			if name == 'device_del':
				present.pop(args['id'])
				return [qmp_return(request), qmp_event('DEVICE_DELETED',
									 device=args['id'])]
			return qmp_return(request)
		server = FakeQmp(reply)
		self.addCleanup(server.close)
		dimms = slqb_memhp.plan_dimms(Shape(4, 2, True, True))
		driver = slqb_memhp.HotplugDriver(server.path, dimms)
		driver.on_line('[  5.0] SLQB-GUEST: memhp add')
		driver.on_line('SLQB-GUEST: step memhp-add ok')	# not for the driver
		driver.on_line('SLQB-GUEST: memhp remove node2 node0')
		record = driver.finish()
		self.assertEqual(record.errors, [])
		self.assertEqual(record.added, ['slqb-dimm0', 'slqb-dimm1'])
		self.assertEqual(record.removed, ['slqb-dimm0', 'slqb-dimm1'])
		self.assertEqual(record.asked_remove, [2, 0])
		calls = [(r['execute'], r.get('arguments', {})) for r in server.requests]
		self.assertEqual(calls[1], ('object-add', {
			'qom-type': 'memory-backend-ram', 'id': 'slqb-dimm0-mem',
			'size': 256 << 20}))
		self.assertEqual(calls[2], ('device_add', {
			'driver': 'pc-dimm', 'id': 'slqb-dimm0', 'memdev': 'slqb-dimm0-mem',
			'node': 2}))
		self.assertEqual(calls[4][1]['node'], 0)
		self.assertEqual([c[0] for c in calls[5:]],
				 ['query-memory-devices', 'device_del', 'device_del',
				  'object-del', 'object-del', 'query-memory-devices'])

	def test_unplug_that_never_ends(self):
		def reply(request):
			if request['execute'] == 'query-memory-devices':
				return qmp_return(request, [{'data': {'id': 'slqb-dimm1'}}])
			if request['execute'] == 'device_del':	# someone else's unplug
				return [qmp_return(request),
					qmp_event('DEVICE_DELETED', device='other', path='/o')]
			return qmp_return(request)
		server = FakeQmp(reply)
		self.addCleanup(server.close)
		driver = slqb_memhp.HotplugDriver(server.path,
						  slqb_memhp.plan_dimms(Shape(4, 2, True, True)),
						  unplug_timeout=0.3)
		driver.on_line('SLQB-GUEST: memhp remove node0 node5')
		record = driver.finish()
		self.assertEqual(record.removed, [])
		text = '\n'.join(record.errors)
		self.assertIn('nodes [5], which got none', text)
		self.assertIn('slqb-dimm1 (node 0): no DEVICE_DELETED', text)
		self.assertIn('query-memory-devices still lists slqb-dimm1', text)
		errors = slqb_memhp.record_errors(record, 'c.log')
		self.assertIn('never asked for the dimms', errors[-1])


class MemhpTest(unittest.TestCase):
	"""Shapes, command lines, markers and slabs files of memory hotplug."""

	def start(self, spec=None, shape=Shape(4, 2, True, True)):
		"""MemoryHotplug.start with the module and initramfs builds faked:
		(hook, extras, the calls of the builds)."""
		spec = spec or slqb_build.KernelSpec('slub')
		prepared = Prepared(spec=spec, base='b', bzimage='bz', initrd='rd',
				    nr_cpus=8)
		paths = Paths(repo=REPO, cache=os.path.join(SCRATCH.path, 'memhp-cache'))
		calls = []
		hook = slqb_memhp.MemoryHotplug(Shape(4, 2, True, True))
		with mock.patch.object(slqb_memhp, 'build_module',
				       lambda p, s: calls.append(('module', s.name))), \
		     mock.patch.object(slqb_memhp, 'build_initramfs',
				       lambda p, s, extra: calls.append(('initramfs', extra.name))
				       or '/b/slqb-memhp-initramfs.cpio.gz'), \
		     mock.patch.object(slqb_memhp, 'BuildLock', mock.MagicMock()):
			extras = hook.start(paths, prepared, BootRequest(shape=shape, stress=0))
		self.addCleanup(hook.stop)
		return hook, prepared, extras, calls

	def test_hook_start(self):
		hook, prepared, extras, calls = self.start()
		self.assertEqual(calls, [('module', 'x86_64-slub'), ('initramfs', 'memhp')])
		self.assertEqual(extras.initrd, '/b/slqb-memhp-initramfs.cpio.gz')
		self.assertEqual(extras.params, 'slqbtest.memhp=256 slqbtest.memhpkernel=2 '
				 'slqbtest.memhpmovable=0')
		self.assertEqual(extras.qemu_args, ['-qmp', f'unix:{hook.socket},server=on,wait=off'])
		self.assertIn('slqbtest.memnodes=2 slqbtest.memhp=256 ', kernel_cmdline(
			prepared, BootRequest(shape=Shape(4, 2, True, True)), extras.params))
		hook.stop()	# no guest, no QMP thread: nothing to wait for
		self.assertEqual(hook.record, slqb_memhp.HotplugRecord())

	def test_hook_refuses(self):
		cases = [(slqb_build.KernelSpec('slqb', arch='arm64'), Shape(4, 2, True, True),
			  'x86_64 only'),
			 (dataclasses.replace(slqb_build.KernelSpec('slqb'), base_digest='ab'),
			  Shape(4, 2, True, True), 'own kernel config'),
			 (None, Shape(4, 2, True), 'room for the dimms')]
		for spec, shape, text in cases:
			with self.assertRaises(SlqbError, msg=text) as cm:
				self.start(spec, shape)
			self.assertIn(text, str(cm.exception))
			self.assertEqual(cm.exception.exit_code, 2)
		with self.assertRaisesRegex(SlqbError, 'needs a shape with a memoryless node'):
			slqb_memhp.MemoryHotplug(Shape(4, 2))
		self.assertIsNone(slqb_memhp.hook_for(Shape(4, 2, True)))
		self.assertIsInstance(slqb_memhp.hook_for(Shape(4, 2, True, True)),
				      slqb_memhp.MemoryHotplug)

	def test_module_in_its_initramfs(self):
		paths = Paths(repo=REPO, cache='/c')
		spec = slqb_build.KernelSpec('slqb')
		cpio = slqb_initramfs.CpioList()
		slqb_memhp.ModuleFiles().add(cpio, paths, spec)
		self.assertEqual(cpio.entries[slqb_memhp.GUEST_MODULE],
				 f'file {slqb_memhp.GUEST_MODULE} '
				 f'{spec.build_dir(paths)}/slqb-memhp/slqb_memhp.ko 0644 0 0')
		self.assertEqual(slqb_initramfs.initramfs_prefix(extra=slqb_memhp.ModuleFiles()),
				 'slqb-memhp')
		self.assertEqual(slqb_initramfs.initramfs_prefix(), 'slqb')

	def test_option_refused(self):
		# A cache below /dev/null cannot be made: should the option get
		# through, the run fails at once instead of building a kernel.
		env = dict(os.environ, SLQB_CACHE='/dev/null/slqb-cache')
		script = os.path.join(HARNESS, 'slqb.py')
		for extra, text in ((['--nodes', '2'], 'needs --memoryless-node'),
				    (['--memoryless-node', '--shell'], 'does not go with --shell')):
			proc = subprocess.run([sys.executable, script, 'boot', '--alloc',
					       'slub', '--cpus', '4', '--memory-hotplug',
					       *extra], env=env, capture_output=True,
					      text=True, timeout=60)
			self.assertEqual(proc.returncode, 2, proc.stderr)
			self.assertIn(text, proc.stderr)
			self.assertNotIn('Traceback', proc.stderr)

	def test_removal_marker(self):
		self.assertEqual(slqb_memhp.removal_request('memhp remove node2 node0'), [2, 0])
		self.assertEqual(slqb_memhp.removal_request('memhp remove'), [])
		self.assertIsNone(slqb_memhp.removal_request('memhp remove nodeX'))
		self.assertIsNone(slqb_memhp.removal_request('memhp add'))

	def test_parse_slabs(self):
		self.assertEqual(slqb_memhp.parse_slabs('12 N0=8 N1=3 N2=1\n'),
				 (12, {0: 8, 1: 3, 2: 1}))
		self.assertEqual(slqb_memhp.parse_slabs('0'), (0, {}))
		for bad in ('', 'N0=1', '3 N0=x', '3 M0=1', '3 N0=1 junk'):
			with self.assertRaises(ValueError, msg=bad):
				slqb_memhp.parse_slabs(bad)

	def test_slabs_on_node(self):
		lines = ['[ 9.0] slqb-memhp-slabs kmalloc-64: 10 N0=6 N1=4',
			 'slqb-memhp-slabs dentry: 5 N0=2 N2=3',
			 'slqb-memhp-slabs kmalloc-8: 2 N0=1 N1=1 N2=0',
			 'slqb-memhp-slabs odd: what',
			 'SLQB-GUEST: step memhp-slabs ok']
		caches, bad = slqb_memhp.slabs_on_node(lines, 2)
		self.assertEqual(caches, 4)
		self.assertEqual(bad[0], 'dentry: N2=3')
		self.assertIn('odd: not a slabs file', bad[1])
		self.assertEqual(len(bad), 2)
		self.assertEqual(slqb_memhp.slabs_on_node(lines[:1], 2), (1, []))
		totals = ['slqb-memhp-slabs kmalloc-64: 10', 'slqb-memhp-slabs dentry: 0']
		caches, bad = slqb_memhp.slabs_on_node(totals, 2)
		self.assertEqual((caches, len(bad)), (2, 1))
		self.assertIn('no slabs file of the 2 caches has per-node', bad[0])

	def test_step_results_and_output(self):
		lines = fixture_lines('console-memhp.txt')
		results = slqb_guest.step_results(lines)
		self.assertTrue(results['memhp-online'])
		self.assertFalse(results['memhp-remove'])
		out = slqb_guest.step_output(lines, 'memhp-remove')
		self.assertTrue(out[0].endswith('SLQB-GUEST: step memhp-remove'))
		self.assertIn('memory30 (node2): offline try 5: write error', out[-2])

	def outcome(self, lines, **record):
		run = GuestRun(lines=lines, returncode=0, timed_out=False, elapsed=1.0)
		shape = Shape(4, 2, True, True)
		outcome = judge(run, BootRequest(shape=shape), 'c.log')
		hook = slqb_memhp.MemoryHotplug(shape)
		hook.record = slqb_memhp.HotplugRecord(**record)
		self.log_lines = hook.judge(outcome)
		outcome.record = hook.record	# for test_memhp_problems
		return outcome

	def test_judge_boot(self):
		lines = fixture_lines('console-memhp-pass.txt')
		done = dict(asked_add=True, added=['slqb-dimm0', 'slqb-dimm1'],
			    asked_remove=[0, 2], removed=['slqb-dimm1', 'slqb-dimm0'])
		self.assertEqual(self.outcome(lines, **done).errors, [])
		left = [l.replace('N1=11', 'N1=10 N2=1') for l in lines]
		errors = self.outcome(left, **done).errors
		self.assertEqual(len(errors), 1)
		self.assertIn('1 of 2 caches still have slabs on node 2', errors[0])
		self.assertIn('dentry: N2=1', errors[0])
		# Node 2 kept its memory: its slabs are no one's business.
		kept = dict(done, asked_remove=[0], removed=['slqb-dimm1'])
		self.assertEqual(self.outcome(left, **kept).errors, [])
		none = [l for l in lines if 'slqb-memhp-slabs' not in l]
		self.assertIn('no slqb-memhp-slabs lines', self.outcome(none, **done).errors[0])
		errors = self.outcome(lines, errors=['QMP: device_add failed: X']).errors
		self.assertIn('memory hotplug: QMP: device_add failed: X', errors[0])
		self.assertIn('never asked for the dimms', errors[1])
		self.assertEqual(self.log_lines, ['memory hotplug: ERROR: QMP: device_add failed: X'])

	def test_boots_checks(self):
		boots = [b for b in slqb_group_kernels.BOOTS + slqb_group_kernels.PEER_BOOTS
			 if b.memory_hotplug]
		self.assertEqual(sorted(b.alloc for b in boots), ['slqb', 'slub'])
		for boot in boots:
			Shape(boot.cpus, boot.nodes, boot.memoryless, True).validate()
			names = slqb_group_kernels.check_names(boot)
			for name, _, _ in slqb_memhp.CHECKS:
				self.assertIn(f'{boot.alloc} {boot.name}: {name}', names)

	def test_memhp_problems(self):
		lines = fixture_lines('console-memhp-pass.txt')
		done = dict(asked_add=True, added=['slqb-dimm0', 'slqb-dimm1'],
			    asked_remove=[0, 2], removed=['slqb-dimm1', 'slqb-dimm0'])

		def problems(outcome, steps, needs, node):
			return slqb_memhp.problems(outcome, outcome.record, steps, needs, node)
		for _, steps, needs in slqb_memhp.CHECKS:
			self.assertEqual(problems(self.outcome(lines, **done), steps, needs, 2),
					 [], steps)
		failed = [l.replace('memhp-local ok', 'memhp-local FAILED') for l in lines]
		text = '\n'.join(problems(self.outcome(failed, **done),
					  ('memhp-churn', 'memhp-local'), '', 2))
		self.assertIn('step memhp-local FAILED', text)
		self.assertIn('check node 2: PASS', text)	# the step's output
		self.assertIn('Full console log: c.log', text)
		half = dict(done, removed=['slqb-dimm1'])
		self.assertIn('the harness removed', problems(
			self.outcome(lines, **half), ('memhp-remove',), 'removed', 2)[0])
		no_movable = dict(done, asked_remove=[2], removed=['slqb-dimm0'])
		self.assertTrue(problems(self.outcome(lines, **no_movable),
					 ('memhp-remove',), 'removed', 2))
		self.assertIn('the harness plugged in', problems(
			self.outcome(lines, asked_add=True, added=['slqb-dimm0']),
			('memhp-online',), 'added', 2)[0])
		cut = lines[:lines.index('SLQB-GUEST: step memhp-remove')]
		self.assertIn('never finished step memhp-remove', problems(
			self.outcome(cut, **done), ('memhp-remove',), 'removed', 2)[0])

	def test_init_sh_knows_the_markers(self):
		with open(os.path.join(os.path.dirname(slqb_guest.__file__), 'guest',
				       'init.sh'), encoding='utf-8') as f:
			init = f.read()
		self.assertIn(f'say "{slqb_guest.MEMHP_ADD}"', init)
		self.assertIn('say "memhp remove$gone"', init)
		self.assertIn('echo "slqb-memhp-slabs ', init)
		for name in ('memhp', 'memhpkernel', 'memhpmovable'):
			self.assertRegex(init, rf'param {name}\b')
		self.assertIn(slqb_memhp.GUEST_MODULE, init)


if __name__ == '__main__':
	unittest.main()
