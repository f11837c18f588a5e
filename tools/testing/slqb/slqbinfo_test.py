#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests for tools/vm/slqbinfo.c.

Builds slqbinfo into a temporary directory, generates /sys/kernel/slab-like
fixture trees there (with and without CONFIG_SLQB_STATS files, and broken
ones), runs the tool against them with --root and checks what it prints.

Run it with python3 from the top of the repository; -v lists each test.

SLQBINFO_SRC=path/to/slqbinfo.c tests another copy of the source (handy to
check that a deliberately broken tool makes the tests fail);
SLQBINFO_CFLAGS adds compiler flags (e.g. -fsanitize=address,undefined).
Python 3 standard library only; valgrind is used when it is installed.
The statistics files the fixtures get are those of the kernel's list,
include/linux/slqb_stats.h (read with slqb_stats.py), the one list of them.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from slqb_stats import stat_names  # noqa: E402 (after the path is set)
from slqb_util import SlqbError  # noqa: E402

SRC = os.environ.get('SLQBINFO_SRC') or os.path.normpath(
    os.path.join(HERE, '..', '..', 'vm', 'slqbinfo.c'))
PAGE = os.sysconf('SC_PAGE_SIZE')
VERBOSE = '-v' in sys.argv[1:]
# e.g. SLQBINFO_CFLAGS="-fsanitize=address,undefined" (valgrind is skipped)
EXTRA_CFLAGS = os.environ.get('SLQBINFO_CFLAGS', '').split()

# The CONFIG_SLQB_STATS files, in the kernel's order.
try:
    STATS = stat_names()
    STATS_ERROR = ''
except SlqbError as e:
    STATS = []
    STATS_ERROR = str(e)

NUMERIC = ['slab_size', 'object_size', 'objs_per_slab', 'order', 'align',
           'hwcache_align', 'reclaim_account', 'destroy_by_rcu', 'cache_dma',
           'red_zone', 'poison', 'store_user', 'failslab', 'aliases', 'slabs',
           'partial', 'objects', 'total_objects', 'queued', 'hiwater',
           'freebatch']

# The realistic tree.  Activity (alloc + free) order is kmalloc-64,
# inode_cache, dentry, buffer_head, kmalloc-32, kmalloc-8k: neither the name
# order nor its reverse.  Space order is kmalloc-64, buffer_head, then
# dentry and inode_cache (a tie at 100 and 50 slabs when the page is 4K),
# kmalloc-32.
CACHES = {
    'kmalloc-64': dict(
        object_size=64, slab_size=64, order=0, slabs=8000, partial=7900,
        objects=1234, queued=30, aliases=2, align=64,
        stats=dict(alloc='5000000 C0=2000000 C1=1500000 C3=1500000',
                   alloc_slab_fill='250000 C0=250000',
                   alloc_slab_new='1000 C1=1000',
                   free='4998766 C0=2498766 C1=2500000',
                   flush_free_list='4000 C0=4000',
                   flush_free_list_objects='256000 C0=256000',
                   flush_free_list_remote='64000 C0=64000',
                   flush_rfree_list='1000 C0=600 C1=400',
                   flush_rfree_list_objects='64000 C0=64000',
                   trim_worst_ns='8123 C1=8123',
                   trim_worst_objects='512 C1=512')),
    'inode_cache': dict(
        object_size=600, slab_size=640, order=1, slabs=50, partial=5,
        objects=500, queued=12, reclaim_account=1,
        ctor='init_once+0x0/0x20',
        stats=dict(alloc='90000 C0=90000', alloc_slab_fill='30000 C0=30000',
                   alloc_slab_new='900 C0=900', free='89500 C0=89500',
                   flush_rfree_list='7 C2=7',
                   flush_rfree_list_objects='70 C2=70')),
    'dentry': dict(
        object_size=192, slab_size=192, order=0, slabs=100, partial=10,
        objects=2000, queued=40, hwcache_align=1, reclaim_account=1,
        stats=dict(alloc='30000 C0=10000 C1=20000', alloc_slab_fill='3',
                   free='28000 C0=28000', flush_free_list='200 C0=200',
                   flush_free_list_objects='3600 C0=3600',
                   flush_free_list_remote='900 C0=900',
                   flush_rfree_list='50 C1=50',
                   flush_rfree_list_objects='900 C1=900')),
    'buffer_head': dict(
        object_size=104, slab_size=104, order=0, slabs=4000, partial=100,
        objects=150000, queued=0, destroy_by_rcu=1,
        stats=dict(alloc='7000 C0=7000', free='1000 C0=1000',
                   alloc_slab_new='7000 C0=7000')),
    'kmalloc-32': dict(
        object_size=32, slab_size=32, order=0, slabs=1, partial=1,
        objects=0, queued=5, stats={}),
    'kmalloc-8k': dict(
        object_size=8192, slab_size=8192, order=3, slabs=0, partial=0,
        objects=0, queued=0, stats={}),
}
ALIASES = {'dentry_foo': 'kmalloc-64', 'other_alias': './kmalloc-64'}


