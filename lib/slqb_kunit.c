// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the SLQB allocator.
 *
 * Each test creates its own unmergeable cache, so nothing else in the
 * kernel touches the queues it looks at. Work that must happen on a given
 * CPU runs there through smp_call_on_cpu(). The periodic trim could move
 * objects behind a test's back, so tests that count objects on queues hold
 * slab_mutex, which the trim work waits for.
 */

#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/kfence.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/poison.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/smp.h>
#include <linux/thread_info.h>
#include <linux/workqueue.h>

#include "../mm/slab.h"
#include "../mm/slqb.h"
#ifdef CONFIG_KASAN
#include "../mm/kasan/kasan.h"
#endif

#define TEST_OBJ_SIZE	64
#define TEST_MAX_OBJS	4096

struct slqb_test_ctx {
	struct kmem_cache *s;
	void **objs;
	unsigned int nr;
};

static struct kmem_cache *slqbt_cache(struct kunit *test, const char *name,
				      unsigned int size, unsigned int align,
				      slab_flags_t flags, void (*ctor)(void *))
{
	/* SLAB_NOLEAKTRACE keeps the cache out of merging. */
	struct kmem_cache *s = kmem_cache_create(name, size, align,
						 flags | SLAB_NOLEAKTRACE,
						 ctor);

	KUNIT_ASSERT_NOT_NULL(test, s);
	if (slqb_debug_cache(s)) {
		kmem_cache_destroy(s);
		kunit_skip(test, "slqb_debug= debugs this cache: it uses no queues");
	}
#ifdef CONFIG_KASAN_GENERIC
	/*
	 * KASAN poisons the objects freed to the cache but keeps none in
	 * its quarantine, as for a cache with no room for its free metadata:
	 * the cases follow each free onto SLQB's queues.
	 */
	s->kasan_info.free_meta_offset = KASAN_NO_FREE_META;
#endif
	return s;
}

static struct kmem_cache_list *cpu_list(struct kmem_cache *s, int cpu)
{
	return &cpu_of(s, cpu)->list;
}

/*
 * What @s holds, as the allocator counts it for /sys/kernel/slab and for
 * __kmem_cache_shutdown(): slqb_cache_totals().
 */

/* Slabs owned by all lists of @s: the sysfs file slabs. */
static long total_slabs(struct kmem_cache *s)
{
	struct slqb_totals t;

	slqb_cache_totals(s, &t);
	return t.slabs;
}

/* Objects in the slabs of @s, free or not: the sysfs file total_objects. */
static long total_objects(struct kmem_cache *s)
{
	struct slqb_totals t;

	slqb_cache_totals(s, &t);
	return t.objects;
}

/* Free objects of @s: on slab freelists and on every queue. */
static long total_free(struct kmem_cache *s)
{
	struct slqb_totals t;

	slqb_cache_totals(s, &t);
	return t.free;
}

/* Objects of @s in use: the sysfs file objects. */
static long in_use(struct kmem_cache *s)
{
	struct slqb_totals t;

	slqb_cache_totals(s, &t);
	return totals_in_use(s, &t);
}

/*
 * Objects of @s on queues (LIFOs, rlists, remote queues), as the sysfs file
 * queued counts them, and one more for a remote queue whose count has not
 * caught up with its head: a queue counts as empty only once it is.
 */
static long queued_objects(struct kmem_cache *s)
{
	long nr = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct kmem_cache_cpu *c = cpu_of(s, cpu);

		nr += c->list.nr + c->rlist_nr +
		      max(atomic_read(&c->list.remote_nr), 0);
		if (c->list.remote_head)
			nr++;
	}
	return nr;
}

/* Every object is back: a shrink leaves no slab, and the cache goes away. */
static void slqbt_destroy_empty(struct kunit *test, struct kmem_cache *s)
{
	kmem_cache_shrink(s);
	KUNIT_EXPECT_EQ(test, total_slabs(s), 0L);
	kmem_cache_destroy(s);
}

/*
 * Two online CPUs on different nodes that both have memory, if the machine
 * has them. A CPU of a memoryless node counts as local to the nearest node
 * with memory, so it does not qualify.
 */
static bool slqbt_cpus_on_two_nodes(int *a, int *b)
{
	int i, j;

	for_each_online_cpu(i)
		for_each_online_cpu(j)
			if (cpu_to_mem(i) != cpu_to_mem(j) &&
			    node_state(cpu_to_mem(i), N_NORMAL_MEMORY) &&
			    node_state(cpu_to_mem(j), N_NORMAL_MEMORY)) {
				*a = i;
				*b = j;
				return true;
			}
	return false;
}

/* Two online CPUs on the same memory node. */
static bool cpus_on_one_node(int *a, int *b)
{
	int i, j;

	for_each_online_cpu(i)
		for_each_online_cpu(j)
			if (i != j && cpu_to_mem(i) == cpu_to_mem(j)) {
				*a = i;
				*b = j;
				return true;
			}
	return false;
}

/*
 * An object of @s from SLQB's own lists. A KFENCE sample never reaches
 * SLQB's queues or slabs, and lies on KFENCE's pages whatever @node was
 * asked for; the cases look at those: give a sample back and take the next
 * object, which KFENCE leaves alone until its next interval. Not inlined:
 * the alloc track of a debugged cache names it.
 */
static noinline void *slqbt_obj(struct kmem_cache *s, int node)
{
	void *p;

	for (;;) {
		p = kmem_cache_alloc_node(s, GFP_KERNEL, node);
		if (!p || !is_kfence_address(p))
			return p;
		kmem_cache_free(s, p);
	}
}

static int slqbt_do_alloc(void *arg)
{
	struct slqb_test_ctx *ctx = arg;
	unsigned int i;

	for (i = 0; i < ctx->nr; i++) {
		ctx->objs[i] = slqbt_obj(ctx->s, NUMA_NO_NODE);
		if (!ctx->objs[i])
			return -ENOMEM;
	}
	return 0;
}

static int slqbt_do_free(void *arg)
{
	struct slqb_test_ctx *ctx = arg;
	unsigned int i;

	for (i = 0; i < ctx->nr; i++)
		kmem_cache_free(ctx->s, ctx->objs[i]);
	return 0;
}

/* Allocate until this CPU's LIFO is empty, keeping what was allocated. */
static int slqbt_do_empty_lifo(void *arg)
{
	struct slqb_test_ctx *ctx = arg;
	struct kmem_cache_list *l = cpu_list(ctx->s, smp_processor_id());

	ctx->nr = 0;
	while (READ_ONCE(l->nr) && ctx->nr < TEST_MAX_OBJS) {
		ctx->objs[ctx->nr] = slqbt_obj(ctx->s, NUMA_NO_NODE);
		if (!ctx->objs[ctx->nr])
			return -ENOMEM;
		ctx->nr++;
	}
	return l->nr ? -EBUSY : 0;
}

static int slqbt_do_trim(void *arg)
{
	struct slqb_test_ctx *ctx = arg;

	slqb_test_trim(ctx->s);
	return 0;
}

/*
 * With KASAN, an object is poisoned for as long as it is free, queued or
 * not: a use of it is caught while it waits. With software tags, @object is
 * the pointer it was last allocated as (a free keeps it; an allocation
 * gives it a new tag).
 */
static void slqbt_expect_poisoned(struct kunit *test, void *object,
				  bool poisoned)
{
#ifdef CONFIG_KASAN
	KUNIT_EXPECT_EQ_MSG(test, !kasan_byte_accessible(object), poisoned,
			    "object %p", object);
#endif
}

/*
 * @a and @b are one object. With KASAN's software tags they may differ in
 * the tag: each allocation gives the object a new one.
 */
static void expect_same(struct kunit *test, void *a, void *b)
{
	KUNIT_EXPECT_PTR_EQ(test, kasan_reset_tag(a), kasan_reset_tag(b));
}

static void **test_array(struct kunit *test)
{
	void **objs = kunit_kcalloc(test, TEST_MAX_OBJS, sizeof(void *),
				    GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, objs);
	return objs;
}

/*
 * slab_mutex, which the cases that count objects on queues hold from their
 * first step to their last: the trim work takes it for its passes, so none
 * moves objects behind their backs. Each case takes and releases it itself.
 *
 * A failed assertion ends a case where it stands, and must not do so with
 * the lock held. Under the lock, slqbt_run_on() therefore records a step that
 * failed and skips the steps after it, and slqbt_unlock_slabs() ends the case
 * once the lock is released.
 */
static struct {
	bool held;
	int err;	/* of the first step that failed under the lock */
} slabs_locked;

static void slqbt_lock_slabs(void)
{
	mutex_lock(&slab_mutex);
	slabs_locked.held = true;
	slabs_locked.err = 0;
}

/* Whether every step since slqbt_lock_slabs() succeeded. */
static bool slqbt_locked_steps_ok(void)
{
	return !slabs_locked.err;
}

static void slqbt_unlock_slabs(struct kunit *test)
{
	int err = slabs_locked.err;

	slabs_locked.held = false;
	mutex_unlock(&slab_mutex);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "a step under slab_mutex failed");
}

/* Run @fn(@arg) on @cpu; the case ends if it fails, see slabs_locked. */
static void slqbt_run_on(struct kunit *test, int cpu, int (*fn)(void *),
			 void *arg)
{
	int ret;

	if (!slabs_locked.held) {
		KUNIT_ASSERT_EQ(test, smp_call_on_cpu(cpu, fn, arg, false), 0);
		return;
	}
	if (slabs_locked.err)
		return;
	ret = smp_call_on_cpu(cpu, fn, arg, false);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0,
			    "on CPU %d: the steps after it are skipped", cpu);
	slabs_locked.err = ret;
}

/*
 * A new cache in @ctx whose hiwater is a whole number of slabs, and that
 * many objects for full_lifo() to allocate and free.
 */
static void whole_slabs_cache(struct kunit *test, struct slqb_test_ctx *ctx,
			      const char *name)
{
	unsigned int hiwater;

	ctx->s = slqbt_cache(test, name, TEST_OBJ_SIZE, 0, 0, NULL);
	/* Whole slabs, which the allocations below take off the LIFO. */
	hiwater = max(rounddown(ctx->s->hiwater, ctx->s->objects),
		      ctx->s->objects);
	KUNIT_ASSERT_EQ(test, slqb_set_tunables(ctx->s, hiwater, hiwater / 2),
			0);
	ctx->nr = hiwater;
}

/*
 * Fill the LIFO of whole_slabs_cache() on CPU 0 with hiwater freed objects;
 * returns the list. The caller holds slab_mutex, so that the trim work
 * leaves the LIFO alone until the caller is done with it.
 */
static struct kmem_cache_list *full_lifo(struct kunit *test,
					 struct slqb_test_ctx *ctx)
{
	lockdep_assert_held(&slab_mutex);
	slqbt_run_on(test, 0, slqbt_do_alloc, ctx);
	slqbt_run_on(test, 0, slqbt_do_free, ctx);
	return cpu_list(ctx->s, 0);
}

static int lifo_reuse_fn(void *arg)
{
	struct slqb_test_ctx *ctx = arg;
	void *a, *b;

	a = slqbt_obj(ctx->s, NUMA_NO_NODE);
	if (!a)
		return -ENOMEM;
	kmem_cache_free(ctx->s, a);
	b = slqbt_obj(ctx->s, NUMA_NO_NODE);
	ctx->objs[0] = a;
	ctx->objs[1] = b;
	if (b)
		kmem_cache_free(ctx->s, b);
	return 0;
}

/* On every CPU, the object freed last is the next one it allocates. */
static void slqb_test_lifo_reuse(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	int cpu;

	ctx.s = slqbt_cache(test, "slqb_test_lifo", TEST_OBJ_SIZE, 0, 0, NULL);
	for_each_online_cpu(cpu) {
		slqbt_run_on(test, cpu, lifo_reuse_fn, &ctx);
		expect_same(test, ctx.objs[0], ctx.objs[1]);
	}
	kmem_cache_destroy(ctx.s);
}

struct flush_ctx {
	struct slqb_test_ctx objs;
	struct slqb_test_ctx rest;	/* what the LIFO held after objs */
	unsigned int before, after, flushes;
};

/*
 * Free objects one by one onto an empty LIFO and record the first flush:
 * its size and place.
 */
static int flush_fn(void *arg)
{
	struct flush_ctx *fc = arg;
	struct kmem_cache *s = fc->objs.s;
	struct kmem_cache_list *l = cpu_list(s, smp_processor_id());
	unsigned int i, before;
	int err;

	err = slqbt_do_alloc(&fc->objs);
	if (!err)
		err = slqbt_do_empty_lifo(&fc->rest);
	if (err)
		return err;
	fc->flushes = 0;
	for (i = 0; i < fc->objs.nr; i++) {
		before = l->nr;
		kmem_cache_free(s, fc->objs.objs[i]);
		if (l->nr != before + 1 && !fc->flushes++) {
			fc->before = before;
			fc->after = l->nr;
		}
	}
	slqbt_do_free(&fc->rest);
	return 0;
}

static int double_free_fn(void *arg)
{
	struct slqb_test_ctx *ctx = arg;
	struct kmem_cache_list *l = cpu_list(ctx->s, smp_processor_id());
	void *p = slqbt_obj(ctx->s, NUMA_NO_NODE);
	unsigned int nr;

	if (!p)
		return -ENOMEM;
	kmem_cache_free(ctx->s, p);
	nr = l->nr;
	kmem_cache_free(ctx->s, p);
	ctx->nr = l->nr - nr;
	ctx->objs[0] = p;
	ctx->objs[1] = slqbt_obj(ctx->s, NUMA_NO_NODE);
	ctx->objs[2] = slqbt_obj(ctx->s, NUMA_NO_NODE);
	return 0;
}

/*
 * Freeing an object twice in a row is reported and the second free is
 * dropped: the next two allocations do not both get the object.
 */
static void slqb_test_double_free(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };

	if (!IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED))
		kunit_skip(test, "the check needs CONFIG_SLAB_FREELIST_HARDENED");
	if (IS_ENABLED(CONFIG_KASAN))
		kunit_skip(test, "KASAN reports it (kasan_test's kmem_cache_double_free)");
	ctx.s = slqbt_cache(test, "slqb_test_double_free", TEST_OBJ_SIZE, 0, 0,
			    NULL);
	kunit_info(test, "a double free report follows, on purpose");
	slqbt_run_on(test, 0, double_free_fn, &ctx);
	KUNIT_EXPECT_EQ(test, ctx.nr, 0U);
	expect_same(test, ctx.objs[1], ctx.objs[0]);
	KUNIT_EXPECT_PTR_NE(test, kasan_reset_tag(ctx.objs[2]),
			    kasan_reset_tag(ctx.objs[0]));
	kmem_cache_free(ctx.s, ctx.objs[1]);
	if (ctx.objs[2] != ctx.objs[1])
		kmem_cache_free(ctx.s, ctx.objs[2]);
	slqbt_destroy_empty(test, ctx.s);
}

/*
 * The free that takes a LIFO past hiwater flushes freebatch objects from
 * it, and only that free: the LIFO goes from hiwater to hiwater + 1 -
 * freebatch. Only the LIFO's length shows it.
 */
