# SPDX-License-Identifier: GPL-2.0
"""A small client of QEMU's machine protocol (QMP) on a unix socket.

QMP speaks JSON objects, one per line. QEMU greets first ({"QMP": ...}),
the client answers with qmp_capabilities, and from then on every command
gets one reply, {"return": ...} or {"error": {"class", "desc"}}, carrying
the command's "id". Events ({"event": NAME, "data": ...}) may come at any
time, also between a command and its reply: they are kept for wait_event.

Every read has a deadline. A failure, a timeout or a broken connection is
a QmpError that names the command; the client then stays usable (a late
reply with an old id is dropped) until the socket itself is gone.
"""

import json
import os
import socket
import time
from typing import Any, Callable, Dict, List, Optional

from slqb_util import SlqbError

CONNECT_TIMEOUT_S = 30
COMMAND_TIMEOUT_S = 30
READ_CHUNK = 65536
MAX_MESSAGE = 1 << 20	# QEMU's replies here are a few kB


class QmpError(SlqbError):
	"""QMP said no, said nonsense, or did not answer in time."""


class QmpClient:
	"""One QMP session over a connected stream socket."""

	def __init__(self, sock: socket.socket) -> None:
		self.sock = sock
		self.buffer = b''
		self.events: List[Dict[str, Any]] = []
		self.next_id = 1
		self.greeting: Dict[str, Any] = {}

	@classmethod
	def connect(cls, path: str, timeout: float = CONNECT_TIMEOUT_S) -> 'QmpClient':
		"""Connects to QEMU's -qmp unix:PATH,server=on,wait=off socket,
		waiting up to timeout for QEMU to create it, and negotiates."""
		deadline = time.monotonic() + timeout
		while True:
			sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
			try:
				sock.connect(path)
				break
			except (FileNotFoundError, ConnectionRefusedError) as e:
				sock.close()
				if time.monotonic() > deadline:
					raise QmpError(f'QMP: cannot connect to {path} within '
						       f'{timeout:.0f}s: {e.strerror}')
				time.sleep(0.2)
		client = cls(sock)
		try:
			client.handshake(deadline)
		except QmpError:
			client.close()
			raise
		return client

	def close(self) -> None:
		try:
			self.sock.close()
		except OSError:
			pass

	def handshake(self, deadline: float) -> None:
		"""Reads the greeting and leaves capabilities negotiation mode."""
		greeting = self.read_message(deadline, 'the greeting')
		if 'QMP' not in greeting:
			raise QmpError(f'QMP: expected a greeting, got {short(greeting)}')
		self.greeting = greeting['QMP']
		self.execute('qmp_capabilities',
			     timeout=max(1.0, deadline - time.monotonic()))

	def read_message(self, deadline: float, what: str) -> Dict[str, Any]:
		"""The next JSON object from QEMU, by deadline (monotonic)."""
		while b'\n' not in self.buffer:
			left = deadline - time.monotonic()
			if left <= 0:
				raise QmpError(f'QMP: timed out waiting for {what}')
			if len(self.buffer) > MAX_MESSAGE:
				raise QmpError(f'QMP: a message over {MAX_MESSAGE} bytes '
					       f'while waiting for {what}')
			self.sock.settimeout(left)
			try:
				data = self.sock.recv(READ_CHUNK)
			except socket.timeout:
				raise QmpError(f'QMP: timed out waiting for {what}')
			except OSError as e:
				raise QmpError(f'QMP: connection error waiting for {what}: {e}')
			if not data:
				raise QmpError(f'QMP: QEMU closed the connection while '
					       f'waiting for {what}')
			self.buffer += data
		line, self.buffer = self.buffer.split(b'\n', 1)
		try:
			message = json.loads(line.decode('utf-8'))
		except (UnicodeDecodeError, ValueError):
			raise QmpError(f'QMP: not JSON while waiting for {what}: '
				       f'{line[:200]!r}')
		if not isinstance(message, dict):
			raise QmpError(f'QMP: not a JSON object while waiting for {what}: '
				       f'{short(message)}')
		return message

	def send(self, message: Dict[str, Any]) -> None:
		try:
			self.sock.sendall(json.dumps(message).encode() + b'\r\n')
		except OSError as e:
			raise QmpError(f'QMP: cannot send {message.get("execute")}: {e}')

	def execute(self, command: str, arguments: Optional[Dict[str, Any]] = None,
		    timeout: float = COMMAND_TIMEOUT_S) -> Any:
		"""Runs command; returns its "return" value or raises QmpError
		with QEMU's error class and description."""
		request: Dict[str, Any] = {'execute': command, 'id': self.next_id}
		self.next_id += 1
		if arguments:
			request['arguments'] = arguments
		self.send(request)
		deadline = time.monotonic() + timeout
		while True:
			message = self.read_message(deadline, f'the reply to {command}')
			if 'event' in message:
				self.events.append(message)
				continue
			if message.get('id') != request['id']:
				continue	# a late reply to a command that timed out
			if 'error' in message:
				error = message['error']
				if not isinstance(error, dict):
					error = {'desc': str(error)}
				raise QmpError(f'QMP: {command} failed: '
					       f'{error.get("class", "?")}: '
					       f'{error.get("desc", "no description")}')
			if 'return' not in message:
				raise QmpError(f'QMP: reply to {command} has neither '
					       f'return nor error: {short(message)}')
			return message['return']

	def wait_event(self, name: str,
		       match: Callable[[Dict[str, Any]], bool] = lambda data: True,
		       timeout: float = COMMAND_TIMEOUT_S) -> Dict[str, Any]:
		"""The first event called name whose data match() accepts, kept
		or still to come; it is taken off the list of kept events."""
		deadline = time.monotonic() + timeout
		seen = 0
		while True:
			for index in range(seen, len(self.events)):
				event = self.events[index]
				if event.get('event') == name and match(event.get('data') or {}):
					del self.events[index]
					return event
			seen = len(self.events)
			message = self.read_message(deadline, f'event {name}')
			if 'event' in message:
				self.events.append(message)


def short(value: Any, limit: int = 200) -> str:
	"""A JSON value, cut for an error message."""
	text = json.dumps(value)
	return text if len(text) <= limit else text[:limit] + '...'


def socket_path(directory: str, name: str) -> str:
	"""A unix socket path below directory that fits sun_path (108 bytes),
	falling back to /tmp when directory is too deep."""
	path = os.path.join(directory, name)
	if len(path.encode()) < 100:
		return path
	return os.path.join('/tmp', f'slqb-{os.getpid()}-{name}')
