// SPDX-License-Identifier: GPL-2.0
/*
 * /init for the SLQB harness on architectures without the x86_64 busybox
 * userspace (arm64, i386): a static program, cross-compiled by the
 * harness, that checks the machine shape the harness asked for, makes the
 * kernel allocate and free slab objects, shrinks every cache, prints the
 * verdict in guest/init.sh's format and reboots (QEMU runs with -no-reboot,
 * so it exits). The SLQB KUnit suite is built in and has run by then.
 *
 * Output lines for the harness start with "SLQB-GUEST: "; the last one is
 * "SLQB-GUEST: PASS" or "SLQB-GUEST: FAIL <failed steps>".
 *
 * With slqbtest.mode=bench it loads the `slqb bench` module instead, with
 * the parameters of slqbtest.benchmod= (':' between them, as guest/init.sh
 * takes them), and frames the module's SLQB-BENCH lines with its own
 * "begin" and "end" lines, so the harness can count exactly the arm64
 * cases that need two CPUs.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define TAG		"SLQB-GUEST: "
#define CMDLINE_MAX	4096
#define FILES		256
#define CHILDREN	32
#define BENCH_MODULE	"/lib/slqbtest/slqb_bench.ko"
#define BENCH_NAME	"slqb_bench"

static char failed[256];

static void say(const char *fmt, ...)
{
	va_list ap;

	fputs(TAG, stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* Reads a small text file into buf; returns 0, or -1 if it is missing. */
static int read_file(const char *path, char *buf, size_t size)
{
	ssize_t len;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size - 1);
	close(fd);
	if (len < 0)
		return -1;
	buf[len] = '\0';
	return 0;
}

