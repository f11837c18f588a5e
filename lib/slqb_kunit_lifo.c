// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite slqb_lifo: each CPU's LIFO of free objects. What a CPU frees
 * it allocates next; past hiwater a free flushes freebatch objects, from
 * the cold end or, for large objects, from next to the head; the default
 * hiwater is a byte budget; a double free at the head is caught;
 * a LIFO refilled, or a remote queue filled, during the page allocation of
 * a refill leaves the new slab in use; and a lockless pop loses to any
 * change of the LIFO under it; a refill that sees the tunables half
 * written stays inside the slab.
 */

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kfence.h>
#include <linux/smp.h>

#include "slqb_kunit.h"

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
	void *head, *next;		/* the LIFO's first two after it */
};

/*
 * Free objects one by one onto an empty LIFO and record the first flush:
 * its size, place and the head it left.
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
			fc->head = l->freelist;
			fc->next = get_freepointer(s, kasan_reset_tag(fc->head));
		}
	}
	slqbt_do_free(&fc->rest);
	return 0;
}

/*
 * The free that takes a LIFO past hiwater flushes freebatch objects from
 * it, and only that free: the LIFO goes from hiwater to hiwater + 1 -
 * freebatch. The object freed last stays its head. Small objects go from
 * the cold end, so the one freed before it comes next; objects of
 * SLQB_HOT_FLUSH_SIZE and more go from next to the head, so the one freed
 * freebatch + 1 frees before it comes next.
 */
static void slqb_test_flush_batch(struct kunit *test)
{
	static const unsigned int sizes[] = { TEST_OBJ_SIZE, SLQB_HOT_FLUSH_SIZE };
	struct flush_ctx fc = { .objs.objs = test_array(test),
				.rest.objs = test_array(test) };
	struct kmem_cache *s;
	unsigned int i, next;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		s = slqbt_cache(test, "slqb_test_flush", sizes[i], 0, 0, NULL);
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
		expect_same(test, fc.head, fc.objs.objs[s->hiwater]);
		next = s->hiwater - 1;
		if (s->size >= SLQB_HOT_FLUSH_SIZE)
			next -= s->freebatch;
		expect_same(test, fc.next, fc.objs.objs[next]);
		slqbt_destroy_empty(test, s);
	}
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

/* The ways of freeing an object twice in a row that SLQB must catch. */
enum double_free_how {
	FREE_TWICE,		/* kmem_cache_free() twice */
	FREE_THEN_BULK,		/* kmem_cache_free(), then in a bulk free */
	BULK_TWICE,		/* twice in one bulk free's array */
};

struct double_free_ctx {
	struct slqb_test_ctx c;
	enum double_free_how how;
	unsigned int extra;	/* objects the second free queued */
	bool fill;		/* first fill the LIFO to hiwater */
	bool at_hiwater;	/* it was, before the first free */
	struct slqb_test_ctx held;	/* what filled it */
};

static int double_free_fn(void *arg)
{
	struct double_free_ctx *d = arg;
	struct kmem_cache *s = d->c.s;
	struct kmem_cache_list *l = cpu_list(s, smp_processor_id());
	unsigned int nr, i = 0;
	void *p, *twice[2];
	int err;

	if (d->fill) {
		d->held.s = s;
		d->held.nr = s->hiwater;
		err = slqbt_do_alloc(&d->held);
		if (err)
			return err;
	}
	p = slqbt_obj(s, NUMA_NO_NODE);
	if (!p)
		return -ENOMEM;
	/* With fill, the LIFO at hiwater: the first free of p flushes. */
	for (; d->fill && l->nr < s->hiwater && i < d->held.nr; i++)
		kmem_cache_free(s, d->held.objs[i]);
	d->at_hiwater = l->nr == s->hiwater;
	twice[0] = p;
	twice[1] = p;
	if (d->how == BULK_TWICE) {
		nr = l->nr + 1;
		kmem_cache_free_bulk(s, 2, twice);
	} else {
		kmem_cache_free(s, p);
		nr = l->nr;
		if (d->how == FREE_TWICE)
			kmem_cache_free(s, p);
		else
			kmem_cache_free_bulk(s, 1, twice);
	}
	d->extra = l->nr - nr;
	d->c.objs[0] = p;
	d->c.objs[1] = slqbt_obj(s, NUMA_NO_NODE);
	d->c.objs[2] = slqbt_obj(s, NUMA_NO_NODE);
	for (; i < d->held.nr; i++)
		kmem_cache_free(s, d->held.objs[i]);
	d->held.nr = 0;
	return 0;
}

