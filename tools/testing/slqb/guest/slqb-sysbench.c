// SPDX-License-Identifier: GPL-2.0
/*
 * slqb-sysbench: the system-call workloads of `slqb bench` that Debian has
 * no package for, built statically into the bench guest's initramfs and run
 * by guest/init.sh (bench_net, bench_loops). Each runs THREADS workers for
 * SECONDS and prints one line, "RATE", the operations per second of all
 * workers together.
 *
 *   slqb-sysbench rr tcp|udp THREADS SECONDS
 *	THREADS clients and as many servers over loopback, each client
 *	sending a one-byte request and waiting for the one-byte answer, as
 *	netperf's TCP_RR and UDP_RR do: transactions per second. Every
 *	transaction allocates and frees skbs, on both sides.
 *   slqb-sysbench stream udp THREADS SECONDS SIZE
 *	THREADS senders of SIZE-byte datagrams, each to a receiver of its
 *	own: datagrams received per second (a full socket buffer drops the
 *	rest, as netperf's UDP_STREAM counts them).
 *   slqb-sysbench loop NAME THREADS SECONDS
 *	THREADS processes, each repeating one operation, as will-it-scale's
 *	per-system-call loops do: operations per second. NAME is one of
 *	  mmap         map 128 MiB of anonymous memory and unmap it
 *	  brk          grow the heap by 64 KiB and shrink it again
 *	  open         open a file of its own in /tmp and close it
 *	  signal       raise a signal that a handler catches
 *	  pipe         one byte to a child over a pipe and back over another
 *	  eventfd      write an eventfd and read it
 *	  threadspawn  create a thread and join it
 *
 * Errors go to stderr, with exit status 1; bad arguments give status 2.
 */

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS	256
#define MMAP_BYTES	(128UL << 20)
#define BRK_BYTES	(64UL << 10)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* One worker's count, on a cache line of its own. */
struct counter {
	unsigned long n;
	char pad[64 - sizeof(unsigned long)];
};

/*
 * Shared with forked workers (MAP_SHARED): each worker adds to its own
 * count, the main thread reads them all and sets the stop word.
 */
static struct counter *counts;
static int *stop_word;

static void count_one(int index)
{
	__atomic_fetch_add(&counts[index].n, 1, __ATOMIC_RELAXED);
}

static unsigned long count_of(int index)
{
	return __atomic_load_n(&counts[index].n, __ATOMIC_RELAXED);
}

static int stopped(void)
{
	return __atomic_load_n(stop_word, __ATOMIC_RELAXED);
}

