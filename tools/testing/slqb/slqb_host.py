# SPDX-License-Identifier: GPL-2.0
"""What the harness needs from the machine it runs on.

The Debian packages of packages.txt (installed with apt-get as root, or the
exact command printed otherwise), the build lock that lets one slqb run
build at a time, and the /proc scan that waits for someone else's kernel
build: on a 2-core machine two builds at once only make both slow.
"""

import fcntl
import os
import shlex
import time
from typing import List, Optional, Sequence

from slqb_util import (HARNESS_DIR, Paths, SlqbError, log, quote_lines,
		       read_text, run)

PACKAGES_FILE = os.path.join(HARNESS_DIR, 'packages.txt')

# How long to wait for the build lock or for someone else's kernel build.
LOCK_WAIT_S = 3 * 3600


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