static int write_file(const char *path, const char *text)
{
	ssize_t len = strlen(text);
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	if (write(fd, text, len) != len) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* The value of slqbtest.<name>= on the command line (the last one wins). */
static long param(const char *cmdline, const char *name, long dflt)
{
	char key[64];
	const char *p = cmdline;
	long value = dflt;

	snprintf(key, sizeof(key), "slqbtest.%s=", name);
	while ((p = strstr(p, key))) {
		if (p == cmdline || p[-1] == ' ')
			value = strtol(p + strlen(key), NULL, 10);
		p += strlen(key);
	}
	return value;
}

/*
 * The word after slqbtest.<name>= on the command line (the last one wins),
 * or "" when there is none; at most size - 1 characters are kept.
 */
static void param_word(const char *cmdline, const char *name, char *buf,
		       size_t size)
{
	char key[64];
	const char *p = cmdline;
	size_t len;

	buf[0] = '\0';
	snprintf(key, sizeof(key), "slqbtest.%s=", name);
	while ((p = strstr(p, key))) {
		const char *value = p + strlen(key);

		if (p == cmdline || p[-1] == ' ') {
			len = strcspn(value, "\n\t ");
			if (len >= size)
				len = size - 1;
			memcpy(buf, value, len);
			buf[len] = '\0';
		}
		p = value;
	}
}

/* How many numbers a sysfs list such as "0-2,5" names. */
static long count_list(const char *list)
{
	const char *p = list;
	long n = 0;

	while (*p && *p != '\n') {
		char *end;
		long first = strtol(p, &end, 10);
		long last = first;

		if (end == p)
			break;
		p = end;
		if (*p == '-') {
			last = strtol(p + 1, &end, 10);
			p = end;
		}
		n += last - first + 1;
		if (*p == ',')
			p++;
	}
	return n;
}

/* A sysfs list's count, or dflt when the file does not exist. */
static long count_file(const char *path, long dflt)
{
	char buf[256];

	if (read_file(path, buf, sizeof(buf)))
		return dflt;
	return count_list(buf);
}

static void record(const char *step, int ok)
{
	if (ok) {
		say("step %s ok", step);
		return;
	}
	say("step %s FAILED", step);
	if (strlen(failed) + strlen(step) + 2 < sizeof(failed)) {
		strcat(failed, " ");
		strcat(failed, step);
	}
}

static int check_shape(const char *cmdline)
{
	long want_cpus = param(cmdline, "cpus", 0);
	long want_nodes = param(cmdline, "nodes", 1);
	long want_mem = param(cmdline, "memnodes", 1);
	long cpus, nodes, mem;

	cpus = count_file("/sys/devices/system/cpu/online", 0);
	/* A kernel without CONFIG_NUMA has no node directory: one node. */
	nodes = count_file("/sys/devices/system/node/online", 1);
	mem = count_file("/sys/devices/system/node/has_memory", 1);
	say("shape: %ld CPUs, %ld nodes, %ld with memory; page size %ld",
	    cpus, nodes, mem, sysconf(_SC_PAGESIZE));
	if (want_cpus && cpus != want_cpus)
		return 0;
	/* A kernel without NUMA sees one node whatever QEMU offers. */
	if (access("/sys/devices/system/node", F_OK))
		return 1;
	return nodes == want_nodes && mem == want_mem;
}

/* Forks and reaps children, and creates and removes files on tmpfs. */
static int churn(void)
{
	char name[64];
	int i, status, ok = 1;

	for (i = 0; i < CHILDREN; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
			ok = 0;
	}
	for (i = 0; i < FILES; i++) {
		int fd;

		snprintf(name, sizeof(name), "/tmp/file-%d", i);
		fd = open(name, O_CREAT | O_WRONLY, 0600);
		if (fd < 0 || write(fd, name, strlen(name)) < 0)
			ok = 0;
		if (fd >= 0)
			close(fd);
	}
	for (i = 0; i < FILES; i++) {
		snprintf(name, sizeof(name), "/tmp/file-%d", i);
		if (unlink(name))
			ok = 0;
	}
	return ok;
}

/* Writes 1 to every cache's shrink file; counts the caches. */
static int shrink_all(void)
{
	char path[512];
	struct dirent *d;
	DIR *dir;
	int caches = 0, ok = 1;

	dir = opendir("/sys/kernel/slab");
	if (!dir) {
		say("no /sys/kernel/slab: %s", strerror(errno));
		return 0;
	}
	while ((d = readdir(dir))) {
		struct stat st;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s", d->d_name);
		if (lstat(path, &st) || !S_ISDIR(st.st_mode))
			continue;	/* an alias of a merged cache */
		caches++;
		strncat(path, "/shrink", sizeof(path) - strlen(path) - 1);
		if (write_file(path, "1"))
			ok = 0;
	}
	closedir(dir);
	say("shrank %d caches", caches);
	return ok && caches > 0;
}

/*
 * Loads the bench module, which measures while it initialises and prints
 * its results, then unloads it. Returns 1 when both worked.
 */
static int bench(const char *cmdline)
{
	static char params[CMDLINE_MAX];
	char alloc[32], *p;
	int fd, ok = 1;

	param_word(cmdline, "alloc", alloc, sizeof(alloc));
	param_word(cmdline, "benchmod", params, sizeof(params));
	for (p = params; *p; p++)
		if (*p == ':')
			*p = ' ';
	printf("SLQB-BENCH begin alloc=%s\n", alloc[0] ? alloc : "?");
	fflush(stdout);
	fd = open(BENCH_MODULE, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("SLQB-BENCH error name=micro rc=no-module\n");
		ok = 0;
	} else {
		if (syscall(SYS_finit_module, fd, params, 0)) {
			printf("SLQB-BENCH error name=micro rc=insmod-errno-%d\n",
			       errno);
			ok = 0;
		} else if (syscall(SYS_delete_module, BENCH_NAME, O_NONBLOCK)) {
			printf("SLQB-BENCH error name=micro rc=rmmod-errno-%d\n",
			       errno);
			ok = 0;
		}
		close(fd);
	}
	printf("SLQB-BENCH end rc=%d\n", !ok);
	fflush(stdout);
	return ok;
}

int main(void)
{
	static char cmdline[CMDLINE_MAX];
	char mode[16];

	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777");
	if (read_file("/proc/cmdline", cmdline, sizeof(cmdline)))
		cmdline[0] = '\0';

	say("mini-init on a %zu-bit kernel", sizeof(long) * 8);
	record("shape", check_shape(cmdline));
	param_word(cmdline, "mode", mode, sizeof(mode));
	if (!strcmp(mode, "bench")) {
		record("bench", bench(cmdline));
	} else {
		record("churn", churn());
		record("shrink", shrink_all());
	}
	if (failed[0])
		say("FAIL%s", failed);
	else
		say("PASS");
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