static void slqb_test_flush_batch(struct kunit *test)
{
	struct flush_ctx fc = { .objs.objs = test_array(test),
				.rest.objs = test_array(test) };
	struct kmem_cache *s;

	s = slqbt_cache(test, "slqb_test_flush", TEST_OBJ_SIZE, 0, 0, NULL);
	KUNIT_ASSERT_EQ(test, slqb_set_tunables(s, 64, 16), 0);
	fc.objs.s = s;
	fc.rest.s = s;
	fc.objs.nr = s->hiwater + 1;
	slqbt_lock_slabs();
	slqbt_run_on(test, 0, flush_fn, &fc);
	slqbt_unlock_slabs(test);

	KUNIT_EXPECT_EQ(test, fc.flushes, 1U);
	KUNIT_EXPECT_EQ(test, fc.before, s->hiwater);
	KUNIT_EXPECT_EQ(test, fc.after, s->hiwater + 1 - s->freebatch);
	slqbt_destroy_empty(test, s);
}

/*
 * A cache for the tests of remote frees between CPU @a and CPU @b of
 * another node, with a short LIFO (hiwater 32, freebatch 8), so that its
 * caps are reached with few objects. Skips the test without such CPUs.
 */
static struct kmem_cache *slqbt_remote_cache(struct kunit *test,
					     const char *name, int *a, int *b)
{
	struct kmem_cache *s;

	if (!slqbt_cpus_on_two_nodes(a, b))
		kunit_skip(test, "needs online CPUs on two memory nodes");
	s = slqbt_cache(test, name, TEST_OBJ_SIZE, 0, 0, NULL);
	KUNIT_ASSERT_EQ(test, slqb_set_tunables(s, 32, 8), 0);
	return s;
}

/*
 * An object allocated on CPU A and freed on CPU B of another node waits on
 * B's rlist, is handed to A's remote queue in one move when the batch is
 * full, and comes back on A's next allocation miss. Where it waits, only
 * the queues' counters show; that it comes back, the allocation does.
 */
static void slqb_test_remote_free_cross_node(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	struct slqb_test_ctx drain = { .objs = test_array(test) };
	struct slqb_test_ctx drain2 = { .objs = test_array(test) };
	struct kmem_cache_cpu *cb;
	struct kmem_cache_list *la;
	struct kmem_cache *s;
	int a, b;
	void *p;

	s = slqbt_remote_cache(test, "slqb_test_remote", &a, &b);
	ctx.s = s;
	drain.s = s;
	drain2.s = s;
	la = cpu_list(s, a);
	cb = cpu_of(s, b);

	slqbt_lock_slabs();
	ctx.nr = s->freebatch - 1;
	slqbt_run_on(test, a, slqbt_do_alloc, &ctx);
	slqbt_run_on(test, b, slqbt_do_free, &ctx);
	/* One short of a batch: still on B's rlist, aimed at A. */
	KUNIT_EXPECT_EQ(test, cb->rlist_nr, s->freebatch - 1);
	KUNIT_EXPECT_PTR_EQ(test, cb->rlist_target, la);
	KUNIT_EXPECT_EQ(test, atomic_read(&la->remote_nr), 0);
	slqbt_expect_poisoned(test, ctx.objs[0], true);

	/* The batch fills up and moves in one go. */
	ctx.nr = 1;
	slqbt_run_on(test, a, slqbt_do_alloc, &ctx);
	p = ctx.objs[0];
	slqbt_run_on(test, b, slqbt_do_free, &ctx);
	KUNIT_EXPECT_EQ(test, cb->rlist_nr, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&la->remote_nr), (int)s->freebatch);
	slqbt_expect_poisoned(test, p, true);

	/* A's next miss claims them all and returns the last one freed. */
	slqbt_run_on(test, a, slqbt_do_empty_lifo, &drain);
	slqbt_run_on(test, a, slqbt_do_alloc, &ctx);
	expect_same(test, ctx.objs[0], p);
	slqbt_expect_poisoned(test, ctx.objs[0], false);
	KUNIT_EXPECT_EQ(test, atomic_read(&la->remote_nr), 0);
	KUNIT_EXPECT_EQ(test, la->nr, s->freebatch - 1);
	slqbt_run_on(test, a, slqbt_do_empty_lifo, &drain2);
	slqbt_run_on(test, a, slqbt_do_free, &ctx);
	slqbt_run_on(test, a, slqbt_do_free, &drain);
	slqbt_run_on(test, a, slqbt_do_free, &drain2);
	slqbt_unlock_slabs(test);

	slqbt_destroy_empty(test, s);
}

/*
 * On one node, a remote free goes to the freeing CPU's LIFO; when that
 * LIFO is trimmed the object is handed to its owner's remote queue.
 */
static void slqb_test_remote_free_same_node(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	struct kmem_cache_list *la, *lb;
	struct kmem_cache *s;
	int a, b;

	if (!cpus_on_one_node(&a, &b))
		kunit_skip(test, "needs two online CPUs on one node");

	s = slqbt_cache(test, "slqb_test_remote1", TEST_OBJ_SIZE, 0, 0, NULL);
	KUNIT_ASSERT_EQ(test, slqb_set_tunables(s, 32, 8), 0);
	ctx.s = s;
	la = cpu_list(s, a);
	lb = cpu_list(s, b);
	ctx.nr = s->freebatch;

	slqbt_lock_slabs();
	slqbt_run_on(test, a, slqbt_do_alloc, &ctx);
	slqbt_run_on(test, b, slqbt_do_free, &ctx);
	KUNIT_EXPECT_EQ(test, lb->nr, s->freebatch);
	KUNIT_EXPECT_EQ(test, atomic_read(&la->remote_nr), 0);
	slqbt_run_on(test, b, slqbt_do_trim, &ctx);
	KUNIT_EXPECT_EQ(test, lb->nr, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&la->remote_nr), (int)s->freebatch);
	slqbt_unlock_slabs(test);

	slqbt_destroy_empty(test, s);
}

/*
 * Allocate @ctx on @a with a busy window of @ticks for the cache, which
 * leaves the owner on @a allocating for that long; check that the misses
 * stamped it. Empty @a's LIFO into @rest. The caller holds slab_mutex, so
 * that the trim work leaves the queues alone.
 */
static void slqbt_owner_allocates(struct kunit *test, int a,
				  unsigned long ticks,
				  struct slqb_test_ctx *ctx,
				  struct slqb_test_ctx *rest)
{
	unsigned long start, stamp;

	lockdep_assert_held(&slab_mutex);
	slqb_test_busy_ticks(ctx->s, ticks);
	start = jiffies;
	slqbt_run_on(test, a, slqbt_do_alloc, ctx);
	stamp = READ_ONCE(cpu_of(ctx->s, a)->dry_stamp);
	KUNIT_EXPECT_TRUE_MSG(test, time_after_eq(stamp, start),
			      "dry_stamp %lu, jiffies before the allocations %lu",
			      stamp, start);
	slqbt_run_on(test, a, slqbt_do_empty_lifo, rest);
}

/*
 * Objects of several slabs of one other CPU, on a LIFO in an order that
 * alternates between the slabs, go to that CPU's remote queue together
 * when the LIFO is flushed: none lost, none counted twice.
 */
static void slqb_test_remote_runs_by_owner(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	struct slqb_test_ctx mix = { .objs = test_array(test) };
	struct slqb_test_ctx rest = { .objs = test_array(test) };
	void **other = test_array(test);
	struct kmem_cache_list *la, *lb;
	unsigned int i, x = 0, y = 0;
	struct kmem_cache *s;
	struct slab *first;
	int a, b;

	if (!cpus_on_one_node(&a, &b))
		kunit_skip(test, "needs two online CPUs on one node");

	s = slqbt_cache(test, "slqb_test_runs", TEST_OBJ_SIZE, 0, 0, NULL);
	KUNIT_ASSERT_EQ(test, slqb_set_tunables(s, 32, 8), 0);
	ctx.s = s;
	mix.s = s;
	rest.s = s;
	la = cpu_list(s, a);
	lb = cpu_list(s, b);
	ctx.nr = 2 * s->objects + s->freebatch;
	KUNIT_ASSERT_LE(test, ctx.nr, (unsigned int)TEST_MAX_OBJS);

	slqbt_run_on(test, a, slqbt_do_alloc, &ctx);
	/* freebatch objects, taking turns between the first slab and others. */
	first = virt_to_slab(ctx.objs[0]);
	for (i = 0; i < ctx.nr; i++) {
		if (virt_to_slab(ctx.objs[i]) == first)
			rest.objs[x++] = ctx.objs[i];
		else
			other[y++] = ctx.objs[i];
	}
	rest.nr = 0;
	for (i = 0; i < x || i < y; i++) {
		if (i < x && mix.nr < s->freebatch)
			mix.objs[mix.nr++] = rest.objs[i];
		else if (i < x)
			ctx.objs[rest.nr++] = rest.objs[i];
		if (i < y && mix.nr < s->freebatch)
			mix.objs[mix.nr++] = other[i];
		else if (i < y)
			ctx.objs[rest.nr++] = other[i];
	}
	/* ctx.objs now holds the objects left out of the mix. */
	rest.objs = ctx.objs;
	/* A new cache fills a slab before it takes the next one. */
	KUNIT_ASSERT_EQ(test, mix.nr, s->freebatch);
	KUNIT_ASSERT_GE(test, x, s->freebatch / 2);

	slqbt_lock_slabs();
	slqbt_run_on(test, b, slqbt_do_free, &mix);
	KUNIT_EXPECT_EQ(test, lb->nr, s->freebatch);
	slqbt_run_on(test, b, slqbt_do_trim, &mix);
	KUNIT_EXPECT_EQ(test, lb->nr, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&la->remote_nr), (int)s->freebatch);
	slqbt_run_on(test, a, slqbt_do_free, &rest);
	slqbt_unlock_slabs(test);

	slqbt_destroy_empty(test, s);
}

/*
 * A remote queue waits for its owner until it passes its cap; over the cap
 * it is claimed by its owner without delay: onto the owner's empty LIFO,
 * up to hiwater objects if the owner is not allocating, up to the whole
 * cap if it is, and the rest into the slabs. The owner is either
 * allocating (@busy: its window is a minute long) or not (no window at
 * all); the cap of the one is several times that of the other, and half of
 * it is well past the other. The frees after the claim are fewer than the
 * cap: they wait on the queue.
 */
static void check_remote_cap(struct kunit *test, bool busy)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	struct slqb_test_ctx rest = { .objs = test_array(test) };
	struct slqb_test_ctx below, over;
	struct kmem_cache_list *la;
	struct kmem_cache *s;
	unsigned int cap;
	int a, b;

	s = slqbt_remote_cache(test, "slqb_test_cap", &a, &b);
	cap = SLQB_REMOTE_CAP * s->hiwater;
	if (busy) {
		cap = slqb_busy_cap(s);
		KUNIT_ASSERT_GT(test, cap / 2, SLQB_REMOTE_CAP * s->hiwater);
	}
	ctx.s = s;
	rest.s = s;
	la = cpu_list(s, a);
	ctx.nr = 2 * cap;
	KUNIT_ASSERT_LE(test, ctx.nr, (unsigned int)TEST_MAX_OBJS);
	/* Whole hand-overs of freebatch, up to half the cap; then the rest. */
	below = ctx;
	below.nr = cap / 2;
	over = ctx;
	over.objs += below.nr;
	over.nr -= below.nr;

	slqbt_lock_slabs();
	slqbt_owner_allocates(test, a, busy ? 60 * HZ : 0, &ctx, &rest);
	slqbt_run_on(test, b, slqbt_do_free, &below);
	irq_work_sync(&la->claim_work);
	/* Below the cap: all of it waits, and the owner was left alone. */
	KUNIT_EXPECT_EQ(test, atomic_read(&la->remote_nr), (int)below.nr);
	KUNIT_EXPECT_EQ(test, la->nr, 0U);
	slqbt_run_on(test, b, slqbt_do_free, &over);
	irq_work_sync(&la->claim_work);
	KUNIT_EXPECT_LE(test, atomic_read(&la->remote_nr), (int)cap);
	if (busy) {
		KUNIT_EXPECT_EQ(test, la->nr, cap);
	} else {
		KUNIT_EXPECT_GT(test, la->nr, 0U);
		KUNIT_EXPECT_LE(test, la->nr, s->hiwater);
	}
#ifdef CONFIG_SLQB_STATS
	KUNIT_EXPECT_GT(test, cpu_list(s, b)->stats[REMOTE_CAP_HIT], 0U);
#endif
	slqbt_run_on(test, a, slqbt_do_free, &rest);
	slqbt_unlock_slabs(test);
	slqb_test_busy_ticks(NULL, 0);

	slqbt_destroy_empty(test, s);
}

/*
 * An idle owner's remote queue waits for it up to SLQB_REMOTE_CAP LIFOs of
 * objects; past that, the owner claims it at once, keeping no more than
 * hiwater on its LIFO.
 */
static void slqb_test_remote_cap(struct kunit *test)
{
	check_remote_cap(test, false);
}

/*
 * An allocating owner, which would claim its queue itself soon, lets it
 * grow to slqb_busy_cap(); past that, it claims the whole cap onto its
 * LIFO.
 */
static void slqb_test_remote_cap_busy(struct kunit *test)
{
	check_remote_cap(test, true);
}

/* What CPU B frees of the owner's objects before the owner stops. */
enum owner_left {
	/* Past the shorter cap but under the longer: they wait on the queue. */
	LEFT_QUEUE,
	/* Past the longer cap: a claim fills the LIFO up to that cap. */
	LEFT_LIFO,
	/*
	 * Fewer than the shorter cap, which the test then has the owner
	 * claim, as a push that found the owner stopped would have: the
	 * owner allocates again by the time the claim runs, so it takes
	 * them all, and no push armed the timer.
	 */
	LEFT_CLAIMED,
};

/*
 * What a CPU that allocates was left with, more than an owner that stopped
 * keeps, is given back soon after it stops: a queue past the shorter cap is
 * claimed, and a LIFO past hiwater is flushed, each down to hiwater on the
 * LIFO and the rest into the slabs. Here the owner's busy window is two
 * seconds long, and nothing else (no free, no trim pass) comes to claim
 * the queue or flush the LIFO.
 */
