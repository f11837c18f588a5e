# SPDX-License-Identifier: GPL-2.0
"""`slqb series`: the whole work as a numbered, git am-able patch series.

The package: this module (the plan, the export, the cover letter and the
command), group.py (the check group series of `slqb test`) and
test_slqb_series.py (the unit tests of the plan and the export, of the
series as checkpatch and the patches' headers see it, and of the harness
patch standing without the bench).

What goes into which exported patch is written down in
tools/testing/slqb/series/, one file per exported patch, sorted by name.
Each file is a header block, a blank line and the changelog:

	Subject: mm: add the SLQB slab allocator
	Quilt: 0002-mm-add-the-SLQB-slab-allocator.patch
	Files: mm/slqb.c
	Files: tools/testing/slqb/

	Why the change is made ...

	Signed-off-by: SLQB developers <slqb@example.org>

Quilt: names a patch of patches/series, applied whole (repeatable; the
quilt patches must come in patches/series order). Files: names a new file
of the repository, or with a trailing '/' every new file below a folder
(repeatable). From: overrides the author. Checkpatch-exempt: REASON makes
the series check report that patch's checkpatch result without failing on
it (for non-kernel files checkpatch cannot judge; say why).
Checkpatch-ignore: TYPE REASON has the series check run checkpatch with
--ignore TYPE for that patch, for one kind of report that does not apply
to it (repeatable; TYPE as --show-types names it), so that every other
report still fails the check. Every quilt patch and every new file must
be assigned exactly once, so adding a patch or a file without saying
where it goes is an error that names it.

Files: patterns of different plan files may overlap: the most specific
pattern that matches a file carries it. A path is more specific than any
folder, and a folder below another more specific than that one, so a
harness patch can take tools/testing/slqb/ while a later one takes
tools/testing/slqb/bench/ and single files out of it. Two plan files
whose most specific patterns for a file are the same is an error, and so
is a pattern that carries no file because more specific ones take all it
matches.

The export builds a git repository from the pristine 6.1 versions of the
files the series touches, commits one step per exported patch and runs
git format-patch; 0000-cover-letter.patch adds a shortlog, a diffstat and
the newest result of `slqb bench` in tools/testing/slqb/results/ (see
slqb_results.py): its command, date, tree and kernels, the geometric
means and memory rows of its table and the rows where SLQB is furthest
behind. An export without a results file is refused: a series goes out
with the numbers that back it.

The changelogs live here only: a quilt patch of patches/ starts with one
line, "Changelog: tools/testing/slqb/series/<file>", naming the plan file
that carries it, then its diff. The export applies only the diff part of
a quilt patch and takes every commit message from the plan.
"""

import dataclasses
import os
import re
import tempfile
from typing import Dict, List, Optional, Sequence, Set, Tuple

from slqb_host import BuildLock, ensure_packages
from slqb_results import headline, latest_result, read_result
from slqb_tree import (copy_file, describe_base, ensure_pristine,
		       kernel_version, overlay_files, patch_targets,
		       pristine_stamp_path, read_json, read_series,
		       tarball_path, tarball_stamp)
from slqb_util import (HARNESS_DIR, Paths, SlqbError, log, quote_lines,
		       read_text, run, write_text)

PLAN_DIR = os.path.join(HARNESS_DIR, 'series')
DEFAULT_AUTHOR = 'SLQB developers <slqb@example.org>'
COVER_NAME = '0000-cover-letter.patch'
COVER_SUBJECT = 'SLQB: a queued slab allocator'
HEADERS = ('Subject', 'Quilt', 'Files', 'From', 'Checkpatch-exempt',
	   'Checkpatch-ignore')
IGNORE_RE = re.compile(r'^([A-Z][A-Z0-9_]+)\s+(\S.*)$')
CHANGELOG_RE = re.compile(r'^Changelog: (\S+)$')
PLAN_PREFIX = 'tools/testing/slqb/series/'
RESULTS_PATH = 'tools/testing/slqb/results'
GIT_TIMEOUT_S = 600