static void die(const char *what)
{
	fprintf(stderr, "slqb-sysbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void bad_usage(void)
{
	fputs("usage: slqb-sysbench rr tcp|udp THREADS SECONDS\n", stderr);
	fputs("       slqb-sysbench stream udp THREADS SECONDS SIZE\n", stderr);
	fputs("       slqb-sysbench loop NAME THREADS SECONDS\n", stderr);
	fputs("NAME: mmap brk open signal pipe eventfd threadspawn\n", stderr);
	exit(2);
}

/* A positive integer argument no larger than max, or usage(). */
static long number(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 1 || v > max) {
		fprintf(stderr, "slqb-sysbench: %s: want 1..%ld\n", s, max);
		bad_usage();
	}
	return v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void setup_shared(int workers)
{
	void *p = mmap(NULL, (workers + 1) * sizeof(struct counter),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		die("mmap of the counters");
	counts = p;
	stop_word = (int *)&counts[workers].n;
}

static unsigned long sum(int workers)
{
	unsigned long total = 0;
	int i;

	for (i = 0; i < workers; i++)
		total += count_of(i);
	return total;
}

/* Lets the workers run for seconds; the rate of all of them. */
static double run_for(int workers, long seconds)
{
	unsigned long first = sum(workers);
	double t0 = now(), t;
	unsigned long done;

	sleep(seconds);
	done = sum(workers) - first;
	t = now() - t0;
	__atomic_store_n(stop_word, 1, __ATOMIC_RELAXED);
	return done / t;
}

/* ------------------------------------------------------------ network */

struct pair {
	int index;
	int udp;
	int size;
	int server_fd;
	struct sockaddr_in addr;
};

static void set_timeout(int fd)
{
	struct timeval tv = { .tv_usec = 100000 };

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		die("SO_RCVTIMEO");
}

/* A socket bound to an ephemeral port of 127.0.0.1, its address in @p. */
static void server_socket(struct pair *p)
{
	socklen_t len = sizeof(p->addr);
	int fd = socket(AF_INET, p->udp ? SOCK_DGRAM : SOCK_STREAM, 0);

	if (fd < 0)
		die("socket");
	memset(&p->addr, 0, sizeof(p->addr));
	p->addr.sin_family = AF_INET;
	p->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&p->addr, sizeof(p->addr)) ||
	    getsockname(fd, (struct sockaddr *)&p->addr, &len))
		die("bind");
	if (!p->udp && listen(fd, 1))
		die("listen");
	p->server_fd = fd;
}

static void *rr_server(void *arg)
{
	struct pair *p = arg;
	struct sockaddr_in from;
	socklen_t len;
	char byte;
	int fd = p->server_fd, one = 1;

	if (!p->udp) {
		fd = accept(p->server_fd, NULL, NULL);
		if (fd < 0)
			die("accept");
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	set_timeout(fd);
	while (!stopped()) {
		len = sizeof(from);
		if (recvfrom(fd, &byte, 1, 0, (struct sockaddr *)&from, &len) != 1) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			break;	/* the client closed its end */
		}
		if (sendto(fd, &byte, 1, MSG_NOSIGNAL, (struct sockaddr *)&from,
			   len) != 1)
			break;
	}
	if (fd != p->server_fd)
		close(fd);
	return NULL;
}

static void *rr_client(void *arg)
{
	struct pair *p = arg;
	char byte = 'x';
	int fd, one = 1;

	fd = socket(AF_INET, p->udp ? SOCK_DGRAM : SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&p->addr, sizeof(p->addr)))
		die("connect");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	set_timeout(fd);
	while (!stopped()) {
		/*
		 * Once stop is set the server may close first: what fails
		 * then is the end of the run, not an error.
		 */
		if (send(fd, &byte, 1, MSG_NOSIGNAL) != 1) {
			if (stopped())
				break;
			die("send");
		}
		/* A lost datagram times out and is sent again, uncounted. */
		if (recv(fd, &byte, 1, 0) == 1)
			count_one(p->index);
		else if (!stopped() && errno != EAGAIN && errno != EINTR)
			die("recv");
	}
	close(fd);
	return NULL;
}

static void *stream_sender(void *arg)
{
	struct pair *p = arg;
	char *buf = calloc(1, p->size);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (!buf || fd < 0)
		die("sender");
	while (!stopped())
		/* ENOBUFS and the like: the datagram is dropped, as on a wire */
		sendto(fd, buf, p->size, 0, (struct sockaddr *)&p->addr,
		       sizeof(p->addr));
	close(fd);
	free(buf);
	return NULL;
}

static void *stream_receiver(void *arg)
{
	struct pair *p = arg;
	char *buf = malloc(p->size);

	if (!buf)
		die("receiver");
	set_timeout(p->server_fd);
	while (!stopped())
		if (recv(p->server_fd, buf, p->size, 0) > 0)
			count_one(p->index);
	free(buf);
	return NULL;
}

static double net(int stream, int udp, int workers, long seconds, int size)
{
	pthread_t tid[2 * MAX_WORKERS];
	struct pair pairs[MAX_WORKERS];
	double rate;
	int i;

	setup_shared(workers);
	for (i = 0; i < workers; i++) {
		pairs[i] = (struct pair){ .index = i, .udp = udp, .size = size };
		server_socket(&pairs[i]);
		if (pthread_create(&tid[2 * i], NULL,
				   stream ? stream_receiver : rr_server, &pairs[i]) ||
		    pthread_create(&tid[2 * i + 1], NULL,
				   stream ? stream_sender : rr_client, &pairs[i]))
			die("pthread_create");
	}
	rate = run_for(workers, seconds);
	for (i = 0; i < 2 * workers; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < workers; i++)
		close(pairs[i].server_fd);
	return rate;
}

/* -------------------------------------------------------------- loops */

static void on_signal(int sig)
{
	(void)sig;
}

static void *empty_thread(void *arg)
{
	return arg;
}

/* Child of the pipe loop: sends back each byte it gets until EOF. */
static void echo(int in, int out)
{
	char byte;

	while (read(in, &byte, 1) == 1)
		if (write(out, &byte, 1) != 1)
			break;
	_exit(0);
}