static void check_owner_stops(struct kunit *test, enum owner_left left)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	struct slqb_test_ctx rest = { .objs = test_array(test) };
	unsigned int cap, short_cap, queued, claimed, left_nr, left_queue;
	struct kmem_cache_list *la;
	unsigned long deadline;
	struct kmem_cache *s;
	int a, b;

	s = slqbt_remote_cache(test, "slqb_test_cap_stop", &a, &b);
	cap = slqb_busy_cap(s);
	short_cap = SLQB_REMOTE_CAP * s->hiwater;
	KUNIT_ASSERT_LT(test, 2 * short_cap, cap);
	if (left == LEFT_QUEUE)
		ctx.nr = 2 * short_cap;
	else if (left == LEFT_LIFO)
		ctx.nr = cap + cap / 2;
	else
		ctx.nr = (short_cap + s->hiwater) / 2;
	KUNIT_ASSERT_LE(test, ctx.nr, (unsigned int)TEST_MAX_OBJS);
	ctx.s = s;
	rest.s = s;
	la = cpu_list(s, a);

	slqbt_lock_slabs();
	slqbt_owner_allocates(test, a, 2 * HZ, &ctx, &rest);
	slqbt_run_on(test, b, slqbt_do_free, &ctx);
	if (left == LEFT_CLAIMED)
		irq_work_queue_on(&la->claim_work, a);
	irq_work_sync(&la->claim_work);
	queued = atomic_read(&la->remote_nr);
	claimed = READ_ONCE(la->nr);
	/* The frees took less than the window: the owner was left alone. */
	KUNIT_EXPECT_TRUE(test, time_before(jiffies,
					    READ_ONCE(cpu_of(s, a)->dry_stamp) +
					    2 * HZ));
	/*
	 * What was pushed after a claim stays queued if it is no more than
	 * the shorter cap: nothing claims such a queue before the owner's
	 * next miss. A slow claim (KASAN) can leave that little behind.
	 */
	left_queue = queued > short_cap ? 0 : queued;
	deadline = jiffies + 10 * HZ;
	while ((READ_ONCE(la->nr) > s->hiwater ||
		atomic_read(&la->remote_nr) > (int)left_queue) &&
	       time_before(jiffies, deadline))
		msleep(20);
	irq_work_sync(&la->claim_work);
	left_nr = READ_ONCE(la->nr);
	KUNIT_EXPECT_EQ(test, atomic_read(&la->remote_nr), (int)left_queue);
	KUNIT_EXPECT_EQ(test, left_nr, s->hiwater);
	if (left == LEFT_QUEUE) {
		KUNIT_EXPECT_EQ(test, queued, ctx.nr);
		KUNIT_EXPECT_EQ(test, claimed, 0U);
	} else if (left == LEFT_LIFO) {
		KUNIT_EXPECT_EQ(test, claimed, cap);
	} else {
		KUNIT_EXPECT_EQ(test, queued, 0U);
		KUNIT_EXPECT_EQ(test, claimed, ctx.nr);
	}
	slqbt_run_on(test, a, slqbt_do_free, &rest);
	slqbt_unlock_slabs(test);
	slqb_test_busy_ticks(NULL, 0);

	slqbt_destroy_empty(test, s);
}

/*
 * A queue past the shorter cap, under the longer one that let it wait, is
 * claimed once its owner stops allocating: hiwater objects stay on the
 * LIFO, the rest go back to their slabs.
 */
static void slqb_test_remote_cap_stopped(struct kunit *test)
{
	check_owner_stops(test, LEFT_QUEUE);
}

/*
 * A LIFO that a claim filled past hiwater, up to the busy cap, is flushed
 * back to hiwater once its owner stops allocating.
 */
static void slqb_test_remote_cap_lifo_stopped(struct kunit *test)
{
	check_owner_stops(test, LEFT_LIFO);
}

/*
 * A claim that finds its owner allocating takes the whole queue onto the
 * LIFO, and sees to it that the LIFO goes back to hiwater once the owner
 * stops, with no push to arm the cap timer.
 */
static void slqb_test_remote_claim_stopped(struct kunit *test)
{
	check_owner_stops(test, LEFT_CLAIMED);
}

/*
 * An allocation that finds the LIFO empty takes the whole remote queue onto
 * it, past hiwater; the next local free flushes all of the excess, down to
 * where a flush of freebatch leaves a LIFO that was one past hiwater.
 */
static void slqb_test_long_lifo_flush(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	struct slqb_test_ctx rest = { .objs = test_array(test) };
	struct slqb_test_ctx one = { .objs = test_array(test), .nr = 1 };
	struct kmem_cache_list *la;
	struct kmem_cache *s;
	int a, b;

	s = slqbt_remote_cache(test, "slqb_test_long_lifo", &a, &b);
	ctx.s = s;
	rest.s = s;
	one.s = s;
	la = cpu_list(s, a);
	ctx.nr = 2 * SLQB_REMOTE_CAP * s->hiwater;
	KUNIT_ASSERT_LT(test, ctx.nr, slqb_busy_cap(s));

	/* A busy owner: the queue waits for it, past the shorter cap. */
	slqbt_lock_slabs();
	slqbt_owner_allocates(test, a, 60 * HZ, &ctx, &rest);
	slqbt_run_on(test, b, slqbt_do_free, &ctx);
	irq_work_sync(&la->claim_work);
	KUNIT_EXPECT_EQ(test, atomic_read(&la->remote_nr), (int)ctx.nr);
	slqbt_run_on(test, a, slqbt_do_alloc, &one);
	KUNIT_EXPECT_EQ(test, atomic_read(&la->remote_nr), 0);
	KUNIT_EXPECT_EQ(test, la->nr, ctx.nr - 1);
	slqbt_run_on(test, a, slqbt_do_free, &one);
	KUNIT_EXPECT_EQ(test, la->nr, s->hiwater + 1 - s->freebatch);
	slqbt_run_on(test, a, slqbt_do_free, &rest);
	slqbt_unlock_slabs(test);
	slqb_test_busy_ticks(NULL, 0);

	slqbt_destroy_empty(test, s);
}

/* kmem_cache_alloc_node() returns memory of that node. */
static void slqb_test_alloc_node(struct kunit *test)
{
	struct kmem_cache *s;
	int node;

	s = slqbt_cache(test, "slqb_test_node", TEST_OBJ_SIZE, 0, 0, NULL);
	for_each_node_state(node, N_NORMAL_MEMORY) {
		void *p = slqbt_obj(s, node);
		void *q = kmalloc_node(200, GFP_KERNEL, node);

		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_ASSERT_NOT_NULL(test, q);
		KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(p)), node);
		if (!is_kfence_address(q))
			KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(q)), node);
		kmem_cache_free(s, p);
		kfree(q);
	}
	slqbt_destroy_empty(test, s);
}

struct node_alloc_ctx {
	struct kmem_cache *s;
	int node;
	void *obj;
};

static int do_alloc_nofail(void *arg)
{
	struct node_alloc_ctx *ctx = arg;

	for (;;) {
		ctx->obj = kmem_cache_alloc_node(ctx->s, GFP_KERNEL | __GFP_NOFAIL,
						 ctx->node);
		if (!is_kfence_address(ctx->obj))
			return 0;
		kmem_cache_free(ctx->s, ctx->obj);
	}
}

/*
 * A request for another node tries that node first with what it has at
 * hand, quietly, even when the caller may sleep or asked for __GFP_NOFAIL:
 * a node that has run out must not hold the caller in reclaim forever.
 * The first page allocation's flags are seen nowhere else: the watch
 * records them.
 */
static void slqb_test_node_try_first(struct kunit *test)
{
	struct slqb_test_watch w = {};
	struct node_alloc_ctx ctx;
	struct kmem_cache *s;
	int a, b;

	if (!slqbt_cpus_on_two_nodes(&a, &b))
		kunit_skip(test, "needs online CPUs on two memory nodes");
	s = slqbt_cache(test, "slqb_test_node_try", TEST_OBJ_SIZE, 0, 0, NULL);
	ctx.s = s;
	ctx.node = cpu_to_mem(b);
	slqb_test_watch_pages(s, &w);
	slqbt_run_on(test, a, do_alloc_nofail, &ctx);
	slqb_test_watch_pages(NULL, NULL);

	KUNIT_ASSERT_NOT_NULL(test, ctx.obj);
	KUNIT_ASSERT_GE(test, w.calls, 1U);
	KUNIT_EXPECT_TRUE(test, w.first_flags & __GFP_THISNODE);
	KUNIT_EXPECT_TRUE(test, w.first_flags & __GFP_NOWARN);
	KUNIT_EXPECT_FALSE(test, w.first_flags & __GFP_NOFAIL);
	KUNIT_EXPECT_FALSE(test, w.first_flags & __GFP_DIRECT_RECLAIM);
	KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(ctx.obj)), ctx.node);
	kmem_cache_free(s, ctx.obj);
	slqbt_destroy_empty(test, s);
}

struct thisnode_ctx {
	struct kmem_cache *s;
	int old, new;
	void *objs[2];
};

static int do_thisnode_after_move(void *arg)
{
	struct thisnode_ctx *ctx = arg;
	gfp_t gfp = GFP_NOWAIT | __GFP_THISNODE;
	int saved;

	preempt_disable();
	saved = this_cpu_read(slqb_node);
	this_cpu_write(slqb_node, ctx->new);
	ctx->objs[0] = kmem_cache_alloc_node(ctx->s, gfp, ctx->new);
	ctx->objs[1] = kmem_cache_alloc_node(ctx->s, gfp, ctx->old);
	this_cpu_write(slqb_node, saved);
	preempt_enable();
	return 0;
}

/*
 * __GFP_THISNODE is honoured even when the LIFO holds another node's
 * objects, as it does when memory hotplug changes a CPU's local node: here
 * the CPU's local node is changed by hand under a full LIFO.
 */
static void slqb_test_thisnode_lifo(struct kunit *test)
{
	struct slqb_test_ctx fill = { .objs = test_array(test) };
	struct thisnode_ctx ctx = {};
	struct kmem_cache *s;
	int a, b, i;

	if (!slqbt_cpus_on_two_nodes(&a, &b))
		kunit_skip(test, "needs online CPUs on two memory nodes");
	s = slqbt_cache(test, "slqb_test_thisnode", TEST_OBJ_SIZE, 0, 0, NULL);
	fill.s = s;
	fill.nr = 16;
	ctx.s = s;
	ctx.old = cpu_to_mem(a);
	ctx.new = cpu_to_mem(b);

	slqbt_lock_slabs();
	slqbt_run_on(test, a, slqbt_do_alloc, &fill);
	slqbt_run_on(test, a, slqbt_do_free, &fill);
	KUNIT_EXPECT_GE(test, cpu_list(s, a)->nr, 16U);
	slqbt_run_on(test, a, do_thisnode_after_move, &ctx);
	slqbt_unlock_slabs(test);

	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_NOT_NULL(test, ctx.objs[i]);
		if (!is_kfence_address(ctx.objs[i]))
			KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(ctx.objs[i])),
					i ? ctx.old : ctx.new);
		kmem_cache_free(s, ctx.objs[i]);
	}
	slqbt_destroy_empty(test, s);
}

/*
 * A node without normal memory, or none at all, is no node: the request
 * is served like one without a node, as SLUB does, __GFP_THISNODE or not.
 */
static void slqb_test_thisnode_no_memory(struct kunit *test)
{
	struct kmem_cache *s;
	int node;
	void *p;

	s = slqbt_cache(test, "slqb_test_nomem", TEST_OBJ_SIZE, 0, 0, NULL);
	for (node = 0; node <= nr_node_ids; node++) {
		if (node < nr_node_ids && node_state(node, N_NORMAL_MEMORY))
			continue;
		p = kmem_cache_alloc_node(s, GFP_KERNEL | __GFP_THISNODE, node);
		KUNIT_EXPECT_NOT_NULL_MSG(test, p, "node %d", node);
		if (p)
			kmem_cache_free(s, p);
	}
	slqbt_destroy_empty(test, s);
}

/*
 * A caller that had interrupts disabled never gets them enabled behind its
 * back, however its GFP flags read, and gets no direct reclaim.
 */
static void slqb_test_irqs_stay_off(struct kunit *test)
{
	struct slqb_test_watch w = {};
	struct kmem_cache *s;

	s = slqbt_cache(test, "slqb_test_irqs", TEST_OBJ_SIZE, 0, 0, NULL);
	slqb_test_watch_pages(s, &w);
	KUNIT_EXPECT_TRUE(test, slqb_test_new_slab_irqoff(s, GFP_KERNEL));
	slqb_test_watch_pages(NULL, NULL);
	KUNIT_EXPECT_GE(test, w.calls, 1U);
	KUNIT_EXPECT_FALSE(test, w.irqs_enabled);
	KUNIT_EXPECT_FALSE(test, w.first_flags & __GFP_DIRECT_RECLAIM);
	slqbt_destroy_empty(test, s);
}

/* The trim work's pass, queued on a CPU; it says who runs it and when done. */
struct trim_pass {
	struct work_struct work;
	struct task_struct *task;
	bool done;
};

static void trim_pass_fn(struct work_struct *work)
{
	struct trim_pass *t = container_of(work, struct trim_pass, work);

	WRITE_ONCE(t->task, current);
	slqb_test_trim_all();
	WRITE_ONCE(t->done, true);
}

/*
 * The trim work waits for slab_mutex rather than skipping its pass: a busy
 * slab_mutex must not leave a CPU's queues untrimmed.
 */
static void slqb_test_trim_contended(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	struct kmem_cache_list *l;
	struct task_struct *task;
	struct trim_pass t = {};
	struct kmem_cache *s;
	unsigned int before;
	int polls;

	whole_slabs_cache(test, &ctx, "slqb_test_trim_busy");
	s = ctx.s;
	slqbt_lock_slabs();
	l = full_lifo(test, &ctx);
	before = l->nr;
	KUNIT_EXPECT_GT(test, before, 0U);
	/* A case that ends early must not leave the work queued. */
	if (!slqbt_locked_steps_ok()) {
		slqbt_unlock_slabs(test);
		return;
	}
	INIT_WORK_ONSTACK(&t.work, trim_pass_fn);
	queue_work_on(0, system_wq, &t.work);
	/* Until the pass is over, or asleep on slab_mutex. */
	for (polls = 0; polls < 10000 && !READ_ONCE(t.done); polls++) {
		task = READ_ONCE(t.task);
		if (task && READ_ONCE(task->__state) == TASK_UNINTERRUPTIBLE)
			break;
		usleep_range(500, 1000);
	}
	KUNIT_EXPECT_FALSE_MSG(test, READ_ONCE(t.done),
			       "the pass ended while slab_mutex was held");
	KUNIT_EXPECT_EQ(test, l->nr, before);
	slqbt_unlock_slabs(test);
	flush_work(&t.work);
	destroy_work_on_stack(&t.work);
	KUNIT_EXPECT_TRUE(test, t.done);
	KUNIT_EXPECT_LT(test, l->nr, before);
	slqbt_destroy_empty(test, s);
}

/*
 * The indices, in free order, of a new slab of @s; its object count.
 * Returns 0 if an index is out of range or repeats.
 */