@dataclasses.dataclass
class Step:
	"""One exported patch: what it carries and its changelog."""
	name: str
	subject: str
	author: str
	quilt: List[str]
	patterns: List[str]
	body: str
	exempt: str = ''
	# checkpatch types the series check ignores for this patch: type -> why
	ignore: Dict[str, str] = dataclasses.field(default_factory=dict)
	files: List[str] = dataclasses.field(default_factory=list)


# ---------------------------------------------------------------- the plan

def plan_error(name: str, what: str) -> SlqbError:
	"""An error about one plan file, saying where it is."""
	return SlqbError(f'tools/testing/slqb/series/{name}: {what}')


def parse_step(name: str, text: str) -> Step:
	"""Parses one plan file (header block, blank line, changelog)."""
	head, sep, body = text.partition('\n\n')
	if not sep or not body.strip():
		raise plan_error(name, 'needs a header block, a blank line and a '
				 'changelog')
	fields: Dict[str, List[str]] = {key: [] for key in HEADERS}
	for line in head.splitlines():
		key, colon, value = line.partition(':')
		if not colon or key not in fields or not value.strip():
			raise plan_error(name, f'bad header line {line!r} (expected '
					 f'one of {", ".join(HEADERS)}: VALUE)')
		fields[key].append(value.strip())
	if len(fields['Subject']) != 1 or len(fields['From']) > 1 or \
	   len(fields['Checkpatch-exempt']) > 1:
		raise plan_error(name, 'needs exactly one Subject: and at most one '
				 'From: and one Checkpatch-exempt:')
	ignore: Dict[str, str] = {}
	for value in fields['Checkpatch-ignore']:
		m = IGNORE_RE.match(value)
		if not m:
			raise plan_error(name, f'Checkpatch-ignore: {value} is not "TYPE '
					 'REASON" (a checkpatch type such as '
					 'FILE_PATH_CHANGES, then why it does not apply)')
		ignore[m.group(1)] = m.group(2)
	if not re.search(r'^Signed-off-by: .+ <[^>]+>$', body, re.M):
		raise plan_error(name, 'the changelog has no Signed-off-by: line')
	return Step(name=name, subject=fields['Subject'][0],
		    author=(fields['From'] or [DEFAULT_AUTHOR])[0],
		    quilt=fields['Quilt'], patterns=fields['Files'],
		    body=body.strip() + '\n',
		    exempt=(fields['Checkpatch-exempt'] or [''])[0],
		    ignore=ignore)


def read_plan(plan_dir: str = PLAN_DIR) -> List[Step]:
	"""The exported patches in order, from the plan folder."""
	if not os.path.isdir(plan_dir):
		raise SlqbError(f'{plan_dir} is missing: it says which exported '
				'patch carries which quilt patch and file')
	names = sorted(n for n in os.listdir(plan_dir)
		       if not n.startswith('.') and
		       os.path.isfile(os.path.join(plan_dir, n)))
	if not names:
		raise SlqbError(f'{plan_dir} holds no plan files')
	return [parse_step(n, read_text(os.path.join(plan_dir, n))) for n in names]


def matches(pattern: str, path: str) -> bool:
	"""A Files: pattern: an exact path, or a folder ending in '/'."""
	if pattern.endswith('/'):
		return path.startswith(pattern)
	return path == pattern


def specificity(pattern: str) -> Tuple[bool, int]:
	"""How closely a Files: pattern names the paths it matches: a path
	before any folder, then the longer (deeper) folder. Of two patterns
	that match the same path, the greater one carries it."""
	return (not pattern.endswith('/'), len(pattern))


