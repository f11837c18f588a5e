// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite slqb_api: what every slab allocator must honour, as callers
 * of the slab API see it: constructors, alignment, __GFP_ZERO,
 * SLAB_TYPESAFE_BY_RCU, bulk allocation, the kmalloc() sizes, krealloc(),
 * the names of merged caches, the tunables and KFENCE's samples.
 */

#include <linux/kfence.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sizes.h>
#include <linux/thread_info.h>

#include "slqb_kunit.h"

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

static struct kunit_case slqb_api_cases[] = {
	KUNIT_CASE(slqb_test_ctor),
	KUNIT_CASE(slqb_test_alignment),
	KUNIT_CASE(slqb_test_gfp_zero),
	KUNIT_CASE(slqb_test_typesafe_by_rcu),
	KUNIT_CASE(slqb_test_bulk),
	KUNIT_CASE(slqb_test_bulk_partial_failure),
	KUNIT_CASE(slqb_test_bulk_from_slab),
	KUNIT_CASE(slqb_test_kmalloc_sizes),
	KUNIT_CASE(slqb_test_krealloc),
	KUNIT_CASE(slqb_test_alias_name),
	KUNIT_CASE(slqb_test_tunables),
	KUNIT_CASE(slqb_test_kfence_gfp_zero),
	KUNIT_CASE(slqb_test_kfence_usercopy),
	{}
};

static struct kunit_suite slqb_api_suite = {
	.name = "slqb_api",
	.exit = slqbt_exit,
	.test_cases = slqb_api_cases,
};

kunit_test_suites(&slqb_api_suite);
