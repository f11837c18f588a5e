// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite slqb_reserve: the empty slabs each node keeps for the next
 * refills, up to s->reserve, and what the claims for an allocating owner
 * keep past that bound: that it serves the owner's refills, and that the
 * cap timer, or the drain of a CPU that went offline, gives it back.
 */

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/nodemask.h>

#include "slqb_kunit.h"

static int node_reserve(struct kmem_cache *s, int cpu)
{
	return READ_ONCE(get_node(s, per_cpu(slqb_node, cpu))->list.nr_empty);
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
	KUNIT_EXPECT_GT(test, slqb_test_shrinker(ULONG_MAX), 0UL);
	KUNIT_EXPECT_EQ(test, total_slabs(s), 0L);
	kmem_cache_destroy(s);
}

/*
 * The claims of the cases below empty slabs only where a slab holds well
 * under a busy cap of objects (1024 with hiwater 32): 64 objects a slab
 * whatever the page size, as with 64-byte objects in 4K pages. With 64K
 * pages and 64-byte objects, a slab held a whole cap, every claim spread
 * over all of them, and none emptied.
 */
#define CLAIM_OBJ_SIZE	(PAGE_SIZE / 64)

static struct kmem_cache *claims_cache(struct kunit *test, const char *name)
{
	struct kmem_cache *s = slqbt_cache(test, name, CLAIM_OBJ_SIZE, 0, 0,
					   NULL);

	KUNIT_ASSERT_EQ(test, slqb_set_tunables(s, 32, 8), 0);
	KUNIT_ASSERT_LE(test, 8 * s->objects, slqb_busy_cap(s));
	return s;
}

/* A claims_cache() for CPUs @a and @b of two nodes; skips without them. */
static struct kmem_cache *claims_remote_cache(struct kunit *test,
					      const char *name, int *a, int *b)
{
	if (!slqbt_cpus_on_two_nodes(a, b))
		kunit_skip(test, "needs online CPUs on two memory nodes");
	return claims_cache(test, name);
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

	s = claims_remote_cache(test, "slqb_test_claim_reserve", &a, &b);
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

	s = claims_remote_cache(test, "slqb_test_claim_refill", &a, &b);
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

	s = claims_remote_cache(test, "slqb_test_reserve_busy", &a, &b);
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

	s = claims_remote_cache(test, "slqb_test_claim_off_node", &a, &b);
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
	s = claims_cache(test, "slqb_test_reserve_offline");
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

/* Objects of @ctx's cache on @node: see alloc_on_node(). */
struct node_objs {
	struct slqb_test_ctx ctx;
	int node;
};

/* Allocate ctx.nr objects on the node; ctx.nr says how many it got. */
static int alloc_on_node(void *arg)
{
	struct node_objs *o = arg;
	unsigned int i;

	for (i = 0; i < o->ctx.nr; i++) {
		o->ctx.objs[i] = slqbt_obj(o->ctx.s, o->node);
		if (!o->ctx.objs[i]) {
			o->ctx.nr = i;
			return -ENOMEM;
		}
	}
	return 0;
}

static int trim_all_step(void *arg)
{
	slqb_test_trim_all();
	return 0;
}

/* Whether @node is the local node of an online CPU (see slqb_node). */
static bool node_owned(int node)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (per_cpu(slqb_node, cpu) == node)
			return true;
	return false;
}

/*
 * A node with memory that stops being any online CPU's local node once its
 * own CPUs go offline: they are all hotpluggable, the first online CPU is
 * not one of them, and no other CPU has the node for its local node.
 */
static int node_to_empty_of_cpus(int first)
{
	int node, cpu;

	for_each_node_state(node, N_NORMAL_MEMORY) {
		bool ok = node != per_cpu(slqb_node, first) && nr_cpus_node(node);

		for_each_online_cpu(cpu) {
			if (cpu_to_node(cpu) == node)
				ok = ok && cpu != first && cpu_is_hotpluggable(cpu);
			else
				ok = ok && per_cpu(slqb_node, cpu) != node;
		}
		if (ok)
			return node;
	}
	return NUMA_NO_NODE;
}