def assign_quilt(steps: Sequence[Step], series: Sequence[str]) -> None:
	"""Every patch of patches/series in exactly one step, in order."""
	planned = [(q, s.name) for s in steps for q in s.quilt]
	seen: Dict[str, str] = {}
	for quilt, step in planned:
		if quilt in seen:
			raise plan_error(step, f'Quilt: {quilt} is also in {seen[quilt]}; '
					 'a quilt patch goes into one exported patch')
		if quilt not in series:
			raise plan_error(step, f'Quilt: {quilt} is not in patches/series')
		seen[quilt] = step
	missing = [q for q in series if q not in seen]
	if missing:
		raise SlqbError(f'patches/{missing[0]} is in patches/series but no '
				'exported patch carries it: add "Quilt: '
				f'{missing[0]}" to the right file in '
				'tools/testing/slqb/series/ (or a new file there)')
	order = [q for q, _ in planned]
	if order != list(series):
		raise SlqbError('tools/testing/slqb/series/ takes the quilt patches '
				'in another order than patches/series:\n' +
				quote_lines([f'plan:   {" ".join(order)}',
					     f'series: {" ".join(series)}']))


def assign_files(steps: Sequence[Step], files: Sequence[str]) -> None:
	"""Every new file of the repository in exactly one step: the step of
	the most specific pattern that matches it."""
	for step in steps:
		step.files = []
		for pattern in step.patterns:
			if not any(matches(pattern, f) for f in files):
				raise plan_error(step.name, f'Files: {pattern} matches no '
						 'new file of the repository')
	carried: Set[Tuple[str, str]] = set()
	for path in files:
		claims = [(specificity(p), p, s) for s in steps for p in s.patterns
			  if matches(p, path)]
		if not claims:
			raise SlqbError(f'{path} is a new file, but no exported patch '
					f'carries it: add "Files: {path}" to the right '
					'file in tools/testing/slqb/series/')
		best = max(c[0] for c in claims)
		owners = [(p, s) for rank, p, s in claims if rank == best]
		if len({s.name for _, s in owners}) > 1:
			raise SlqbError(f'{path} is carried by more than one exported '
					'patch: ' + ', '.join(f'{s.name} (Files: {p})'
							      for p, s in owners) +
					'; give it a more specific pattern in one of them')
		pattern, step = owners[0]
		step.files.append(path)
		carried.add((step.name, pattern))
	for step in steps:
		for pattern in step.patterns:
			if (step.name, pattern) not in carried:
				raise plan_error(step.name, f'Files: {pattern} carries no '
						 'file: more specific patterns take every '
						 'file it matches')


def load_plan(repo: str, plan_dir: str = PLAN_DIR) -> List[Step]:
	"""The plan, checked against patches/series and the new files."""
	steps = read_plan(plan_dir)
	assign_quilt(steps, [p.name for p in read_series(repo)])
	assign_files(steps, overlay_files(repo))
	empty = [s.name for s in steps if not s.quilt and not s.files]
	if empty:
		raise plan_error(empty[0], 'carries no quilt patch and no file')
	return steps


# ---------------------------------------------------------------- quilt

def split_quilt_patch(text: str) -> Tuple[List[str], str]:
	"""(header lines, diff) of a quilt patch: the diff starts at the first
	'diff ' line or '--- ' line followed by a '+++ ' line."""
	lines = text.splitlines(keepends=True)
	for i, line in enumerate(lines):
		if line.startswith('diff ') or (line.startswith('--- ') and
						i + 1 < len(lines) and
						lines[i + 1].startswith('+++ ')):
			return [l.rstrip('\n') for l in lines[:i]], ''.join(lines[i:])
	return [l.rstrip('\n') for l in lines], ''


