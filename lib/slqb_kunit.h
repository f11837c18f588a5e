/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of SLQB's KUnit suites share: small helpers here, the
 * others defined in lib/slqb_kunit_util.c, prefixed slqbt_ (the SLQB
 * tests) because they are global symbols of the kernel.
 */
#ifndef LIB_SLQB_KUNIT_H
#define LIB_SLQB_KUNIT_H

#include <kunit/test.h>
#include <linux/kasan.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../mm/slab.h"
#include "../mm/slqb.h"

#define TEST_OBJ_SIZE	64
#define TEST_MAX_OBJS	4096

/* The bytes that slqbt_ctor() writes. */
#define CTOR_PATTERN 0x5a

/* Objects of a cache, which the slqbt_do_*() steps work on. */
struct slqb_test_ctx {
	struct kmem_cache *s;
	void **objs;
	unsigned int nr;
};

/* The list of @cpu in @s: its LIFO, partial slabs and remote queue. */
static inline struct kmem_cache_list *cpu_list(struct kmem_cache *s, int cpu)
{
	return &cpu_of(s, cpu)->list;
}

/*
 * What @s holds, as the allocator counts it for /sys/kernel/slab and for
 * __kmem_cache_shutdown(): slqb_cache_totals().
 */

/* What every list of @s holds, summed. */
static inline struct slqb_totals totals_of(struct kmem_cache *s)
{
	struct slqb_totals t;

	slqb_cache_totals(s, &t);
	return t;
}

/* Slabs owned by all lists of @s: the sysfs file slabs. */
static inline long total_slabs(struct kmem_cache *s)
{
	return totals_of(s).slabs;
}

/* Objects in the slabs of @s, free or not: the sysfs file total_objects. */
static inline long total_objects(struct kmem_cache *s)
{
	return totals_of(s).objects;
}

/* Free objects of @s: on slab freelists and on every queue. */
static inline long total_free(struct kmem_cache *s)
{
	return totals_of(s).free;
}

/* Objects of @s in use: the sysfs file objects. */
static inline long in_use(struct kmem_cache *s)
{
	struct slqb_totals t = totals_of(s);

	return totals_in_use(s, &t);
}

/*
 * @a and @b are one object. With KASAN's software tags they may differ in
 * the tag: each allocation gives the object a new one.
 */
static inline void expect_same(struct kunit *test, void *a, void *b)
{
	KUNIT_EXPECT_PTR_EQ(test, kasan_reset_tag(a), kasan_reset_tag(b));
}

/* An array of TEST_MAX_OBJS objects, freed with the case. */
static inline void **test_array(struct kunit *test)
{
	void **objs = kunit_kcalloc(test, TEST_MAX_OBJS, sizeof(void *),
				    GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, objs);
	return objs;
}

/* Whether the @len bytes at @p all hold @val. */
static inline bool all_bytes(const void *p, u8 val, size_t len)
{
	return !memchr_inv(p, val, len);
}

/* Caches */
struct kmem_cache *slqbt_cache(struct kunit *test, const char *name,
			       unsigned int size, unsigned int align,
			       slab_flags_t flags, void (*ctor)(void *));
struct kmem_cache *slqbt_short_cache(struct kunit *test, const char *name);
struct kmem_cache *slqbt_remote_cache(struct kunit *test, const char *name,
				      int *a, int *b);
void slqbt_destroy_empty(struct kunit *test, struct kmem_cache *s);
void slqbt_ctor(void *object);
bool slqbt_cpus_on_two_nodes(int *a, int *b);

/* Objects */
void *slqbt_obj_gfp(struct kmem_cache *s, gfp_t gfp, int node);
void *slqbt_obj(struct kmem_cache *s, int node);
void *slqbt_alloc_no_slab(struct kmem_cache *s, gfp_t gfp);
void slqbt_expect_poisoned(struct kunit *test, void *object, bool poisoned);

/*
 * Steps for slqbt_run_on(), on a struct slqb_test_ctx: allocate its nr
 * objects, free them, allocate until the CPU's LIFO is empty, trim.
 */
int slqbt_do_alloc(void *arg);
int slqbt_do_free(void *arg);
int slqbt_do_empty_lifo(void *arg);
int slqbt_do_trim(void *arg);

/* slab_mutex, and steps on a given CPU: see slqb_kunit_util.c */
void slqbt_lock_slabs(void);
bool slqbt_locked_steps_ok(void);
void slqbt_unlock_slabs(struct kunit *test);
bool slqbt_release_slabs(void);
void slqbt_run_on(struct kunit *test, int cpu, int (*fn)(void *), void *arg);

/* CPU @a allocates, within a busy window of @ticks; under slab_mutex. */
void slqbt_owner_allocates(struct kunit *test, int a, unsigned long ticks,
			   struct slqb_test_ctx *ctx,
			   struct slqb_test_ctx *rest);

/* The exit of every suite. */
void slqbt_exit(struct kunit *test);

#endif /* LIB_SLQB_KUNIT_H */
