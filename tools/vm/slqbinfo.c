// SPDX-License-Identifier: GPL-2.0
/*
 * slqbinfo: report on the SLQB slab caches
 *
 * Reads what SLQB exports under /sys/kernel/slab: one directory per cache,
 * one value per file, and a symbolic link per merged cache (alias) that
 * points at the directory of the cache it was merged into.  The statistics
 * files ("alloc", "free", ...) exist only with CONFIG_SLQB_STATS.
 *
 * Build it with a plain "gcc -O2 -Wall -Wextra" (add -static for an
 * initramfs); "-h" lists the options.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define PROG		"slqbinfo"
#define DEFAULT_ROOT	"/sys/kernel/slab"
#define MAX_FILE	(1024 * 1024)	/* far more than one sysfs page */
#define MAX_ORDER_SANE	30

/* The per-cache numeric files; all of them must be there. */
enum attr {
	A_SLAB_SIZE,
	A_OBJECT_SIZE,
	A_OBJS_PER_SLAB,
	A_ORDER,
	A_ALIGN,
	A_HWCACHE_ALIGN,
	A_RECLAIM_ACCOUNT,
	A_DESTROY_BY_RCU,
	A_CACHE_DMA,
	A_RED_ZONE,
	A_POISON,
	A_STORE_USER,
	A_FAILSLAB,
	A_ALIASES,
	A_SLABS,
	A_PARTIAL,
	A_OBJECTS,
	A_TOTAL_OBJECTS,
	A_QUEUED,
	A_HIWATER,
	A_FREEBATCH,
	NR_ATTRS
};

static const char * const attr_name[NR_ATTRS] = {
	[A_SLAB_SIZE]		= "slab_size",
	[A_OBJECT_SIZE]		= "object_size",
	[A_OBJS_PER_SLAB]	= "objs_per_slab",
	[A_ORDER]		= "order",
	[A_ALIGN]		= "align",
	[A_HWCACHE_ALIGN]	= "hwcache_align",
	[A_RECLAIM_ACCOUNT]	= "reclaim_account",
	[A_DESTROY_BY_RCU]	= "destroy_by_rcu",
	[A_CACHE_DMA]		= "cache_dma",
	[A_RED_ZONE]		= "red_zone",
	[A_POISON]		= "poison",
	[A_STORE_USER]		= "store_user",
	[A_FAILSLAB]		= "failslab",
	[A_ALIASES]		= "aliases",
	[A_SLABS]		= "slabs",
	[A_PARTIAL]		= "partial",
	[A_OBJECTS]		= "objects",
	[A_TOTAL_OBJECTS]	= "total_objects",
	[A_QUEUED]		= "queued",
	[A_HIWATER]		= "hiwater",
	[A_FREEBATCH]		= "freebatch",
};

/*
 * The CONFIG_SLQB_STATS files: "<total>[ C<cpu>=<n>]...". The kernel's one
 * list of them, include/linux/slqb_stats.h, makes both the enum and the
 * names.
 */
enum stat_item {
#define SLQB_STAT(item, name)	S_##item,
#include "../../include/linux/slqb_stats.h"
	NR_STATS
};

static const char * const stat_name[NR_STATS] = {
#define SLQB_STAT(item, name)	(#name),
#include "../../include/linux/slqb_stats.h"
};

enum stats_state {
	STATS_NONE,	/* no "alloc" file: built without CONFIG_SLQB_STATS */
	STATS_OK,
	STATS_BAD,	/* present but a file was missing or malformed */
};

struct cache {
	char *name;
	int selected;		/* matched by the pattern (or one of its aliases) */
	int loaded;		/* every attribute read and parsed */
	unsigned long long v[NR_ATTRS];
	char *ctor;		/* "" when the cache has none */
	enum stats_state stats;
	unsigned long long st[NR_STATS];
	char *percpu[NR_STATS];	/* -r only: the " C<cpu>=<n>" part */
	struct alias **alias;	/* the symbolic links that point here */
	size_t nr_alias;
};

struct alias {
	char *name;
	char *target;		/* last component of the link */
	struct cache *cache;	/* NULL when the link dangles */
	int selected;
};

enum mode {
	M_DEFAULT,
	M_ACTIVITY,
	M_ALIASES,
	M_DEBUG,
	M_LIST,
	M_NUMA,
	M_OPS,
	M_REPORT,
	M_SHRINK,
	M_TRACK,
	M_TOTALS,
	M_VALIDATE,
};

enum sort {
	SORT_NAME,
	SORT_SIZE,
	SORT_ACTIVITY,
};

static const char *root = DEFAULT_ROOT;
static enum mode mode = M_DEFAULT;
static char mode_opt;
static enum sort sort_key = SORT_NAME;
static int sort_given;
static int inverted;
static int exact;
static int show_zero;
static int empty_only;
static long max_lines = -1;
static unsigned long long page_size = 4096;

static struct cache *caches;
static size_t nr_caches;
static struct alias *aliases;
static size_t nr_aliases;
static int root_fd = -1;
static int errors;