def quilt_changelog(name: str, text: str) -> str:
	"""The plan file a quilt patch's header names: the header must be
	exactly one 'Changelog: tools/testing/slqb/series/<file>' line (blank
	lines aside), since the changelog lives in that file only."""
	header, diff = split_quilt_patch(text)
	words = [l for l in header if l.strip()]
	m = CHANGELOG_RE.match(words[0]) if len(words) == 1 else None
	if not m or not m.group(1).startswith(PLAN_PREFIX):
		found = f'{len(words)} header lines' if len(words) != 1 else repr(words[0])
		raise SlqbError(f'patches/{name}: its header must be exactly one line '
				f'"Changelog: {PLAN_PREFIX}<file>" (the changelog lives '
				f'there), not {found}')
	if not diff:
		raise SlqbError(f'patches/{name}: no diff after its header')
	return m.group(1)


# ---------------------------------------------------------------- git

def git(repo: str, *args: str, env: Optional[Dict[str, str]] = None) -> str:
	"""Runs git in repo; returns its output."""
	return run(['git', '-C', repo, *args], timeout=GIT_TIMEOUT_S, env=env).stdout


def git_env(author: str, date: str) -> Dict[str, str]:
	"""Author and committer for a commit, with a fixed date."""
	m = re.fullmatch(r'(.+?)\s*<([^>]+)>', author)
	if not m:
		raise SlqbError(f'author {author!r} is not "Name <email>"')
	name, email = m.groups()
	env = dict(os.environ)
	for role in ('AUTHOR', 'COMMITTER'):
		env[f'GIT_{role}_NAME'] = name
		env[f'GIT_{role}_EMAIL'] = email
		env[f'GIT_{role}_DATE'] = date
	env['GIT_CONFIG_NOSYSTEM'] = '1'
	env['HOME'] = tempfile.gettempdir()	# no user's ~/.gitconfig
	return env


def source_date(repo: str) -> str:
	"""The date of the repository's last commit (so exports repeat)."""
	proc = run(['git', '-C', repo, 'log', '-1', '--format=%cI'], timeout=60,
		   check=False)
	return proc.stdout.strip() if proc.returncode == 0 and proc.stdout.strip() \
		else '2026-01-01T00:00:00+00:00'


def touched_paths(repo: str) -> List[str]:
	"""Every existing kernel file the quilt series changes."""
	paths = set()
	for patch in read_series(repo):
		paths.update(p for p, kind in patch_targets(patch).items() if kind != 'create')
	return sorted(paths)


def make_base(git_dir: str, pristine: str, paths: Sequence[str], version: str,
	      date: str) -> None:
	"""A repository holding the pristine versions of paths."""
	os.makedirs(git_dir)
	git(git_dir, 'init', '-q')
	for path in paths:
		src = os.path.join(pristine, path)
		if os.path.isfile(src):
			copy_file(src, os.path.join(git_dir, path))
	git(git_dir, 'add', '-A', '-f')
	git(git_dir, 'commit', '-q', '--allow-empty', '-m', f'Linux {version}',
	    env=git_env(DEFAULT_AUTHOR, date))


def commit_step(git_dir: str, repo: str, step: Step, date: str) -> None:
	"""Applies the diff part of a step's quilt patches (never their
	header: the changelog is the plan's), adds its files, commits."""
	for quilt in step.quilt:
		text = read_text(os.path.join(repo, 'patches', quilt))
		named = quilt_changelog(quilt, text)
		if os.path.basename(named) != step.name:
			raise SlqbError(f'patches/{quilt}: its header names {named}, but '
					f'{PLAN_PREFIX}{step.name} carries it')
		_, diff = split_quilt_patch(text)
		with tempfile.NamedTemporaryFile('w', suffix='.diff', encoding='utf-8') as f:
			f.write(diff)
			f.flush()
			proc = run(['patch', '-p1', '--forward', '--batch',
				    '--no-backup-if-mismatch', '-d', git_dir, '-i', f.name],
				   timeout=300, check=False)
		if proc.returncode != 0 or 'with fuzz' in proc.stdout:
			raise SlqbError(f'patches/{quilt} does not apply cleanly at '
					f'exported patch {step.name}:\n' +
					quote_lines(proc.stdout.strip().splitlines()[-8:]))
	for path in step.files:
		copy_file(os.path.join(repo, path), os.path.join(git_dir, path))
	git(git_dir, 'add', '-A', '-f')
	if not git(git_dir, 'status', '--porcelain').strip():
		raise plan_error(step.name, 'changes nothing')
	message = f'{step.subject}\n\n{step.body}'
	git(git_dir, 'commit', '-q', '-m', message, env=git_env(step.author, date))


