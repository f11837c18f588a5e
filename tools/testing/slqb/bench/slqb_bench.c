// SPDX-License-Identifier: GPL-2.0
/*
 * slqb_bench: micro-benchmarks of a slab allocator, for `slqb bench`.
 *
 * Loading the module runs the selected cases for every selected size and
 * prints one line per measurement on the console:
 *
 *   SLQB-BENCH micro case=pair obj=kmalloc size=64 cpus=1 ops=20000 rounds=5
 *              cycles_op=266.0 ns_op=270.3
 *
 * cycles_op and ns_op are the median over the rounds of get_cycles() and
 * ktime_get_ns() per operation. With QEMU's -icount shift=0 on one vCPU a
 * guest cycle is one guest instruction, so cycles_op counts instructions.
 * The module only measures; it judges nothing. It frees everything it
 * allocated and stays loaded until rmmod, which has nothing left to do.
 *
 * Cases (module parameter cases=, comma separated):
 *   pair    kmalloc + kfree of one object, repeated, on one CPU
 *   batch   objs allocations, then objs frees, on one CPU
 *   bulk    kmem_cache_alloc_bulk/kmem_cache_free_bulk of objs objects in
 *           calls of bulk objects each, on one CPU
 *   allcpu  batch on every online CPU at once
 *   remote  one CPU allocates objs objects and hands them over, another
 *           frees them (two buffers, so both work at the same time; with
 *           serial=1 one, so that they take turns)
 *   node    batch with kmalloc_node() to another node with memory
 *   rcu     kmalloc + kfree_rcu, sustained over rcu_objs objects
 *
 * Each kmalloc size in sizes= is measured with kmalloc(); one more row,
 * obj=cache, uses a dedicated kmem_cache of cache_size bytes. The bulk
 * case uses a kmem_cache of each size.
 *
 * The batch and bulk cases also say how the objects of their last round's
 * allocations lie in memory, untimed, after the timed part:
 *
 *   SLQB-BENCH locality case=batch-alloc obj=kmalloc size=64 objs=2048
 *              pages_k=63.5 slabs_k=63.5 dist=64
 *
 * pages_k and slabs_k are the distinct pages and slabs that each 1000
 * consecutive allocations touched (the mean over the round's windows of
 * 1000), dist the median distance in bytes between consecutive objects.
 * One object after another in a slab gives dist = the object size and
 * the fewest pages; a queue that hands objects out in the order some other
 * path freed them scatters them.
 *
 * With model=1 (x86_64), the timed regions are marked for the cache and
 * TLB model of tools/testing/slqb/plugin/slqb-cache.c, a QEMU plugin: an
 * 8-byte NOP whose displacement says "count into meter m", "stop" or
 * "report", and each case and size then prints which report of the
 * plugin is its own:
 *
 *   SLQB-BENCH model report=3 case=batch obj=kmalloc size=64 ops=2048
 *              rounds=5 meters=batch-alloc,batch-free
 *
 * Waiting threads call cpu_relax(): under QEMU's single-threaded TCG (the
 * -icount boots with two arm64 vCPUs) arm64's yield hands the host thread
 * to the other vCPU, so a waiting vCPU adds a few instructions to the
 * guest time of the working one rather than a whole time slice.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timex.h>
#include <linux/topology.h>
#include <linux/vmalloc.h>

#define BENCH_MAX_SIZES		16
#define BENCH_MAX_ROUNDS	31
#define BENCH_REMOTE_BATCHES	8
#define BENCH_MAX_CPUS		64

static char *cases = "pair,batch,bulk,allcpu,remote,node,rcu";
module_param(cases, charp, 0444);
MODULE_PARM_DESC(cases, "comma-separated cases to run");

static unsigned int sizes[BENCH_MAX_SIZES] = {
	8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192
};

static int nr_sizes = 11;
module_param_array(sizes, uint, &nr_sizes, 0444);
MODULE_PARM_DESC(sizes, "kmalloc sizes to measure (8..8192)");

static unsigned int cache_size = 200;
module_param(cache_size, uint, 0444);
MODULE_PARM_DESC(cache_size, "object size of the dedicated cache, 0: none");

static unsigned int objs = 2048;
module_param(objs, uint, 0444);
MODULE_PARM_DESC(objs, "objects held at once by batch, bulk, allcpu, remote, node");

static unsigned int loops = 20000;
module_param(loops, uint, 0444);
MODULE_PARM_DESC(loops, "alloc+free pairs per round of the pair case");

static unsigned int rounds = 5;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "rounds per measurement; the median is reported");

static unsigned int bulk = 64;
module_param(bulk, uint, 0444);
MODULE_PARM_DESC(bulk, "objects per bulk call");

static bool serial;
module_param(serial, bool, 0444);
MODULE_PARM_DESC(serial, "remote: one batch in flight, so the CPUs take turns");

static unsigned int rcu_objs = 10000;
module_param(rcu_objs, uint, 0444);
MODULE_PARM_DESC(rcu_objs, "objects per round of the rcu case");

static bool model;
module_param(model, bool, 0444);
MODULE_PARM_DESC(model, "mark the timed regions for the slqb-cache QEMU plugin (x86_64)");

/* The marks, as tools/testing/slqb/plugin/slqb-cache.c decodes them. */
#define MARK_BEGIN	0x10		/* + meter: count into it */
#define MARK_END	0x20		/* stop counting */
#define MARK_REPORT	0x30		/* print the meters and clear them */