static char *file_buf;

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [options] [regex]\n"
		"Report on the SLQB slab caches in " DEFAULT_ROOT ".\n"
		"The regex (extended, case-insensitive) selects caches by name or by alias.\n"
		"\n"
		"Views (one at a time; the default is one line per cache):\n"
		"  -a, --aliases          show the aliases (merged caches) of each cache\n"
		"  -D, --display-activity activity view (needs CONFIG_SLQB_STATS), most active first\n"
		"  -l, --list             list the names the default view would show\n"
		"  -o, --ops              show the constructor of each cache\n"
		"  -r, --report           detailed report, statistics with per-CPU breakdown\n"
		"  -s, --shrink           shrink the caches (writes 1 to <cache>/shrink; root)\n"
		"  -t, --tracking         show alloc_calls/free_calls (debug kernels only)\n"
		"  -T, --totals           summary over all caches\n"
		"  -v, --validate         validate the caches (debug kernels only)\n"
		"  -n, --numa             per-node view (not available yet)\n"
		"  -d, --debug[=opts]     change debug options (not supported by SLQB)\n"
		"\n"
		"Modifiers:\n"
		"  -A, --activity         sort by activity (alloc + free), most active first\n"
		"  -S, --Size             sort by space used, largest first\n"
		"  -i, --inverted         invert the sort order\n"
		"  -z, --zero             include caches without slabs\n"
		"  -e, --empty            show only caches without slabs\n"
		"  -N, --lines=K          show at most K caches\n"
		"  -B, --Bytes            exact numbers (no K/M/G)\n"
		"  -R, --root=DIR         read DIR instead of " DEFAULT_ROOT "\n"
		"  -h, --help             this text\n"
		"\n"
		"Default view columns: Objects in use, Objsize (bytes), Space = slabs *\n"
		"(page size << order), Slabs/Part (all/partial slabs), O (order), %%Fr\n"
		"(partial slabs in %% of all), %%Ef (object bytes in %% of Space), Queue\n"
		"(free objects held on queues), Flg: * aliases, A hwcache_align, a\n"
		"reclaim_account, R destroy_by_rcu, d cache_dma, Z red_zone, P poison,\n"
		"U store_user, f failslab, C constructor.\n"
		"Activity view: %%Fill = alloc_slab_fill*100/alloc, %%New =\n"
		"alloc_slab_new*100/alloc, FlushR = flush_rfree_list, %%FlushR =\n"
		"flush_free_list_remote*100/flush_free_list_objects (the share of\n"
		"objects flushed from LIFOs that belonged to another CPU), FlushR_Objs =\n"
		"flush_rfree_list_objects.\n"
		"K/M/G: 1000-based for counts, 1024-based for bytes.\n");
}

static void usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, PROG ": %s%s\n", msg, arg ? arg : "");
	fprintf(stderr, "Try '" PROG " -h' for more information.\n");
	exit(2);
}

static void out_of_memory(void)
{
	fprintf(stderr, PROG ": out of memory\n");
	exit(1);
}

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		out_of_memory();
	return p;
}

/* Print "slqbinfo: <root>/<cache>/<file>: " to start a message. */
static void file_prefix(const char *cache, const char *file)
{
	fprintf(stderr, PROG ": %s/%s%s%s: ", root, cache, file ? "/" : "",
		file ? file : "");
}

/*
 * Quote at most 40 characters of a file's contents for a message: the
 * trailing newline is dropped and anything unprintable is escaped.
 */
static void quote(char *out, size_t size, const char *s, size_t len)
{
	size_t i, o = 0;

	if (len && s[len - 1] == '\n')
		len--;
	out[o++] = '"';
	for (i = 0; i < len && i < 40 && o + 8 < size; i++) {
		unsigned char ch = s[i];

		if (ch == '"' || ch == '\\')
			o += snprintf(out + o, size - o, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			o += snprintf(out + o, size - o, "\\x%02x", ch);
		else
			out[o++] = ch;
	}
	if (i < len && o + 4 < size) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o++] = '"';
	out[o] = '\0';
}

/*
 * Read a whole file of a cache directory into file_buf, NUL terminated.
 * Returns its length, or -1 with errno set.
 */
static long read_file(int dir_fd, const char *name)
{
	long len = 0;
	ssize_t n;
	int fd, err;

	if (!file_buf)
		file_buf = xrealloc(NULL, MAX_FILE + 1);
	fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (;;) {
		n = read(fd, file_buf + len, MAX_FILE - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			close(fd);
			errno = err;
			return -1;
		}
		if (!n)
			break;
		len += n;
		if (len == MAX_FILE) {
			close(fd);
			errno = EFBIG;
			return -1;
		}
	}
	close(fd);
	file_buf[len] = '\0';
	return len;
}

/* Parse decimal digits at *p; advance *p.  Returns 0, or -1 on overflow. */
static int parse_digits(const char **p, unsigned long long *val)
{
	unsigned long long v = 0;
	const char *s = *p;

	while (*s >= '0' && *s <= '9') {
		unsigned int d = *s - '0';

		if (v > (~0ULL - d) / 10)
			return -1;
		v = v * 10 + d;
		s++;
	}
	*p = s;
	*val = v;
	return 0;
}

/*
 * A permission problem means every other file would fail the same way:
 * say why once and stop.
 */
static void check_access(int err, const char *cache, const char *file)
{
	if (err != EACCES && err != EPERM)
		return;
	file_prefix(cache, file);
	fprintf(stderr, "%s (the SLQB sysfs files are readable by root only)\n",
		strerror(err));
	exit(1);
}

/*
 * Check the " <letter><id>=<n>" tokens after a total: C<cpu> in statistics,
 * N<node> in slabs.  sysfs cuts a file at one page less a byte, possibly in
 * the middle of a token: accept that.
 */
static int check_tokens(const char *p, long len, char letter)
{
	const char *end = file_buf + len;
	int cut = len == (long)page_size - 1 && end[-1] != '\n';
	unsigned long long v;

	if (!cut && end[-1] == '\n')
		end--;
	while (p < end) {
		const char *tok = p;

		if (p[0] != ' ' || p[1] != letter || p[2] < '0' || p[2] > '9')
			goto bad;
		p += 2;
		if (parse_digits(&p, &v) || *p != '=' ||
		    p[1] < '0' || p[1] > '9')
			goto bad;
		p++;
		if (parse_digits(&p, &v))
			goto bad;
		continue;
bad:
		return cut && !strchr(tok + 1, ' ') ? 0 : -1;
	}
	return p == end ? 0 : -1;
}

/*
 * Read an unsigned decimal file; with @letter, " <letter><id>=<n>" tokens may
 * follow the number.  Returns 0, or -1 after a message.
 */
static int read_number(int dir_fd, const char *cache, const char *file,
		       unsigned long long *val, char letter)
{
	char q[200];
	const char *p;
	long len;

	len = read_file(dir_fd, file);
	if (len < 0) {
		check_access(errno, cache, file);
		file_prefix(cache, file);
		fprintf(stderr, "%s\n", strerror(errno));
		errors++;
		return -1;
	}
	p = file_buf;
	if (*p >= '0' && *p <= '9') {
		if (parse_digits(&p, val)) {
			quote(q, sizeof(q), file_buf, len);
			file_prefix(cache, file);
			fprintf(stderr, "number out of range: %s\n", q);
			errors++;
			return -1;
		}
		if (letter && *p == ' ' && !check_tokens(p, len, letter))
			return 0;
		if (*p == '\n')
			p++;
		if (p == file_buf + len)
			return 0;
	}
	quote(q, sizeof(q), file_buf, len);
	file_prefix(cache, file);
	if (!len)
		fprintf(stderr, "empty, expected a number\n");
	else
		fprintf(stderr, "not a number: %s\n", q);
	errors++;
	return -1;
}