# ---------------------------------------------------------------- cover

def bench_section(repo: str) -> List[str]:
	"""The cover letter's numbers: the newest results file of repo's
	tools/testing/slqb/results/, cut to what a reviewer looks at first.
	Refuses when there is none."""
	path = latest_result(os.path.join(repo, RESULTS_PATH))
	if path is None:
		raise SlqbError(f'{RESULTS_PATH}/ holds no results file, so the cover '
				'letter would have no numbers: run `slqb bench`, copy '
				'the result.rst it writes there as <run id>.rst (see '
				'tools/testing/slqb/README.rst) and export again')
	result = read_result(path)
	head, rows, behind = headline(result)
	exported = run(['git', '-C', repo, 'describe', '--always', '--dirty'],
		       timeout=60, check=False).stdout.strip()
	lines = ['How SLQB compares with the other allocators, from the newest',
		 f'recorded run of `slqb bench`; {RESULTS_PATH}/{result.run_id}.rst',
		 'has its whole table.', '',
		 f'  Command: {result.command}',
		 f'  Date:    {result.date}' +
		 (f' (took {result.duration})' if result.duration else ''),
		 f'  Tree:    {result.tree}' +
		 (f' (this series: {exported})' if exported else ''),
		 f'  Kernels: {result.kernels}', '']
	if result.showed:
		lines += result.showed.splitlines() + ['']
	lines += ['  ' + l for l in head] + ['']
	lines += ['  ' + l for l in rows]
	if behind:
		lines += [''] + ['  ' + l for l in behind]
	return [l.rstrip() for l in lines]


def cover_letter(git_dir: str, steps: Sequence[Step], base: str,
		 bench: Sequence[str], date: str) -> str:
	"""The text of 0000-cover-letter.patch; bench is bench_section()."""
	shortlog = git(git_dir, 'shortlog', 'HEAD~%d..HEAD' % len(steps))
	diffstat = git(git_dir, 'diff', '--stat=72', '--summary',
		       'HEAD~%d' % len(steps), 'HEAD')
	date_line = run(['date', '-R', '-d', date], timeout=30).stdout.strip()
	intro = [
		'SLQB is a slab allocator after Nick Piggin\'s 2009 design: per-CPU',
		'LIFO queues of free objects threaded through the objects, per-CPU',
		'partial slab lists used without locks, frees of other CPUs\' objects',
		'batched and handed over in one move, and locked per-node lists for',
		'node-specific allocations. It is a fourth choice next to SLAB, SLUB',
		'and SLOB (CONFIG_SLQB); Documentation/mm/slqb.rst describes it.',
		'',
		'The series applies to',
		f'{base}.',
		'Each patch builds on its own (x86_64) and the kernel patches are',
		'clean under scripts/checkpatch.pl --strict.',
		'Apply it with git am --empty=drop (the cover letter has no change).',
		'',
		'The harness in tools/testing/slqb/, added at the end of the series,',
		'builds, boots and tests SLQB in QEMU, and its benchmark gives the',
		'numbers below.',
		'',
	]
	head = [f'From {"0" * 40} Mon Sep 17 00:00:00 2001',
		f'From: {DEFAULT_AUTHOR}', f'Date: {date_line}',
		f'Subject: [PATCH 0/{len(steps)}] {COVER_SUBJECT}', '']
	return '\n'.join(head + intro + list(bench) +
			 ['', shortlog.rstrip(), '', diffstat.rstrip(), '']) + '\n'