/*
 * Freeing an object twice in a row, one free after the other, a free and
 * then a bulk free, or both in one bulk free, is reported and the second
 * free is dropped: the next two allocations do not both get the object.
 * So too when the first free flushed the LIFO, for small objects (from
 * the cold end) and large ones (from next to the head, which stays).
 */
static void slqb_test_double_free(struct kunit *test)
{
	static const unsigned int sizes[] = { TEST_OBJ_SIZE, TEST_OBJ_SIZE,
					      SLQB_HOT_FLUSH_SIZE };
	struct double_free_ctx d = { .c.objs = test_array(test),
				     .held.objs = test_array(test) };
	void **objs = d.c.objs;
	unsigned int k;

	if (!IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED))
		kunit_skip(test, "the check needs CONFIG_SLAB_FREELIST_HARDENED");
	if (IS_ENABLED(CONFIG_KASAN))
		kunit_skip(test, "KASAN reports it (kasan_test's kmem_cache_double_free)");
	kunit_info(test, "nine double free reports follow, on purpose");
	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		d.c.s = slqbt_cache(test, "slqb_test_double_free", sizes[k],
				    0, 0, NULL);
		d.fill = k > 0;
		slqbt_lock_slabs();
		for (d.how = FREE_TWICE; d.how <= BULK_TWICE; d.how++) {
			slqbt_run_on(test, 0, double_free_fn, &d);
			KUNIT_EXPECT_TRUE_MSG(test, !d.fill || d.at_hiwater,
					      "size %u way %d", sizes[k], d.how);
			KUNIT_EXPECT_PTR_NE_MSG(test, kasan_reset_tag(objs[2]),
						kasan_reset_tag(objs[1]),
						"size %u way %d", sizes[k], d.how);
			/*
			 * But for a bulk free that flushes, which may send its
			 * objects home at once, the object is the head.
			 */
			if (!d.fill || d.how != BULK_TWICE) {
				KUNIT_EXPECT_EQ_MSG(test, d.extra, 0U,
						    "size %u way %d", sizes[k],
						    d.how);
				expect_same(test, objs[1], objs[0]);
			}
			kmem_cache_free(d.c.s, objs[1]);
			if (objs[2] != objs[1])
				kmem_cache_free(d.c.s, objs[2]);
		}
		slqbt_unlock_slabs(test);
		slqbt_destroy_empty(test, d.c.s);
	}
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

struct new_whole_ctx {
	struct slqb_test_ctx held;
	struct slab *slab;
	unsigned int lifo, partial, inuse;
	long owned;
	bool on_lifo;
};

/*
 * Allocate the first object of a new cache on this CPU, and record the
 * LIFO, the new slab and who owns it; then allocate the slab's other
 * objects into @held.
 */
static int alloc_new_whole(void *arg)
{
	struct new_whole_ctx *ctx = arg;
	struct kmem_cache *s = ctx->held.s;
	struct kmem_cache_list *l = cpu_list(s, smp_processor_id());
	void *first = slqbt_obj(s, NUMA_NO_NODE);

	if (!first)
		return -ENOMEM;
	ctx->held.objs[0] = first;
	ctx->slab = virt_to_slab(first);
	ctx->lifo = l->nr;
	ctx->partial = l->nr_partial;
	ctx->inuse = ctx->slab->inuse;
	ctx->owned = atomic_long_read(&l->nr_slabs);
	ctx->on_lifo = READ_ONCE(ctx->slab->list) == l && !ctx->slab->freelist;
	ctx->held.objs++;
	ctx->held.nr--;
	return slqbt_do_alloc(&ctx->held);
}

/*
 * A new slab whose objects fit under hiwater goes onto the empty LIFO
 * whole: this CPU's list owns it full, it is on no partial list, and the
 * LIFO serves its other objects, with no other slab.
 */