/* Read one statistics file.  Returns 0, or -1 after a message. */
static int read_stat(int dir_fd, struct cache *c, enum stat_item i, int keep)
{
	const char *p;
	char q[200];
	long len;

	len = read_file(dir_fd, stat_name[i]);
	if (len < 0) {
		check_access(errno, c->name, stat_name[i]);
		file_prefix(c->name, stat_name[i]);
		fprintf(stderr, "%s\n", strerror(errno));
		errors++;
		return -1;
	}
	p = file_buf;
	if (len && *p >= '0' && *p <= '9' && !parse_digits(&p, &c->st[i]) &&
	    !memchr(file_buf, '\0', len) && !check_tokens(p, len, 'C')) {
		if (keep) {
			c->percpu[i] = xstrdup(p);
			c->percpu[i][strcspn(c->percpu[i], "\n")] = '\0';
		}
		return 0;
	}
	quote(q, sizeof(q), file_buf, len);
	file_prefix(c->name, stat_name[i]);
	fprintf(stderr, "malformed statistic (expected \"<total> C<cpu>=<n>...\"): %s\n",
		q);
	errors++;
	return -1;
}

/* Read every attribute of a cache; on the first problem, report and skip it. */
static void load_cache(struct cache *c, int keep_percpu)
{
	int fd, i;
	long len;

	fd = openat(root_fd, c->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return;		/* destroyed since the directory was read */
	if (fd < 0) {
		check_access(errno, c->name, NULL);
		file_prefix(c->name, NULL);
		fprintf(stderr, "%s\n", strerror(errno));
		errors++;
		return;
	}
	for (i = 0; i < NR_ATTRS; i++)
		if (read_number(fd, c->name, attr_name[i], &c->v[i],
				i == A_SLABS ? 'N' : 0))
			goto out;
	if (c->v[A_ORDER] > MAX_ORDER_SANE) {
		file_prefix(c->name, attr_name[A_ORDER]);
		fprintf(stderr, "order %llu is out of range\n", c->v[A_ORDER]);
		errors++;
		goto out;
	}

	len = read_file(fd, "ctor");
	if (len < 0) {
		check_access(errno, c->name, "ctor");
		file_prefix(c->name, "ctor");
		fprintf(stderr, "%s\n", strerror(errno));
		errors++;
		goto out;
	}
	c->ctor = xstrdup(file_buf);
	c->ctor[strcspn(c->ctor, "\n")] = '\0';

	c->stats = STATS_NONE;
	if (faccessat(fd, stat_name[S_ALLOC], F_OK, 0) == 0) {
		c->stats = STATS_OK;
		for (i = 0; i < NR_STATS; i++) {
			if (read_stat(fd, c, i, keep_percpu)) {
				c->stats = STATS_BAD;
				break;
			}
		}
	}
	c->loaded = 1;
out:
	close(fd);
}

static void add_cache(const char *name)
{
	static size_t cap;

	if (nr_caches == cap) {
		cap = cap ? cap * 2 : 64;
		caches = xrealloc(caches, cap * sizeof(*caches));
	}
	memset(&caches[nr_caches], 0, sizeof(*caches));
	caches[nr_caches++].name = xstrdup(name);
}

static void add_alias(const char *name)
{
	static size_t cap;
	char link[4096];
	struct alias *a;
	ssize_t n;
	char *t;

	n = readlinkat(root_fd, name, link, sizeof(link) - 1);
	if (n < 0) {
		file_prefix(name, NULL);
		fprintf(stderr, "cannot read the alias link: %s\n",
			strerror(errno));
		errors++;
		return;
	}
	link[n] = '\0';
	while (n > 1 && link[n - 1] == '/')
		link[--n] = '\0';
	t = strrchr(link, '/');
	t = t ? t + 1 : link;

	if (nr_aliases == cap) {
		cap = cap ? cap * 2 : 64;
		aliases = xrealloc(aliases, cap * sizeof(*aliases));
	}
	a = &aliases[nr_aliases++];
	memset(a, 0, sizeof(*a));
	a->name = xstrdup(name);
	a->target = xstrdup(t);
}

static int cmp_cache_name(const void *a, const void *b)
{
	return strcmp(((const struct cache *)a)->name,
		      ((const struct cache *)b)->name);
}

static int cmp_alias(const void *a, const void *b)
{
	const struct alias *x = a, *y = b;
	int r = strcmp(x->target, y->target);

	return r ? r : strcmp(x->name, y->name);
}

static int cmp_alias_name(const void *a, const void *b)
{
	return strcmp((*(struct alias * const *)a)->name,
		      (*(struct alias * const *)b)->name);
}

static struct cache *find_cache(const char *name)
{
	struct cache key = { .name = (char *)name };

	return bsearch(&key, caches, nr_caches, sizeof(*caches),
		       cmp_cache_name);
}

/* Collect the caches (directories) and aliases (links) under root. */
static void scan(void)
{
	struct dirent *de;
	struct stat st;
	size_t i;
	DIR *dir;
	int fd;

	fd = dup(root_fd);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		if (fd >= 0)
			close(fd);
		fprintf(stderr, PROG ": %s: %s\n", root, strerror(errno));
		exit(1);
	}
	while ((de = readdir(dir))) {
		unsigned char type = de->d_type;

		if (de->d_name[0] == '.')
			continue;
		if (type == DT_UNKNOWN) {
			if (fstatat(root_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
				continue;
			if (S_ISDIR(st.st_mode))
				type = DT_DIR;
			else if (S_ISLNK(st.st_mode))
				type = DT_LNK;
		}
		if (type == DT_DIR)
			add_cache(de->d_name);
		else if (type == DT_LNK)
			add_alias(de->d_name);
	}
	closedir(dir);

	if (nr_caches)
		qsort(caches, nr_caches, sizeof(*caches), cmp_cache_name);
	if (nr_aliases)
		qsort(aliases, nr_aliases, sizeof(*aliases), cmp_alias);
	for (i = 0; i < nr_aliases; i++) {
		struct cache *c = find_cache(aliases[i].target);

		aliases[i].cache = c;
		if (!c)
			continue;
		c->alias = xrealloc(c->alias, (c->nr_alias + 1) * sizeof(*c->alias));
		c->alias[c->nr_alias++] = &aliases[i];
	}
}

static int matches(const regex_t *re, const char *name)
{
	return !re || !regexec(re, name, 0, NULL, 0);
}

/* Mark the caches and aliases the pattern (NULL: none) selects. */
static void select_caches(const regex_t *re)
{
	size_t i;

	for (i = 0; i < nr_caches; i++)
		caches[i].selected = matches(re, caches[i].name);
	for (i = 0; i < nr_aliases; i++) {
		struct alias *a = &aliases[i];
		int by_name = matches(re, a->name);

		a->selected = by_name || matches(re, a->target);
		if (a->cache && by_name)
			a->cache->selected = 1;
		if (a->selected && !a->cache) {
			fprintf(stderr,
				PROG ": %s/%s: alias of \"%s\", which is not a cache\n",
				root, a->name, a->target);
			errors++;
		}
	}
}

/* a * 100 / b without overflow in a * 100; 0 when b is 0 */
static unsigned long long pct(unsigned long long a, unsigned long long b)
{
	if (!b)
		return 0;
	return a / b * 100 + a % b * 100 / b;
}

static unsigned long long sub0(unsigned long long a, unsigned long long b)
{
	return a > b ? a - b : 0;
}

static unsigned long long slab_bytes(const struct cache *c)
{
	return page_size << c->v[A_ORDER];
}

static unsigned long long space(const struct cache *c)
{
	return c->v[A_SLABS] * slab_bytes(c);
}

static unsigned long long used(const struct cache *c)
{
	return c->v[A_OBJECTS] * c->v[A_OBJECT_SIZE];
}

static unsigned long long activity(const struct cache *c)
{
	if (c->stats != STATS_OK)
		return 0;
	return c->st[S_ALLOC] + c->st[S_FREE];
}

/*
 * Format a number: exact below 10000 (or always with -B), otherwise
 * scaled by unit (1000 or 1024) to K, M, G, T, P, E with one decimal
 * below 100.
 */
static const char *fmt_unit(char *buf, size_t size, unsigned long long v,
			    unsigned int unit)
{
	static const char suffix[] = "KMGTPE";
	unsigned long long div = 1;
	int i = -1;

	if (exact || v < 10000) {
		snprintf(buf, size, "%llu", v);
		return buf;
	}
	while (v / div >= 10000 && i < 5) {
		div *= unit;
		i++;
	}
	if (v / div < 100)
		snprintf(buf, size, "%llu.%llu%c", v / div, v % div * 10 / div,
			 suffix[i]);
	else
		snprintf(buf, size, "%llu%c", v / div, suffix[i]);
	return buf;
}

static const char *fmt_count(char *buf, size_t size, unsigned long long v)
{
	return fmt_unit(buf, size, v, 1000);
}

static const char *fmt_bytes(char *buf, size_t size, unsigned long long v)
{
	return fmt_unit(buf, size, v, 1024);
}

static int cmp_view(const void *a, const void *b)
{
	const struct cache *x = *(struct cache * const *)a;
	const struct cache *y = *(struct cache * const *)b;
	unsigned long long kx = 0, ky = 0;
	int r;

	if (sort_key == SORT_SIZE) {
		kx = space(x);
		ky = space(y);
	} else if (sort_key == SORT_ACTIVITY) {
		kx = activity(x);
		ky = activity(y);
	}
	/* biggest first, then by name */
	if (kx != ky)
		r = kx < ky ? 1 : -1;
	else
		r = strcmp(x->name, y->name);
	return inverted ? -r : r;
}

/* The "no statistics" note, printed at most once. */
static void note_no_stats(const struct cache *c, const char *what)
{
	static int done;

	if (done)
		return;
	done = 1;
	fprintf(stderr,
		"slqbinfo: %s/%s/%s not found: this kernel was built without CONFIG_SLQB_STATS; %s\n",
		root, c->name, stat_name[S_ALLOC], what);
}

static int filtered_out(const struct cache *c)
{
	if (empty_only)
		return c->v[A_SLABS] != 0;
	return !show_zero && !c->v[A_SLABS];
}

/*
 * Return the selected caches, sorted, in a new array of at most -N entries.
 * "load" reads their attributes (always done when sorting by size or
 * activity) and leaves out those that cannot be read; "filter" also leaves
 * out what -z/-e leave out.
 */
static struct cache **build_view(int load, int filter, int keep_percpu,
				 size_t *nr)
{
	struct cache **view = xrealloc(NULL, nr_caches * sizeof(*view));
	size_t i, n = 0;

	if (sort_key != SORT_NAME)
		load = 1;
	for (i = 0; i < nr_caches; i++) {
		struct cache *c = &caches[i];

		if (!c->selected)
			continue;
		if (load) {
			load_cache(c, keep_percpu);
			if (!c->loaded)
				continue;
			if (mode == M_ACTIVITY && c->stats == STATS_NONE)
				note_no_stats(c, "-D needs it");
			if (filter && filtered_out(c))
				continue;
			if (mode == M_ACTIVITY && c->stats != STATS_OK)
				continue;
		}
		view[n++] = c;
	}
	if (sort_key == SORT_ACTIVITY && mode != M_ACTIVITY) {
		for (i = 0; i < n; i++)
			if (view[i]->stats == STATS_NONE)
				note_no_stats(view[i],
					      "-A needs it; caches without statistics sort as idle");
	}
	if (n)
		qsort(view, n, sizeof(*view), cmp_view);
	if (max_lines >= 0 && (size_t)max_lines < n)
		n = max_lines;
	*nr = n;
	return view;
}

static int name_width(struct cache **view, size_t n)
{
	size_t i, w = 4;

	for (i = 0; i < n; i++)
		if (strlen(view[i]->name) > w)
			w = strlen(view[i]->name);
	return w > 64 ? 64 : (int)w;
}

static void flags(const struct cache *c, char *buf)
{
	char *p = buf;

	if (c->v[A_ALIASES])
		*p++ = '*';
	if (c->v[A_HWCACHE_ALIGN])
		*p++ = 'A';
	if (c->v[A_RECLAIM_ACCOUNT])
		*p++ = 'a';
	if (c->v[A_DESTROY_BY_RCU])
		*p++ = 'R';
	if (c->v[A_CACHE_DMA])
		*p++ = 'd';
	if (c->v[A_RED_ZONE])
		*p++ = 'Z';
	if (c->v[A_POISON])
		*p++ = 'P';
	if (c->v[A_STORE_USER])
		*p++ = 'U';
	if (c->v[A_FAILSLAB])
		*p++ = 'f';
	if (c->ctor && c->ctor[0])
		*p++ = 'C';
	*p = '\0';
}

static void show_line(const struct cache *c, int w)
{
	char b1[32], b2[32], b3[32], sp[48], fr[8], ef[8], fl[16];

	snprintf(sp, sizeof(sp), "%llu/%llu", c->v[A_SLABS], c->v[A_PARTIAL]);
	if (c->v[A_SLABS]) {
		snprintf(fr, sizeof(fr), "%llu", pct(c->v[A_PARTIAL], c->v[A_SLABS]));
		snprintf(ef, sizeof(ef), "%llu", pct(used(c), space(c)));
	} else {
		strcpy(fr, "-");
		strcpy(ef, "-");
	}
	flags(c, fl);
	printf("%-*s %9s %7llu %9s %11s %2llu %3s %3s %6s%s%s\n",
	       w, c->name, fmt_count(b1, sizeof(b1), c->v[A_OBJECTS]),
	       c->v[A_OBJECT_SIZE], fmt_bytes(b2, sizeof(b2), space(c)), sp,
	       c->v[A_ORDER], fr, ef,
	       fmt_count(b3, sizeof(b3), c->v[A_QUEUED]), fl[0] ? " " : "", fl);
}

static void show_activity_line(const struct cache *c, int w)
{
	char b[5][32];
	const unsigned long long *s = c->st;

	printf("%-*s %9s %10s %10s %5llu %4llu %8s %7llu %11s %2llu\n",
	       w, c->name, fmt_count(b[0], sizeof(b[0]), c->v[A_OBJECTS]),
	       fmt_count(b[1], sizeof(b[1]), s[S_ALLOC]),
	       fmt_count(b[2], sizeof(b[2]), s[S_FREE]),
	       pct(s[S_ALLOC_SLAB_FILL], s[S_ALLOC]),
	       pct(s[S_ALLOC_SLAB_NEW], s[S_ALLOC]),
	       fmt_count(b[3], sizeof(b[3]), s[S_FLUSH_RFREE_LIST]),
	       pct(s[S_FLUSH_FREE_LIST_REMOTE], s[S_FLUSH_FREE_LIST_OBJECTS]),
	       fmt_count(b[4], sizeof(b[4]), s[S_FLUSH_RFREE_LIST_OBJECTS]),
	       c->v[A_ORDER]);
}

/* The default view, -D, -l and -o. */
static int listing(void)
{
	struct cache **view;
	size_t i, n;
	int w, ret = 0;

	if (mode == M_ACTIVITY && !sort_given)
		sort_key = SORT_ACTIVITY;
	view = build_view(1, 1, 0, &n);

	if (mode == M_ACTIVITY) {
		size_t with_stats = 0, loaded = 0;

		for (i = 0; i < nr_caches; i++) {
			if (!caches[i].selected || !caches[i].loaded)
				continue;
			loaded++;
			if (caches[i].stats == STATS_OK)
				with_stats++;
		}
		/* nothing to show at all: the note said why */
		if (loaded && !with_stats) {
			ret = 1;
			goto out;
		}
	}

	w = name_width(view, n);
	if (mode == M_LIST) {
		for (i = 0; i < n; i++)
			printf("%s\n", view[i]->name);
	} else if (mode == M_OPS) {
		printf("%-*s Constructor\n", w, "Name");
		for (i = 0; i < n; i++)
			printf("%-*s %s\n", w, view[i]->name,
			       view[i]->ctor[0] ? view[i]->ctor : "-");
	} else if (mode == M_ACTIVITY) {
		printf("%-*s %9s %10s %10s %5s %4s %8s %7s %11s %2s\n", w,
		       "Name", "Objects", "Alloc", "Free", "%Fill", "%New",
		       "FlushR", "%FlushR", "FlushR_Objs", "O");
		for (i = 0; i < n; i++)
			show_activity_line(view[i], w);
	} else {
		printf("%-*s %9s %7s %9s %11s %2s %3s %3s %6s %s\n", w, "Name",
		       "Objects", "Objsize", "Space", "Slabs/Part", "O", "%Fr",
		       "%Ef", "Queue", "Flg");
		for (i = 0; i < n; i++)
			show_line(view[i], w);
	}
out:
	free(view);
	return ret;
}

static void report_stats(const struct cache *c)
{
	const unsigned long long *s = c->st;
	int i;

	if (c->stats == STATS_NONE) {
		printf("Statistics    : not available (built without CONFIG_SLQB_STATS)\n");
		return;
	}
	if (c->stats == STATS_BAD) {
		printf("Statistics    : unreadable (see the error above)\n");
		return;
	}
	printf("\n%-25s %12s %s\n", "Statistic", "Total", "Per CPU");
	for (i = 0; i < NR_STATS; i++)
		printf("%-25s %12llu %s\n", stat_name[i], s[i],
		       c->percpu[i] && c->percpu[i][0] ? c->percpu[i] + 1 : "-");
	printf("(trim_worst_* are maxima of one trim pass; the others are event counts)\n\n");

	printf("Allocations   : %llu, %llu%% from a partial slab, %llu%% from a new slab\n",
	       s[S_ALLOC], pct(s[S_ALLOC_SLAB_FILL], s[S_ALLOC]),
	       pct(s[S_ALLOC_SLAB_NEW], s[S_ALLOC]));
	printf("Frees         : %llu, %llu%% remote\n", s[S_FREE],
	       pct(s[S_FREE_REMOTE], s[S_FREE]));
	printf("Free flushes  : %llu, %llu objects (%llu per flush), %llu remote\n",
	       s[S_FLUSH_FREE_LIST], s[S_FLUSH_FREE_LIST_OBJECTS],
	       s[S_FLUSH_FREE_LIST] ?
	       s[S_FLUSH_FREE_LIST_OBJECTS] / s[S_FLUSH_FREE_LIST] : 0,
	       s[S_FLUSH_FREE_LIST_REMOTE]);
	printf("Slab flushes  : %llu to the partial list, %llu freed\n",
	       s[S_FLUSH_SLAB_PARTIAL], s[S_FLUSH_SLAB_FREE]);
	printf("Remote flushes: %llu hand-overs, %llu objects; %llu%% of LIFO flushes remote\n",
	       s[S_FLUSH_RFREE_LIST], s[S_FLUSH_RFREE_LIST_OBJECTS],
	       pct(s[S_FLUSH_FREE_LIST_REMOTE], s[S_FLUSH_FREE_LIST_OBJECTS]));
	printf("Remote claims : %llu, %llu objects, remote cap hit %llu times\n",
	       s[S_CLAIM_REMOTE_LIST], s[S_CLAIM_REMOTE_LIST_OBJECTS],
	       s[S_REMOTE_CAP_HIT]);
	printf("Trimming      : %llu runs, %llu objects, worst run %llu ns, largest %llu\n",
	       s[S_TRIM_RUNS], s[S_TRIM_OBJECTS], s[S_TRIM_WORST_NS],
	       s[S_TRIM_WORST_OBJECTS]);
}

static void report(const struct cache *c)
{
	const unsigned long long *v = c->v;
	unsigned long long sp = space(c), tail, overhead, slots;
	char b[4][32];
	size_t i;

	tail = c->v[A_SLABS] *
	       sub0(slab_bytes(c), v[A_OBJS_PER_SLAB] * v[A_SLAB_SIZE]);
	overhead = v[A_OBJECTS] * sub0(v[A_SLAB_SIZE], v[A_OBJECT_SIZE]);
	slots = sub0(v[A_TOTAL_OBJECTS], v[A_OBJECTS]) * v[A_SLAB_SIZE];

	printf("\nCache: %s\n", c->name);
	printf("Aliases       : %llu", v[A_ALIASES]);
	for (i = 0; i < c->nr_alias; i++)
		printf("%s%s", i ? " " : " (", c->alias[i]->name);
	printf("%s\n", c->nr_alias ? ")" : "");
	printf("Object size   : %llu bytes, %llu with metadata and alignment (align %llu)\n",
	       v[A_OBJECT_SIZE], v[A_SLAB_SIZE], v[A_ALIGN]);
	printf("Slab          : order %llu (%llu bytes), %llu objects per slab\n",
	       v[A_ORDER], slab_bytes(c), v[A_OBJS_PER_SLAB]);
	printf("Slabs         : %llu, %llu partial (%llu%%)\n", v[A_SLABS],
	       v[A_PARTIAL], pct(v[A_PARTIAL], v[A_SLABS]));
	printf("Objects       : %llu in use of %llu (%llu%%), %llu queued\n",
	       v[A_OBJECTS], v[A_TOTAL_OBJECTS],
	       pct(v[A_OBJECTS], v[A_TOTAL_OBJECTS]), v[A_QUEUED]);
	printf("Queues        : hiwater %llu, freebatch %llu\n", v[A_HIWATER],
	       v[A_FREEBATCH]);
	printf("Flags         :%s%s%s%s%s%s%s%s%s\n",
	       v[A_HWCACHE_ALIGN] ? " hwcache_align" : "",
	       v[A_RECLAIM_ACCOUNT] ? " reclaim_account" : "",
	       v[A_DESTROY_BY_RCU] ? " destroy_by_rcu" : "",
	       v[A_CACHE_DMA] ? " cache_dma" : "",
	       v[A_RED_ZONE] ? " red_zone" : "",
	       v[A_POISON] ? " poison" : "",
	       v[A_STORE_USER] ? " store_user" : "",
	       v[A_FAILSLAB] ? " failslab" : "",
	       v[A_HWCACHE_ALIGN] | v[A_RECLAIM_ACCOUNT] | v[A_DESTROY_BY_RCU] |
	       v[A_CACHE_DMA] | v[A_RED_ZONE] | v[A_POISON] |
	       v[A_STORE_USER] | v[A_FAILSLAB] ? "" : " none");
	printf("Constructor   : %s\n", c->ctor[0] ? c->ctor : "none");
	printf("Memory        : %s total, %s used by objects (%llu%%)\n",
	       fmt_bytes(b[0], sizeof(b[0]), sp),
	       fmt_bytes(b[1], sizeof(b[1]), used(c)), pct(used(c), sp));
	printf("Waste         : %s free slots, %s per-object overhead, %s slab tails\n",
	       fmt_bytes(b[0], sizeof(b[0]), slots),
	       fmt_bytes(b[1], sizeof(b[1]), overhead),
	       fmt_bytes(b[2], sizeof(b[2]), tail));
	report_stats(c);
}

static int do_report(void)
{
	struct cache **view;
	size_t i, n;

	view = build_view(1, 0, 1, &n);
	for (i = 0; i < n; i++)
		report(view[i]);
	free(view);
	return 0;
}

static int totals(void)
{
	unsigned long long t[8] = { 0 };
	unsigned long long total, use, waste;
	size_t i, n, active = 0, nr_al = 0;
	struct cache **view, *big = NULL;
	char b[4][32];

	view = build_view(1, 0, 0, &n);
	for (i = 0; i < n; i++) {
		const struct cache *c = view[i];
		const unsigned long long *v = c->v;

		t[0] += v[A_SLABS];
		t[1] += v[A_PARTIAL];
		t[2] += v[A_OBJECTS];
		t[3] += v[A_TOTAL_OBJECTS];
		t[4] += v[A_QUEUED];
		t[5] += space(c);
		t[6] += used(c);
		t[7] += v[A_SLABS] *
			sub0(slab_bytes(c), v[A_OBJS_PER_SLAB] * v[A_SLAB_SIZE]);
		if (v[A_OBJECTS])
			active++;
		nr_al += c->nr_alias;
		if (!big || space(c) > space(big))
			big = view[i];
	}
	total = t[5];
	use = t[6];
	waste = sub0(total, use);
	printf("Caches        : %zu (%zu with objects in use, %zu aliases)\n",
	       n, active, nr_al);
	printf("Slabs         : %llu (%llu partial)\n", t[0], t[1]);
	printf("Objects       : %llu in use of %llu (%llu%%), %llu queued\n",
	       t[2], t[3], pct(t[2], t[3]), t[4]);
	printf("Memory total  : %s\n", fmt_bytes(b[0], sizeof(b[0]), total));
	printf("Memory used   : %s (%llu%%)\n", fmt_bytes(b[1], sizeof(b[1]), use),
	       pct(use, total));
	printf("Waste         : %s (%llu%%), %s of it in slab tails\n",
	       fmt_bytes(b[2], sizeof(b[2]), waste), pct(waste, total),
	       fmt_bytes(b[3], sizeof(b[3]), t[7]));
	if (big)
		printf("Largest       : %s (%s)\n", big->name,
		       fmt_bytes(b[0], sizeof(b[0]), space(big)));
	free(view);
	return 0;
}

static int show_aliases(void)
{
	struct alias **list;
	size_t i, n = 0;
	const char *last = NULL;

	list = xrealloc(NULL, nr_aliases * sizeof(*list));
	for (i = 0; i < nr_aliases; i++)
		if (aliases[i].selected && aliases[i].cache)
			list[n++] = &aliases[i];
	/* aliases[] is sorted by target, then name */
	if (inverted && n)
		qsort(list, n, sizeof(*list), cmp_alias_name);
	for (i = 0; i < n; i++) {
		if (inverted) {
			printf("%-20s -> %s\n", list[i]->name, list[i]->target);
		} else if (last && !strcmp(last, list[i]->target)) {
			printf(" %s", list[i]->name);
		} else {
			printf("%s%-20s <- %s", last ? "\n" : "",
			       list[i]->target, list[i]->name);
			last = list[i]->target;
		}
	}
	if (last)
		printf("\n");
	free(list);
	return 0;
}

/* Write "1" to a file of each selected cache: -s and -v. */
static int write_one(const char *file, const char *why)
{
	size_t i, n, done = 0, absent = 0;
	struct cache **view;
	int fd;

	view = build_view(0, 0, 0, &n);
	for (i = 0; i < n; i++) {
		const char *name = view[i]->name;

		fd = openat(root_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			int dfd = fd;

			fd = openat(dfd, file, O_WRONLY | O_CLOEXEC);
			close(dfd);
		}
		if (fd < 0 && errno == ENOENT && !strcmp(file, "validate")) {
			if (!absent++)
				fprintf(stderr, PROG ": %s/%s/%s not found: %s\n",
					root, name, file, why);
			continue;
		}
		if (fd >= 0 && write(fd, "1", 1) == 1) {
			if (close(fd) == 0) {
				done++;
				continue;
			}
			fd = -1;
		}
		file_prefix(name, file);
		fprintf(stderr, "%s%s\n", strerror(errno),
			errno == EACCES || errno == EPERM ?
			" (writing it needs root)" : "");
		if (fd >= 0)
			close(fd);
		errors++;
	}
	free(view);
	if (!strcmp(file, "validate")) {
		if (done)
			printf("Validated %zu caches; problems are reported in the kernel log\n",
			       done);
		return done || !n ? 0 : 1;
	}
	return 0;
}

/* Copy a debug file to stdout.  Returns 1 if it was there. */
static int cat_file(int dir_fd, const char *cache, const char *file,
		    const char *title)
{
	char buf[4096];
	ssize_t n;
	int fd;

	fd = openat(dir_fd, file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		check_access(errno, cache, file);
		file_prefix(cache, file);
		fprintf(stderr, "%s\n", strerror(errno));
		errors++;
		return 1;
	}
	printf("\n%s: %s\n", cache, title);
	printf("----------------------------------------------------------------\n");
	fflush(stdout);
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		fwrite(buf, 1, n, stdout);
	}
	if (n < 0) {
		file_prefix(cache, file);
		fprintf(stderr, "%s\n", strerror(errno));
		errors++;
	}
	close(fd);
	return 1;
}

static int do_tracking(void)
{
	size_t i, n, found = 0, noted = 0;
	struct cache **view;
	int fd;

	view = build_view(0, 0, 0, &n);
	for (i = 0; i < n; i++) {
		const char *name = view[i]->name;

		fd = openat(root_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			file_prefix(name, NULL);
			fprintf(stderr, "%s\n", strerror(errno));
			errors++;
			continue;
		}
		if (cat_file(fd, name, "alloc_calls", "allocation call sites") +
		    cat_file(fd, name, "free_calls", "free call sites"))
			found++;
		else if (!noted++)
			fprintf(stderr,
				"slqbinfo: %s/%s/alloc_calls not found: -t needs debug support that this kernel lacks\n",
				root, name);
		close(fd);
	}
	free(view);
	return found || !n ? 0 : 1;
}

static const struct option long_opts[] = {
	{ "aliases",		no_argument,		NULL, 'a' },
	{ "activity",		no_argument,		NULL, 'A' },
	{ "Bytes",		no_argument,		NULL, 'B' },
	{ "debug",		optional_argument,	NULL, 'd' },
	{ "display-activity",	no_argument,		NULL, 'D' },
	{ "empty",		no_argument,		NULL, 'e' },
	{ "help",		no_argument,		NULL, 'h' },
	{ "inverted",		no_argument,		NULL, 'i' },
	{ "list",		no_argument,		NULL, 'l' },
	{ "numa",		no_argument,		NULL, 'n' },
	{ "lines",		required_argument,	NULL, 'N' },
	{ "ops",		no_argument,		NULL, 'o' },
	{ "report",		no_argument,		NULL, 'r' },
	{ "root",		required_argument,	NULL, 'R' },
	{ "shrink",		no_argument,		NULL, 's' },
	{ "Size",		no_argument,		NULL, 'S' },
	{ "tracking",		no_argument,		NULL, 't' },
	{ "Totals",		no_argument,		NULL, 'T' },
	{ "validate",		no_argument,		NULL, 'v' },
	{ "zero",		no_argument,		NULL, 'z' },
	{ NULL,			0,			NULL, 0 }
};

static void set_mode(enum mode m, int c)
{
	char msg[64];

	if (mode_opt && mode_opt != c) {
		snprintf(msg, sizeof(msg), "-%c and -%c cannot be combined",
			 mode_opt, c);
		usage_error(msg, NULL);
	}
	mode = m;
	mode_opt = c;
}

static void set_sort(enum sort s)
{
	if (sort_given && sort_key != s)
		usage_error("-A and -S cannot be combined", NULL);
	sort_key = s;
	sort_given = 1;
}

static void parse_lines(const char *arg)
{
	const char *p = arg;
	unsigned long long v;

	if (*p < '0' || *p > '9' || parse_digits(&p, &v) || *p || !v ||
	    v > 1000000000)
		usage_error("-N needs a positive number, not: ", arg);
	max_lines = v;
}

static void parse_args(int argc, char **argv)
{
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":aABd::DehilnN:orR:sStTvz",
				long_opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			set_mode(M_ALIASES, c);
			break;
		case 'A':
			set_sort(SORT_ACTIVITY);
			break;
		case 'B':
			exact = 1;
			break;
		case 'd':
			set_mode(M_DEBUG, c);
			break;
		case 'D':
			set_mode(M_ACTIVITY, c);
			break;
		case 'e':
			empty_only = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'i':
			inverted = 1;
			break;
		case 'l':
			set_mode(M_LIST, c);
			break;
		case 'n':
			set_mode(M_NUMA, c);
			break;
		case 'N':
			parse_lines(optarg);
			break;
		case 'o':
			set_mode(M_OPS, c);
			break;
		case 'r':
			set_mode(M_REPORT, c);
			break;
		case 'R':
			root = optarg;
			break;
		case 's':
			set_mode(M_SHRINK, c);
			break;
		case 'S':
			set_sort(SORT_SIZE);
			break;
		case 't':
			set_mode(M_TRACK, c);
			break;
		case 'T':
			set_mode(M_TOTALS, c);
			break;
		case 'v':
			set_mode(M_VALIDATE, c);
			break;
		case 'z':
			show_zero = 1;
			break;
		case ':':
			usage_error("missing argument for ", argv[optind - 1]);
			break;
		default:
			if (optopt) {
				char o[3] = { '-', (char)optopt, '\0' };

				usage_error("unknown option ", o);
			}
			usage_error("unknown option ", argv[optind - 1]);
		}
	}
	if (argc - optind > 1)
		usage_error("more than one pattern: ", argv[optind + 1]);
}