# ---------------------------------------------------------------- export

def pristine_base(paths: Paths) -> str:
	"""The pristine tree's base; unpacks it (under the build lock) only
	when it does not match the tarball, so an export need not wait for
	someone else's kernel build."""
	stamp = read_json(pristine_stamp_path(paths))
	tarball = tarball_path()
	if os.path.isdir(paths.pristine) and os.path.isfile(tarball) and \
	   stamp == tarball_stamp(tarball):
		return describe_base(paths)
	with BuildLock(paths):
		return ensure_pristine(paths)


def prepare_out_dir(out: str) -> None:
	"""An empty or patches-only folder; old *.patch files are removed."""
	if os.path.exists(out) and not os.path.isdir(out):
		raise SlqbError(f'{out} exists and is not a folder', exit_code=2)
	os.makedirs(out, exist_ok=True)
	others = [n for n in os.listdir(out) if not n.endswith('.patch')]
	if others:
		raise SlqbError(f'{out} holds other files than *.patch ({others[0]}, '
				'...): give an empty or a new folder', exit_code=2)
	for name in os.listdir(out):
		os.unlink(os.path.join(out, name))


def export_series(paths: Paths, out: str,
		  plan_dir: str = PLAN_DIR) -> Tuple[List[str], str]:
	"""Writes the series into out; returns (patch files, base)."""
	steps = load_plan(paths.repo, plan_dir)
	bench = bench_section(paths.repo)
	base = pristine_base(paths)
	version = kernel_version(paths.pristine)
	date = source_date(paths.repo)
	prepare_out_dir(out)
	with tempfile.TemporaryDirectory(prefix='slqb-series.') as tmp:
		git_dir = os.path.join(tmp, 'linux')
		make_base(git_dir, paths.pristine, touched_paths(paths.repo), version, date)
		for step in steps:
			commit_step(git_dir, paths.repo, step, date)
		git(git_dir, 'format-patch', '-q', '--numbered', '--no-signature',
		    '-o', out, f'HEAD~{len(steps)}..HEAD')
		write_text(os.path.join(out, COVER_NAME),
			   cover_letter(git_dir, steps, base, bench, date))
	files = sorted(os.path.join(out, n) for n in os.listdir(out))
	if len(files) != len(steps) + 1:
		raise SlqbError(f'git format-patch wrote {len(files) - 1} patches for '
				f'{len(steps)} steps into {out}')
	return files, base


def series_patches(files: Sequence[str]) -> List[str]:
	"""The patches of an export without the cover letter."""
	return [f for f in files if os.path.basename(f) != COVER_NAME]


def default_out_dir(paths: Paths) -> str:
	"""Where `slqb series` writes without DIR."""
	return os.path.join(paths.cache, 'series', 'export')


def cmd_series(paths: Paths, out: Optional[str]) -> int:
	"""slqb series [DIR]: export and say how to apply."""
	out = os.path.abspath(out or default_out_dir(paths))
	files, base = export_series(paths, out)
	log(f'base: {base}')
	for path in files:
		log(f'  {os.path.basename(path)}')
	log(f'{len(files) - 1} patches and a cover letter in {out}')
	log(f'apply to a 6.1 git tree with: git am --empty=drop {out}/*.patch')
	return 0


def add_parser(sub) -> None:
	"""The `slqb series [DIR]` subcommand."""
	series = sub.add_parser('series', help='export the series for git am')
	series.add_argument('dir', metavar='DIR', nargs='?',
			    help='output folder (default: <cache>/series/export)')
	series.set_defaults(func=lambda args: run_series_command(args.dir))


def run_series_command(out: Optional[str]) -> int:
	"""Entry point of `slqb series`: packages, then the export."""
	ensure_packages(['git', 'patch'])
	return cmd_series(Paths.from_env(), out)