class Checker:
	def __init__(self):
		self.passed = 0
		self.failed = 0

	def check(self, name, ok, why=''):
		if ok:
			self.passed += 1
			print('PASS: %s' % name)
		else:
			self.failed += 1
			print('FAIL: %s - %s' % (name, why))
		sys.stdout.flush()
		return ok

	def skip(self, name, why):
		print('SKIP: %s - %s' % (name, why))


def cache_values(spec):
	"""All numeric attribute values of a cache spec."""
	v = dict(align=8, hwcache_align=0, reclaim_account=0, destroy_by_rcu=0,
	         cache_dma=0, red_zone=0, poison=0, store_user=0, failslab=0,
	         aliases=0, hiwater=1024, freebatch=256)
	v.update({k: x for k, x in spec.items() if k in NUMERIC})
	v['objs_per_slab'] = (PAGE << v['order']) // v['slab_size']
	v['total_objects'] = v['slabs'] * v['objs_per_slab']
	return v


def stat_totals(spec):
	return {s: int(spec['stats'].get(s, '0').split()[0]) for s in STATS}


def write(path, text):
	with open(path, 'w') as f:
		f.write(text)


def make_tree(root, stats=True, skip=()):
	os.makedirs(root)
	for name, spec in CACHES.items():
		if name in skip:
			continue
		d = os.path.join(root, name)
		os.mkdir(d)
		for k, x in cache_values(spec).items():
			write(os.path.join(d, k), '%d\n' % x)
		write(os.path.join(d, 'ctor'),
		      spec['ctor'] + '\n' if spec.get('ctor') else '')
		write(os.path.join(d, 'shrink'), '')
		if stats:
			for s in STATS:
				write(os.path.join(d, s), spec['stats'].get(s, '0') + '\n')
	for alias, target in ALIASES.items():
		if os.path.basename(target) not in skip:
			os.symlink(target, os.path.join(root, alias))


def make_broken_tree(root):
	"""Good caches, a malformed file, a missing file, an empty cache
	directory, a malformed statistic and a dangling alias."""
	make_tree(root, skip=('inode_cache', 'buffer_head', 'kmalloc-8k',
	                      'kmalloc-32'))
	write(os.path.join(root, 'kmalloc-64', 'objects'), 'abc\n')
	os.unlink(os.path.join(root, 'dentry', 'slabs'))
	os.mkdir(os.path.join(root, 'empty_cache'))
	os.makedirs(os.path.join(root, 'good'))
	for k, x in cache_values(CACHES['inode_cache']).items():
		write(os.path.join(root, 'good', k), '%d\n' % x)
	write(os.path.join(root, 'good', 'ctor'), '')
	os.makedirs(os.path.join(root, 'badstat'))
	for k, x in cache_values(CACHES['dentry']).items():
		write(os.path.join(root, 'badstat', k), '%d\n' % x)
	write(os.path.join(root, 'badstat', 'ctor'), '')
	for s in STATS:
		write(os.path.join(root, 'badstat', s), '0\n')
	write(os.path.join(root, 'badstat', 'free'), '12 C0=x\n')
	os.symlink('no_such_cache', os.path.join(root, 'ghost'))