static void cleanup(void)
{
	size_t i;
	int j;

	for (i = 0; i < nr_caches; i++) {
		free(caches[i].name);
		free(caches[i].ctor);
		free(caches[i].alias);
		for (j = 0; j < NR_STATS; j++)
			free(caches[i].percpu[j]);
	}
	for (i = 0; i < nr_aliases; i++) {
		free(aliases[i].name);
		free(aliases[i].target);
	}
	free(caches);
	free(aliases);
	free(file_buf);
	if (root_fd >= 0)
		close(root_fd);
}

int main(int argc, char **argv)
{
	const char *pattern = NULL;
	char root_buf[4096];
	regex_t re;
	long ps;
	int ret, err;

	parse_args(argc, argv);
	if (optind < argc)
		pattern = argv[optind];

	if (mode == M_DEBUG) {
		fprintf(stderr,
			"slqbinfo: -d: SLQB cannot change debug options at run time; use the slab debug boot options\n");
		return 1;
	}
	if (mode == M_NUMA) {
		fprintf(stderr,
			"slqbinfo: -n: no per-node view yet; each cache's slabs file in %s ends with its slabs per node (N<node>=<slabs>)\n",
			root);
		return 1;
	}

	if (pattern) {
		err = regcomp(&re, pattern, REG_EXTENDED | REG_ICASE | REG_NOSUB);
		if (err) {
			char msg[256];

			regerror(err, &re, msg, sizeof(msg));
			fprintf(stderr, PROG ": bad pattern \"%s\": %s\n", pattern,
				msg);
			return 2;
		}
	}

	ps = sysconf(_SC_PAGESIZE);
	if (ps > 0)
		page_size = ps;

	/* "dir/" and "dir" must print the same paths */
	snprintf(root_buf, sizeof(root_buf), "%s", root);
	while (strlen(root_buf) > 1 && root_buf[strlen(root_buf) - 1] == '/')
		root_buf[strlen(root_buf) - 1] = '\0';
	root = root_buf;

	root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0) {
		fprintf(stderr, PROG ": %s: %s (not an SLQB kernel with sysfs? try --root DIR)\n",
			root, strerror(errno));
		if (pattern)
			regfree(&re);
		return 1;
	}
	scan();
	select_caches(pattern ? &re : NULL);
	if (pattern)
		regfree(&re);

	switch (mode) {
	case M_ALIASES:
		ret = show_aliases();
		break;
	case M_REPORT:
		ret = do_report();
		break;
	case M_SHRINK:
		ret = write_one("shrink", NULL);
		break;
	case M_VALIDATE:
		ret = write_one("validate", "-v needs a debug kernel that exports it");
		break;
	case M_TRACK:
		ret = do_tracking();
		break;
	case M_TOTALS:
		ret = totals();
		break;
	default:
		ret = listing();
		break;
	}
	cleanup();
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, PROG ": writing the output: %s\n", strerror(errno));
		return 1;
	}
	if (!ret && errors)
		ret = 1;
	return ret;
}
