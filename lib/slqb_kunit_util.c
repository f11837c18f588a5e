// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the SLQB allocator: the helpers that the suites share.
 * Each suite is a file, lib/slqb_kunit_<concern>.c, and lib/Makefile links
 * them into one object, slqb_kunit.o; slqb_kunit.h declares these.
 *
 * Each case creates its own unmergeable cache, so nothing else in the
 * kernel touches the queues it looks at. Work that must happen on a given
 * CPU runs there through smp_call_on_cpu(). The periodic trim could move
 * objects behind a case's back, so the cases that count objects on queues
 * hold slab_mutex, which the trim work waits for.
 */

#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/kfence.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/smp.h>

#include "slqb_kunit.h"
#ifdef CONFIG_KASAN
#include "../mm/kasan/kasan.h"
#endif

/*
 * A new cache that nothing else merges with, whose objects SLQB queues:
 * the case is skipped if slqb_debug= debugs it.
 */
struct kmem_cache *slqbt_cache(struct kunit *test, const char *name,
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

/*
 * A cache with a short LIFO (hiwater 32, freebatch 8), so that the caps of
 * the remote queues are reached with few objects.
 */
struct kmem_cache *slqbt_short_cache(struct kunit *test, const char *name)
{
	struct kmem_cache *s = slqbt_cache(test, name, TEST_OBJ_SIZE, 0, 0,
					   NULL);

	KUNIT_ASSERT_EQ(test, slqb_set_tunables(s, 32, 8), 0);
	return s;
}

/*
 * A short-queued cache for the tests of remote frees between CPU @a and
 * CPU @b of another node. Skips the test without such CPUs.
 */
struct kmem_cache *slqbt_remote_cache(struct kunit *test, const char *name,
				      int *a, int *b)
{
	if (!slqbt_cpus_on_two_nodes(a, b))
		kunit_skip(test, "needs online CPUs on two memory nodes");
	return slqbt_short_cache(test, name);
}

/* Every object is back: a shrink leaves no slab, and the cache goes away. */
void slqbt_destroy_empty(struct kunit *test, struct kmem_cache *s)
{
	kmem_cache_shrink(s);
	KUNIT_EXPECT_EQ(test, total_slabs(s), 0L);
	kmem_cache_destroy(s);
}

/* A constructor: fills the object with CTOR_PATTERN. */
void slqbt_ctor(void *object)
{
	memset(object, CTOR_PATTERN, TEST_OBJ_SIZE);
}

/*
 * Two online CPUs on different nodes that both have memory, if the machine
 * has them. A CPU of a memoryless node counts as local to the nearest node
 * with memory, so it does not qualify.
 */
bool slqbt_cpus_on_two_nodes(int *a, int *b)
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

/*
 * An object of @s from SLQB's own lists, for a caller with @gfp (GFP_KERNEL
 * for slqbt_obj()). A KFENCE sample never reaches SLQB's queues or slabs,
 * and lies on KFENCE's pages whatever @node was asked for; the cases look
 * at those: give a sample back and take the next object, which KFENCE
 * leaves alone until its next interval. Not inlined: the alloc track of a
 * debugged cache names slqbt_obj_gfp().
 */
noinline void *slqbt_obj_gfp(struct kmem_cache *s, gfp_t gfp, int node)
{
	void *p;

	for (;;) {
		p = kmem_cache_alloc_node(s, gfp, node);
		if (!p || !is_kfence_address(p))
			return p;
		kmem_cache_free(s, p);
	}
}

noinline void *slqbt_obj(struct kmem_cache *s, int node)
{
	return slqbt_obj_gfp(s, GFP_KERNEL, node);
}

/* An allocation that finds no slab, KFENCE's samples given back. */
void *slqbt_alloc_no_slab(struct kmem_cache *s, gfp_t gfp)
{
	void *p;

	while ((p = kmem_cache_alloc(s, gfp)) && is_kfence_address(p))
		kmem_cache_free(s, p);
	return p;
}

/*
 * With KASAN, an object is poisoned for as long as it is free, queued or
 * not: a use of it is caught while it waits. With software tags, @object is
 * the pointer it was last allocated as (a free keeps it; an allocation
 * gives it a new tag).
 */
void slqbt_expect_poisoned(struct kunit *test, void *object, bool poisoned)
{
#ifdef CONFIG_KASAN
	KUNIT_EXPECT_EQ_MSG(test, !kasan_byte_accessible(object), poisoned,
			    "object %p", object);
#endif
}

/* Allocate the nr objects of a struct slqb_test_ctx into its array. */
int slqbt_do_alloc(void *arg)
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

/* Free them. */
int slqbt_do_free(void *arg)
{
	struct slqb_test_ctx *ctx = arg;
	unsigned int i;

	for (i = 0; i < ctx->nr; i++)
		kmem_cache_free(ctx->s, ctx->objs[i]);
	return 0;
}

/* Allocate until this CPU's LIFO is empty, keeping what was allocated. */
int slqbt_do_empty_lifo(void *arg)
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

/* One trim pass over the cache, on this CPU. */
int slqbt_do_trim(void *arg)
{
	struct slqb_test_ctx *ctx = arg;

	slqb_test_trim(ctx->s);
	return 0;
}

/*
 * slab_mutex, which the cases that count objects on queues hold from their
 * first step to their last: the trim work takes it for its passes, so none
 * moves objects behind their backs. Each case takes and releases it itself.
 *
 * A failed assertion ends a case where it stands, and must not do so with
 * the lock held. Under the lock, slqbt_run_on() therefore records a step
 * that failed and skips the steps after it, and slqbt_unlock_slabs() ends
 * the case once the lock is released.
 */
static struct {
	bool held;
	int err;	/* of the first step that failed under the lock */
} slabs_locked;

void slqbt_lock_slabs(void)
{
	mutex_lock(&slab_mutex);
	slabs_locked.held = true;
	slabs_locked.err = 0;
}

/* Whether every step since slqbt_lock_slabs() succeeded. */
bool slqbt_locked_steps_ok(void)
{
	return !slabs_locked.err;
}

/*
 * Release slab_mutex; whether every step under it succeeded. For a case
 * that must undo something before it may end (the failed step was
 * reported already).
 */
bool slqbt_release_slabs(void)
{
	int err = slabs_locked.err;

	slabs_locked.held = false;
	mutex_unlock(&slab_mutex);
	return !err;
}

void slqbt_unlock_slabs(struct kunit *test)
{
	KUNIT_ASSERT_TRUE_MSG(test, slqbt_release_slabs(),
			      "a step under slab_mutex failed");
}

/* Run @fn(@arg) on @cpu; the case ends if it fails, see slabs_locked. */
void slqbt_run_on(struct kunit *test, int cpu, int (*fn)(void *), void *arg)
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
 * Allocate @ctx on @a with a busy window of @ticks for the cache, which
 * leaves the owner on @a allocating for that long; check that the misses
 * stamped it. Empty @a's LIFO into @rest. The caller holds slab_mutex, so
 * that the trim work leaves the queues alone.
 */
void slqbt_owner_allocates(struct kunit *test, int a, unsigned long ticks,
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
 * After each case, even one that an assertion ended: no fault injection
 * or watch is left on a cache that a later case could get at the same
 * address.
 */
void slqbt_exit(struct kunit *test)
{
	slqb_test_fail_new_slabs(NULL, 0);
	slqb_test_fail_orders(NULL, 0);
	slqb_test_fallback_node(NULL, NUMA_NO_NODE);
	slqb_test_watch_pages(NULL, NULL);
	slqb_test_busy_ticks(NULL, 0);
	slqb_test_pfmemalloc_slabs(NULL);
}

MODULE_LICENSE("GPL");