static unsigned int new_slab_order(struct kunit *test, struct kmem_cache *s,
				   unsigned int *order, unsigned int max)
{
	unsigned long *seen;
	unsigned int nr = 0, objects, idx;
	struct slab *slab;
	void *p, *start;

	slab = slqb_new_slab(s, GFP_KERNEL, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, slab);
	objects = slab->objects;
	seen = kunit_kcalloc(test, BITS_TO_LONGS(objects), sizeof(long),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	start = slab_address(slab);
	for (p = slab->freelist; p; p = get_freepointer(s, p)) {
		p = kasan_reset_tag(p);
		idx = (p - start) / s->size;
		if (p < start || (p - start) % s->size || idx >= objects ||
		    __test_and_set_bit(idx, seen) || nr >= max) {
			nr = 0;
			break;
		}
		order[nr++] = idx;
	}
	slqb_free_slab(s, slab);
	return nr == objects ? nr : 0;
}

/*
 * With CONFIG_SLAB_FREELIST_RANDOM a new slab's free objects are a
 * permutation of all of them, not in address order, and two caches do not
 * share one order.
 */
static void slqb_test_freelist_random(struct kunit *test)
{
	unsigned int *a, *b, nr_a, nr_b, i, sequential = 0;
	struct kmem_cache *s, *t;

	if (!IS_ENABLED(CONFIG_SLAB_FREELIST_RANDOM))
		kunit_skip(test, "needs CONFIG_SLAB_FREELIST_RANDOM");
	a = kunit_kcalloc(test, TEST_MAX_OBJS, sizeof(*a), GFP_KERNEL);
	b = kunit_kcalloc(test, TEST_MAX_OBJS, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	s = slqbt_cache(test, "slqb_test_random_a", TEST_OBJ_SIZE, 0, 0, NULL);
	t = slqbt_cache(test, "slqb_test_random_b", TEST_OBJ_SIZE, 0, 0, NULL);
	KUNIT_ASSERT_GE(test, s->objects, 16U);

	nr_a = new_slab_order(test, s, a, TEST_MAX_OBJS);
	nr_b = new_slab_order(test, t, b, TEST_MAX_OBJS);
	KUNIT_EXPECT_EQ(test, nr_a, s->objects);
	KUNIT_EXPECT_EQ(test, nr_b, t->objects);
	for (i = 1; i < nr_a; i++)
		sequential += a[i] == a[i - 1] + 1;
	KUNIT_EXPECT_LT_MSG(test, sequential, nr_a / 2,
			    "%u of %u objects follow their predecessor",
			    sequential, nr_a);
	/* The same order from a shifted start would still be one order. */
	for (i = 0; i < nr_b && b[i] != a[0]; i++)
		;
	KUNIT_ASSERT_LT(test, i, nr_b);
	KUNIT_EXPECT_FALSE(test, nr_a == nr_b &&
			   !memcmp(a, b + i, (nr_b - i) * sizeof(*a)) &&
			   !memcmp(a + nr_b - i, b, i * sizeof(*a)));
	kmem_cache_destroy(s);
	kmem_cache_destroy(t);
}

/*
 * Once every object is freed and the cache shrunk, it holds no slab and
 * counts no free object: the empty slabs went back to the page allocator.
 */
static void slqb_test_empty_slabs_freed(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	struct kmem_cache *s;
	long slabs;

	s = slqbt_cache(test, "slqb_test_empty", 512, 0, 0, NULL);
	ctx.s = s;
	ctx.nr = 8 * s->objects;
	slqbt_run_on(test, 0, slqbt_do_alloc, &ctx);
	slabs = total_slabs(s);
	KUNIT_EXPECT_GE(test, slabs, 8L);
	slqbt_run_on(test, 0, slqbt_do_free, &ctx);
	kmem_cache_shrink(s);
	KUNIT_EXPECT_EQ(test, total_slabs(s), 0L);
	KUNIT_EXPECT_EQ(test, total_free(s), 0L);
	kmem_cache_destroy(s);
}

struct refill_ctx {
	struct slqb_test_ctx held;
	struct slqb_test_watch w;
	struct slqb_test_ctx victims;	/* freed within the page allocation */
	int freer;			/* the CPU that frees them */
	void *obj;		/* what the allocation that needed a slab got */
	unsigned int idle;	/* partial slabs with no object taken, then */
};

static void free_victims_here(void *arg)
{
	struct refill_ctx *ctx = arg;

	slqbt_do_free(&ctx->victims);
	ctx->victims.nr = 0;
}

/* Free the victims on the freer, as an interrupt or another CPU could. */
static void free_victims(void *arg)
{
	struct refill_ctx *ctx = arg;

	if (ctx->victims.nr)
		smp_call_function_single(ctx->freer, free_victims_here, ctx,
					 true);
}

/*
 * Allocate until this CPU's LIFO and partial list are empty, then once
 * more, with the last freebatch objects allocated freed within that
 * allocation's page allocation: on this CPU they refill the LIFO, on a
 * CPU of another node they are pushed onto this CPU's remote queue.
 */
static int alloc_refilled(void *arg)
{
	struct refill_ctx *ctx = arg;
	struct kmem_cache *s = ctx->held.s;
	struct kmem_cache_list *l = cpu_list(s, smp_processor_id());
	struct slab *slab;

	do {
		if (ctx->held.nr == TEST_MAX_OBJS)
			return -E2BIG;
		ctx->held.objs[ctx->held.nr] = slqbt_obj(s, NUMA_NO_NODE);
		if (!ctx->held.objs[ctx->held.nr])
			return -ENOMEM;
		ctx->held.nr++;
	} while (l->nr || !list_empty(&l->partial) ||
		 ctx->held.nr < s->freebatch);
	ctx->held.nr -= s->freebatch;
	ctx->victims.s = s;
	ctx->victims.objs = ctx->held.objs + ctx->held.nr;
	ctx->victims.nr = s->freebatch;
	ctx->w.during = free_victims;
	ctx->w.arg = ctx;
	slqb_test_watch_pages(s, &ctx->w);
	ctx->obj = slqbt_obj(s, NUMA_NO_NODE);
	slqb_test_watch_pages(NULL, NULL);
	list_for_each_entry(slab, &l->partial, slab_list)
		if (!slab->inuse)
			ctx->idle++;
	return 0;
}

/*
 * The LIFO refilled, or the remote queue filled, while a new slab was
 * being allocated: the new slab still serves the allocation, so that it
 * is not left on the partial list with no object taken, where no flush or
 * shrink would ever free it.
 */
static void check_new_slab_refilled(struct kunit *test, int cpu, int freer)
{
	struct refill_ctx ctx = { .held.objs = test_array(test),
				  .freer = freer };
	int err;

	ctx.held.s = slqbt_cache(test, "slqb_test_refilled", TEST_OBJ_SIZE, 0,
				 0, NULL);
	KUNIT_ASSERT_EQ(test, slqb_set_tunables(ctx.held.s, 16, 8), 0);
	/* Keeps the trim work from flushing the refilled LIFO meanwhile. */
	slqbt_lock_slabs();
	err = smp_call_on_cpu(cpu, alloc_refilled, &ctx, false);
	slqbt_unlock_slabs(test);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, ctx.w.calls, 1U);
	KUNIT_EXPECT_TRUE(test, ctx.w.irqs_enabled);
	KUNIT_EXPECT_EQ(test, ctx.victims.nr, 0U);
	KUNIT_EXPECT_NOT_NULL(test, ctx.obj);
	KUNIT_EXPECT_EQ(test, ctx.idle, 0U);
	if (ctx.obj)
		kmem_cache_free(ctx.held.s, ctx.obj);
	free_victims(&ctx);
	slqbt_run_on(test, cpu, slqbt_do_free, &ctx.held);
	slqbt_destroy_empty(test, ctx.held.s);
}

/*
 * An interrupt on the allocating CPU refilled its LIFO during the page
 * allocation: the new slab still serves the allocation.
 */
static void slqb_test_new_slab_refilled(struct kunit *test)
{
	check_new_slab_refilled(test, 0, 0);
}

/*
 * A CPU of another node pushed onto the allocating CPU's remote queue
 * during the page allocation: the new slab still serves the allocation.
 */
static void slqb_test_new_slab_remote_push(struct kunit *test)
{
	int a, b;

	if (!slqbt_cpus_on_two_nodes(&a, &b))
		kunit_skip(test, "needs online CPUs on two memory nodes");
	check_new_slab_refilled(test, a, b);
}

/* After a shrink no object waits on any LIFO, rlist or remote queue. */
static void slqb_test_shrink_empties_queues(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	struct kmem_cache *s;
	int cpu, other;

	s = slqbt_cache(test, "slqb_test_shrink", TEST_OBJ_SIZE, 0, 0, NULL);
	ctx.s = s;
	ctx.nr = 100;
	for_each_online_cpu(cpu) {
		other = cpumask_next(cpu, cpu_online_mask);
		if (other >= nr_cpu_ids)
			other = cpumask_first(cpu_online_mask);
		slqbt_run_on(test, cpu, slqbt_do_alloc, &ctx);
		ctx.nr = 50;
		slqbt_run_on(test, other, slqbt_do_free, &ctx);
		ctx.objs += 50;
		slqbt_run_on(test, cpu, slqbt_do_free, &ctx);
		ctx.objs -= 50;
		ctx.nr = 100;
	}
	KUNIT_EXPECT_GT(test, queued_objects(s), 0L);
	kmem_cache_shrink(s);
	KUNIT_EXPECT_EQ(test, queued_objects(s), 0L);
	KUNIT_EXPECT_EQ(test, total_slabs(s), 0L);
	kmem_cache_destroy(s);
}

/* A cache with a live object refuses to shut down. */
static void slqb_test_shutdown_busy(struct kunit *test)
{
	struct kmem_cache *s;
	void *p;
	int ret;

	s = slqbt_cache(test, "slqb_test_busy", TEST_OBJ_SIZE, 0, 0, NULL);
	p = slqbt_obj(s, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, p);

	/* As kmem_cache_destroy() calls it. */
	cpus_read_lock();
	mutex_lock(&slab_mutex);
	ret = __kmem_cache_shutdown(s);
	mutex_unlock(&slab_mutex);
	cpus_read_unlock();
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	KUNIT_EXPECT_EQ(test, total_slabs(s), 1L);

	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}

#define CTOR_PATTERN 0x5a

static void slqbt_ctor(void *object)
{
	memset(object, CTOR_PATTERN, TEST_OBJ_SIZE);
}

static bool all_bytes(const void *p, u8 val, size_t len)
{
	return !memchr_inv(p, val, len);
}

/* Objects come out constructed, and freeing does not undo it. */
static void slqb_test_ctor(struct kunit *test)
{
	struct kmem_cache *s;
	void *objs[64];
	int i;

	s = slqbt_cache(test, "slqb_test_ctor", TEST_OBJ_SIZE, 0, 0,
			slqbt_ctor);
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
		KUNIT_EXPECT_TRUE(test, all_bytes(objs[i], CTOR_PATTERN,
						  TEST_OBJ_SIZE));
	}
	kmem_cache_free_bulk(s, ARRAY_SIZE(objs), objs);
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
		KUNIT_EXPECT_TRUE(test, all_bytes(objs[i], CTOR_PATTERN,
						  TEST_OBJ_SIZE));
	}
	kmem_cache_free_bulk(s, ARRAY_SIZE(objs), objs);
	kmem_cache_destroy(s);
}

static void check_alignment(struct kunit *test, struct kmem_cache *s,
			    unsigned long align)
{
	void *objs[32];
	int i;

	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
		KUNIT_EXPECT_EQ(test, (unsigned long)objs[i] & (align - 1), 0UL);
	}
	kmem_cache_free_bulk(s, ARRAY_SIZE(objs), objs);
}

/*
 * Objects are aligned as their cache asks: to a cache line with
 * SLAB_HWCACHE_ALIGN, for objects of more than half a line, and to the
 * alignment given to kmem_cache_create().
 */
static void slqb_test_alignment(struct kunit *test)
{
	struct kmem_cache *s;

	/* Objects over half a cache line get a whole one. */
	s = slqbt_cache(test, "slqb_test_hwalign", cache_line_size() / 2 + 8, 0,
			SLAB_HWCACHE_ALIGN, NULL);
	check_alignment(test, s, cache_line_size());
	kmem_cache_destroy(s);

	s = slqbt_cache(test, "slqb_test_align", 24, 256, 0, NULL);
	check_alignment(test, s, 256);
	kmem_cache_destroy(s);
}

/*
 * Overwrites the word at @where of the free object @object, checks that
 * @object's free pointer did not change, and puts the word back.
 */
static void overwrite_word(struct kunit *test, struct kmem_cache *s,
			   void *object, unsigned int where)
{
	unsigned long *word = object + where;
	unsigned long saved = *word;
	void *fp = get_freepointer(s, object);

	*word = ~saved;
	KUNIT_EXPECT_PTR_EQ(test, get_freepointer(s, object), fp);
	*word = saved;
}

/*
 * A free pointer that overlays the object lies in its middle: a word
 * written past the end of the object before it, or before the start of the
 * one after it, leaves the free list alone.
 */
static void slqb_test_freeptr_mid(struct kunit *test)
{
	struct kmem_cache *s;
	void *a, *b;

	s = slqbt_cache(test, "slqb_test_freeptr_ctor", TEST_OBJ_SIZE, 0, 0,
			slqbt_ctor);
	KUNIT_EXPECT_GE(test, s->offset, s->object_size);
	kmem_cache_destroy(s);

	s = slqbt_cache(test, "slqb_test_freeptr", TEST_OBJ_SIZE, 0, 0, NULL);
	KUNIT_EXPECT_GE(test, s->offset, (unsigned int)sizeof(void *));
	KUNIT_EXPECT_LE(test, s->offset + 2 * sizeof(void *),
			(size_t)s->object_size);
	/* Not KFENCE's: it would catch the writes to its free objects. */
	a = slqbt_obj(s, NUMA_NO_NODE);
	b = slqbt_obj(s, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	/* No trim pass moves b while its words are checked. */
	slqbt_lock_slabs();
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);
	overwrite_word(test, s, b, 0);
	overwrite_word(test, s, b, s->object_size - sizeof(void *));
	slqbt_unlock_slabs(test);
	slqbt_destroy_empty(test, s);
}

struct rcu_ctx {
	struct kmem_cache *s;
	bool emptied, still_slab;
};

static int rcu_fn(void *arg)
{
	struct rcu_ctx *rc = arg;
	struct kmem_cache_list *l = cpu_list(rc->s, smp_processor_id());
	struct folio *folio;
	int i;
	void *p;

	p = slqbt_obj(rc->s, NUMA_NO_NODE);
	if (!p)
		return -ENOMEM;
	folio = virt_to_folio(p);

	rcu_read_lock();
	kmem_cache_free(rc->s, p);
	/* Trim passes return the whole LIFO and empty the slab. */
	for (i = 0; l->nr && i < 64; i++)
		slqb_test_trim(rc->s);
	rc->emptied = !atomic_long_read(&l->nr_slabs);
	/* Inside the read-side section the memory is still this cache's. */
	rc->still_slab = folio_test_slab(folio) &&
			 folio_slab(folio)->slab_cache == rc->s;
	rcu_read_unlock();
	return 0;
}

/* SLAB_TYPESAFE_BY_RCU slabs outlive readers that started before the free. */
static void slqb_test_typesafe_by_rcu(struct kunit *test)
{
	struct rcu_ctx rc = {};

	rc.s = slqbt_cache(test, "slqb_test_rcu", TEST_OBJ_SIZE, 0,
			   SLAB_TYPESAFE_BY_RCU, NULL);
	/* No reserve: the empty slab is freed, after a grace period. */
	rc.s->reserve = 0;
	kmem_cache_shrink(rc.s);
	slqbt_lock_slabs();
	slqbt_run_on(test, 0, rcu_fn, &rc);
	slqbt_unlock_slabs(test);
	KUNIT_EXPECT_TRUE(test, rc.emptied);
	KUNIT_EXPECT_TRUE(test, rc.still_slab);
	kmem_cache_destroy(rc.s);
}