def fmt_unit(v, unit):
	"""What slqbinfo prints for a count (unit 1000) or size (1024)."""
	if v < 10000:
		return str(v)
	div, i = 1, -1
	while v // div >= 10000 and i < 5:
		div *= unit
		i += 1
	if v // div < 100:
		return '%d.%d%s' % (v // div, v % div * 10 // div, 'KMGTPE'[i])
	return '%d%s' % (v // div, 'KMGTPE'[i])


def pct(a, b):
	return a * 100 // b if b else 0


def space(name):
	v = cache_values(CACHES[name])
	return v['slabs'] * (PAGE << v['order'])


def activity(name):
	t = stat_totals(CACHES[name])
	return t['alloc'] + t['free']


class Tool:
	def __init__(self, binary, valgrind=None):
		self.binary = binary
		self.valgrind = valgrind

	def run(self, *args):
		cmd = [self.binary] + list(args)
		if self.valgrind:
			cmd = self.valgrind + cmd
		try:
			p = subprocess.run(cmd, stdout=subprocess.PIPE,
			                   stderr=subprocess.PIPE, timeout=60)
		except subprocess.TimeoutExpired:
			return 124, '', 'timed out'
		out = p.stdout.decode('utf-8', 'replace')
		err = p.stderr.decode('utf-8', 'replace')
		if VERBOSE:
			print('$ %s -> %d\n%s%s' % (' '.join(args), p.returncode, out,
			                            err))
		return p.returncode, out, err


def rows(out):
	"""Data lines of a table (after the header line), split in fields."""
	lines = out.splitlines()
	return [l.split() for l in lines[1:] if l.strip()]


def names(out):
	return [r[0] for r in rows(out)]


def row_of(out, name):
	for r in rows(out):
		if r and r[0] == name:
			return r
	return None


def build(c, tmp):
	binary = os.path.join(tmp, 'slqbinfo')
	p = subprocess.run(['gcc', '-O2', '-Wall', '-Wextra', '-o', binary, SRC] +
	                   EXTRA_CFLAGS,
	                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
	msg = p.stdout.decode('utf-8', 'replace').strip()
	if not c.check('build with gcc -O2 -Wall -Wextra, no warnings',
	               p.returncode == 0 and not msg,
	               msg or 'exit %d' % p.returncode):
		return None
	static = os.path.join(tmp, 'slqbinfo-static')
	p = subprocess.run(['gcc', '-O2', '-Wall', '-Wextra', '-static', '-o',
	                    static, SRC],
	                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
	msg = p.stdout.decode('utf-8', 'replace').strip()
	ok = p.returncode == 0 and not msg
	if ok:
		q = subprocess.run([static, '-h'], stdout=subprocess.PIPE)
		ok = q.returncode == 0 and b'-D' in q.stdout
		msg = 'the static binary does not run'
	c.check('static build works', ok, msg)
	return binary


def test_default_view(c, t, full):
	rc, out, err = t.run('-R', full, '-B')
	c.check('default view exits 0 without messages', rc == 0 and not err,
	        'rc %d, stderr %r' % (rc, err))
	head = out.splitlines()[0].split() if out else []
	c.check('default view header', head == [
	    'Name', 'Objects', 'Objsize', 'Space', 'Slabs/Part', 'O', '%Fr',
	    '%Ef', 'Queue', 'Flg'], repr(head))
	want = sorted(n for n in CACHES if CACHES[n]['slabs'])
	c.check('default view: caches with slabs, by name', names(out) == want,
	        '%s != %s' % (names(out), want))
	ok, why = True, ''
	for n in want:
		v = cache_values(CACHES[n])
		sp = space(n)
		exp = [n, str(v['objects']), str(v['object_size']), str(sp),
		       '%d/%d' % (v['slabs'], v['partial']), str(v['order']),
		       str(pct(v['partial'], v['slabs'])),
		       str(pct(v['objects'] * v['object_size'], sp)),
		       str(v['queued'])]
		r = row_of(out, n)
		if not r or r[:9] != exp:
			ok, why = False, '%s: %s != %s' % (n, r, exp)
			break
	c.check('default view: numbers (Space, %Fr, %Ef, ...)', ok, why)
	flags = {n: (row_of(out, n) + [''])[9] for n in want}
	exp = {'kmalloc-64': '*', 'inode_cache': 'aC', 'dentry': 'Aa',
	       'buffer_head': 'R', 'kmalloc-32': ''}
	c.check('default view: flags', flags == exp, '%s != %s' % (flags, exp))
	lines = out.splitlines()
	col = [l.index('Slabs/Part') + len('Slabs/Part') for l in lines[:1]]
	aligned = all(len(l) >= col[0] and l[col[0] - 1] != ' ' and
	              l[col[0]] == ' ' for l in lines[1:]) if col else False
	c.check('default view: Slabs/Part column right-aligned under header',
	        aligned, '\n' + out)

	rc, out, err = t.run('-R', full)
	r = row_of(out, 'buffer_head')
	exp = [fmt_unit(150000, 1000), fmt_unit(space('buffer_head'), 1024)]
	c.check('K/M suffixes without -B (150000 objects -> 150K)',
	        r is not None and [r[1], r[3]] == exp and exp[0] == '150K',
	        '%s vs %s' % (r, exp))


def test_filters(c, t, full):
	rc, out, err = t.run('-R', full, '-z')
	c.check('-z includes caches without slabs',
	        names(out) == sorted(CACHES), repr(names(out)))
	rc, out, err = t.run('-R', full, '-e')
	c.check('-e shows only caches without slabs',
	        names(out) == ['kmalloc-8k'], repr(names(out)))
	r = row_of(out, 'kmalloc-8k')
	c.check('-e: %Fr and %Ef are "-" for a cache without slabs',
	        r is not None and r[6:8] == ['-', '-'], repr(r))
	rc, out, err = t.run('-R', full, '^INO')
	c.check('regex selects by name, case-insensitively',
	        names(out) == ['inode_cache'], repr(names(out)))
	rc, out, err = t.run('-R', full, 'dentry_foo')
	c.check('regex on an alias name selects its cache',
	        names(out) == ['kmalloc-64'], repr(names(out)))
	rc, out, err = t.run('-R', full, 'nothing-matches-this')
	c.check('no match: header only, exit 0',
	        rc == 0 and len(out.splitlines()) == 1 and not err,
	        'rc %d %r %r' % (rc, out, err))


def test_sorting(c, t, full):
	shown = [n for n in CACHES if CACHES[n]['slabs']]
	by_act = sorted(shown, key=lambda n: (-activity(n), n))
	by_size = sorted(shown, key=lambda n: (-space(n), n))
	assert by_act != sorted(shown) and by_size != sorted(shown)
	assert by_act != by_size

	rc, out, err = t.run('-R', full, '-A')
	c.check('-A sorts by alloc+free, most active first',
	        names(out) == by_act, '%s != %s' % (names(out), by_act))
	rc, out, err = t.run('-R', full, '-A', '-i')
	c.check('-A -i inverts the order', names(out) == by_act[::-1],
	        repr(names(out)))
	rc, out, err = t.run('-R', full, '-S')
	c.check('-S sorts by space, largest first (ties by name)',
	        names(out) == by_size, '%s != %s' % (names(out), by_size))
	rc, out, err = t.run('-R', full, '-i')
	c.check('-i alone inverts the name order',
	        names(out) == sorted(shown, reverse=True), repr(names(out)))
	rc, out, err = t.run('-R', full, '-N', '2', '-S')
	c.check('-N 2 limits the output to 2 caches (after sorting)',
	        names(out) == by_size[:2] and len(out.splitlines()) == 3,
	        repr(out))
	rc, out, err = t.run('-R', full, '--lines=1')
	c.check('--lines=1', names(out) == sorted(shown)[:1], repr(out))


def test_activity(c, t, full):
	rc, out, err = t.run('-R', full, '-D', '-B')
	head = out.splitlines()[0].split() if out else []
	c.check('-D header', head == ['Name', 'Objects', 'Alloc', 'Free',
	                              '%Fill', '%New', 'FlushR', '%FlushR',
	                              'FlushR_Objs', 'O'], repr(head))
	shown = [n for n in CACHES if CACHES[n]['slabs']]
	by_act = sorted(shown, key=lambda n: (-activity(n), n))
	c.check('-D orders by activity', names(out) == by_act,
	        '%s != %s' % (names(out), by_act))
	c.check('-D exits 0 with stats present', rc == 0 and not err,
	        'rc %d %r' % (rc, err))

	def expect(n):
		s = stat_totals(CACHES[n])
		v = cache_values(CACHES[n])
		return [n, str(v['objects']), str(s['alloc']), str(s['free']),
		        str(pct(s['alloc_slab_fill'], s['alloc'])),
		        str(pct(s['alloc_slab_new'], s['alloc'])),
		        str(s['flush_rfree_list']),
		        str(pct(s['flush_free_list_remote'], s['flush_free_list_objects'])),
		        str(s['flush_rfree_list_objects']), str(v['order'])]

	r = row_of(out, 'kmalloc-64')
	exp = ['kmalloc-64', '1234', '5000000', '4998766', '5', '0', '1000', '25',
	       '64000', '0']
	c.check('-D arithmetic on known numbers (kmalloc-64)', r == exp,
	        '%s != %s' % (r, exp))
	r = row_of(out, 'inode_cache')
	exp = expect('inode_cache')
	c.check('-D: %Fill 33, %New 1, %FlushR 0 without free-list flushes',
	        r == exp and r[4:8] == ['33', '1', '7', '0'],
	        '%s != %s' % (r, exp))
	ok = all(row_of(out, n) == expect(n) for n in shown)
	c.check('-D rows of every cache', ok, out)
	rc, out, err = t.run('-R', full, '-D', '-i')
	c.check('-D -i: least active first', names(out) == by_act[::-1],
	        repr(names(out)))
	rc, out, err = t.run('-R', full, '-D', '-S')
	by_size = sorted(shown, key=lambda n: (-space(n), n))
	c.check('-D -S: activity view sorted by size', names(out) == by_size,
	        repr(names(out)))
	rc, out, err = t.run('-R', full, '-D')
	r = row_of(out, 'kmalloc-64')
	c.check('-D without -B scales big counts (5000000 -> 5000K)',
	        r is not None and r[2] == fmt_unit(5000000, 1000) == '5000K',
	        repr(r))


def test_list_alias_ops(c, t, full):
	rc, out, err = t.run('-R', full, '-l')
	want = sorted(n for n in CACHES if CACHES[n]['slabs'])
	c.check('-l lists cache names only', out.splitlines() == want,
	        repr(out))
	rc, out, err = t.run('-R', full, '-l', '-z', '-N', '3')
	c.check('-l -z -N 3', out.splitlines() == sorted(CACHES)[:3],
	        repr(out))
	rc, out, err = t.run('-R', full, '-a')
	lines = [l.split() for l in out.splitlines()]
	c.check('-a shows the alias mapping',
	        lines == [['kmalloc-64', '<-', 'dentry_foo', 'other_alias']],
	        repr(out))
	rc, out, err = t.run('-R', full, '-a', '-i')
	lines = [l.split() for l in out.splitlines()]
	c.check('-a -i: one "alias -> cache" line each',
	        lines == [['dentry_foo', '->', 'kmalloc-64'],
	                  ['other_alias', '->', 'kmalloc-64']], repr(out))
	rc, out, err = t.run('-R', full, '-a', 'other')
	lines = [l.split() for l in out.splitlines()]
	c.check('-a with a pattern', lines == [['kmalloc-64', '<-',
	                                        'other_alias']], repr(out))
	rc, out, err = t.run('-R', full, '-o')
	r1, r2 = row_of(out, 'inode_cache'), row_of(out, 'dentry')
	c.check('-o shows the constructor',
	        r1 == ['inode_cache', 'init_once+0x0/0x20'] and
	        r2 == ['dentry', '-'], '%s %s' % (r1, r2))


def test_report_totals(c, t, full):
	rc, out, err = t.run('-R', full, '-r', '^kmalloc-64$')
	alloc = [l for l in out.splitlines() if l.startswith('alloc ')]
	c.check('-r: alloc total with per-CPU breakdown',
	        len(alloc) == 1 and alloc[0].split() ==
	        ['alloc', '5000000', 'C0=2000000', 'C1=1500000', 'C3=1500000'],
	        repr(alloc))
	lines = [l.split() for l in out.splitlines()]
	got = set(l[0] for l in lines if l and l[0] in STATS)
	c.check('-r: every statistic listed', got == set(STATS),
	        repr(set(STATS) - got))
	c.check('-r: the aliases by name',
	        'Aliases       : 2 (dentry_foo other_alias)' in out, out)
	c.check('-r: derived numbers',
	        '5000000, 5% from a partial slab, 0% from a new slab' in out and
	        'Remote flushes: 1000 hand-overs, 64000 objects; 25% of LIFO flushes remote'
	        in out and 'worst run 8123 ns, largest 512' in out, out)
	c.check('-r: one report per selected cache',
	        out.count('\nCache: ') == 1 and rc == 0, repr(out[:200]))
	rc, out, err = t.run('-R', full, '-r', '-N', '2', 'kmalloc')
	c.check('-r -N 2 kmalloc: two reports, empty caches included',
	        re.findall(r'^Cache: (\S+)', out, re.M) ==
	        ['kmalloc-32', 'kmalloc-64'], repr(out[:300]))

	rc, out, err = t.run('-R', full, '-T', '-B')
	vals = [cache_values(s) for s in CACHES.values()]
	total = sum(space(n) for n in CACHES)
	used = sum(v['objects'] * v['object_size'] for v in vals)
	slabs = sum(v['slabs'] for v in vals)
	part = sum(v['partial'] for v in vals)
	objs = sum(v['objects'] for v in vals)
	tobj = sum(v['total_objects'] for v in vals)
	exp = ['Caches        : %d (4 with objects in use, 2 aliases)' %
	       len(CACHES),
	       'Slabs         : %d (%d partial)' % (slabs, part),
	       'Objects       : %d in use of %d (%d%%), 87 queued' %
	       (objs, tobj, pct(objs, tobj)),
	       'Memory total  : %d' % total,
	       'Memory used   : %d (%d%%)' % (used, pct(used, total)),
	       'Waste         : %d (%d%%)' % (total - used,
	                                       pct(total - used, total))]
	got = out.splitlines()
	ok = len(got) >= 6 and got[:5] == exp[:5] and got[5].startswith(exp[5])
	c.check('-T totals: caches, slabs, objects, memory used/total, waste',
	        ok and rc == 0, '\n%s\nexpected\n%s' % (out, '\n'.join(exp)))
	c.check('-T: largest cache', 'Largest       : kmalloc-64 (%d)' %
	        space('kmalloc-64') in out, out)


def test_writes(c, t, tmp):
	root = os.path.join(tmp, 'writes')
	make_tree(root)
	def shrunk():
		got = {n: open(os.path.join(root, n, 'shrink')).read()
		       for n in CACHES}
		for n in CACHES:
			write(os.path.join(root, n, 'shrink'), '')
		return got

	rc, out, err = t.run('-R', root, '-s', '^(dentry|inode_cache)$')
	got = shrunk()
	exp = {n: '1' if n in ('dentry', 'inode_cache') else '' for n in CACHES}
	c.check('-s writes "1" to shrink of the matching caches only',
	        rc == 0 and got == exp and not out and not err,
	        'rc %d %s %r' % (rc, got, err))
	rc, out, err = t.run('-R', root, '-s', 'dentry_foo')
	got = shrunk()
	exp = {n: '1' if n == 'kmalloc-64' else '' for n in CACHES}
	c.check('-s on an alias name shrinks the cache it is merged into',
	        rc == 0 and got == exp, 'rc %d %s %r' % (rc, got, err))
	rc, out, err = t.run('-R', root, '-s', '-N', '2', '-S')
	got = shrunk()
	exp = {n: '1' if n in ('kmalloc-64', 'buffer_head') else ''
	       for n in CACHES}
	c.check('-s -S -N 2 shrinks the two largest caches',
	        rc == 0 and got == exp, 'rc %d %s %r' % (rc, got, err))
	os.unlink(os.path.join(root, 'dentry', 'shrink'))
	rc, out, err = t.run('-R', root, '-s', 'dentry')
	c.check('-s: a missing shrink file is named, exit 1',
	        rc == 1 and 'dentry/shrink' in err, 'rc %d %r' % (rc, err))

	rc, out, err = t.run('-R', root, '-v')
	c.check('-v without validate files: one clear note, exit 1',
	        rc == 1 and err.count('validate not found') == 1, repr(err))
	write(os.path.join(root, 'buffer_head', 'validate'), '')
	rc, out, err = t.run('-R', root, '-v', 'buffer')
	c.check('-v writes "1" to validate when present',
	        rc == 0 and open(os.path.join(root, 'buffer_head',
	                                      'validate')).read() == '1',
	        'rc %d %r' % (rc, err))

	rc, out, err = t.run('-R', root, '-t')
	c.check('-t without alloc_calls: one clear note, exit 1',
	        rc == 1 and err.count('alloc_calls not found') == 1 and not out,
	        'rc %d %r %r' % (rc, out, err))
	write(os.path.join(root, 'dentry', 'alloc_calls'),
	      '     12 d_alloc+0x2a/0x90 age=1/2/3 pid=1-100\n')
	rc, out, err = t.run('-R', root, '-t', 'dentry')
	c.check('-t prints alloc_calls when present',
	        rc == 0 and 'd_alloc+0x2a/0x90' in out, 'rc %d %r' % (rc, out))


def test_no_stats(c, t, tmp):
	root = os.path.join(tmp, 'nostats')
	make_tree(root, stats=False)
	rc, out, err = t.run('-R', root, '-D')
	c.check('-D without stats: exit non-zero, nothing on stdout',
	        rc != 0 and not out, 'rc %d %r' % (rc, out))
	c.check('-D without stats: the note, once',
	        err.count('CONFIG_SLQB_STATS') == 1 and
	        re.search(r'/\S+/alloc not found: .*CONFIG_SLQB_STATS; -D', err)
	        is not None, repr(err))
	rc, out, err = t.run('-R', root, '-A')
	shown = sorted(n for n in CACHES if CACHES[n]['slabs'])
	c.check('-A without stats: note once, default view by name, exit 0',
	        rc == 0 and err.count('CONFIG_SLQB_STATS') == 1 and
	        names(out) == shown, 'rc %d %r %r' % (rc, err, names(out)))
	rc, out, err = t.run('-R', root)
	c.check('default view does not need stats', rc == 0 and not err and
	        names(out) == shown, 'rc %d %r' % (rc, err))
	rc, out, err = t.run('-R', root, '-r', 'dentry$')
	c.check('-r without stats says so', rc == 0 and
	        'not available (built without CONFIG_SLQB_STATS)' in out,
	        repr(out))

	mixed = os.path.join(tmp, 'mixed')
	make_tree(mixed)
	for s in STATS:
		os.unlink(os.path.join(mixed, 'dentry', s))
	rc, out, err = t.run('-R', mixed, '-D')
	c.check('-D with some caches lacking stats: note, the others shown',
	        rc == 0 and err.count('dentry/alloc not found') == 1 and
	        'dentry' not in names(out) and 'kmalloc-64' in names(out),
	        'rc %d %r %r' % (rc, err, names(out)))
	rc, out, err = t.run('-R', mixed, '-D', '-N', '2', '-i')
	c.check('-D -N counts only caches with stats',
	        rc == 0 and names(out) == ['kmalloc-32', 'buffer_head'],
	        'rc %d %r' % (rc, names(out)))


def test_broken(c, t, tmp):
	root = os.path.join(tmp, 'broken')
	make_broken_tree(root)
	rc, out, err = t.run('-R', root, '-z')
	c.check('broken tree: the non-numeric file is named',
	        re.search(r'kmalloc-64/objects: not a number: "abc"', err)
	        is not None, repr(err))
	c.check('broken tree: the missing file is named',
	        re.search(r'dentry/slabs: No such file', err) is not None,
	        repr(err))
	c.check('broken tree: the empty cache directory is named',
	        'empty_cache/slab_size: No such file' in err, repr(err))
	c.check('broken tree: the dangling alias is named',
	        re.search(r'ghost: alias of "no_such_cache"', err) is not None,
	        repr(err))
	c.check('broken tree: the malformed statistic is named',
	        re.search(r'badstat/free: malformed statistic.*"12 C0=x"', err)
	        is not None, repr(err))
	c.check('broken tree: the good caches are still shown',
	        names(out) == ['badstat', 'good'], repr(out))
	c.check('broken tree: exit 1 after errors', rc == 1, 'rc %d' % rc)
	c.check('broken tree: one message per broken cache',
	        len(err.splitlines()) == 5, repr(err))
	rc, out, err = t.run('-R', root, '-D')
	c.check('broken tree: -D skips the cache whose stats are broken',
	        rc == 1 and not out and 'badstat/alloc not found' not in err and
	        'good/alloc not found' in err, 'rc %d %r %r' % (rc, out, err))
	rc, out, err = t.run('-R', root, '-a')
	c.check('broken tree: -a names the dangling alias, shows the rest',
	        rc == 1 and 'ghost: alias of "no_such_cache"' in err and
	        out.split() == ['kmalloc-64', '<-', 'dentry_foo', 'other_alias'],
	        'rc %d %r %r' % (rc, out, err))

	odd = os.path.join(tmp, 'odd')
	make_tree(odd, skip=[n for n in CACHES if n != 'dentry'])
	write(os.path.join(odd, 'dentry', 'objects'), '')
	rc, out, err = t.run('-R', odd)
	c.check('an empty number file is reported',
	        'dentry/objects: empty' in err and rc == 1, repr(err))
	write(os.path.join(odd, 'dentry', 'objects'), '99999999999999999999999\n')
	rc, out, err = t.run('-R', odd)
	c.check('an out-of-range number is reported',
	        'dentry/objects: number out of range' in err and rc == 1,
	        repr(err))
	write(os.path.join(odd, 'dentry', 'objects'), '12abc\n')
	rc, out, err = t.run('-R', odd)
	c.check('a number with trailing junk is reported',
	        'dentry/objects: not a number: "12abc"' in err and rc == 1 and
	        names(out) == [], repr(err))
	write(os.path.join(odd, 'dentry', 'objects'), '-5\n')
	rc, out, err = t.run('-R', odd)
	c.check('a negative number is reported',
	        'dentry/objects: not a number: "-5"' in err and rc == 1,
	        repr(err))
	dentry = cache_values(CACHES['dentry'])
	write(os.path.join(odd, 'dentry', 'objects'), '%d\n' % dentry['objects'])
	write(os.path.join(odd, 'dentry', 'slabs'),
	      '%d N0=%d N2=%d\n' % (dentry['slabs'], dentry['slabs'] - 1, 1))
	rc, out, err = t.run('-R', odd)
	r = row_of(out, 'dentry')
	c.check('slabs with per-node fields is read',
	        rc == 0 and not err and r is not None and
	        r[4].startswith('%d/' % dentry['slabs']),
	        'rc %d %r %r' % (rc, r, err))
	write(os.path.join(odd, 'dentry', 'slabs'), '%d N0=x\n' % dentry['slabs'])
	rc, out, err = t.run('-R', odd)
	c.check('a malformed per-node field of slabs is reported',
	        rc == 1 and 'dentry/slabs: not a number' in err, repr(err))
	write(os.path.join(odd, 'dentry', 'slabs'), '%d\n' % dentry['slabs'])
	write(os.path.join(odd, 'dentry', 'objects'), '7 N0=7\n')
	rc, out, err = t.run('-R', odd)
	c.check('per-node fields are refused outside slabs',
	        rc == 1 and 'dentry/objects: not a number' in err, repr(err))
	# sysfs cuts a long stat file at PAGE_SIZE - 1, maybe inside a token
	text = '100'
	cpu = 0
	while len(text) < PAGE - 20:
		text += ' C%d=1' % cpu
		cpu += 1
	text = (text + ' C%d=123456789' % cpu)[:PAGE - 1]
	make_tree(os.path.join(tmp, 'cut'), skip=[n for n in CACHES
						  if n != 'dentry'])
	write(os.path.join(tmp, 'cut', 'dentry', 'alloc'), text)
	rc, out, err = t.run('-R', os.path.join(tmp, 'cut'), '-D', '-B')
	r = row_of(out, 'dentry')
	c.check('a stat file cut by sysfs at PAGE_SIZE - 1 is accepted',
		rc == 0 and not err and r is not None and r[2] == '100',
		'rc %d %r %r' % (rc, r, err))
	write(os.path.join(tmp, 'cut', 'dentry', 'alloc'), text[:-40] + ' C1=')
	rc, out, err = t.run('-R', os.path.join(tmp, 'cut'), '-D')
	c.check('a short stat file with a cut token is malformed',
		rc == 1 and 'dentry/alloc: malformed' in err, 'rc %d %r' % (rc, err))
	write(os.path.join(odd, 'dentry', 'objects'), '7\n')
	write(os.path.join(odd, 'dentry', 'alloc'), '5 C0=5 junk\n')
	rc, out, err = t.run('-R', odd, '-D')
	c.check('-D with only a malformed stat: error, no no-stats note',
	        rc == 1 and 'dentry/alloc: malformed' in err and
	        'CONFIG_SLQB_STATS' not in err.split('malformed')[0],
	        'rc %d %r' % (rc, err))


def test_usage(c, t, tmp, full):
	for args, name in ((['-Q'], 'unknown option'),
	                   (['--bogus'], 'unknown long option'),
	                   (['-N', 'abc'], 'non-numeric -N'),
	                   (['-N', '0'], '-N 0'),
	                   (['-N', '-3'], 'negative -N'),
	                   (['-N'], '-N without a value'),
	                   (['-D', '-a'], 'two views at once'),
	                   (['-A', '-S'], 'two sort orders at once'),
	                   (['a', 'b'], 'two patterns'),
	                   (['('], 'a bad regex')):
		rc, out, err = t.run('-R', full, *args)
		c.check('usage error exits 2: %s' % name,
		        rc == 2 and err.startswith('slqbinfo: ') and not out,
		        'rc %d %r' % (rc, err))
	rc, out, err = t.run('-h')
	c.check('-h prints help, exit 0',
	        rc == 0 and '-D' in out and '--root' in out, 'rc %d' % rc)
	missing = os.path.join(tmp, 'no-such-dir')
	rc, out, err = t.run('-R', missing)
	c.check('missing root dir: clear error, exit 1',
	        rc == 1 and missing + ': No such file or directory' in err,
	        'rc %d %r' % (rc, err))
	rc, out, err = t.run('-R', full + '/', '-r', 'zzz')
	c.check('--root with a trailing slash', rc == 0, 'rc %d' % rc)
	if os.path.exists('/dev/full'):
		with open('/dev/full', 'w') as full_dev:
			p = subprocess.run([t.binary, '-R', full], stdout=full_dev,
			                   stderr=subprocess.PIPE)
		c.check('a failed write of the output is reported, exit 1',
		        p.returncode == 1 and b'writing the output' in p.stderr,
		        'rc %d %r' % (p.returncode, p.stderr))
	rc, out, err = t.run('-R', full, '-n')
	c.check('-n: no per-node view yet, said clearly, exit 1',
	        rc == 1 and 'no per-node view' in err and 'N<node>=' in err,
	        'rc %d %r' % (rc, err))
	rc, out, err = t.run('-R', full, '-d')
	c.check('-d: not supported, said clearly, exit 1',
	        rc == 1 and 'debug' in err, 'rc %d %r' % (rc, err))


def test_valgrind(c, binary, tmp, full):
	vg = shutil.which('valgrind')
	if not vg or EXTRA_CFLAGS:
		c.skip('valgrind', 'not installed' if not vg else
		       'SLQBINFO_CFLAGS set')
		return
	t = Tool(binary, [vg, '-q', '--leak-check=full', '--show-leak-kinds=all',
	                  '--errors-for-leak-kinds=all', '--error-exitcode=99'])
	broken = os.path.join(tmp, 'broken')
	bad = []
	for args in (['-R', full, '-z'], ['-R', full, '-D'], ['-R', full, '-r'],
	             ['-R', full, '-a'], ['-R', full, '-T'], ['-R', full, '-o'],
	             ['-R', full, '-A', '-l'], ['-R', broken, '-z'],
	             ['-R', broken, '-r'], ['-R', broken, '-a'],
	             ['-R', os.path.join(tmp, 'nostats'), '-D'],
	             ['-R', os.path.join(tmp, 'writes'), '-s'],
	             ['-R', os.path.join(tmp, 'writes'), '-t'],
	             ['-R', os.path.join(tmp, 'no-such-dir')], ['-Q'], ['(']):
		rc, out, err = t.run(*args)
		if rc == 99 or '==' in err:
			bad.append('%s: %s' % (' '.join(args), err[-500:]))
	c.check('valgrind: no memory errors or leaks', not bad, '\n'.join(bad))


def main():
	c = Checker()
	if STATS_ERROR:
		c.check('statistics names read from include/linux/slqb_stats.h', False, STATS_ERROR)
		print('%d passed, %d failed' % (c.passed, c.failed))
		return 1
	tmp = tempfile.mkdtemp(prefix='slqbinfo-test.')
	try:
		binary = build(c, tmp)
		if binary:
			t = Tool(binary)
			full = os.path.join(tmp, 'full')
			make_tree(full)
			test_default_view(c, t, full)
			test_filters(c, t, full)
			test_sorting(c, t, full)
			test_activity(c, t, full)
			test_list_alias_ops(c, t, full)
			test_report_totals(c, t, full)
			test_writes(c, t, tmp)
			test_no_stats(c, t, tmp)
			test_broken(c, t, tmp)
			test_usage(c, t, tmp, full)
			test_valgrind(c, binary, tmp, full)
	finally:
		shutil.rmtree(tmp, ignore_errors=True)
	print('%d passed, %d failed' % (c.passed, c.failed))
	return 1 if c.failed else 0


if __name__ == '__main__':
	sys.exit(main())
