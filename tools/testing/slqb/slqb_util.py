# SPDX-License-Identifier: GPL-2.0
"""Shared helpers for the SLQB test harness.

Paths of the repository and the cache, logging, reading and writing files,
and running commands with a timeout live here, so that the other modules
can stay about one job each. What the harness needs from the machine (its
Debian packages, the build lock, other kernel builds) is in slqb_host.
"""

import dataclasses
import hashlib
import os
import select
import shlex
import subprocess
import time
from typing import Callable, Dict, Iterable, List, Optional, Sequence

HARNESS_DIR = os.path.dirname(os.path.realpath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HARNESS_DIR)))
# Made-up consoles, logs and files for the unit tests and self-checks.
TEST_DATA_DIR = os.path.join(HARNESS_DIR, 'test_data')


class SlqbError(Exception):
	"""A failure to report to the user as a plain message, no traceback.

	exit_code 2 means "refused before doing anything" (bad arguments, a
	missing package, a wrong tree); 1 means "tried and it failed".
	"""

	def __init__(self, message: str, exit_code: int = 1) -> None:
		super().__init__(message)
		self.exit_code = exit_code


def log(message: str) -> None:
	"""Prints a harness progress line with a wall-clock stamp."""
	stamp = time.strftime('%H:%M:%S')
	for line in message.splitlines() or ['']:
		print(f'[{stamp}] {line}', flush=True)


def warn(message: str) -> None:
	"""Prints a warning paragraph."""
	log('WARNING: ' + message)


def fmt_duration(seconds: float) -> str:
	"""Formats a duration as 4m05s or 12.3s."""
	if seconds < 60:
		return f'{seconds:.1f}s'
	minutes, secs = divmod(int(round(seconds)), 60)
	return f'{minutes}m{secs:02d}s'


def quote_lines(lines: Iterable[str], indent: str = '    ') -> str:
	"""Indents lines for quoting inside an error paragraph."""
	return '\n'.join(indent + line.rstrip() for line in lines)


def sha1_of(*parts: object) -> str:
	"""Hex digest of the repr of parts; used for cache keys."""
	digest = hashlib.sha1()
	for part in parts:
		if isinstance(part, bytes):
			digest.update(part)
		else:
			digest.update(repr(part).encode())
		digest.update(b'\0')
	return digest.hexdigest()


def file_sha1(path: str) -> str:
	"""Hex digest of a file's content ('' when the file is missing)."""
	try:
		with open(path, 'rb') as f:
			return hashlib.sha1(f.read()).hexdigest()
	except FileNotFoundError:
		return ''


def read_text(path: str, default: Optional[str] = None) -> str:
	"""Reads a text file; returns default (if given) when it is missing."""
	try:
		with open(path, encoding='utf-8', errors='replace') as f:
			return f.read()
	except FileNotFoundError:
		if default is None:
			raise
		return default


def fixture_path(name: str) -> str:
	"""The path of a file in test_data/."""
	return os.path.join(TEST_DATA_DIR, name)


def fixture_lines(name: str) -> List[str]:
	"""The lines of a file in test_data/ (a made-up console or log)."""
	return read_text(fixture_path(name)).splitlines()


def write_text(path: str, text: str) -> None:
	"""Writes a text file atomically (write a temp file, rename)."""
	os.makedirs(os.path.dirname(path), exist_ok=True)
	tmp = f'{path}.tmp.{os.getpid()}'
	with open(tmp, 'w', encoding='utf-8') as f:
		f.write(text)
	os.replace(tmp, path)