/*
 * kmem_cache_alloc_bulk() returns as many objects as asked for, all of them
 * different and each usable whole: what is written to one is still there
 * after all are written.
 */
static void slqb_test_bulk(struct kunit *test)
{
	void **objs = test_array(test);
	struct kmem_cache *s;
	int i, j, n = 300;

	s = slqbt_cache(test, "slqb_test_bulk", TEST_OBJ_SIZE, 0, 0, NULL);
	KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL, n, objs), n);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
		memset(objs[i], i, TEST_OBJ_SIZE);
		for (j = 0; j < i; j++)
			KUNIT_ASSERT_PTR_NE(test, kasan_reset_tag(objs[i]),
					    kasan_reset_tag(objs[j]));
	}
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_TRUE(test, all_bytes(objs[i], (u8)i,
						  TEST_OBJ_SIZE));
	kmem_cache_free_bulk(s, n, objs);
	slqbt_destroy_empty(test, s);
}

/*
 * A bulk allocation that runs out of slabs part way fails as a whole: it
 * returns 0 and gives back what it had already taken.
 */
static void slqb_test_bulk_partial_failure(struct kunit *test)
{
	void **objs = test_array(test);
	struct kmem_cache *s;
	long from_slabs;
	int i, n;

	s = slqbt_cache(test, "slqb_test_bulk_fail", TEST_OBJ_SIZE * 4, 0, 0,
			NULL);
	n = min_t(int, 3 * s->objects, TEST_MAX_OBJS);
	KUNIT_ASSERT_GT(test, n, (int)s->objects);
	from_slabs = n;

	/* One new slab, then no more: the request cannot be met. */
	slqb_test_fail_new_slabs(s, 1);
	KUNIT_EXPECT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL, n, objs), 0);
	slqb_test_fail_new_slabs(NULL, 0);
	/* Its one slab, empty again, stays only where a reserve keeps it. */
	KUNIT_EXPECT_EQ(test, total_slabs(s), s->reserve ? 1L : 0L);
	KUNIT_EXPECT_EQ(test, total_free(s), total_objects(s));

	/* With slabs to be had again, the same request succeeds. */
	KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL, n, objs), n);
	for (i = 0; i < n; i++)
		from_slabs -= is_kfence_address(objs[i]);
	KUNIT_EXPECT_EQ(test, in_use(s), from_slabs);
	kmem_cache_free_bulk(s, n, objs);
	slqbt_destroy_empty(test, s);
}

/*
 * A bulk allocation that finds the LIFO dry and a partial slab on the CPU's
 * list takes the slab's objects straight into the array: each object once,
 * and the counts of free objects still add up.
 */
static void slqb_test_bulk_from_slab(struct kunit *test)
{
	void **objs = test_array(test);
	struct kmem_cache *s;
	long from_slabs;
	int i, j, n;

	s = slqbt_cache(test, "slqb_test_bulk_slab", TEST_OBJ_SIZE, 0, 0, NULL);
	/* A LIFO of eight: a refill leaves the rest of its slab partial. */
	KUNIT_ASSERT_EQ(test, slqb_set_tunables(s, 8, 4), 0);
	n = min_t(int, 2 * s->objects, TEST_MAX_OBJS);
	KUNIT_ASSERT_GT(test, n, 8);
	from_slabs = n;

	KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL, n, objs), n);
	for (i = 0; i < n; i++) {
		from_slabs -= is_kfence_address(objs[i]);
		for (j = 0; j < i; j++)
			KUNIT_ASSERT_PTR_NE(test, kasan_reset_tag(objs[i]),
					    kasan_reset_tag(objs[j]));
	}
	KUNIT_EXPECT_EQ(test, in_use(s), from_slabs);
	kmem_cache_free_bulk(s, n, objs);
	slqbt_destroy_empty(test, s);
}

/* An allocation that finds no slab, KFENCE's samples given back. */
static void *slqbt_alloc_no_slab(struct kmem_cache *s, gfp_t gfp)
{
	void *p;

	while ((p = kmem_cache_alloc(s, gfp)) && is_kfence_address(p))
		kmem_cache_free(s, p);
	return p;
}

struct slqb_aba {
	struct kmem_cache *s;
	bool bulk;		/* the "interrupt" takes a and b in one bulk call */
	void *x;		/* an allocated object, freed by the "interrupt" */
	void *a, *b;		/* the LIFO's first two objects, taken by it */
	void *popped;		/* what the interrupted pop returned */
	void *p, *q;		/* the two allocations after it */
};

/* The LIFO's first two objects, in one bulk allocation, KFENCE's given back. */
static void alloc_two_bulk(struct slqb_aba *aba)
{
	void *two[2];

	for (;;) {
		if (kmem_cache_alloc_bulk(aba->s, GFP_ATOMIC, 2, two) != 2)
			return;
		if (!is_kfence_address(two[0]) && !is_kfence_address(two[1]))
			break;
		kmem_cache_free_bulk(aba->s, 2, two);
	}
	aba->a = two[0];
	aba->b = two[1];
}

/*
 * Stands for an interrupt that hits a lockless pop between its reads and
 * its exchange: it takes the head and the next object, one at a time or
 * in one bulk allocation, and gives back another object and then the
 * head. The LIFO has its head and its length again, but the head's
 * successor is no longer the one the pop read.
 */
static void interrupt_aba(void *arg)
{
	struct slqb_aba *aba = arg;

	if (aba->bulk) {
		alloc_two_bulk(aba);
	} else {
		aba->a = slqbt_alloc_no_slab(aba->s, GFP_ATOMIC);
		aba->b = slqbt_alloc_no_slab(aba->s, GFP_ATOMIC);
	}
	kmem_cache_free(aba->s, aba->x);
	if (aba->a)
		kmem_cache_free(aba->s, aba->a);
}

/* Runs on one CPU, whose LIFO the whole case is about. */
static int lockless_pop_aba_fn(void *arg)
{
	struct slqb_aba *aba = arg;

	aba->x = slqbt_obj(aba->s, NUMA_NO_NODE);
	if (!aba->x)
		return 0;
	aba->popped = slqb_test_interrupted_pop(aba->s, interrupt_aba, aba);
	if (IS_ERR(aba->popped) && PTR_ERR(aba->popped) == -EOPNOTSUPP) {
		kmem_cache_free(aba->s, aba->x);
		return 0;
	}
	if (aba->a && aba->b) {
		/* The LIFO is the one the interrupt left: a, then x. */
		aba->p = slqbt_alloc_no_slab(aba->s, GFP_KERNEL);
		aba->q = slqbt_alloc_no_slab(aba->s, GFP_KERNEL);
	}
	return 0;
}

/*
 * A lockless pop whose LIFO changed under it must not take its object,
 * even when the head and the length came back: it would make an allocated
 * object (b) the head. Every path that takes objects off the LIFO must
 * tell the pop so, the single and the bulk allocation alike.
 */
static void check_lockless_pop_aba(struct kunit *test, bool bulk)
{
	struct slqb_aba aba = { .bulk = bulk };
	struct kmem_cache *s;

	s = slqbt_cache(test, "slqb_test_aba", TEST_OBJ_SIZE, 0, 0, NULL);
	aba.s = s;
	/* slab_mutex keeps the trim work off the LIFO. */
	slqbt_lock_slabs();
	slqbt_run_on(test, 0, lockless_pop_aba_fn, &aba);
	slqbt_unlock_slabs(test);
	if (aba.popped == ERR_PTR(-EOPNOTSUPP)) {
		kmem_cache_destroy(s);
		kunit_skip(test, "no lockless pop on this architecture");
	}
	KUNIT_EXPECT_NOT_NULL(test, aba.x);
	KUNIT_EXPECT_NOT_NULL(test, aba.a);
	KUNIT_EXPECT_NOT_NULL(test, aba.b);
	/* Not NULL, which would say that the pop found the LIFO empty. */
	KUNIT_EXPECT_PTR_EQ(test, aba.popped, ERR_PTR(-EAGAIN));
	if (aba.a && aba.b) {
		KUNIT_EXPECT_PTR_EQ(test, kasan_reset_tag(aba.p),
				    kasan_reset_tag(aba.a));
		KUNIT_EXPECT_PTR_EQ(test, kasan_reset_tag(aba.q),
				    kasan_reset_tag(aba.x));
		KUNIT_EXPECT_PTR_NE(test, kasan_reset_tag(aba.p),
				    kasan_reset_tag(aba.b));
		KUNIT_EXPECT_PTR_NE(test, kasan_reset_tag(aba.q),
				    kasan_reset_tag(aba.b));
	}
	if (!IS_ERR_OR_NULL(aba.popped))
		kmem_cache_free(s, aba.popped);
	/* A broken pop hands b out twice: free it once. */
	if (aba.p && aba.p != aba.b)
		kmem_cache_free(s, aba.p);
	if (aba.q && aba.q != aba.b)
		kmem_cache_free(s, aba.q);
	if (aba.b)
		kmem_cache_free(s, aba.b);
	slqbt_destroy_empty(test, s);
}

/* The interrupt takes the head and its successor one at a time. */
static void slqb_test_lockless_pop_aba(struct kunit *test)
{
	check_lockless_pop_aba(test, false);
}

/* The interrupt takes the head and its successor in one bulk call. */
static void slqb_test_lockless_pop_aba_bulk(struct kunit *test)
{
	check_lockless_pop_aba(test, true);
}

/*
 * An allocation that gets no slab is reported on the console, once, unless
 * its caller asked for silence with __GFP_NOWARN.
 */