#ifdef CONFIG_X86_64
/* nopl SLQB_MARK|code(%rax,%rax,1): a NOP that the plugin recognises */
#define bench_mark(code)						\
	do {								\
		if (model)						\
			asm volatile(".byte 0x0f, 0x1f, 0x84, 0x00\n\t"	\
				     ".long 0x51b0c000 + %c0" :: "i" (code)); \
	} while (0)
#else
#define bench_mark(code)	do { } while (0)
#endif

static unsigned int model_reports;

/* What to allocate: kmalloc(size) when cache is NULL, else the cache. */
struct bench_obj {
	const char *kind;
	unsigned int size;
	struct kmem_cache *cache;
};

/* One timed quantity, per round: cycles and nanoseconds. */
struct bench_meter {
	u64 cycles[BENCH_MAX_ROUNDS];
	u64 ns[BENCH_MAX_ROUNDS];
};

struct bench_run;

/* Where a round's allocations lie: see the top of the file. */
struct bench_locality {
	u64 pages_k10;		/* distinct pages per 1000, in tenths */
	u64 slabs_k10;		/* distinct slabs per 1000, in tenths */
	unsigned long dist;	/* median distance of neighbours, bytes */
	bool valid;
};

/* A kthread bound to one CPU, running one side of a case. */
struct bench_thread {
	struct bench_run *run;
	int cpu;
	int index;
	int err;
	void **ptrs;
	unsigned long *scratch;	/* thread 0: for the locality figures */
	struct bench_locality loc;
	struct bench_meter meter[2];
};

/* A case being run by one or more threads. */
struct bench_run {
	const struct bench_case *bc;
	struct bench_obj *obj;
	int nthreads;
	int node;
	atomic_t arrived;
	int generation;
	atomic_t left;
	struct completion done;
	/* remote: two hand-over buffers and their states (0 empty, 1 full) */
	void **slot[2];
	int slot_full[2];
	struct bench_thread thread[];
};

struct bench_case {
	const char *name;
	/* names of the two meters this case fills ("-alloc", "-free") */
	const char *meter_name[2];
	int nr_meters;
	int (*fn)(struct bench_thread *t);
	/* 0: one CPU, 1: every online CPU, 2: a producer and a consumer */
	int cpus;
	bool need_cache;
	bool need_node;
	bool rcu;
};

static int bench_errors;

static void *obj_alloc(struct bench_obj *o)
{
	if (o->cache)
		return kmem_cache_alloc(o->cache, GFP_KERNEL);
	return kmalloc(o->size, GFP_KERNEL);
}

