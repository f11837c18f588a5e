// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite slqb_node: allocations for a node. kmem_cache_alloc_node()
 * returns memory of the node asked for; a node without memory is no node;
 * a request for another node tries it first without reclaim;
 * __GFP_THISNODE holds even when the LIFO has another node's objects; a
 * CPU's allocations for a node take that node's lock once a batch; and bulk
 * frees that mix nodes and caches give every object back.
 */

#include <linux/kfence.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/topology.h>

#include "slqb_kunit.h"

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
 * A cache for a case that needs online CPUs @a and @b on two memory nodes;
 * the case is skipped where there are none.
 */
static struct kmem_cache *two_node_cache(struct kunit *test, const char *name,
					 int *a, int *b)
{
	if (!slqbt_cpus_on_two_nodes(a, b))
		kunit_skip(test, "needs online CPUs on two memory nodes");
	return slqbt_cache(test, name, TEST_OBJ_SIZE, 0, 0, NULL);
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

	s = two_node_cache(test, "slqb_test_node_try", &a, &b);
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

	s = two_node_cache(test, "slqb_test_thisnode", &a, &b);
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

struct stash_ctx {
	struct kmem_cache *s;
	int far, near;
	void *objs[6];
	unsigned int stash_nr[6];
	int stash_node[6];
};

static void stash_step(struct stash_ctx *ctx, int i, int node, gfp_t gfp)
{
	struct kmem_cache_cpu *c = raw_cpu_ptr(ctx->s->cpu_slab);

	ctx->objs[i] = slqbt_obj_gfp(ctx->s, gfp, node);
	ctx->stash_nr[i] = c->stash.nr;
	ctx->stash_node[i] = c->stash.node;
}

static int do_stash_allocs(void *arg)
{
	struct stash_ctx *ctx = arg;
	int i;

	for (i = 0; i < 4; i++)
		stash_step(ctx, i, ctx->far, GFP_KERNEL);
	stash_step(ctx, 4, ctx->near, GFP_KERNEL | __GFP_THISNODE);
	stash_step(ctx, 5, ctx->far, GFP_KERNEL);
	return 0;
}

/*
 * Allocations for another node take the rest of one of its slabs onto the
 * CPU's stash under the node's lock, all of it where it fits under hiwater
 * (freebatch is set well below a slab here), and the next ones pop it; a
 * request for a different node gives the stash back to its slab first,
 * never takes an object of it, and a shrink empties it. The stash of a
 * slab larger than hiwater is slqb_test_stash_pop_aba()'s.
 */
static void slqb_test_node_stash(struct kunit *test)
{
	struct stash_ctx ctx = {};
	unsigned int whole;
	struct kmem_cache *s;
	struct slab *slab;
	int a, b, i;

	s = two_node_cache(test, "slqb_test_stash", &a, &b);
	KUNIT_ASSERT_GE(test, s->objects, 16U);
	KUNIT_ASSERT_EQ(test, slqb_set_tunables(s, s->objects, 8), 0);
	ctx.s = s;
	ctx.near = cpu_to_mem(a);
	ctx.far = cpu_to_mem(b);
	whole = s->objects - 1;

	slqbt_run_on(test, a, do_stash_allocs, &ctx);
	for (i = 0; i < 5; i++)
		KUNIT_ASSERT_NOT_NULL(test, ctx.objs[i]);
	slab = virt_to_slab(ctx.objs[0]);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, ctx.stash_nr[i], whole - i);
		KUNIT_EXPECT_EQ(test, ctx.stash_node[i], ctx.far);
		KUNIT_EXPECT_PTR_EQ(test, virt_to_slab(ctx.objs[i]), slab);
	}
	KUNIT_EXPECT_EQ(test, slab_nid(slab), ctx.far);
	/* The far node's stash went back before the near node's batch. */
	KUNIT_EXPECT_EQ(test, ctx.stash_nr[4], whole);
	KUNIT_EXPECT_EQ(test, ctx.stash_node[4], ctx.near);
	KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(ctx.objs[4])), ctx.near);
	/* Back to the far node: its slab again, with the near stash back. */
	KUNIT_EXPECT_PTR_EQ(test, virt_to_slab(ctx.objs[5]), slab);
	KUNIT_EXPECT_EQ(test, ctx.stash_node[5], ctx.far);
	KUNIT_EXPECT_EQ(test, ctx.stash_nr[5], whole - 4);
	KUNIT_EXPECT_EQ(test, slab->inuse, s->objects);

	kmem_cache_shrink(s);
	KUNIT_EXPECT_EQ(test, cpu_of(s, a)->stash.nr, 0U);
	KUNIT_EXPECT_NULL(test, cpu_of(s, a)->stash.head);
	KUNIT_EXPECT_EQ(test, slab->inuse, 5U);
	KUNIT_EXPECT_EQ(test, in_use(s), 6L);
	for (i = 0; i < 6; i++)
		kmem_cache_free(s, ctx.objs[i]);
	slqbt_destroy_empty(test, s);
}

struct stash_aba {
	struct kmem_cache *s;
	int far, near;
	void *y;	/* the far slab's first object: it filled the stash */
	void *a, *b;	/* the stash's first two objects */
	void *z[3];	/* the "interrupt's" objects of the near node */
	void *w;	/* its last allocation for the far node */
	void *popped;	/* what the interrupted pop returned */
	void *p;	/* the next allocation for the far node */
	unsigned int nr, nr_again;	/* the stash's length, before and after */
};

