// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite slqb_trim: how queued objects and empty slabs go back.
 * Shrinking a cache and SLQB's shrinker empty every queue; a cache with a
 * live object refuses to shut down; the periodic trim takes a batch from a
 * LIFO in use and the whole of an idle one, halves the node's reserve,
 * wakes an idle CPU that still queues objects, and waits for slab_mutex
 * rather than skip a pass; a CPU going offline loses no object.
 */

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/lockdep.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/workqueue.h>

#include "slqb_kunit.h"

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

/*
 * Objects of @s on queues (LIFOs, stashes, rlists, remote queues), as the
 * sysfs file queued counts them, and one more for a remote queue whose
 * count has not caught up with its head: a queue counts as empty only once
 * it is.
 */
static long queued_objects(struct kmem_cache *s)
{
	long nr = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct kmem_cache_cpu *c = cpu_of(s, cpu);

		nr += c->list.nr + c->rlist_nr + c->stash.nr +
		      max(atomic_read(&c->list.remote_nr), 0);
		if (c->list.remote_head)
			nr++;
	}
	return nr;
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
	KUNIT_EXPECT_GE(test, slqb_test_shrinker(0),
			(unsigned long)queued_objects(s));
	KUNIT_EXPECT_GT(test, slqb_test_shrinker(ULONG_MAX), 0UL);
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

static int do_alloc_one(void *arg)
{
	struct slqb_test_ctx *ctx = arg;

	ctx->objs[0] = slqbt_obj(ctx->s, NUMA_NO_NODE);
	return ctx->objs[0] ? 0 : -ENOMEM;
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

/* Queue hiwater objects of @s on this CPU's LIFO. */
static void fill_lifo_of(struct kunit *test, struct kmem_cache *s,
			 void **objs)
{
	unsigned int i, n = s->hiwater;

	for (i = 0; i < n; i++) {
		objs[i] = slqbt_obj(s, NUMA_NO_NODE);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	for (i = 0; i < n; i++)
		kmem_cache_free(s, objs[i]);
}

/*
 * A scan of the shrinker gives back what it was asked for, not everything:
 * it drains the caches, newest first, until it has freed nr_to_scan
 * objects. Asked for one, it drains the newest cache that queues objects
 * and leaves an older one alone; asked for all, it drains both.
 */
static void slqb_test_shrinker_nr_to_scan(struct kunit *test)
{
	void **objs = test_array(test);
	struct kmem_cache *older, *newer;

	older = slqbt_cache(test, "slqb_test_shrink_old", TEST_OBJ_SIZE, 0, 0,
			    NULL);
	newer = slqbt_cache(test, "slqb_test_shrink_new", TEST_OBJ_SIZE, 0, 0,
			    NULL);
	fill_lifo_of(test, older, objs);
	fill_lifo_of(test, newer, objs);
	KUNIT_ASSERT_GT(test, queued_objects(older), 0L);
	KUNIT_ASSERT_GT(test, queued_objects(newer), 0L);

	KUNIT_EXPECT_GE(test, slqb_test_shrinker(1), 1UL);
	KUNIT_EXPECT_EQ(test, queued_objects(newer), 0L);
	KUNIT_EXPECT_GT(test, queued_objects(older), 0L);

	KUNIT_EXPECT_GT(test, slqb_test_shrinker(ULONG_MAX), 0UL);
	KUNIT_EXPECT_EQ(test, queued_objects(older), 0L);
	kmem_cache_destroy(newer);
	kmem_cache_destroy(older);
}

static struct kunit_case slqb_trim_cases[] = {
	KUNIT_CASE(slqb_test_empty_slabs_freed),
	KUNIT_CASE(slqb_test_shrink_empties_queues),
	KUNIT_CASE(slqb_test_shrinker_drains),
	KUNIT_CASE(slqb_test_shrinker_nr_to_scan),
	KUNIT_CASE(slqb_test_shutdown_busy),
	KUNIT_CASE(slqb_test_trim_idle),
	KUNIT_CASE(slqb_test_trim_wakes_idle),
	KUNIT_CASE(slqb_test_trim_contended),
	KUNIT_CASE(slqb_test_cpu_offline),
	{}
};

static struct kunit_suite slqb_trim_suite = {
	.name = "slqb_trim",
	.exit = slqbt_exit,
	.test_cases = slqb_trim_cases,
};

kunit_test_suites(&slqb_trim_suite);
