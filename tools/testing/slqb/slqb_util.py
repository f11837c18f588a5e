# SPDX-License-Identifier: GPL-2.0
"""Shared helpers for the SLQB test harness.

Paths of the repository and the cache, logging, running commands with a
timeout, the Debian package check and the build lock live here, so that the
other modules can stay about one job each.
"""

import dataclasses
import fcntl
import hashlib
import os
import select
import shlex
import subprocess
import time
from typing import Callable, Dict, Iterable, List, Optional, Sequence

HARNESS_DIR = os.path.dirname(os.path.realpath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HARNESS_DIR)))
PACKAGES_FILE = os.path.join(HARNESS_DIR, 'packages.txt')

# How long to wait for the build lock or for someone else's kernel build.
LOCK_WAIT_S = 3 * 3600


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


def read_package_list(path: str = PACKAGES_FILE) -> List[str]:
	"""The Debian packages the harness needs, from packages.txt."""
	names = []
	for line in read_text(path).splitlines():
		line = line.split('#', 1)[0].strip()
		if line:
			names.extend(line.split())
	return names


def missing_packages(packages: Sequence[str]) -> List[str]:
	"""Those of packages that dpkg does not list as installed."""
	missing = []
	for pkg in packages:
		proc = run(['dpkg-query', '-W', '-f=${db:Status-Abbrev}', pkg],
			   timeout=60, check=False)
		if not proc.stdout.startswith('ii'):
			missing.append(pkg)
	return missing


def apt_install(packages: Sequence[str]) -> None:
	"""apt-get install as root; runs apt-get update and retries once."""
	cmd = ['apt-get', 'install', '-y', '--no-install-recommends', *packages]
	env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
	log('installing: ' + ' '.join(packages))
	if run(cmd, timeout=1800, env=env, check=False).returncode == 0:
		return
	log('apt-get install failed; running apt-get update and retrying')
	run(['apt-get', 'update'], timeout=900, env=env, check=False)
	proc = run(cmd, timeout=1800, env=env, check=False)
	if proc.returncode != 0:
		tail = proc.stdout.strip().splitlines()[-10:]
		raise SlqbError('could not install the packages the harness needs:\n'
				f'{quote_lines(tail)}\n'
				f'Install them by hand: {shlex.join(cmd)}', exit_code=2)


def ensure_packages(packages: Optional[Sequence[str]] = None) -> None:
	"""Makes sure the Debian packages in packages.txt are installed.

	As root the missing ones are installed with apt-get; otherwise the
	exact command to run is printed and the harness stops (exit 2).
	"""
	if packages is None:
		packages = read_package_list()
	try:
		missing = missing_packages(packages)
	except SlqbError as e:
		raise SlqbError('cannot check the installed packages (this harness '
				f'expects Debian 12 with dpkg): {e}', exit_code=2)
	if not missing:
		return
	if os.geteuid() == 0:
		apt_install(missing)
		still = missing_packages(missing)
		if still:
			raise SlqbError('apt-get did not install: ' + ' '.join(still),
					exit_code=2)
		return
	raise SlqbError(
		'these Debian packages are needed and missing: ' + ' '.join(missing) +
		'\nYou are not root, so install them yourself, then rerun:\n'
		'    sudo apt-get install -y --no-install-recommends ' +
		' '.join(missing), exit_code=2)


def process_ancestors() -> set:
	"""Our own pid and those of our parents (to ignore our own make)."""
	pids = set()
	pid = os.getpid()
	while pid > 1 and pid not in pids:
		pids.add(pid)
		try:
			stat = read_text(f'/proc/{pid}/stat')
		except (FileNotFoundError, PermissionError):
			break
		pid = int(stat.rsplit(')', 1)[1].split()[1])
	return pids


def foreign_kernel_builds() -> List[str]:
	"""Other `make ... O=...` processes on this machine (pid: cmdline)."""
	ours = process_ancestors()
	found = []
	for entry in os.listdir('/proc'):
		if not entry.isdigit() or int(entry) in ours:
			continue
		try:
			with open(f'/proc/{entry}/cmdline', 'rb') as f:
				argv = f.read().decode(errors='replace').split('\0')
		except OSError:
			continue
		if (argv and os.path.basename(argv[0]) in ('make', 'gmake') and
		    any(a.startswith('O=') for a in argv)):
			found.append(f'{entry}: {" ".join(argv)[:120]}')
	return found


def wait_for_foreign_builds() -> None:
	"""Waits while someone else's kernel build runs (2 cores: one at a time)."""
	deadline = time.monotonic() + LOCK_WAIT_S
	announced = False
	while True:
		others = foreign_kernel_builds()
		if not others:
			return
		if not announced:
			log('another kernel build is running; waiting for it to end:\n' +
			    quote_lines(others))
			announced = True
		if time.monotonic() > deadline:
			raise SlqbError('gave up waiting for another kernel build:\n' +
					quote_lines(others))
		time.sleep(10)


class BuildLock:
	"""An fcntl lock on <cache>/build.lock: one slqb build at a time."""

	def __init__(self, paths: Paths) -> None:
		self.path = os.path.join(paths.cache, 'build.lock')
		self.fd = -1

	def __enter__(self) -> 'BuildLock':
		os.makedirs(os.path.dirname(self.path), exist_ok=True)
		self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
		deadline = time.monotonic() + LOCK_WAIT_S
		announced = False
		while True:
			try:
				fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
				break
			except BlockingIOError:
				if not announced:
					holder = read_text(self.path, '').strip() or '?'
					log(f'waiting for the build lock {self.path} '
					    f'(held by slqb pid {holder})')
					announced = True
				if time.monotonic() > deadline:
					raise SlqbError(f'gave up waiting for {self.path}')
				time.sleep(2)
		os.ftruncate(self.fd, 0)
		os.write(self.fd, f'{os.getpid()}\n'.encode())
		return self

	def __exit__(self, *exc: object) -> None:
		fcntl.flock(self.fd, fcntl.LOCK_UN)
		os.close(self.fd)
		self.fd = -1


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