/*
 * Stands for an interrupt between the reads and the exchange of a lockless
 * pop of the stash [a, b, c, ...], and changes it with refills and flushes
 * alone, no pop: requests for the near node send the stash back to the far
 * slab, and the requests for the far node after them take its first free
 * object, a and then b, and stash the next ones. It frees a and then b,
 * and asks for the far node once more: that refill hands out b and
 * stashes a, c, ... The head and the length are back, but the head's
 * successor is no longer the one the pop read.
 */
static void interrupt_stash_aba(void *arg)
{
	struct stash_aba *aba = arg;
	struct kmem_cache *s = aba->s;
	gfp_t near = GFP_ATOMIC | __GFP_THISNODE;

	aba->z[0] = slqbt_obj_gfp(s, near, aba->near);
	aba->a = slqbt_obj_gfp(s, GFP_ATOMIC, aba->far);
	aba->z[1] = slqbt_obj_gfp(s, near, aba->near);
	aba->b = slqbt_obj_gfp(s, GFP_ATOMIC, aba->far);
	aba->z[2] = slqbt_obj_gfp(s, near, aba->near);
	if (!aba->a || !aba->b)
		return;
	kmem_cache_free(s, aba->a);
	kmem_cache_free(s, aba->b);
	aba->w = slqbt_obj_gfp(s, GFP_ATOMIC, aba->far);
	aba->nr_again = raw_cpu_ptr(s->cpu_slab)->stash.nr;
}

/* Runs on one CPU, whose stash the whole case is about. */
static int stash_aba_fn(void *arg)
{
	struct stash_aba *aba = arg;

	aba->y = slqbt_obj(aba->s, aba->far);
	if (!aba->y)
		return 0;
	aba->nr = raw_cpu_ptr(aba->s->cpu_slab)->stash.nr;
	aba->popped = slqb_test_interrupted_pop(aba->s, aba->far,
						interrupt_stash_aba, aba);
	if (IS_ERR(aba->popped) && PTR_ERR(aba->popped) == -EOPNOTSUPP)
		return 0;
	aba->p = slqbt_obj(aba->s, aba->far);
	return 0;
}

static bool same_object(const void *x, const void *y)
{
	return kasan_reset_tag(x) == kasan_reset_tag(y);
}

/* Free what the case holds; a broken pop hands an object out twice. */
static void stash_aba_free(struct kmem_cache *s, struct stash_aba *aba)
{
	void *objs[] = { aba->y, aba->z[0], aba->z[1], aba->z[2], aba->w,
			 aba->p, IS_ERR(aba->popped) ? NULL : aba->popped };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		for (j = 0; j < i; j++)
			if (objs[j] && same_object(objs[j], objs[i]))
				break;
		if (objs[i] && j == i)
			kmem_cache_free(s, objs[i]);
	}
}

/*
 * A lockless pop of the stash whose stash changed under it must not take
 * its object, even when the head and the length came back: it would make
 * an allocated object (b) the head. Flushes and refills must tell the pop
 * so, as pops do: here nothing else changes the stash.
 */
static void slqb_test_stash_pop_aba(struct kunit *test)
{
	struct stash_aba aba = {};
	struct kmem_cache *s;
	int a, b;

	s = two_node_cache(test, "slqb_test_stash_aba", &a, &b);
	/* A slab past hiwater, batches of 8: every refill stashes 7. */
	KUNIT_ASSERT_GE(test, s->objects, 32U);
	KUNIT_ASSERT_EQ(test, slqb_set_tunables(s, 16, 8), 0);
	aba.s = s;
	aba.near = cpu_to_mem(a);
	aba.far = cpu_to_mem(b);
	slqbt_run_on(test, a, stash_aba_fn, &aba);
	if (aba.popped == ERR_PTR(-EOPNOTSUPP)) {
		if (aba.y)
			kmem_cache_free(s, aba.y);
		kmem_cache_destroy(s);
		kunit_skip(test, "no lockless pop on this CPU");
	}
	KUNIT_ASSERT_NOT_NULL(test, aba.y);
	KUNIT_EXPECT_NOT_NULL(test, aba.w);
	KUNIT_EXPECT_NOT_NULL(test, aba.p);
	/* The premise: the refill gave b out and the stash its length back. */
	KUNIT_EXPECT_TRUE(test, same_object(aba.w, aba.b));
	KUNIT_EXPECT_EQ(test, aba.nr_again, aba.nr);
	KUNIT_EXPECT_EQ(test, aba.nr, 7U);
	/* Not NULL, which would say that the pop found the stash empty. */
	KUNIT_EXPECT_PTR_EQ(test, aba.popped, ERR_PTR(-EAGAIN));
	/* The stash is the one the "interrupt" left: a first, not b. */
	KUNIT_EXPECT_TRUE(test, same_object(aba.p, aba.a));
	KUNIT_EXPECT_FALSE(test, same_object(aba.p, aba.b));
	stash_aba_free(s, &aba);
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

static struct kunit_case slqb_node_cases[] = {
	KUNIT_CASE(slqb_test_alloc_node),
	KUNIT_CASE(slqb_test_thisnode_no_memory),
	KUNIT_CASE(slqb_test_node_try_first),
	KUNIT_CASE(slqb_test_thisnode_lifo),
	KUNIT_CASE(slqb_test_node_stash),
	KUNIT_CASE(slqb_test_stash_pop_aba),
	KUNIT_CASE(slqb_test_bulk_free_mixed),
	{}
};

static struct kunit_suite slqb_node_suite = {
	.name = "slqb_node",
	.exit = slqbt_exit,
	.test_cases = slqb_node_cases,
};

kunit_test_suites(&slqb_node_suite);
