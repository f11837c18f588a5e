// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite slqb_debug: the debug flags of kmem_cache_create(). Its case
 * turns SLQB's debug key on for the rest of the boot, so this suite runs
 * after the others: lib/Makefile links this file last.
 */

#include <linux/poison.h>

#include "slqb_kunit.h"

#ifdef CONFIG_KASAN
#include "../mm/kasan/kasan.h"
#endif

#if defined(CONFIG_SLQB_DEBUG) && defined(CONFIG_PRINTK)
#define DEBUG_OBJ_SIZE	44
/* All of SLQB's debug flags but SLAB_TRACE, which prints every call. */
#define DEBUG_FLAGS	(SLQB_DEBUG_FLAGS & ~SLAB_TRACE)

/*
 * Whether @len bytes at @start hold @value: red zone and poison, which KASAN
 * lets nobody read, not even memchr_inv() for this uninstrumented file, and
 * which hardware tags let only the match-all tag read.
 */
static bool debug_bytes(void *start, u8 value, size_t len)
{
	bool same;

	kasan_disable_current();
	same = all_bytes(kasan_reset_tag(start), value, len);
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
 * rest of the boot, as SLUB does, so it runs last: see the top of the file.
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
	KUNIT_EXPECT_EQ(test, *(u8 *)(kasan_reset_tag(p) + s->object_size - 1),
			POISON_END);
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

static struct kunit_case slqb_debug_cases[] = {
	KUNIT_CASE(slqb_test_create_debug_flags),
	{}
};

static struct kunit_suite slqb_debug_suite = {
	.name = "slqb_debug",
	.exit = slqbt_exit,
	.test_cases = slqb_debug_cases,
};

kunit_test_suites(&slqb_debug_suite);