def run(cmd: Sequence[str], timeout: float, cwd: Optional[str] = None,
	env: Optional[Dict[str, str]] = None,
	check: bool = True) -> subprocess.CompletedProcess:
	"""Runs cmd, capturing stdout and stderr together as text.

	Every command gets a timeout; running past it, or a missing program,
	becomes a SlqbError. With check, a non-zero exit does too.
	"""
	try:
		proc = subprocess.run(list(cmd), cwd=cwd, env=env,
				      stdin=subprocess.DEVNULL,
				      stdout=subprocess.PIPE,
				      stderr=subprocess.STDOUT, text=True,
				      errors='replace', timeout=timeout)
	except subprocess.TimeoutExpired:
		raise SlqbError(f'command timed out after {fmt_duration(timeout)}: '
				f'{shlex.join(cmd)}')
	except FileNotFoundError:
		raise SlqbError(f'program not found: {cmd[0]}')
	if check and proc.returncode != 0:
		tail = proc.stdout.strip().splitlines()[-15:]
		raise SlqbError(f'command failed (exit {proc.returncode}): '
				f'{shlex.join(cmd)}\n{quote_lines(tail)}')
	return proc


@dataclasses.dataclass
class Paths:
	"""Where everything lives: the repository and the cache below it."""
	repo: str
	cache: str

	@classmethod
	def from_env(cls) -> 'Paths':
		"""Cache is $SLQB_CACHE, else <repo>/.slqb-cache."""
		cache = os.environ.get('SLQB_CACHE') or os.path.join(REPO_ROOT, '.slqb-cache')
		return cls(repo=REPO_ROOT, cache=os.path.abspath(cache))

	@property
	def src(self) -> str:
		return os.path.join(self.cache, 'src')

	@property
	def pristine(self) -> str:
		return os.path.join(self.src, 'pristine')

	@property
	def work(self) -> str:
		return os.path.join(self.src, 'work')

	@property
	def builds(self) -> str:
		return os.path.join(self.cache, 'build')

	@property
	def logs(self) -> str:
		return os.path.join(self.cache, 'logs')

	@property
	def tools(self) -> str:
		return os.path.join(self.cache, 'tools')

	def new_log(self, what: str) -> str:
		"""A fresh log file path under <cache>/logs/."""
		os.makedirs(self.logs, exist_ok=True)
		stamp = time.strftime('%Y%m%d-%H%M%S')
		path = os.path.join(self.logs, f'{stamp}-{what}.log')
		n = 1
		while os.path.exists(path):
			n += 1
			path = os.path.join(self.logs, f'{stamp}-{what}-{n}.log')
		return path


def stop_process(proc: subprocess.Popen, grace: float = 0) -> None:
	"""Reaps a child, giving it grace seconds to exit by itself, then
	terminating it (then killing it)."""
	if grace:
		try:
			proc.wait(timeout=grace)
		except subprocess.TimeoutExpired:
			pass
	if proc.poll() is not None:
		return
	proc.terminate()
	try:
		proc.wait(timeout=15)
	except subprocess.TimeoutExpired:
		proc.kill()
		proc.wait(timeout=30)


class LineSplitter:
	"""Turns chunks of bytes into complete text lines (\r dropped)."""

	def __init__(self) -> None:
		self.partial = b''

	def feed(self, data: bytes) -> List[str]:
		"""The lines completed by data."""
		*complete, self.partial = (self.partial + data).split(b'\n')
		return [l.decode('utf-8', 'replace').replace('\r', '') for l in complete]

	def flush(self) -> List[str]:
		"""The last, unterminated line, if any."""
		rest, self.partial = self.partial, b''
		return [rest.decode('utf-8', 'replace').replace('\r', '')] if rest else []


def pump(proc: subprocess.Popen, on_data: Callable[[bytes], None],
	 deadline: Callable[[], Optional[float]],
	 on_tick: Optional[Callable[[], None]] = None) -> bool:
	"""Feeds proc's binary stdout to on_data until EOF.

	deadline() gives the time.monotonic() at which to give up (None: no
	limit); it is asked again on every pass, so it may move. on_tick runs
	about once a second. Returns False when the deadline passed first.
	"""
	fd = proc.stdout.fileno()
	while True:
		limit = deadline()
		if limit is not None and time.monotonic() > limit:
			return False
		ready, _, _ = select.select([fd], [], [], 1.0)
		if ready:
			data = os.read(fd, 65536)
			if not data:
				return True
			on_data(data)
		if on_tick:
			on_tick()