static void *obj_alloc_node(struct bench_obj *o, int node)
{
	if (o->cache)
		return kmem_cache_alloc_node(o->cache, GFP_KERNEL, node);
	return kmalloc_node(o->size, GFP_KERNEL, node);
}

static void obj_free(struct bench_obj *o, void *p)
{
	if (o->cache)
		kmem_cache_free(o->cache, p);
	else
		kfree(p);
}

static void meter_add(struct bench_meter *m, int round, u64 c0, u64 n0)
{
	bench_mark(MARK_END);
	m->cycles[round] += get_cycles() - c0;
	m->ns[round] += ktime_get_ns() - n0;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* How many distinct values v[0..n) holds; sorts v. */
static unsigned int distinct(unsigned long *v, unsigned int n)
{
	unsigned int i, d = 0;

	sort(v, n, sizeof(*v), cmp_ulong, NULL);
	for (i = 0; i < n; i++)
		d += !i || v[i] != v[i - 1];
	return d;
}

#define LOCALITY_WINDOW	1000

/* The locality figures of t->ptrs[0..objs), into t->loc. */
static void measure_locality(struct bench_thread *t)
{
	unsigned int window = min(objs, LOCALITY_WINDOW);
	unsigned int w, i, nwin = objs / window;
	unsigned long *v = t->scratch;
	void **p = t->ptrs;
	u64 pages = 0, slabs = 0;

	if (!v)
		return;
	for (w = 0; w < nwin; w++, p += window) {
		for (i = 0; i < window; i++)
			v[i] = (unsigned long)p[i] >> PAGE_SHIFT;
		pages += distinct(v, window);
		for (i = 0; i < window; i++)
			v[i] = (unsigned long)virt_to_folio(p[i]);
		slabs += distinct(v, window);
	}
	t->loc.pages_k10 = div64_u64(pages * 10 * LOCALITY_WINDOW,
				     (u64)nwin * window);
	t->loc.slabs_k10 = div64_u64(slabs * 10 * LOCALITY_WINDOW,
				     (u64)nwin * window);
	t->loc.dist = 0;
	if (objs > 1) {
		for (i = 0; i + 1 < objs; i++) {
			unsigned long a = (unsigned long)t->ptrs[i];
			unsigned long b = (unsigned long)t->ptrs[i + 1];

			v[i] = a > b ? a - b : b - a;
		}
		sort(v, objs - 1, sizeof(*v), cmp_ulong, NULL);
		t->loc.dist = v[(objs - 1) / 2];
	}
	t->loc.valid = true;
}

/* All threads of run wait here until every one of them has arrived. */
static void bench_barrier(struct bench_run *run)
{
	/* pairs with the release below: read the generation before arriving */
	int gen = smp_load_acquire(&run->generation);

	if (atomic_inc_return(&run->arrived) == run->nthreads) {
		atomic_set(&run->arrived, 0);
		/* the reset of arrived is seen before the new generation */
		smp_store_release(&run->generation, gen + 1);
		return;
	}
	/* pairs with the release above */
	while (smp_load_acquire(&run->generation) == gen) {
		cond_resched();
		cpu_relax();
	}
}

static void free_ptrs(struct bench_obj *o, void **p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		obj_free(o, p[i]);
}

/*
 * The timed loops keep what they read in locals, which live in registers:
 * the run and its threads are kmalloc()ed, so where their lines fall
 * depends on the allocator under test. Read in every iteration, one such
 * line that shared its cache set with the free pointers of a batch of
 * 4 KiB objects was enough to make the cache model miss on every
 * allocation under one allocator and on none under another.
 */

/* pair: allocate one object and free it at once, loops times a round. */
static int case_pair(struct bench_thread *t)
{
	struct bench_obj obj = *t->run->obj, *o = &obj;
	unsigned int r, i;
	u64 c0, n0;
	void *p;

	for (r = 0; r < rounds; r++) {
		bench_barrier(t->run);
		n0 = ktime_get_ns();
		c0 = get_cycles();
		bench_mark(MARK_BEGIN);
		for (i = 0; i < loops; i++) {
			p = obj_alloc(o);
			if (!p)
				return -ENOMEM;
			OPTIMIZER_HIDE_VAR(p);
			obj_free(o, p);
		}
		meter_add(&t->meter[0], r, c0, n0);
		cond_resched();
	}
	return 0;
}

/* batch and allcpu: objs allocations, then objs frees. */
static int case_batch(struct bench_thread *t)
{
	struct bench_run *run = t->run;
	struct bench_obj obj = *run->obj, *o = &obj;
	void **ptrs = t->ptrs;
	int node = run->node;
	unsigned int r, i;
	u64 c0, n0;

	for (r = 0; r < rounds; r++) {
		bench_barrier(run);
		n0 = ktime_get_ns();
		c0 = get_cycles();
		bench_mark(MARK_BEGIN);
		for (i = 0; i < objs; i++) {
			ptrs[i] = node == NUMA_NO_NODE ? obj_alloc(o) :
				  obj_alloc_node(o, node);
			if (!ptrs[i]) {
				free_ptrs(o, ptrs, i);
				return -ENOMEM;
			}
		}
		meter_add(&t->meter[0], r, c0, n0);
		if (r == rounds - 1 && !t->index)
			measure_locality(t);
		bench_barrier(run);
		n0 = ktime_get_ns();
		c0 = get_cycles();
		bench_mark(MARK_BEGIN + 1);
		free_ptrs(o, ptrs, objs);
		meter_add(&t->meter[1], r, c0, n0);
		cond_resched();
	}
	return 0;
}

/* bulk: the batch case through the bulk interface, bulk objects a call. */
static int case_bulk(struct bench_thread *t)
{
	struct kmem_cache *s = t->run->obj->cache;
	void **ptrs = t->ptrs;
	unsigned int r, i, n;
	u64 c0, n0;

	for (r = 0; r < rounds; r++) {
		bench_barrier(t->run);
		n0 = ktime_get_ns();
		c0 = get_cycles();
		bench_mark(MARK_BEGIN);
		for (i = 0; i < objs; i += n) {
			n = min(bulk, objs - i);
			if (!kmem_cache_alloc_bulk(s, GFP_KERNEL, n, ptrs + i)) {
				if (i)
					kmem_cache_free_bulk(s, i, ptrs);
				return -ENOMEM;
			}
		}
		meter_add(&t->meter[0], r, c0, n0);
		if (r == rounds - 1)
			measure_locality(t);
		n0 = ktime_get_ns();
		c0 = get_cycles();
		bench_mark(MARK_BEGIN + 1);
		for (i = 0; i < objs; i += n) {
			n = min(bulk, objs - i);
			kmem_cache_free_bulk(s, n, ptrs + i);
		}
		meter_add(&t->meter[1], r, c0, n0);
		cond_resched();
	}
	return 0;
}

/* Waits until the hand-over slot's state is want. */
static void remote_wait(struct bench_run *run, int slot, int want)
{
	/* pairs with the release in case_remote(): the slot's pointers */
	while (smp_load_acquire(&run->slot_full[slot]) != want) {
		cond_resched();
		cpu_relax();
	}
}

/*
 * remote: thread 0 allocates objs objects into a slot, thread 1 frees
 * them; two slots, so that allocating and freeing overlap (one with
 * serial, so that they alternate). Waiting time is not counted.
 */
static int case_remote(struct bench_thread *t)
{
	struct bench_run *run = t->run;
	struct bench_obj obj = *run->obj, *o = &obj;
	unsigned int r, b, i;
	int slot, err = 0;
	u64 c0, n0;
	void **p;

	for (r = 0; r < rounds; r++) {
		bench_barrier(run);
		for (b = 0; b < BENCH_REMOTE_BATCHES; b++) {
			slot = serial ? 0 : b & 1;
			p = run->slot[slot];
			remote_wait(run, slot, t->index == 0 ? 0 : 1);
			n0 = ktime_get_ns();
			c0 = get_cycles();
			if (t->index == 0) {
				for (i = 0; i < objs; i++) {
					/* on failure, hand over what we have */
					p[i] = err ? NULL : obj_alloc(o);
					if (!p[i])
						err = -ENOMEM;
				}
			} else {
				for (i = 0; i < objs && p[i]; i++)
					obj_free(o, p[i]);
			}
			meter_add(&t->meter[0], r, c0, n0);
			/* publishes the slot's pointers (or their freeing) */
			smp_store_release(&run->slot_full[slot], t->index == 0);
		}
		cond_resched();
	}
	return err;
}

struct bench_rcu_obj {
	struct rcu_head rcu;
};

/*
 * One pass of the rcu case: rcu_objs kmalloc() + kfree_rcu(). If meter is
 * not NULL, the pass is timed as round r. The grace periods and the batched
 * frees are let to catch up after it, outside the timed part.
 */
static int rcu_pass(struct bench_thread *t, struct bench_meter *meter, int r)
{
	unsigned int size = t->run->obj->size, i;
	struct bench_rcu_obj *p;
	u64 c0, n0;

	n0 = ktime_get_ns();
	c0 = get_cycles();
	if (meter)
		bench_mark(MARK_BEGIN);
	for (i = 0; i < rcu_objs; i++) {
		p = kmalloc(size, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		kfree_rcu(p, rcu);
	}
	if (meter)
		meter_add(meter, r, c0, n0);
	rcu_barrier();
	msleep(100);
	return 0;
}

/*
 * rcu: allocate and kfree_rcu() rcu_objs objects a round. A round's objects
 * wait for a grace period before they are freed, so most of them are still
 * live when it ends: up to 80 MiB of kmalloc-8192 by default. The first
 * pass of a boot therefore takes memory that the guest has never touched,
 * and under QEMU it pays the host's page faults: 6 to 12 times as long as a
 * later round, with every allocator, which a median of 3 or 5 rounds does
 * not always hide. One untimed pass goes first.
 */
static int case_rcu(struct bench_thread *t)
{
	unsigned int r;
	int err;

	bench_barrier(t->run);
	err = rcu_pass(t, NULL, 0);
	for (r = 0; r < rounds && !err; r++) {
		bench_barrier(t->run);
		err = rcu_pass(t, &t->meter[0], r);
	}
	return err;
}

static const struct bench_case bench_cases[] = {
	{ .name = "pair", .meter_name = { "pair" }, .nr_meters = 1,
	  .fn = case_pair },
	{ .name = "batch", .meter_name = { "batch-alloc", "batch-free" },
	  .nr_meters = 2, .fn = case_batch },
	{ .name = "bulk", .meter_name = { "bulk-alloc", "bulk-free" },
	  .nr_meters = 2, .fn = case_bulk, .need_cache = true },
	{ .name = "allcpu", .meter_name = { "allcpu-alloc", "allcpu-free" },
	  .nr_meters = 2, .fn = case_batch, .cpus = 1 },
	{ .name = "remote", .meter_name = { "remote-alloc", "remote-free" },
	  .nr_meters = 2, .fn = case_remote, .cpus = 2 },
	{ .name = "node", .meter_name = { "node-alloc", "node-free" },
	  .nr_meters = 2, .fn = case_batch, .need_node = true },
	{ .name = "rcu", .meter_name = { "rcu" }, .nr_meters = 1,
	  .fn = case_rcu, .rcu = true },
};

static int bench_thread_fn(void *data)
{
	struct bench_thread *t = data;
	struct bench_run *run = t->run;

	t->err = run->bc->fn(t);
	if (atomic_dec_and_test(&run->left))
		complete(&run->done);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Median over the rounds of total / ops, in tenths. */
static u64 median_tenths(const u64 *totals, u64 ops)
{
	u64 v[BENCH_MAX_ROUNDS];
	unsigned int r;

	for (r = 0; r < rounds; r++)
		v[r] = div64_u64(totals[r] * 10, ops);
	sort(v, rounds, sizeof(v[0]), cmp_u64, NULL);
	return v[rounds / 2];
}

/*
 * The fastest round of total / ops, in tenths. Under MTTCG a round's time
 * falls into one of two modes about 2x apart, with every allocator: the
 * median says how the modes mixed, the minimum what the fast mode costs.
 */
static u64 min_tenths(const u64 *totals, u64 ops)
{
	u64 v, best = U64_MAX;
	unsigned int r;

	for (r = 0; r < rounds; r++) {
		v = div64_u64(totals[r] * 10, ops);
		best = min(best, v);
	}
	return best;
}

/* Sums a meter over the threads that fill it, round by round. */
static void sum_meters(struct bench_run *run, int m, struct bench_meter *sum)
{
	int i, r;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < run->nthreads; i++) {
		if (run->bc->cpus == 2 && i != m)
			continue;
		for (r = 0; r < rounds; r++) {
			sum->cycles[r] += run->thread[i].meter[run->bc->cpus == 2 ?
							       0 : m].cycles[r];
			sum->ns[r] += run->thread[i].meter[run->bc->cpus == 2 ?
							   0 : m].ns[r];
		}
	}
}

static u64 case_ops(const struct bench_case *bc)
{
	if (bc->fn == case_pair)
		return loops;
	if (bc->rcu)
		return rcu_objs;
	if (bc->cpus == 2)
		return (u64)objs * BENCH_REMOTE_BATCHES;
	return objs;
}

static void report_run(struct bench_run *run)
{
	const struct bench_case *bc = run->bc;
	u64 ops = case_ops(bc), cyc, ns, ns_min;
	/* allcpu: per-op time of one CPU, averaged over the CPUs */
	int per = bc->cpus == 1 ? run->nthreads : 1;
	struct bench_meter sum;
	int m;

	if (model) {
		bench_mark(MARK_REPORT);
		pr_info("SLQB-BENCH model report=%u case=%s obj=%s size=%u ops=%llu rounds=%u meters=%s%s%s\n",
			model_reports++, bc->name, run->obj->kind,
			run->obj->size, ops * per, rounds, bc->meter_name[0],
			bc->nr_meters > 1 ? "," : "",
			bc->nr_meters > 1 ? bc->meter_name[1] : "");
	}
	for (m = 0; m < bc->nr_meters; m++) {
		sum_meters(run, m, &sum);
		cyc = median_tenths(sum.cycles, ops * per);
		ns = median_tenths(sum.ns, ops * per);
		ns_min = min_tenths(sum.ns, ops * per);
		pr_info("SLQB-BENCH micro case=%s obj=%s size=%u cpus=%d ops=%llu rounds=%u cycles_op=%llu.%llu ns_op=%llu.%llu ns_min=%llu.%llu\n",
			bc->meter_name[m], run->obj->kind, run->obj->size,
			run->nthreads, ops, rounds, cyc / 10, cyc % 10,
			ns / 10, ns % 10, ns_min / 10, ns_min % 10);
	}
	if (run->thread[0].loc.valid) {
		const struct bench_locality *loc = &run->thread[0].loc;

		pr_info("SLQB-BENCH locality case=%s obj=%s size=%u objs=%u pages_k=%llu.%llu slabs_k=%llu.%llu dist=%lu\n",
			bc->meter_name[0], run->obj->kind, run->obj->size, objs,
			loc->pages_k10 / 10, loc->pages_k10 % 10,
			loc->slabs_k10 / 10, loc->slabs_k10 % 10, loc->dist);
	}
}

/* The CPUs a case runs on: the first, all, or the first two. */
static int pick_cpus(const struct bench_case *bc, int *cpus, int max)
{
	int cpu, n = 0;

	for_each_online_cpu(cpu) {
		if (n == max)
			break;
		cpus[n++] = cpu;
		if (bc->cpus == 0)
			break;
		if (bc->cpus == 2 && n == 2)
			break;
	}
	return n;
}

/* A node with memory other than the first CPU's, or NUMA_NO_NODE. */
static int other_node(int cpu)
{
	int here = cpu_to_mem(cpu), node;

	for_each_node_state(node, N_MEMORY)
		if (node != here)
			return node;
	return NUMA_NO_NODE;
}

static void free_run(struct bench_run *run)
{
	int i;

	for (i = 0; i < run->nthreads; i++) {
		vfree(run->thread[i].ptrs);
		vfree(run->thread[i].scratch);
	}
	vfree(run->slot[0]);
	vfree(run->slot[1]);
	kfree(run);
}

static struct bench_run *alloc_run(const struct bench_case *bc,
				   struct bench_obj *obj, int nthreads)
{
	struct bench_run *run;
	size_t bytes = array_size(objs, sizeof(void *));
	int i;

	run = kzalloc(struct_size(run, thread, nthreads), GFP_KERNEL);
	if (!run)
		return NULL;
	run->bc = bc;
	run->obj = obj;
	run->nthreads = nthreads;
	run->node = NUMA_NO_NODE;
	atomic_set(&run->left, nthreads);
	init_completion(&run->done);
	for (i = 0; i < nthreads; i++) {
		run->thread[i].run = run;
		run->thread[i].index = i;
		run->thread[i].ptrs = vzalloc(bytes);
		if (!run->thread[i].ptrs)
			goto fail;
	}
	/* Before the case: a vmalloc() between its rounds would perturb it. */
	if (bc->fn == case_batch || bc->fn == case_bulk) {
		run->thread[0].scratch = vmalloc(array_size(objs, sizeof(long)));
		if (!run->thread[0].scratch)
			goto fail;
	}
	if (bc->cpus == 2) {
		run->slot[0] = vzalloc(bytes);
		run->slot[1] = vzalloc(bytes);
		if (!run->slot[0] || !run->slot[1])
			goto fail;
	}
	return run;
fail:
	free_run(run);
	return NULL;
}

static void print_skip(const struct bench_case *bc, struct bench_obj *obj,
		       const char *why)
{
	pr_info("SLQB-BENCH skip case=%s obj=%s size=%u why=%s\n",
		bc->name, obj->kind, obj->size, why);
}

static void print_error(const struct bench_case *bc, struct bench_obj *obj,
			int err)
{
	bench_errors++;
	pr_info("SLQB-BENCH error case=%s obj=%s size=%u err=%d\n",
		bc->name, obj->kind, obj->size, err);
}

/* Starts one bound kthread per CPU, waits for them, checks errors. */
static int start_threads(struct bench_run *run, const int *cpus)
{
	struct task_struct *task[BENCH_MAX_CPUS];
	int i, err = 0;

	for (i = 0; i < run->nthreads; i++) {
		run->thread[i].cpu = cpus[i];
		task[i] = kthread_create(bench_thread_fn, &run->thread[i],
					 "slqb_bench/%d", cpus[i]);
		if (IS_ERR(task[i])) {
			err = PTR_ERR(task[i]);
			while (i--)
				kthread_stop(task[i]);
			return err;
		}
		kthread_bind(task[i], cpus[i]);
	}
	for (i = 0; i < run->nthreads; i++)
		wake_up_process(task[i]);
	wait_for_completion(&run->done);
	for (i = 0; i < run->nthreads; i++)
		if (run->thread[i].err)
			err = run->thread[i].err;
	return err;
}

/* Why bc cannot run on obj here, or NULL when it can. */
static const char *skip_reason(const struct bench_case *bc,
			       struct bench_obj *obj, int ncpus)
{
	if (bc->need_cache && !obj->cache)
		return "no-cache";
	if (bc->rcu && (obj->cache || obj->size < sizeof(struct rcu_head)))
		return "kfree_rcu-needs-kmalloc-rcu_head";
	if (bc->cpus == 2 && ncpus < 2)
		return "one-cpu";
	return NULL;
}

static void run_case(const struct bench_case *bc, struct bench_obj *obj)
{
	int cpus[BENCH_MAX_CPUS], n, err;
	struct bench_run *run;
	const char *why;

	n = pick_cpus(bc, cpus, ARRAY_SIZE(cpus));
	why = skip_reason(bc, obj, n);
	if (why) {
		print_skip(bc, obj, why);
		return;
	}
	run = alloc_run(bc, obj, n);
	if (!run) {
		print_error(bc, obj, -ENOMEM);
		return;
	}
	if (bc->need_node) {
		run->node = other_node(cpus[0]);
		if (run->node == NUMA_NO_NODE) {
			print_skip(bc, obj, "one-memory-node");
			free_run(run);
			return;
		}
	}
	err = start_threads(run, cpus);
	if (err)
		print_error(bc, obj, err);
	else
		report_run(run);
	free_run(run);
}

static bool case_selected(const char *name)
{
	const char *p = cases;
	size_t len = strlen(name);

	while (p && *p) {
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

static int check_params(void)
{
	int i;

	if (!rounds || rounds > BENCH_MAX_ROUNDS || !objs || !loops ||
	    !bulk || !rcu_objs) {
		pr_err("bad parameters: rounds 1..%d, objs, loops, bulk, rcu_objs > 0\n",
		       BENCH_MAX_ROUNDS);
		return -EINVAL;
	}
	for (i = 0; i < nr_sizes; i++) {
		if (sizes[i] < 8 || sizes[i] > 8192) {
			pr_err("bad size %u: 8..8192\n", sizes[i]);
			return -EINVAL;
		}
	}
	return 0;
}

/* Runs every selected case on obj; bulk on kmalloc rows uses bulk_cache. */
static void run_obj(struct bench_obj *obj, struct kmem_cache *bulk_cache)
{
	struct bench_obj as_cache = *obj;
	int i;

	for (i = 0; i < ARRAY_SIZE(bench_cases); i++) {
		const struct bench_case *bc = &bench_cases[i];

		if (!case_selected(bc->name))
			continue;
		if (bc->need_cache && !obj->cache) {
			as_cache.cache = bulk_cache;
			run_case(bc, &as_cache);
		} else {
			run_case(bc, obj);
		}
		cond_resched();
	}
}

static void run_sizes(void)
{
	struct kmem_cache *bulk_cache;
	struct bench_obj obj;
	char name[32];
	int i;

	for (i = 0; i < nr_sizes; i++) {
		obj = (struct bench_obj){ .kind = "kmalloc", .size = sizes[i] };
		bulk_cache = NULL;
		if (case_selected("bulk")) {
			snprintf(name, sizeof(name), "slqb_bench-%u", sizes[i]);
			bulk_cache = kmem_cache_create(name, sizes[i], 0, 0, NULL);
			if (!bulk_cache)
				print_error(&bench_cases[2], &obj, -ENOMEM);
		}
		run_obj(&obj, bulk_cache);
		kmem_cache_destroy(bulk_cache);
	}
}

static int __init slqb_bench_init(void)
{
	struct bench_obj obj = { .kind = "cache", .size = cache_size };
	int err = check_params();

	if (err)
		return err;
	pr_info("SLQB-BENCH start cpus=%u nodes=%u objs=%u loops=%u rounds=%u bulk=%u rcu_objs=%u serial=%d cases=%s\n",
		num_online_cpus(), num_node_state(N_MEMORY), objs, loops,
		rounds, bulk, rcu_objs, serial, cases);
	run_sizes();
	if (cache_size) {
		obj.cache = kmem_cache_create("slqb_bench", cache_size, 0, 0,
					      NULL);
		if (obj.cache) {
			run_obj(&obj, NULL);
			rcu_barrier();
			kmem_cache_destroy(obj.cache);
		} else {
			print_error(&bench_cases[0], &obj, -ENOMEM);
		}
	}
	pr_info("SLQB-BENCH done errors=%d\n", bench_errors);
	return 0;
}

static void __exit slqb_bench_exit(void)
{
}

module_init(slqb_bench_init);
module_exit(slqb_bench_exit);
MODULE_DESCRIPTION("SLQB harness slab allocator micro-benchmarks");
MODULE_LICENSE("GPL");