/*
 * Remote frees fill the reserve of a node whose CPUs are all offline, and
 * no CPU trims it as its own node's: the first online CPU's pass halves it.
 * Here node B's CPUs go offline, and the first CPU allocates and frees
 * slabs of B, whose empty ones stay in B's reserve.
 */
static void slqb_test_cpuless_reserve(struct kunit *test)
{
	struct node_objs o = { .ctx.objs = test_array(test) };
	int first = cpumask_first(cpu_online_mask);
	int cpu, stuck = -1, before = 0, err = 0;
	cpumask_var_t offline;
	struct kmem_cache *s;

	o.node = node_to_empty_of_cpus(first);
	if (o.node == NUMA_NO_NODE)
		kunit_skip(test, "needs a node with memory and only hotpluggable CPUs");
	s = slqbt_cache(test, "slqb_test_cpuless_reserve", PAGE_SIZE / 16, 0,
			0, NULL);
	if (!zalloc_cpumask_var(&offline, GFP_KERNEL)) {
		kmem_cache_destroy(s);
		KUNIT_FAIL(test, "no memory for a cpumask");
		return;
	}
	for_each_cpu_and(cpu, cpumask_of_node(o.node), cpu_online_mask) {
		err = remove_cpu(cpu);
		if (err) {
			stuck = cpu;
			break;
		}
		cpumask_set_cpu(cpu, offline);
	}
	if (err || node_owned(o.node))
		goto online;

	o.ctx.s = s;
	o.ctx.nr = 2 * (s->reserve + 1) * s->objects;
	slqbt_lock_slabs();
	slqbt_run_on(test, first, alloc_on_node, &o);
	slqbt_run_on(test, first, slqbt_do_free, &o.ctx);
	/* The pass hands the remote list over: B's empty slabs go to B. */
	slqbt_run_on(test, first, slqbt_do_trim, &o.ctx);
	before = READ_ONCE(get_node(s, o.node)->list.nr_empty);
	if (!slqbt_release_slabs()) {
		/* What a failed allocation step got is freed. */
		slqbt_run_on(test, first, slqbt_do_free, &o.ctx);
		goto online;
	}
	KUNIT_EXPECT_EQ(test, before, (int)s->reserve);
	if (before) {
		slqbt_run_on(test, first, trim_all_step, NULL);
		KUNIT_EXPECT_LE(test,
				READ_ONCE(get_node(s, o.node)->list.nr_empty),
				before / 2);
	}
online:
	for_each_cpu(cpu, offline)
		KUNIT_EXPECT_EQ(test, add_cpu(cpu), 0);
	free_cpumask_var(offline);
	kmem_cache_destroy(s);
	if (err)
		kunit_skip(test, "CPU %d did not go offline: %d", stuck, err);
	KUNIT_EXPECT_GT_MSG(test, before, 0,
			    "node %d is still an online CPU's local node",
			    o.node);
}

static struct kunit_case slqb_reserve_cases[] = {
	KUNIT_CASE(slqb_test_reserve),
	KUNIT_CASE(slqb_test_remote_claim_reserve),
	KUNIT_CASE(slqb_test_remote_claim_refill),
	KUNIT_CASE(slqb_test_remote_reserve_busy),
	KUNIT_CASE(slqb_test_cpuless_reserve),
	KUNIT_CASE(slqb_test_remote_claim_off_node),
	KUNIT_CASE(slqb_test_remote_reserve_offline),
	{}
};

static struct kunit_suite slqb_reserve_suite = {
	.name = "slqb_reserve",
	.exit = slqbt_exit,
	.test_cases = slqb_reserve_cases,
};

kunit_test_suites(&slqb_reserve_suite);