static void slqb_test_no_slab_report(struct kunit *test)
{
	struct slqb_test_watch w = {};
	struct kmem_cache *s;

	s = slqbt_cache(test, "slqb_test_no_slab", TEST_OBJ_SIZE, 0, 0, NULL);
	slqb_test_fail_new_slabs(s, 0);
	slqb_test_watch_pages(s, &w);
	KUNIT_EXPECT_NULL(test,
			  slqbt_alloc_no_slab(s, GFP_KERNEL | __GFP_NOWARN));
	KUNIT_EXPECT_EQ(test, w.reports, 0U);
	KUNIT_EXPECT_NULL(test, slqbt_alloc_no_slab(s, GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, w.reports, 1U);
	slqb_test_watch_pages(NULL, NULL);
	slqb_test_fail_new_slabs(NULL, 0);
	slqbt_destroy_empty(test, s);
}

static unsigned int slab_order_of(void *p)
{
	return folio_order(slab_folio(virt_to_slab(p)));
}

/*
 * A cache of page-sized objects has slabs of a higher order, of several
 * objects each. When the page allocator cannot give that order, a slab of
 * the smallest order that fits takes its place, and the counts follow.
 */
static void slqb_test_large_order_fallback(struct kunit *test)
{
	void **objs = test_array(test);
	struct kmem_cache *s;
	bool preferred = false;
	unsigned int i, n;
	void *p;

	s = slqbt_cache(test, "slqb_test_large", PAGE_SIZE, 0, 0, NULL);
	KUNIT_ASSERT_GT(test, s->order, s->min_order);
	/* SLQB_LARGE_OBJECTS a slab, or all that the costly order holds. */
	KUNIT_EXPECT_GE(test, s->objects,
			min_t(unsigned int, SLQB_LARGE_OBJECTS,
			      (PAGE_SIZE << PAGE_ALLOC_COSTLY_ORDER) /
			      s->size));
	/* The smallest order that fits: one object, more with KASAN's room. */
	KUNIT_EXPECT_EQ(test, s->min_objects,
			(unsigned int)((PAGE_SIZE << s->min_order) / s->size));
	KUNIT_EXPECT_LT(test, s->min_objects, s->objects);

	slqb_test_fail_orders(s, s->min_order + 1);
	p = slqbt_obj(s, NUMA_NO_NODE);
	slqb_test_fail_orders(NULL, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, slab_order_of(p), s->min_order);
	KUNIT_EXPECT_EQ(test, (unsigned int)virt_to_slab(p)->objects,
			s->min_objects);
	KUNIT_EXPECT_EQ(test, in_use(s), 1L);

	/* With the order to be had again, new slabs are of it. */
	n = min_t(unsigned int, 2 * s->objects + 1, TEST_MAX_OBJS);
	for (i = 0; i < n; i++) {
		objs[i] = slqbt_obj(s, NUMA_NO_NODE);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
		if (slab_order_of(objs[i]) == s->order &&
		    virt_to_slab(objs[i])->objects == s->objects)
			preferred = true;
	}
	KUNIT_EXPECT_TRUE(test, preferred);
	KUNIT_EXPECT_EQ(test, in_use(s), (long)n + 1);
	kmem_cache_free(s, p);
	kmem_cache_free_bulk(s, n, objs);
	KUNIT_EXPECT_EQ(test, total_objects(s), total_free(s));
	slqbt_destroy_empty(test, s);
}

/*
 * An eighth of a page fits eight objects to an order-0 slab. Slabs of
 * such objects hold sixteen (SLQB_LARGE_OBJECTS), as SLUB's do on a small
 * machine, so that a batch of them goes to the page allocator no more
 * often than with SLUB: with eight a slab it went twice as often.
 */
static void slqb_test_large_order_objects(struct kunit *test)
{
	struct kmem_cache *s;

	s = slqbt_cache(test, "slqb_test_eighth", PAGE_SIZE / 8, 0, 0, NULL);
	KUNIT_EXPECT_GT(test, s->order, s->min_order);
	KUNIT_EXPECT_GE(test, s->objects, (unsigned int)SLQB_LARGE_OBJECTS);
	slqbt_destroy_empty(test, s);
}

/* Fisher-Yates with a fixed seed: the same mix on every run. */
static void shuffle(void **objs, unsigned int n)
{
	u32 seed = 0x51b0;
	unsigned int i;

	for (i = n - 1; i > 0; i--) {
		unsigned int j;

		seed = seed * 1103515245 + 12345;
		j = (seed >> 8) % (i + 1);
		swap(objs[i], objs[j]);
	}
}

static int other_memory_node(void)
{
	int node;

	for_each_node_state(node, N_NORMAL_MEMORY)
		if (node != numa_mem_id())
			return node;
	return NUMA_NO_NODE;
}

/*
 * kfree_bulk() of an array that mixes two caches, slabs of both nodes,
 * KFENCE samples (if any) and large kmallocs, in a shuffled order: every
 * object goes back, and each cache's counts add up.
 */
static void slqb_test_bulk_free_mixed(struct kunit *test)
{
	int far = other_memory_node();
	void **objs = test_array(test);
	struct kmem_cache *a, *b;
	unsigned int i, n = 0;

	a = slqbt_cache(test, "slqb_test_mix_a", TEST_OBJ_SIZE, 0, 0, NULL);
	b = slqbt_cache(test, "slqb_test_mix_b", 3 * TEST_OBJ_SIZE, 0, 0, NULL);
	for (i = 0; i < 600; i++) {
		struct kmem_cache *s = i % 3 ? a : b;
		int node = far != NUMA_NO_NODE && i % 5 == 0 ? far : NUMA_NO_NODE;

		objs[n] = kmem_cache_alloc_node(s, GFP_KERNEL, node);
		KUNIT_ASSERT_NOT_NULL(test, objs[n]);
		n++;
		if (i % 100 == 0) {
			objs[n] = kmalloc(4 * PAGE_SIZE, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, objs[n]);
			n++;
		}
	}
	KUNIT_EXPECT_LT(test, total_free(a), total_objects(a));
	shuffle(objs, n);
	kfree_bulk(n, objs);
	KUNIT_EXPECT_EQ(test, total_free(a), total_objects(a));
	KUNIT_EXPECT_EQ(test, total_free(b), total_objects(b));

	/* The same through kmem_cache_free_bulk(), one cache at a time. */
	for (i = 0; i < 600; i++) {
		objs[i] = kmem_cache_alloc_node(a, GFP_KERNEL, i % 7 == 0 ?
						far : NUMA_NO_NODE);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	shuffle(objs, 600);
	kmem_cache_free_bulk(a, 600, objs);
	KUNIT_EXPECT_EQ(test, total_free(a), total_objects(a));
	slqbt_destroy_empty(test, a);
	slqbt_destroy_empty(test, b);
}

static int lifo_over_hiwater(void *arg)
{
	struct slqb_test_ctx *ctx = arg;
	struct kmem_cache_list *l = cpu_list(ctx->s, smp_processor_id());

	kmem_cache_free_bulk(ctx->s, ctx->nr, ctx->objs);
	return l->nr > ctx->s->hiwater ? -E2BIG : 0;
}

/*
 * The default hiwater is a byte budget (SLQB_QUEUE_BYTES, at least
 * SLQB_MIN_HIWATER objects, at most SLQB_DEFAULT_MAX_HIWATER), and a burst
 * of bulk frees leaves no LIFO above it.
 */
static void slqb_test_queue_budget(struct kunit *test)
{
	static const unsigned int sizes[] = { 8, 64, 256, 1024, 4096 };
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		ctx.s = slqbt_cache(test, "slqb_test_budget", sizes[i], 0, 0,
				    NULL);
		KUNIT_EXPECT_EQ(test, ctx.s->hiwater,
				clamp_t(unsigned int,
					SLQB_QUEUE_BYTES / ctx.s->size,
					SLQB_MIN_HIWATER,
					SLQB_DEFAULT_MAX_HIWATER));
		ctx.nr = min_t(unsigned int, 4 * ctx.s->hiwater, TEST_MAX_OBJS);
		for (j = 0; j < ctx.nr; j++) {
			ctx.objs[j] = slqbt_obj(ctx.s, NUMA_NO_NODE);
			KUNIT_ASSERT_NOT_NULL(test, ctx.objs[j]);
		}
		slqbt_run_on(test, raw_smp_processor_id(), lifo_over_hiwater,
			     &ctx);
		KUNIT_EXPECT_EQ(test, total_free(ctx.s), total_objects(ctx.s));
		slqbt_destroy_empty(test, ctx.s);
	}
}

/*
 * SLQB's shrinker counts the objects on queues, and one scan of it puts
 * them all back into their slabs and frees the empty ones.
 */
static void slqb_test_shrinker_drains(struct kunit *test)
{
	void **objs = test_array(test);
	struct kmem_cache *s;
	unsigned int i, n;

	s = slqbt_cache(test, "slqb_test_shrinker", TEST_OBJ_SIZE, 0, 0, NULL);
	n = s->hiwater;
	for (i = 0; i < n; i++) {
		objs[i] = slqbt_obj(s, NUMA_NO_NODE);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	for (i = 0; i < n; i++)
		kmem_cache_free(s, objs[i]);
	KUNIT_ASSERT_GT(test, queued_objects(s), 0L);
	KUNIT_EXPECT_GE(test, slqb_test_shrinker(false),
			(unsigned long)queued_objects(s));
	KUNIT_EXPECT_GT(test, slqb_test_shrinker(true), 0UL);
	KUNIT_EXPECT_EQ(test, queued_objects(s), 0L);
	KUNIT_EXPECT_EQ(test, total_slabs(s), 0L);
	kmem_cache_destroy(s);
}

/*
 * __GFP_ZERO zeroes the object even when it comes straight back off the
 * LIFO, written over by its last user.
 */
static void slqb_test_gfp_zero(struct kunit *test)
{
	struct kmem_cache *s;
	void *p, *q;

	s = slqbt_cache(test, "slqb_test_zero", TEST_OBJ_SIZE, 0, 0, NULL);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(p, 0xa5, TEST_OBJ_SIZE);
	kmem_cache_free(s, p);
	q = kmem_cache_alloc(s, GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_TRUE(test, all_bytes(q, 0, TEST_OBJ_SIZE));
	kmem_cache_free(s, q);
	kmem_cache_destroy(s);
}

/*
 * An alias of a merged cache leaves its link in /sys/kernel/slab when it
 * goes; a cache created later under the same name still gets created.
 */
static void slqb_test_alias_name(struct kunit *test)
{
	struct kmem_cache *a, *b, *c;

	if (kasan_never_merge())
		kunit_skip(test, "KASAN keeps caches from merging");
	a = kmem_cache_create("slqb_test_alias_a", 200, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	b = kmem_cache_create("slqb_test_alias_b", 200, 0, 0, NULL);
	if (!b || b->refcount < 2) {
		kmem_cache_destroy(b);
		kmem_cache_destroy(a);
		kunit_skip(test, "the caches were not merged (slab_nomerge?)");
	}
	kmem_cache_destroy(b);
	c = kmem_cache_create("slqb_test_alias_b", 200, 0, SLAB_NOLEAKTRACE,
			      NULL);
	KUNIT_EXPECT_NOT_NULL(test, c);
	kmem_cache_destroy(c);
	kmem_cache_destroy(a);
}

/* KFENCE's sample interval in ms: 0 when it is off or not built. */
static unsigned long kfence_interval(void)
{
#ifdef CONFIG_KFENCE
	return READ_ONCE(kfence_sample_interval);
#else
	return 0;
#endif
}

/*
 * An object of @s (of kmalloc(@size) if @s is NULL) that KFENCE sampled, at
 * the end of its page if @at_end (KFENCE picks either end at random), or
 * NULL once KFENCE's own tests would have stopped waiting for a sample.
 */
static void *kfence_sample(struct kmem_cache *s, size_t size, gfp_t gfp,
			   bool at_end)
{
	unsigned long timeout;
	void *p;

	timeout = jiffies + msecs_to_jiffies(100 * kfence_interval());
	do {
		p = s ? kmem_cache_alloc(s, gfp) : kmalloc(size, gfp);
		if (!p)
			return NULL;
		if (is_kfence_address(p) && (!at_end || offset_in_page(p)))
			return p;
		if (s)
			kmem_cache_free(s, p);
		else
			kfree(p);
		cond_resched();
	} while (time_before(jiffies, timeout));
	return NULL;
}

/*
 * kzalloc() of a size smaller than its kmalloc cache's objects, when KFENCE
 * samples it: the object is only the requested bytes, with KFENCE's
 * canaries (never zero) after it, and those must survive the zeroing.
 */
static void slqb_test_kfence_gfp_zero(struct kunit *test)
{
	const size_t size = 100;
	size_t canaries;
	u8 *p;

	if (!kfence_interval())
		kunit_skip(test, "KFENCE is off: boot with kfence.sample_interval=N");
	p = kfence_sample(NULL, size, GFP_KERNEL | __GFP_ZERO, false);
	KUNIT_ASSERT_NOT_NULL_MSG(test, p, "KFENCE sampled no kzalloc(%zu)",
				  size);

	KUNIT_EXPECT_TRUE(test, all_bytes(p, 0, size));
	/* From the end of the object to that of the cache's, or the page. */
	canaries = min_t(size_t, PAGE_SIZE - offset_in_page(p),
			 kmalloc_size_roundup(size)) - size;
	KUNIT_EXPECT_NULL_MSG(test, memchr(p + size, 0, canaries),
			      "zeroed past the %zu bytes asked for", size);
	kfree(p);
}

static void usercopy_ctor(void *object)
{
	memset(object, 0, 16);
}

/*
 * Hardened usercopy takes a KFENCE sample for the object it is, wherever it
 * lies in its page. Objects of 16 bytes with a constructor take 24 with
 * their free pointer (20 on 32-bit), and a page holds them up to 16 bytes
 * short of its end, just where KFENCE puts a 16-byte sample at the end of
 * its page. A check that looked for an object of the slab there would
 * call BUG().
 */
static void slqb_test_kfence_usercopy(struct kunit *test)
{
	struct kmem_cache *s;
	size_t n = 16;
	u8 *p;

	/* check_object_size() leaves a constant size to the compiler. */
	OPTIMIZER_HIDE_VAR(n);
	if (!IS_ENABLED(CONFIG_HARDENED_USERCOPY))
		kunit_skip(test, "needs CONFIG_HARDENED_USERCOPY");
	if (!kfence_interval())
		kunit_skip(test, "KFENCE is off: boot with kfence.sample_interval=N");
	s = kmem_cache_create_usercopy("slqb_test_usercopy", 16, 0,
				       SLAB_NOLEAKTRACE, 0, 16, usercopy_ctor);
	KUNIT_ASSERT_NOT_NULL(test, s);
	p = kfence_sample(s, 0, GFP_KERNEL, true);
	if (!p)
		kmem_cache_destroy(s);
	KUNIT_ASSERT_NOT_NULL_MSG(test, p,
				  "KFENCE sampled no object at a page end");
	KUNIT_EXPECT_EQ(test, offset_in_page(p), PAGE_SIZE - 16);
	check_object_size(p, n, true);
	check_object_size(p + n / 2, n / 2, false);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}

/*
 * kmalloc() serves every size class and the page allocator sizes above
 * them with at least the size asked for (ksize()), and kmalloc(0) returns
 * ZERO_SIZE_PTR.
 */
static void slqb_test_kmalloc_sizes(struct kunit *test)
{
	/*
	 * Every slab size class, then page allocator sizes up to 4 MiB: with
	 * 64 KiB pages KMALLOC_MAX_SIZE is 512 MiB, more than a test node has.
	 */
	size_t max = min_t(size_t, KMALLOC_MAX_SIZE,
			   max_t(size_t, KMALLOC_MAX_CACHE_SIZE * 2, SZ_4M));
	size_t size;
	void *p;

	KUNIT_EXPECT_PTR_EQ(test, kmalloc(0, GFP_KERNEL), ZERO_SIZE_PTR);
	for (size = 1; size <= max; size <<= 1) {
		size_t sizes[] = { size, size + 1, size * 3 / 2 };
		int i;

		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			if (sizes[i] > max)
				continue;
			p = kmalloc(sizes[i], GFP_KERNEL | __GFP_NOWARN);
			KUNIT_ASSERT_NOT_NULL_MSG(test, p, "size %zu", sizes[i]);
			KUNIT_EXPECT_GE(test, ksize(p), sizes[i]);
			memset(p, 0x3c, sizes[i]);
			kfree(p);
		}
	}
}

/* krealloc() keeps every byte of the old allocation as it grows. */
static void slqb_test_krealloc(struct kunit *test)
{
	size_t size = 16, i;
	u8 *p = kmalloc(size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < size; i++)
		p[i] = i;
	while (size < 16384) {
		u8 *q = krealloc(p, size * 2, GFP_KERNEL);

		if (!q)
			kfree(p);
		KUNIT_ASSERT_NOT_NULL(test, q);
		p = q;
		for (i = 0; i < size; i++)
			KUNIT_ASSERT_EQ(test, p[i], (u8)i);
		size *= 2;
		for (i = 0; i < size; i++)
			p[i] = i;
	}
	kfree(p);
}

static int do_alloc_one(void *arg)
{
	struct slqb_test_ctx *ctx = arg;

	ctx->objs[0] = slqbt_obj(ctx->s, NUMA_NO_NODE);
	return ctx->objs[0] ? 0 : -ENOMEM;
}

#ifdef CONFIG_SLQB_STATS
/* The statistic @item of @s, summed over its lists. */
static long stat_sum(struct kmem_cache *s, enum slqb_stat_item item)
{
	struct kmem_cache_node *n;
	long sum = 0;
	int cpu, node;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(cpu_list(s, cpu)->stats[item]);
	for_each_kmem_cache_node(s, node, n)
		sum += READ_ONCE(n->list.stats[item]);
	return sum;
}
#endif

/*
 * With CONFIG_SLQB_STATS: @s holds the slabs that it took from the page
 * allocator (alloc_slab_new) and did not give back (flush_slab_free), its
 * reserve included.
 */
static void expect_slabs_balance(struct kunit *test, struct kmem_cache *s)
{
#ifdef CONFIG_SLQB_STATS
	KUNIT_EXPECT_EQ(test, stat_sum(s, ALLOC_SLAB_NEW) -
			stat_sum(s, FLUSH_SLAB_FREE), total_slabs(s));
#endif
}

/* With CONFIG_SLQB_STATS: the most objects one trim pass of @l released. */
static void expect_trim_worst(struct kunit *test, struct kmem_cache_list *l,
			      unsigned int objects)
{
#ifdef CONFIG_SLQB_STATS
	KUNIT_EXPECT_EQ(test, l->stats[TRIM_WORST_OBJECTS], objects);
#endif
}

/*
 * A trim pass takes freebatch objects from a LIFO that was used since the
 * last pass, and the whole of one that was not. Passes over an empty LIFO
 * then give the node's reserve back, half of it each time. The statistics
 * keep the most objects one pass released.
 */
static void slqb_test_trim_idle(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	struct kmem_cache_list *l;
	struct kmem_cache *s;
	unsigned int batch, passes, halvings;

	whole_slabs_cache(test, &ctx, "slqb_test_trim");
	s = ctx.s;
	slqbt_lock_slabs();
	l = full_lifo(test, &ctx);
	batch = s->hiwater / 4;
	KUNIT_EXPECT_EQ(test, slqb_set_tunables(s, 0, batch), 0);
	KUNIT_EXPECT_EQ(test, l->nr, s->hiwater);
	slqbt_expect_poisoned(test, l->freelist, true);
	if (l->nr != s->hiwater || s->freebatch != batch) {
		/* Not an assertion: slab_mutex must not stay held. */
		slqbt_unlock_slabs(test);
		return;
	}

	/* No pass has seen this LIFO yet: it counts as used. */
	slqbt_run_on(test, 0, slqbt_do_trim, &ctx);
	KUNIT_EXPECT_EQ(test, l->nr, s->hiwater - batch);
	expect_trim_worst(test, l, batch);
	/* Used again since: one more batch goes, no more. */
	slqbt_run_on(test, 0, do_alloc_one, &ctx);
	slqbt_run_on(test, 0, slqbt_do_trim, &ctx);
	KUNIT_EXPECT_EQ(test, l->nr, s->hiwater - 2 * batch - 1);
	expect_trim_worst(test, l, batch);
	/* Untouched since the last pass: all of it goes. */
	slqbt_run_on(test, 0, slqbt_do_trim, &ctx);
	KUNIT_EXPECT_EQ(test, l->nr, 0U);
	expect_trim_worst(test, l, max(batch, s->hiwater - 2 * batch - 1));
	KUNIT_EXPECT_LE(test, total_slabs(s), 1L + s->reserve);

	/* Halving the reserve, a pass at a time, empties it. */
	halvings = ilog2(max(s->reserve, 1U)) + 2;
	for (passes = 0; total_slabs(s) > 1 && passes < 8; passes++)
		slqbt_run_on(test, 0, slqbt_do_trim, &ctx);
	KUNIT_EXPECT_EQ(test, total_slabs(s), 1L);
	KUNIT_EXPECT_LE(test, passes, halvings);
	slqbt_unlock_slabs(test);
	kmem_cache_free(s, ctx.objs[0]);
	slqbt_destroy_empty(test, s);
}

/* What a trim pass left queued on its CPU, and whether it armed a wake-up. */
struct trim_wake {
	struct slqb_test_ctx ctx;
	unsigned int left;
	bool armed;
};

/*
 * Fill this CPU's LIFO and trim at once, with no sleep between the frees
 * and the pass: the periodic pass cannot come between them and leave the
 * LIFO looking idle, and none can cancel the wake-up before it is read.
 */
static int trim_wake_fn(void *arg)
{
	struct trim_wake *tw = arg;
	int cpu = smp_processor_id();
	int err = slqbt_do_alloc(&tw->ctx);

	if (err)
		return err;
	slqbt_do_free(&tw->ctx);
	slqb_test_trim_all();
	tw->left = cpu_list(tw->ctx.s, cpu)->nr;
	tw->armed = slqb_test_trim_wake_armed(cpu);
	return 0;
}

/*
 * The periodic trim is deferrable and would not wake a NOHZ idle CPU. A
 * pass that leaves objects queued on its CPU arms a wake-up that is not
 * deferrable, so that an idle CPU's queues are trimmed too.
 */
static void slqb_test_trim_wakes_idle(struct kunit *test)
{
	struct trim_wake tw = { .ctx.objs = test_array(test) };
	struct kmem_cache *s;

	s = slqbt_cache(test, "slqb_test_trim_wake", TEST_OBJ_SIZE, 0, 0, NULL);
	tw.ctx.s = s;
	tw.ctx.nr = max(s->hiwater, 2U);
	KUNIT_ASSERT_EQ(test, slqb_set_tunables(s, tw.ctx.nr, tw.ctx.nr / 2),
			0);
	/* Used since the last pass: it loses one batch, the rest stays. */
	slqbt_run_on(test, 0, trim_wake_fn, &tw);
	KUNIT_EXPECT_GT(test, tw.left, 0U);
	KUNIT_EXPECT_TRUE(test, tw.armed);
	slqbt_destroy_empty(test, s);
}

static int node_reserve(struct kmem_cache *s, int cpu)
{
	return READ_ONCE(get_node(s, per_cpu(slqb_node, cpu))->list.nr_empty);
}

/*
 * Empty slabs wait in their node's reserve, no more than its bound, and
 * serve the next refills before any new slab does. Shrinking the cache and
 * the shrinker give them back.
 */
static void slqb_test_reserve(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	struct slqb_test_watch w = {};
	struct kmem_cache *s;

	/* Sixteen objects a slab whatever the page size: few to allocate. */
	s = slqbt_cache(test, "slqb_test_reserve", PAGE_SIZE / 16, 0, 0, NULL);
	/*
	 * SLQB_RESERVE_BYTES of slabs, at most SLQB_MAX_RESERVE: with four
	 * pages' worth, four order-0 ones, or two of order 1 where KASAN's
	 * metadata leaves fewer than sixteen objects a page.
	 */
	KUNIT_EXPECT_EQ(test, s->reserve,
			min_t(unsigned int,
			      SLQB_RESERVE_BYTES / (PAGE_SIZE << s->order),
			      SLQB_MAX_RESERVE));
	KUNIT_ASSERT_GT(test, s->reserve, 0U);
	ctx.s = s;
	ctx.nr = s->hiwater + 2 * (s->reserve + 1) * s->objects;
	KUNIT_ASSERT_LE(test, ctx.nr, (unsigned int)TEST_MAX_OBJS);

	slqbt_lock_slabs();
	slqbt_run_on(test, 0, slqbt_do_alloc, &ctx);
	slqbt_run_on(test, 0, slqbt_do_free, &ctx);
	KUNIT_EXPECT_EQ(test, node_reserve(s, 0), (int)s->reserve);
	KUNIT_EXPECT_LE(test, total_slabs(s),
			(long)(s->reserve + 1 +
			       DIV_ROUND_UP(s->hiwater, s->objects)));
	expect_slabs_balance(test, s);

	/* The LIFO, the CPU's partial slabs, the reserve: no new slab. */
	ctx.nr = cpu_list(s, 0)->nr + cpu_list(s, 0)->slab_free +
		 s->reserve * s->objects;
	slqb_test_watch_pages(s, &w);
	slqbt_run_on(test, 0, slqbt_do_alloc, &ctx);
	slqb_test_watch_pages(NULL, NULL);
	KUNIT_EXPECT_EQ(test, w.calls, 0U);
	KUNIT_EXPECT_EQ(test, node_reserve(s, 0), 0);
	expect_slabs_balance(test, s);
	slqbt_run_on(test, 0, slqbt_do_free, &ctx);
	slqbt_unlock_slabs(test);

	kmem_cache_shrink(s);
	KUNIT_EXPECT_EQ(test, node_reserve(s, 0), 0);
	KUNIT_EXPECT_EQ(test, total_slabs(s), 0L);
	expect_slabs_balance(test, s);

	ctx.nr = s->hiwater + 2 * (s->reserve + 1) * s->objects;
	slqbt_lock_slabs();
	slqbt_run_on(test, 0, slqbt_do_alloc, &ctx);
	slqbt_run_on(test, 0, slqbt_do_free, &ctx);
	slqbt_unlock_slabs(test);
	KUNIT_EXPECT_GT(test, node_reserve(s, 0), 0);
	KUNIT_EXPECT_GT(test, slqb_test_shrinker(true), 0UL);
	KUNIT_EXPECT_EQ(test, total_slabs(s), 0L);
	kmem_cache_destroy(s);
}

/* Objects of @s in @ctx and @rest for claims_past_reserve(). */
static void claims_objects(struct kunit *test, struct kmem_cache *s,
			   struct slqb_test_ctx *ctx, struct slqb_test_ctx *rest)
{
	ctx->s = s;
	rest->s = s;
	ctx->nr = 3 * slqb_busy_cap(s);
	KUNIT_ASSERT_LE(test, ctx->nr, (unsigned int)TEST_MAX_OBJS);
}

/*
 * A allocates three busy caps' worth into @ctx (see claims_objects()) with
 * a busy window of @window and empties its LIFO into @rest; B frees @ctx.
 * The first claim of A's queue fills A's LIFO, the next ones find it full
 * and send the rest through the slabs, whose node reserve keeps those they
 * empty past its bound. The caller holds slab_mutex, as for
 * slqbt_owner_allocates().
 */
static void claims_past_reserve(struct kunit *test, int a, int b,
				unsigned long window,
				struct slqb_test_ctx *ctx,
				struct slqb_test_ctx *rest)
{
	struct kmem_cache *s = ctx->s;

	slqbt_owner_allocates(test, a, window, ctx, rest);
	slqbt_run_on(test, b, slqbt_do_free, ctx);
	irq_work_sync(&cpu_list(s, a)->claim_work);
	/* The frees took less than the window: the owner was still busy. */
	KUNIT_EXPECT_TRUE(test, time_before(jiffies,
					    READ_ONCE(cpu_of(s, a)->dry_stamp) +
					    window));
}

/* @cpu's node reserve once down to its bound, or after @timeout. */
static int reserve_after(struct kmem_cache *s, int cpu, unsigned long timeout)
{
	unsigned long deadline = jiffies + timeout;

	while (node_reserve(s, cpu) > (int)s->reserve &&
	       time_before(jiffies, deadline))
		msleep(20);
	return node_reserve(s, cpu);
}

/*
 * A claim of an allocating owner's queue that finds the owner's LIFO full
 * sends the objects into their slabs. The slabs that this empties wait in
 * the node's reserve, past its usual bound but within the longer cap's
 * worth of slabs, for the owner to allocate them again; once the owner
 * stops, the cap timer gives them back down to the usual bound. Here CPU B
 * frees three caps' worth: the first claim fills A's LIFO, the second
 * finds it full, and the rest waits on the queue for the timer.
 */
static void slqb_test_remote_claim_reserve(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	struct slqb_test_ctx rest = { .objs = test_array(test) };
	struct kmem_cache *s;
	unsigned int bound;
	int a, b, kept;

	s = slqbt_remote_cache(test, "slqb_test_claim_reserve", &a, &b);
	bound = s->reserve + slqb_busy_cap(s) / s->objects;
	claims_objects(test, s, &ctx, &rest);
	slqbt_lock_slabs();
	claims_past_reserve(test, a, b, 2 * HZ, &ctx, &rest);
	kept = node_reserve(s, a);
	KUNIT_EXPECT_GT(test, kept, (int)s->reserve);
	KUNIT_EXPECT_LE(test, kept, (int)bound);

	KUNIT_EXPECT_LE(test, reserve_after(s, a, 10 * HZ), (int)s->reserve);
	slqbt_run_on(test, a, slqbt_do_free, &rest);
	slqbt_unlock_slabs(test);
	slqb_test_busy_ticks(NULL, 0);

	slqbt_destroy_empty(test, s);
}

/*
 * The cap timer of an owner that is still allocating waits for the end of
 * its busy window while the owner keeps anything past its bounds, the node
 * reserve included. Here the claims of claims_past_reserve() leave A's
 * reserve past its bound. B frees a batch more of A's objects, and A
 * allocates its LIFO down under hiwater, taking that batch from its queue
 * on the way, which starts a new busy window: only the reserve is left
 * past a bound when the timer first runs.
 * The test holds slab_mutex, so the trim work gives nothing back; the timer
 * must come again after the new window and do it.
 */
static void slqb_test_remote_reserve_busy(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	struct slqb_test_ctx rest = { .objs = test_array(test) };
	struct slqb_test_ctx more = { .objs = test_array(test) };
	struct slqb_test_ctx part = { .objs = test_array(test) };
	unsigned long window = 4 * HZ, stamp;
	struct kmem_cache_list *la;
	struct kmem_cache *s;
	unsigned int queued;
	int a, b;

	s = slqbt_remote_cache(test, "slqb_test_reserve_busy", &a, &b);
	la = cpu_list(s, a);
	more.s = s;
	part.s = s;
	claims_objects(test, s, &ctx, &rest);
	slqbt_lock_slabs();
	claims_past_reserve(test, a, b, window, &ctx, &rest);
	KUNIT_EXPECT_GT(test, node_reserve(s, a), (int)s->reserve);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(cpu_of(s, a)->cap_armed) & 1);

	/* A batch of A's objects that B frees waits on A's queue. */
	part.nr = s->freebatch;
	slqbt_run_on(test, a, slqbt_do_alloc, &part);
	slqbt_run_on(test, b, slqbt_do_free, &part);
	queued = atomic_read(&la->remote_nr);
	KUNIT_EXPECT_GE(test, queued, s->freebatch);
	/*
	 * Empty the LIFO, take the queue onto it with the next allocation,
	 * and allocate on until at most hiwater are left, none of them the
	 * last: no refill reaches the reserve. A quarter of a window on,
	 * so that the refill that takes the queue stamps a later window
	 * than the one the timer was armed for, well before that one ends.
	 */
	stamp = READ_ONCE(cpu_of(s, a)->dry_stamp);
	msleep(jiffies_to_msecs(window / 4));
	more.nr = la->nr + 1;
	if (queued > s->hiwater + 1)
		more.nr += queued - 1 - s->hiwater;
	KUNIT_EXPECT_LE(test, more.nr, (unsigned int)TEST_MAX_OBJS);
	more.nr = min_t(unsigned int, more.nr, TEST_MAX_OBJS);
	slqbt_run_on(test, a, slqbt_do_alloc, &more);
	KUNIT_EXPECT_GT(test, la->nr, 0U);
	KUNIT_EXPECT_LE(test, la->nr, s->hiwater);
	KUNIT_EXPECT_EQ(test, atomic_read(&la->remote_nr), 0);
	KUNIT_EXPECT_GT(test, node_reserve(s, a), (int)s->reserve);
	KUNIT_EXPECT_TRUE(test, time_after(READ_ONCE(cpu_of(s, a)->dry_stamp),
					   stamp));
	KUNIT_EXPECT_TRUE(test, time_before(jiffies,
					    READ_ONCE(cpu_of(s, a)->dry_stamp) +
					    window));

	KUNIT_EXPECT_LE(test, reserve_after(s, a, 5 * window),
			(int)s->reserve);
	slqbt_run_on(test, a, slqbt_do_free, &more);
	slqbt_run_on(test, a, slqbt_do_free, &rest);
	slqbt_unlock_slabs(test);
	slqb_test_busy_ticks(NULL, 0);

	slqbt_destroy_empty(test, s);
}

/*
 * What a claim kept for an allocating owner serves its next refills: after
 * the claims of claims_past_reserve(), A allocates everything that its
 * LIFO, its queue, its partial slabs and its node list hold, the kept
 * slabs included, with no page allocation.
 */
static void slqb_test_remote_claim_refill(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	struct slqb_test_ctx rest = { .objs = test_array(test) };
	struct slqb_test_ctx more = { .objs = test_array(test) };
	struct slqb_test_watch w = {};
	struct kmem_cache_list *la;
	struct kmem_cache_node *n;
	struct kmem_cache *s;
	int a, b;

	s = slqbt_remote_cache(test, "slqb_test_claim_refill", &a, &b);
	la = cpu_list(s, a);
	n = get_node(s, per_cpu(slqb_node, a));
	more.s = s;
	/* A window longer than the test: the cap timer gives nothing back. */
	claims_objects(test, s, &ctx, &rest);
	slqbt_lock_slabs();
	claims_past_reserve(test, a, b, 60 * HZ, &ctx, &rest);
	KUNIT_EXPECT_GT(test, node_reserve(s, a), (int)s->reserve);
	expect_slabs_balance(test, s);

	more.nr = la->nr + atomic_read(&la->remote_nr) + la->slab_free +
		  n->list.slab_free;
	KUNIT_EXPECT_LE(test, more.nr, (unsigned int)TEST_MAX_OBJS);
	more.nr = min_t(unsigned int, more.nr, TEST_MAX_OBJS);
	slqb_test_watch_pages(s, &w);
	slqbt_run_on(test, a, slqbt_do_alloc, &more);
	slqb_test_watch_pages(NULL, NULL);
	KUNIT_EXPECT_EQ(test, w.calls, 0U);
	KUNIT_EXPECT_EQ(test, node_reserve(s, a), 0);
	slqbt_run_on(test, a, slqbt_do_free, &more);
	slqbt_run_on(test, a, slqbt_do_free, &rest);
	slqbt_unlock_slabs(test);
	slqb_test_busy_ticks(NULL, 0);

	slqbt_destroy_empty(test, s);
}

/*
 * A CPU's lists may hold slabs of another node, where the page allocator
 * fell back. A claim of its queue keeps slabs past the reserve's bound on
 * the claiming CPU's own node only, whose CPUs take them and whose cap
 * timers give them back: past the bound on another node, they would wait
 * for the trim of that node's CPUs, or forever on a node without CPUs.
 * Here A's slabs all come from B's node, and the claims of
 * claims_past_reserve() empty them.
 */
static void slqb_test_remote_claim_off_node(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	struct slqb_test_ctx rest = { .objs = test_array(test) };
	struct kmem_cache *s;
	int a, b, na, nb;

	s = slqbt_remote_cache(test, "slqb_test_claim_off_node", &a, &b);
	na = per_cpu(slqb_node, a);
	nb = per_cpu(slqb_node, b);
	KUNIT_ASSERT_LE(test, 3 * slqb_busy_cap(s),
			(unsigned int)TEST_MAX_OBJS);
	slqb_test_fallback_node(s, nb);
	claims_objects(test, s, &ctx, &rest);
	slqbt_lock_slabs();
	claims_past_reserve(test, a, b, 2 * HZ, &ctx, &rest);
	slqb_test_fallback_node(NULL, NUMA_NO_NODE);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&get_node(s, na)->list.node_slabs),
			0L);
	KUNIT_EXPECT_GT(test, atomic_long_read(&get_node(s, nb)->list.node_slabs),
			0L);
	/* The claims emptied slabs: the reserve of B's node has its bound. */
	KUNIT_EXPECT_EQ(test, node_reserve(s, b), (int)s->reserve);
	KUNIT_EXPECT_EQ(test, node_reserve(s, a), 0);
	slqbt_run_on(test, a, slqbt_do_free, &rest);
	slqbt_unlock_slabs(test);
	slqb_test_busy_ticks(NULL, 0);

	slqbt_destroy_empty(test, s);
}