static void slqb_test_new_slab_whole(struct kunit *test)
{
	struct new_whole_ctx ctx = { .held.objs = test_array(test) };
	void **objs = ctx.held.objs;
	struct kmem_cache *s;
	unsigned int i;

	s = slqbt_cache(test, "slqb_test_new_whole", PAGE_SIZE / 16, 0, 0,
			NULL);
	KUNIT_ASSERT_EQ(test, slqb_set_tunables(s, 2 * s->objects, 8), 0);
	ctx.held.s = s;
	ctx.held.nr = s->objects;
	slqbt_lock_slabs();
	slqbt_run_on(test, 0, alloc_new_whole, &ctx);
	slqbt_unlock_slabs(test);
	KUNIT_EXPECT_EQ(test, ctx.lifo, s->objects - 1);
	KUNIT_EXPECT_EQ(test, ctx.partial, 0U);
	KUNIT_EXPECT_EQ(test, ctx.inuse, s->objects);
	KUNIT_EXPECT_EQ(test, ctx.owned, 1L);
	KUNIT_EXPECT_TRUE(test, ctx.on_lifo);
	KUNIT_EXPECT_EQ(test, total_slabs(s), 1L);
	for (i = 0; i < s->objects; i++)
		KUNIT_EXPECT_PTR_EQ(test, virt_to_slab(objs[i]), ctx.slab);
	ctx.held.objs = objs;
	ctx.held.nr = s->objects;
	slqbt_run_on(test, 0, slqbt_do_free, &ctx.held);
	slqbt_destroy_empty(test, s);
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
	aba->popped = slqb_test_interrupted_pop(aba->s, NUMA_NO_NODE,
						interrupt_aba, aba);
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
 * What boot should have decided (slqb_init_lockless_pop()): the lockless
 * pop is on wherever the CPU has the two-word exchange and debug_pagealloc
 * is off.
 */
static bool lockless_pop_expected(void)
{
#if defined(CONFIG_64BIT) && defined(CONFIG_HAVE_CMPXCHG_DOUBLE)
	return system_has_cmpxchg_double() && !debug_pagealloc_enabled();
#else
	return false;
#endif
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
		/* A skip would hide the failure: fail and end instead. */
		if (lockless_pop_expected()) {
			KUNIT_FAIL(test, "boot left the lockless pop off; the CPU can do it");
			return;
		}
		kunit_skip(test, "no lockless pop on this CPU");
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
 * slqb_set_tunables() stores hiwater and freebatch one after the other. A
 * refill that reads them in between, hiwater lowered and freebatch not yet,
 * must still take no more objects than the slab has free: the objects it
 * hands out are those of the slab, each once, and nothing crashes.
 */
static void slqb_test_torn_tunables(struct kunit *test)
{
	struct slqb_test_ctx ctx = { .objs = test_array(test) };
	unsigned int hiwater, batch, i, j;
	struct kmem_cache *s;

	s = slqbt_cache(test, "slqb_test_torn", TEST_OBJ_SIZE, 0, 0, NULL);
	ctx.s = s;
	ctx.nr = s->objects;
	KUNIT_ASSERT_GT(test, ctx.nr, SLQB_MIN_HIWATER);
	KUNIT_ASSERT_LE(test, ctx.nr, TEST_MAX_OBJS);
	hiwater = s->hiwater;
	batch = s->freebatch;
	/* The pair a reader sees half-way through a write of both. */
	WRITE_ONCE(s->hiwater, SLQB_MIN_HIWATER);
	WRITE_ONCE(s->freebatch, 2 * ctx.nr);
	slqbt_run_on(test, raw_smp_processor_id(), slqbt_do_alloc, &ctx);
	WRITE_ONCE(s->freebatch, batch);
	WRITE_ONCE(s->hiwater, hiwater);

	KUNIT_EXPECT_EQ(test, in_use(s), (long)ctx.nr);
	for (i = 0; i < ctx.nr; i++)
		for (j = 0; j < i; j++)
			KUNIT_ASSERT_PTR_NE(test, kasan_reset_tag(ctx.objs[i]),
					    kasan_reset_tag(ctx.objs[j]));
	kmem_cache_free_bulk(s, ctx.nr, ctx.objs);
	slqbt_destroy_empty(test, s);
}

static struct kunit_case slqb_lifo_cases[] = {
	KUNIT_CASE(slqb_test_lifo_reuse),
	KUNIT_CASE(slqb_test_flush_batch),
	KUNIT_CASE(slqb_test_queue_budget),
	KUNIT_CASE(slqb_test_double_free),
	KUNIT_CASE(slqb_test_new_slab_refilled),
	KUNIT_CASE(slqb_test_new_slab_remote_push),
	KUNIT_CASE(slqb_test_new_slab_whole),
	KUNIT_CASE(slqb_test_lockless_pop_aba),
	KUNIT_CASE(slqb_test_lockless_pop_aba_bulk),
	KUNIT_CASE(slqb_test_torn_tunables),
	{}
};

static struct kunit_suite slqb_lifo_suite = {
	.name = "slqb_lifo",
	.exit = slqbt_exit,
	.test_cases = slqb_lifo_cases,
};

kunit_test_suites(&slqb_lifo_suite);
