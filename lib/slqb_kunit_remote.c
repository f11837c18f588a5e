// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite slqb_remote: objects freed on a CPU other than their owner.
 * They wait on the freeing CPU's rlist (or, on the owner's node, its LIFO),
 * are handed to the owner's remote queue in batches, and come back with
 * the owner's next allocation miss. A queue past its cap is claimed by its
 * owner at once; the cap is longer while the owner allocates, and what an
 * allocating owner was left with goes back once it stops.
 */

#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/mm.h>

#include "slqb_kunit.h"

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

/* slqbt_remote_cache() for two online CPUs of one node, @a and @b. */
static struct kmem_cache *same_node_cache(struct kunit *test, const char *name,
					  int *a, int *b)
{
	if (!cpus_on_one_node(a, b))
		kunit_skip(test, "needs two online CPUs on one node");
	return slqbt_short_cache(test, name);
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

/* CPUs @a and @a2 of one node with memory, and @b of another such node. */
static bool cpus_two_and_one(int *a, int *a2, int *b)
{
	int i, j, k;

	for_each_online_cpu(i)
		for_each_online_cpu(j)
			for_each_online_cpu(k)
				if (i != j && cpu_to_mem(i) == cpu_to_mem(j) &&
				    cpu_to_mem(k) != cpu_to_mem(i) &&
				    node_state(cpu_to_mem(i), N_NORMAL_MEMORY) &&
				    node_state(cpu_to_mem(k), N_NORMAL_MEMORY)) {
					*a = i;
					*a2 = j;
					*b = k;
					return true;
				}
	return false;
}

/*
 * B's rlist gathers for one owner at a time: B's first free of an object
 * of A2, with A's objects on the rlist, hands those over to A and starts
 * a batch for A2. Each owner's remote queue holds only its own objects.
 */
static void slqb_test_remote_free_owner_switch(struct kunit *test)
{
	struct slqb_test_ctx ca = { .objs = test_array(test), .nr = 3 };
	struct slqb_test_ctx ca2 = { .objs = test_array(test), .nr = 2 };
	struct slqb_test_ctx drain = { .objs = test_array(test) };
	struct slqb_test_ctx again = { .objs = test_array(test), .nr = 1 };
	struct kmem_cache_list *la, *la2;
	struct kmem_cache_cpu *cb;
	struct kmem_cache *s;
	int a, a2, b;

	if (!cpus_two_and_one(&a, &a2, &b))
		kunit_skip(test, "needs two online CPUs on one memory node and one on another");
	s = slqbt_short_cache(test, "slqb_test_remote_switch");
	ca.s = s;
	ca2.s = s;
	drain.s = s;
	again.s = s;
	la = cpu_list(s, a);
	la2 = cpu_list(s, a2);
	cb = cpu_of(s, b);
	KUNIT_ASSERT_GT(test, s->freebatch, ca.nr + ca2.nr);

	slqbt_lock_slabs();
	slqbt_run_on(test, a, slqbt_do_alloc, &ca);
	slqbt_run_on(test, a2, slqbt_do_alloc, &ca2);
	slqbt_run_on(test, b, slqbt_do_free, &ca);
	KUNIT_EXPECT_EQ(test, cb->rlist_nr, ca.nr);
	KUNIT_EXPECT_PTR_EQ(test, cb->rlist_target, la);
	slqbt_run_on(test, b, slqbt_do_free, &ca2);
	KUNIT_EXPECT_EQ(test, atomic_read(&la->remote_nr), (int)ca.nr);
	KUNIT_EXPECT_EQ(test, cb->rlist_nr, ca2.nr);
	KUNIT_EXPECT_PTR_EQ(test, cb->rlist_target, la2);
	KUNIT_EXPECT_EQ(test, atomic_read(&la2->remote_nr), 0);
	/* A's next miss claims its three, the last one freed first. */
	slqbt_run_on(test, a, slqbt_do_empty_lifo, &drain);
	slqbt_run_on(test, a, slqbt_do_alloc, &again);
	expect_same(test, again.objs[0], ca.objs[ca.nr - 1]);
	KUNIT_EXPECT_EQ(test, la->nr, ca.nr - 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&la->remote_nr), 0);
	slqbt_run_on(test, a, slqbt_do_free, &again);
	slqbt_run_on(test, a, slqbt_do_free, &drain);
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

	s = same_node_cache(test, "slqb_test_remote1", &a, &b);
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

	s = same_node_cache(test, "slqb_test_runs", &a, &b);
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

/* A push to a remote queue, and the owner's trim wake-up around it. */
struct push_wake {
	struct slqb_test_ctx ctx;
	int owner;
	bool before, after;
};

/*
 * On the freeing CPU: disarm the owner's wake-up, as its last pass would
 * have if it left nothing queued, then hand the LIFO's objects to their
 * owner with a trim pass.
 */
static int push_wake_fn(void *arg)
{
	struct push_wake *pw = arg;

	slqb_test_trim_wake_cancel(pw->owner);
	pw->before = slqb_test_trim_wake_armed(pw->owner);
	slqbt_do_trim(&pw->ctx);
	pw->after = slqb_test_trim_wake_armed(pw->owner);
	return 0;
}

/*
 * A CPU whose last trim pass left nothing queued has no wake-up armed, and
 * its periodic pass does not wake it from NOHZ idle. Objects pushed to its
 * remote queue after that pass would wait, each keeping a slab, until
 * something else woke it: the push that finds the queue empty arms the
 * wake-up. slab_mutex, held throughout, keeps the trim works out.
 */
static void slqb_test_push_wakes_owner(struct kunit *test)
{
	struct push_wake pw = { .ctx.objs = test_array(test) };
	struct kmem_cache *s;
	int a, b;

	s = same_node_cache(test, "slqb_test_push_wake", &a, &b);
	pw.ctx.s = s;
	pw.ctx.nr = s->freebatch;
	pw.owner = a;

	slqbt_lock_slabs();
	slqbt_run_on(test, a, slqbt_do_alloc, &pw.ctx);
	slqbt_run_on(test, b, slqbt_do_free, &pw.ctx);
	slqbt_run_on(test, b, push_wake_fn, &pw);
	KUNIT_EXPECT_FALSE(test, pw.before);
	KUNIT_EXPECT_EQ(test, atomic_read(&cpu_list(s, a)->remote_nr),
			(int)s->freebatch);
	KUNIT_EXPECT_TRUE(test, pw.after);
	slqbt_unlock_slabs(test);

	slqbt_destroy_empty(test, s);
}

static struct kunit_case slqb_remote_cases[] = {
	KUNIT_CASE(slqb_test_remote_free_cross_node),
	KUNIT_CASE(slqb_test_remote_free_owner_switch),
	KUNIT_CASE(slqb_test_remote_free_same_node),
	KUNIT_CASE(slqb_test_push_wakes_owner),
	KUNIT_CASE(slqb_test_remote_runs_by_owner),
	KUNIT_CASE(slqb_test_remote_cap),
	KUNIT_CASE(slqb_test_remote_cap_busy),
	KUNIT_CASE(slqb_test_long_lifo_flush),
	KUNIT_CASE(slqb_test_remote_cap_stopped),
	KUNIT_CASE(slqb_test_remote_cap_lifo_stopped),
	KUNIT_CASE(slqb_test_remote_claim_stopped),
	{}
};

static struct kunit_suite slqb_remote_suite = {
	.name = "slqb_remote",
	.exit = slqbt_exit,
	.test_cases = slqb_remote_cases,
};

kunit_test_suites(&slqb_remote_suite);