/*
 * A CPU A other than the boot CPU that can go offline, and an online CPU B
 * of another memory node.
 */
static bool hotpluggable_on_two_nodes(int *a, int *b)
{
	int i, j;

	for_each_online_cpu(i) {
		if (!i || !cpu_is_hotpluggable(i) ||
		    !node_state(cpu_to_mem(i), N_NORMAL_MEMORY))
			continue;
		for_each_online_cpu(j)
			if (cpu_to_mem(j) != cpu_to_mem(i) &&
			    node_state(cpu_to_mem(j), N_NORMAL_MEMORY)) {
				*a = i;
				*b = j;
				return true;
			}
	}
	return false;
}

/*
 * The slabs that a claim kept past the reserve's bound for an allocating
 * owner are given back by the owner's cap timer, which does not run for a
 * CPU that went offline. The CPU's drain gives them back instead: A goes
 * offline inside its busy window, before its timer could have run.
 */
static void slqb_test_remote_reserve_offline(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	struct slqb_test_ctx rest = { .objs = test_array(test) };
	unsigned long window = 20 * HZ;
	struct kmem_cache *s;
	int a, b, err;

	if (!hotpluggable_on_two_nodes(&a, &b))
		kunit_skip(test, "needs a hotpluggable CPU and a CPU of another memory node");
	s = slqbt_cache(test, "slqb_test_reserve_offline", TEST_OBJ_SIZE, 0, 0,
			NULL);
	KUNIT_ASSERT_EQ(test, slqb_set_tunables(s, 32, 8), 0);
	claims_objects(test, s, &ctx, &rest);
	slqbt_lock_slabs();
	claims_past_reserve(test, a, b, window, &ctx, &rest);
	KUNIT_EXPECT_GT(test, node_reserve(s, a), (int)s->reserve);
	slqbt_unlock_slabs(test);

	err = remove_cpu(a);
	KUNIT_ASSERT_EQ(test, err, 0);
	/* Still inside the window: the timer cannot have given them back. */
	KUNIT_EXPECT_TRUE(test, time_before(jiffies,
					    READ_ONCE(cpu_of(s, a)->dry_stamp) +
					    window));
	KUNIT_EXPECT_LE(test, node_reserve(s, a), (int)s->reserve);
	KUNIT_EXPECT_EQ(test, add_cpu(a), 0);

	slqbt_run_on(test, b, slqbt_do_free, &rest);
	slqb_test_busy_ticks(NULL, 0);
	slqbt_destroy_empty(test, s);
}

