// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite slqb_slab: slabs and the page allocator. Where the free
 * pointer lies in an object, the order of a new slab's free objects, the
 * orders of slabs of large objects and the fallback to a smaller one, the
 * flags and interrupt state of page allocations, the report of an
 * allocation that gets no slab, the slabs of the emergency reserves, and
 * object counts that never read as a page type.
 */

#include <linux/kfence.h>
#include <linux/mm.h>
#include <linux/sizes.h>

#include "slqb_kunit.h"

/*
 * Overwrites the word at @where of the free object @object, checks that
 * @object's free pointer did not change, and puts the word back.
 */
static void overwrite_word(struct kunit *test, struct kmem_cache *s,
			   void *object, unsigned int where)
{
	unsigned long *word = kasan_reset_tag(object) + where;
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

static unsigned int slab_order_of(void *p)
{
	return folio_order(slab_folio(virt_to_slab(p)));
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
 * The larger order is had only if it is free now: asked for without direct
 * reclaim, without waking kswapd and never from the emergency reserves,
 * whatever the caller allows. The fallback to the smallest order is asked
 * for with the caller's own flags.
 */
static void slqb_test_large_order_flags(struct kunit *test)
{
	struct slqb_test_watch w = {};
	struct kmem_cache *s;
	void *p, *q;

	s = slqbt_cache(test, "slqb_test_order_gfp", PAGE_SIZE, 0, 0, NULL);
	KUNIT_ASSERT_GT(test, s->order, s->min_order);
	slqb_test_watch_pages(s, &w);
	p = slqbt_obj(s, NUMA_NO_NODE);
	slqb_test_watch_pages(NULL, NULL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_GE(test, w.calls, 1U);
	KUNIT_EXPECT_FALSE(test, w.first_flags & __GFP_DIRECT_RECLAIM);
	KUNIT_EXPECT_FALSE(test, w.first_flags & __GFP_KSWAPD_RECLAIM);
	KUNIT_EXPECT_FALSE(test, w.first_flags & __GFP_NOFAIL);
	KUNIT_EXPECT_TRUE(test, w.first_flags & __GFP_NOMEMALLOC);
	KUNIT_EXPECT_TRUE(test, w.first_flags & __GFP_NOWARN);

	/* A fresh cache: its first slab comes from the fallback. */
	kmem_cache_free(s, p);
	slqbt_destroy_empty(test, s);
	s = slqbt_cache(test, "slqb_test_order_gfp", PAGE_SIZE, 0, 0, NULL);
	memset(&w, 0, sizeof(w));
	slqb_test_fail_orders(s, s->min_order + 1);
	slqb_test_watch_pages(s, &w);
	q = slqbt_obj(s, NUMA_NO_NODE);
	slqb_test_watch_pages(NULL, NULL);
	slqb_test_fail_orders(NULL, 0);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, w.calls, 2U);
	KUNIT_EXPECT_TRUE(test, w.last_flags & __GFP_DIRECT_RECLAIM);
	KUNIT_EXPECT_TRUE(test, w.last_flags & __GFP_KSWAPD_RECLAIM);
	KUNIT_EXPECT_FALSE(test, w.last_flags & __GFP_NOMEMALLOC);
	kmem_cache_free(s, q);
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

static bool from_reserves(void *object)
{
	return slab_test_pfmemalloc(virt_to_slab(object));
}

struct pfmemalloc_ctx {
	struct kmem_cache *s;
	void **objs;
	unsigned int nr;
	void *first;		/* an entitled caller's objects... */
	void *kept;		/* ...the second one still in use */
	void *after_free;	/* an ordinary one after first was freed */
	int bulk;		/* what the bulk allocation returned */
};

/*
 * The steps on one CPU; the test checks what they got. objs[0..2] are
 * ordinary allocations: from a refill, after an entitled caller freed an
 * object of the emergency slab here, and from the node's list.
 */
static int pfmemalloc_fn(void *arg)
{
	struct pfmemalloc_ctx *ctx = arg;
	struct kmem_cache *s = ctx->s;
	gfp_t plain = GFP_KERNEL | __GFP_NOMEMALLOC;

	/* A caller entitled to the reserves, and a slab made of them. */
	slqb_test_pfmemalloc_slabs(s);
	ctx->first = slqbt_obj_gfp(s, GFP_KERNEL | __GFP_MEMALLOC, NUMA_NO_NODE);
	slqb_test_pfmemalloc_slabs(NULL);
	if (!ctx->first)
		return -ENOMEM;
	/* The next entitled caller takes from it, not from a new slab. */
	ctx->kept = slqbt_obj_gfp(s, GFP_KERNEL | __GFP_MEMALLOC, NUMA_NO_NODE);
	ctx->objs[0] = slqbt_obj_gfp(s, plain, NUMA_NO_NODE);
	kmem_cache_free(s, ctx->first);
	ctx->objs[1] = slqbt_obj_gfp(s, plain, NUMA_NO_NODE);
	ctx->objs[2] = slqbt_obj_gfp(s, plain | __GFP_THISNODE, slqb_local_node());
	ctx->bulk = kmem_cache_alloc_bulk(s, plain, ctx->nr - 3, ctx->objs + 3);
	return 0;
}

/*
 * A slab made from the emergency reserves (page_is_pfmemalloc()) serves
 * only callers that gfp_pfmemalloc_allowed() entitles to them, on every
 * path: an ordinary caller gets none of its objects, from a LIFO, from the
 * node's list or in bulk, even after an entitled caller freed one of them
 * on the same CPU; and once it is empty it goes back to the page allocator,
 * not to the reserve of empty slabs. Else the reserves drain into the rest
 * of the kernel, and an skb that did not ask for them (kmalloc_reserve())
 * gets them unmarked.
 */
static void slqb_test_pfmemalloc(struct kunit *test)
{
	struct pfmemalloc_ctx ctx = { .objs = test_array(test) };
	unsigned int i;

	ctx.s = slqbt_cache(test, "slqb_test_pfmemalloc", TEST_OBJ_SIZE, 0, 0,
			    NULL);
	ctx.nr = min_t(unsigned int, 2 * ctx.s->objects + 3, TEST_MAX_OBJS);
	slqbt_run_on(test, raw_smp_processor_id(), pfmemalloc_fn, &ctx);
	KUNIT_ASSERT_NOT_NULL(test, ctx.kept);
	KUNIT_EXPECT_TRUE(test, from_reserves(ctx.kept));
	KUNIT_EXPECT_PTR_EQ(test, virt_to_slab(ctx.kept),
			    virt_to_slab(ctx.first));
	KUNIT_ASSERT_EQ(test, ctx.bulk, (int)ctx.nr - 3);
	for (i = 0; i < ctx.nr; i++) {
		KUNIT_ASSERT_NOT_NULL(test, ctx.objs[i]);
		KUNIT_EXPECT_FALSE_MSG(test, from_reserves(ctx.objs[i]),
				       "object %u", i);
	}

	kmem_cache_free_bulk(ctx.s, ctx.nr, ctx.objs);
	kmem_cache_shrink(ctx.s);
	/* What is left is the emergency slab of the object kept... */
	KUNIT_EXPECT_EQ(test, total_slabs(ctx.s), 1L);
	KUNIT_EXPECT_EQ(test, in_use(ctx.s), 1L);
	/* ...which its last free gives back at once, reserve or not. */
	kmem_cache_free_bulk(ctx.s, 1, &ctx.kept);
	KUNIT_EXPECT_EQ(test, total_slabs(ctx.s), 0L);
	slqbt_destroy_empty(test, ctx.s);
}

/* Whether @page reads as one of the page types of 6.1. */
static bool reads_as_page_type(struct page *page)
{
	return PageBuddy(page) || PageOffline(page) || PageTable(page) ||
	       PageGuard(page);
}

/*
 * slab->inuse and slab->objects share the word of page_type. However many
 * objects a slab holds and however many of them are in use, its page must
 * not read as a page type: compaction and memory offline would take a live
 * slab for a free page. First the counts at their bounds, then the fullest
 * slab that slqb_min_order can ask for.
 */
static void slqb_test_counts_not_page_type(struct kunit *test)
{
	static const unsigned int inuse[] = { 0, 1, 0x7f, 0x80, 0xff,
					      SLQB_MAX_OBJECTS };
	struct page *page = kunit_kzalloc(test, sizeof(*page), GFP_KERNEL);
	unsigned int i, order, size, n, most = 0, size_most = 0, order_most = 0;
	struct kmem_cache *s;
	struct slab *slab;
	void *p;

	KUNIT_ASSERT_NOT_NULL(test, page);
	slab = (struct slab *)page;
	for (i = 0; i < ARRAY_SIZE(inuse); i++) {
		slab->objects = SLQB_MAX_OBJECTS;
		slab->inuse = inuse[i];
		KUNIT_EXPECT_FALSE_MSG(test, reads_as_page_type(page),
				       "objects %u, inuse %u", slab->objects,
				       slab->inuse);
	}

	/* The most objects that a slab of up to 8 MiB can hold. */
	for (order = 0; order < MAX_ORDER && (PAGE_SIZE << order) <= SZ_8M;
	     order++) {
		size = ALIGN(DIV_ROUND_UP(PAGE_SIZE << order, SLQB_MAX_OBJECTS),
			     sizeof(void *));
		n = (PAGE_SIZE << order) / size;
		if (n > most) {
			most = n;
			size_most = size;
			order_most = order;
		}
	}
	/* Only creation reads the order: put it back before any check. */
	order = slqb_test_min_order(order_most);
	s = kmem_cache_create("slqb_test_fullest", size_most, 0,
			      SLAB_NOLEAKTRACE, NULL);
	slqb_test_min_order(order);
	KUNIT_ASSERT_NOT_NULL(test, s);
	p = slqbt_obj(s, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	slab = virt_to_slab(p);
	kunit_info(test, "%u objects of %u bytes in an order-%u slab",
		   slab->objects, s->size, folio_order(slab_folio(slab)));
	KUNIT_EXPECT_LE(test, (unsigned int)slab->objects, SLQB_MAX_OBJECTS);
	KUNIT_EXPECT_FALSE(test, reads_as_page_type(slab_page(slab)));
	kmem_cache_free(s, p);
	slqbt_destroy_empty(test, s);
}

static struct kunit_case slqb_slab_cases[] = {
	KUNIT_CASE(slqb_test_freeptr_mid),
	KUNIT_CASE(slqb_test_freelist_random),
	KUNIT_CASE(slqb_test_large_order_objects),
	KUNIT_CASE(slqb_test_large_order_fallback),
	KUNIT_CASE(slqb_test_large_order_flags),
	KUNIT_CASE(slqb_test_irqs_stay_off),
	KUNIT_CASE(slqb_test_no_slab_report),
	KUNIT_CASE(slqb_test_pfmemalloc),
	KUNIT_CASE(slqb_test_counts_not_page_type),
	{}
};

static struct kunit_suite slqb_slab_suite = {
	.name = "slqb_slab",
	.exit = slqbt_exit,
	.test_cases = slqb_slab_cases,
};

kunit_test_suites(&slqb_slab_suite);