static void loop_worker(const char *name, int index)
{
	int to[2], from[2], efd;
	char path[64], byte = 0;
	unsigned long long value = 1;
	pthread_t tid;
	void *p;
	int fd;

	if (!strcmp(name, "mmap")) {
		while (!stopped()) {
			p = mmap(NULL, MMAP_BYTES, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED || munmap(p, MMAP_BYTES))
				die("mmap loop");
			count_one(index);
		}
	} else if (!strcmp(name, "brk")) {
		char *base = (char *)syscall(SYS_brk, 0);

		while (!stopped()) {
			if ((char *)syscall(SYS_brk, base + BRK_BYTES) != base + BRK_BYTES)
				die("brk loop");
			syscall(SYS_brk, base);
			count_one(index);
		}
	} else if (!strcmp(name, "open")) {
		snprintf(path, sizeof(path), "/tmp/slqb-sysbench.%d", index);
		while (!stopped()) {
			fd = open(path, O_RDWR | O_CREAT, 0600);
			if (fd < 0 || close(fd))
				die("open loop");
			count_one(index);
		}
		unlink(path);
	} else if (!strcmp(name, "signal")) {
		signal(SIGUSR1, on_signal);
		while (!stopped()) {
			raise(SIGUSR1);
			count_one(index);
		}
	} else if (!strcmp(name, "pipe")) {
		if (pipe(to) || pipe(from))
			die("pipe");
		if (!fork()) {
			close(to[1]);
			close(from[0]);
			echo(to[0], from[1]);
		}
		close(to[0]);
		close(from[1]);
		while (!stopped()) {
			if (write(to[1], &byte, 1) != 1 || read(from[0], &byte, 1) != 1)
				die("pipe loop");
			count_one(index);
		}
		close(to[1]);
		wait(NULL);
	} else if (!strcmp(name, "eventfd")) {
		efd = eventfd(0, 0);
		if (efd < 0)
			die("eventfd");
		while (!stopped()) {
			if (write(efd, &value, sizeof(value)) != sizeof(value) ||
			    read(efd, &value, sizeof(value)) != sizeof(value))
				die("eventfd loop");
			count_one(index);
		}
	} else {
		while (!stopped()) {
			if (pthread_create(&tid, NULL, empty_thread, NULL) ||
			    pthread_join(tid, NULL))
				die("threadspawn loop");
			count_one(index);
		}
	}
	_exit(0);
}

static const char * const loops[] = {
	"mmap", "brk", "open", "signal", "pipe", "eventfd", "threadspawn",
};

static double run_loop(const char *name, int workers, long seconds)
{
	double rate;
	unsigned int i;
	int status, bad = 0;
	pid_t pid;

	for (i = 0; i < ARRAY_SIZE(loops); i++)
		if (!strcmp(name, loops[i]))
			break;
	if (i == ARRAY_SIZE(loops)) {
		fprintf(stderr, "slqb-sysbench: no such workload: %s\n", name);
		bad_usage();
	}
	setup_shared(workers);
	for (i = 0; i < (unsigned int)workers; i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid)
			loop_worker(name, i);
	}
	rate = run_for(workers, seconds);
	while (wait(&status) > 0)
		bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	if (bad) {
		fprintf(stderr, "slqb-sysbench: a %s worker failed\n", name);
		exit(1);
	}
	return rate;
}

int main(int argc, char **argv)
{
	double rate;

	if (argc == 5 && !strcmp(argv[1], "rr") &&
	    (!strcmp(argv[2], "tcp") || !strcmp(argv[2], "udp")))
		rate = net(0, !strcmp(argv[2], "udp"), number(argv[3], MAX_WORKERS),
			   number(argv[4], 3600), 1);
	else if (argc == 6 && !strcmp(argv[1], "stream") && !strcmp(argv[2], "udp"))
		rate = net(1, 1, number(argv[3], MAX_WORKERS),
			   number(argv[4], 3600), number(argv[5], 65000));
	else if (argc == 5 && !strcmp(argv[1], "loop"))
		rate = run_loop(argv[2], number(argv[3], MAX_WORKERS),
				number(argv[4], 3600));
	else
		bad_usage();
	printf("%.1f\n", rate);
	return 0;
}