/*
 * A CPU going offline loses no object: its LIFO and partial slabs are
 * emptied, and the objects still allocated are the only ones in use.
 */
static void slqb_test_cpu_offline(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	struct kmem_cache *s;
	int cpu, victim = -1;

	for_each_online_cpu(cpu)
		if (cpu && cpu_is_hotpluggable(cpu))
			victim = cpu;
	if (victim < 0)
		kunit_skip(test, "needs a hotpluggable CPU");

	s = slqbt_cache(test, "slqb_test_hotplug", TEST_OBJ_SIZE, 0, 0, NULL);
	ctx.s = s;
	ctx.nr = 3 * s->objects;
	slqbt_lock_slabs();
	slqbt_run_on(test, victim, slqbt_do_alloc, &ctx);
	/* Half go back to the victim's LIFO, half stay allocated. */
	ctx.nr /= 2;
	slqbt_run_on(test, victim, slqbt_do_free, &ctx);
	KUNIT_EXPECT_GT(test, cpu_list(s, victim)->nr, 0U);
	slqbt_unlock_slabs(test);

	KUNIT_ASSERT_EQ(test, remove_cpu(victim), 0);
	slqbt_lock_slabs();
	KUNIT_EXPECT_EQ(test, cpu_list(s, victim)->nr, 0U);
	KUNIT_EXPECT_TRUE(test, list_empty(&cpu_list(s, victim)->partial));
	KUNIT_EXPECT_EQ(test, in_use(s), (long)(3 * s->objects - ctx.nr));
	slqbt_unlock_slabs(test);

	ctx.objs += ctx.nr;
	ctx.nr = 3 * s->objects - ctx.nr;
	slqbt_run_on(test, 0, slqbt_do_free, &ctx);
	kmem_cache_shrink(s);
	KUNIT_EXPECT_EQ(test, total_slabs(s), 0L);
	KUNIT_EXPECT_EQ(test, add_cpu(victim), 0);
	kmem_cache_destroy(s);
}

/*
 * hiwater and freebatch take only a consistent pair (freebatch at most
 * hiwater, hiwater within SLQB_MAX_HIWATER): a rejected write changes
 * neither.
 */
static void slqb_test_tunables(struct kunit *test)
{
	struct kmem_cache *s;
	unsigned int hiwater, freebatch;

	s = slqbt_cache(test, "slqb_test_tunables", TEST_OBJ_SIZE, 0, 0, NULL);
	hiwater = s->hiwater;
	freebatch = s->freebatch;
	KUNIT_EXPECT_EQ(test, slqb_set_tunables(s, freebatch - 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, slqb_set_tunables(s, 0, hiwater + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, slqb_set_tunables(s, SLQB_MAX_HIWATER + 1, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, s->hiwater, hiwater);
	KUNIT_EXPECT_EQ(test, s->freebatch, freebatch);
	KUNIT_EXPECT_EQ(test, slqb_set_tunables(s, 100, 10), 0);
	KUNIT_EXPECT_EQ(test, s->hiwater, 100U);
	KUNIT_EXPECT_EQ(test, s->freebatch, 10U);
	kmem_cache_destroy(s);
}

#if defined(CONFIG_SLQB_DEBUG) && defined(CONFIG_PRINTK)
#define DEBUG_OBJ_SIZE	44
/* All of SLQB's debug flags but SLAB_TRACE, which prints every call. */
#define DEBUG_FLAGS	(SLQB_DEBUG_FLAGS & ~SLAB_TRACE)

/*
 * Whether @len bytes at @start hold @value: red zone and poison, which KASAN
 * lets nobody read, not even memchr_inv() for this uninstrumented file.
 */
static bool debug_bytes(void *start, u8 value, size_t len)
{
	bool same;

	kasan_disable_current();
	same = all_bytes(start, value, len);
	kasan_enable_current();
	return same;
}

/* From the red zone's first byte to the free pointer. */
static bool red_zone_holds(struct kmem_cache *s, void *object, u8 value)
{
	return debug_bytes(object + s->object_size, value,
			   s->offset - s->object_size);
}

/*
 * Debug flags given to kmem_cache_create() are honoured without slqb_debug=
 * on the command line: the objects have red zones and poison, and their
 * tracks give mem_dump_obj() its stacks. It enables SLQB's debug key for the
 * rest of the boot, as SLUB does, so it runs last.
 */
static void slqb_test_create_debug_flags(struct kunit *test)
{
	struct kmem_obj_info kp;
	struct kmem_cache *s;
	void *keep, *p;
	char name[64];

	s = kmem_cache_create("slqb_test_debug_flags", DEBUG_OBJ_SIZE, 0,
			      DEBUG_FLAGS, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_TRUE(test, (s->flags & DEBUG_FLAGS) == DEBUG_FLAGS);
	KUNIT_EXPECT_TRUE(test, slqb_debug_cache(s));
	if (!slqb_debug_cache(s) || !(s->flags & SLAB_RED_ZONE)) {
		kmem_cache_destroy(s);
		return;
	}
#ifdef CONFIG_KASAN_GENERIC
	/* Freed objects are poisoned at once, not after the quarantine. */
	s->kasan_info.free_meta_offset = KASAN_NO_FREE_META;
#endif
	/* KFENCE's objects have no red zone or poison of SLQB's. */
	keep = slqbt_obj(s, NUMA_NO_NODE);
	p = slqbt_obj(s, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, keep);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_TRUE(test, red_zone_holds(s, p, SLUB_RED_ACTIVE));

	memset(&kp, 0, sizeof(kp));
	__kmem_obj_info(&kp, p, virt_to_slab(p));
	/* gcc may name a clone of it slqbt_obj.constprop.0. */
	snprintf(name, sizeof(name), "%ps", kp.kp_ret);
	KUNIT_EXPECT_TRUE_MSG(test, str_has_prefix(name, "slqbt_obj"),
			      "allocated at %s", name);
	if (IS_ENABLED(CONFIG_STACKDEPOT))
		KUNIT_EXPECT_NOT_NULL(test, kp.kp_stack[0]);

	kmem_cache_free(s, p);
	/* keep holds the slab: p's bytes are still the cache's to read. */
	KUNIT_EXPECT_TRUE(test, debug_bytes(p, POISON_FREE, s->object_size - 1));
	KUNIT_EXPECT_EQ(test, *(u8 *)(p + s->object_size - 1), POISON_END);
	KUNIT_EXPECT_TRUE(test, red_zone_holds(s, p, SLUB_RED_INACTIVE));
	memset(&kp, 0, sizeof(kp));
	__kmem_obj_info(&kp, p, virt_to_slab(p));
	if (IS_ENABLED(CONFIG_STACKDEPOT))
		KUNIT_EXPECT_NOT_NULL(test, kp.kp_free_stack[0]);

	kmem_cache_free(s, keep);
	kmem_cache_destroy(s);
}
#else
static void slqb_test_create_debug_flags(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_SLQB_DEBUG and CONFIG_PRINTK");
}
#endif

static struct kunit_case slqb_test_cases[] = {
	KUNIT_CASE(slqb_test_lifo_reuse),
	KUNIT_CASE(slqb_test_double_free),
	KUNIT_CASE(slqb_test_flush_batch),
	KUNIT_CASE(slqb_test_remote_free_cross_node),
	KUNIT_CASE(slqb_test_remote_free_same_node),
	KUNIT_CASE(slqb_test_remote_runs_by_owner),
	KUNIT_CASE(slqb_test_remote_cap),
	KUNIT_CASE(slqb_test_remote_cap_busy),
	KUNIT_CASE(slqb_test_remote_cap_stopped),
	KUNIT_CASE(slqb_test_remote_cap_lifo_stopped),
	KUNIT_CASE(slqb_test_remote_claim_stopped),
	KUNIT_CASE(slqb_test_long_lifo_flush),
	KUNIT_CASE(slqb_test_alloc_node),
	KUNIT_CASE(slqb_test_node_try_first),
	KUNIT_CASE(slqb_test_thisnode_lifo),
	KUNIT_CASE(slqb_test_thisnode_no_memory),
	KUNIT_CASE(slqb_test_irqs_stay_off),
	KUNIT_CASE(slqb_test_freelist_random),
	KUNIT_CASE(slqb_test_empty_slabs_freed),
	KUNIT_CASE(slqb_test_new_slab_refilled),
	KUNIT_CASE(slqb_test_new_slab_remote_push),
	KUNIT_CASE(slqb_test_shrink_empties_queues),
	KUNIT_CASE(slqb_test_shutdown_busy),
	KUNIT_CASE(slqb_test_ctor),
	KUNIT_CASE(slqb_test_alignment),
	KUNIT_CASE(slqb_test_freeptr_mid),
	KUNIT_CASE(slqb_test_typesafe_by_rcu),
	KUNIT_CASE(slqb_test_bulk),
	KUNIT_CASE(slqb_test_bulk_partial_failure),
	KUNIT_CASE(slqb_test_bulk_from_slab),
	KUNIT_CASE(slqb_test_lockless_pop_aba),
	KUNIT_CASE(slqb_test_lockless_pop_aba_bulk),
	KUNIT_CASE(slqb_test_no_slab_report),
	KUNIT_CASE(slqb_test_large_order_fallback),
	KUNIT_CASE(slqb_test_large_order_objects),
	KUNIT_CASE(slqb_test_bulk_free_mixed),
	KUNIT_CASE(slqb_test_queue_budget),
	KUNIT_CASE(slqb_test_shrinker_drains),
	KUNIT_CASE(slqb_test_gfp_zero),
	KUNIT_CASE(slqb_test_alias_name),
	KUNIT_CASE(slqb_test_kfence_gfp_zero),
	KUNIT_CASE(slqb_test_kfence_usercopy),
	KUNIT_CASE(slqb_test_kmalloc_sizes),
	KUNIT_CASE(slqb_test_krealloc),
	KUNIT_CASE(slqb_test_trim_idle),
	KUNIT_CASE(slqb_test_trim_wakes_idle),
	KUNIT_CASE(slqb_test_reserve),
	KUNIT_CASE(slqb_test_remote_claim_reserve),
	KUNIT_CASE(slqb_test_remote_reserve_busy),
	KUNIT_CASE(slqb_test_remote_claim_refill),
	KUNIT_CASE(slqb_test_remote_claim_off_node),
	KUNIT_CASE(slqb_test_remote_reserve_offline),
	KUNIT_CASE(slqb_test_trim_contended),
	KUNIT_CASE(slqb_test_cpu_offline),
	KUNIT_CASE(slqb_test_tunables),
	KUNIT_CASE(slqb_test_create_debug_flags),
	{}
};

/*
 * After each case, even one that an assertion ended: no fault injection
 * or watch is left on a cache that a later case could get at the same
 * address.
 */
static void slqbt_exit(struct kunit *test)
{
	slqb_test_fail_new_slabs(NULL, 0);
	slqb_test_fail_orders(NULL, 0);
	slqb_test_fallback_node(NULL, NUMA_NO_NODE);
	slqb_test_watch_pages(NULL, NULL);
	slqb_test_busy_ticks(NULL, 0);
}

static struct kunit_suite slqb_test_suite = {
	.name = "slqb",
	.exit = slqbt_exit,
	.test_cases = slqb_test_cases,
};

kunit_test_suite(slqb_test_suite);

MODULE_LICENSE("GPL");
