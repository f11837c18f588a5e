// SPDX-License-Identifier: GPL-2.0
/*
 * Bugs on purpose, for SLQB's debugging (slqb_debug=).
 *
 * Each case creates a cache of its own, commits one bug against it and
 * prints the cache and the object, so that the harness can match the report
 * SLQB must print. Each case then checks that SLQB repaired what it could
 * and did not hand the damaged object out again, and prints "ok" or
 * "FAILED". The last case leaves its damage for the validate file to find.
 * Load it into a kernel booted with slqb_debug=FZPU,slqb_dbg_*;
 * its caches and the objects taken out of use stay behind on purpose.
 */

#define pr_fmt(fmt) "test_slqb_debug: " fmt

#include <linux/compiler.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "../mm/slab.h"

#define OBJ_SIZE	40	/* leaves a red zone between objects */

static unsigned int failures;

static struct kmem_cache *make_cache(const char *name)
{
	struct kmem_cache *s = kmem_cache_create(name, OBJ_SIZE, 0, 0, NULL);

	if (!s)
		pr_err("no cache %s\n", name);
	else if (!(s->flags & SLAB_RED_ZONE) || !(s->flags & SLAB_POISON))
		pr_err("cache %s is not debugged: boot with slqb_debug=FZPU,slqb_dbg_*\n",
		       name);
	else
		return s;
	kmem_cache_destroy(s);
	failures++;
	return NULL;
}

static void verdict(const char *name, bool ok, const char *why)
{
	if (ok) {
		pr_info("%s: ok\n", name);
	} else {
		pr_err("%s: FAILED: %s\n", name, why);
		failures++;
	}
}

/* Returns @p through an opaque copy, so the compiler cannot reason about it. */
static u8 *opaque(void *p)
{
	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static noinline void double_free(void)
{
	struct kmem_cache *s = make_cache("slqb_dbg_double_free");
	void *p, *a, *b;

	if (!s)
		return;
	p = kmem_cache_alloc(s, GFP_KERNEL);
	pr_info("%s: cache %s object 0x%p\n", __func__, s->name, p);
	kmem_cache_free(s, p);
	kmem_cache_free(s, p);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	b = kmem_cache_alloc(s, GFP_KERNEL);
	verdict(__func__, a && b && a != b,
		"the object was handed out twice");
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);
}

static noinline void invalid_free(void)
{
	struct kmem_cache *s = make_cache("slqb_dbg_invalid_free");
	void *p, *q;

	if (!s)
		return;
	p = kmem_cache_alloc(s, GFP_KERNEL);
	pr_info("%s: cache %s object 0x%p\n", __func__, s->name, opaque(p) + 8);
	kmem_cache_free(s, opaque(p) + 8);
	q = kmem_cache_alloc(s, GFP_KERNEL);
	verdict(__func__, q && q != p,
		"the object was freed through an inner pointer");
	kmem_cache_free(s, q);
	kmem_cache_free(s, p);
}

static noinline void foreign_free(void)
{
	struct kmem_cache *s = make_cache("slqb_dbg_foreign_free");
	void *page = (void *)__get_free_page(GFP_KERNEL);
	void *q;

	if (!s || !page) {
		verdict(__func__, false, "no cache or no page");
		free_page((unsigned long)page);
		return;
	}
	pr_info("%s: cache %s object 0x%p\n", __func__, s->name, page);
	kmem_cache_free(s, page);
	q = kmem_cache_alloc(s, GFP_KERNEL);
	verdict(__func__, q && q != page,
		"a page that is not a slab became an object");
	kmem_cache_free(s, q);
	free_page((unsigned long)page);
}

static noinline void red_zone(void)
{
	struct kmem_cache *s = make_cache("slqb_dbg_red_zone");
	u8 *p;
	void *q;

	if (!s)
		return;
	p = kmem_cache_alloc(s, GFP_KERNEL);
	pr_info("%s: cache %s object 0x%p\n", __func__, s->name, p);
	opaque(p)[OBJ_SIZE] = 0x42;
	kmem_cache_free(s, p);
	q = kmem_cache_alloc(s, GFP_KERNEL);
	verdict(__func__, q && READ_ONCE(p[OBJ_SIZE]) != 0x42,
		"the red zone was not restored");
	kmem_cache_free(s, q);
}

static noinline void use_after_free(void)
{
	struct kmem_cache *s = make_cache("slqb_dbg_use_after_free");
	u8 *p;
	void *q;

	if (!s)
		return;
	p = kmem_cache_alloc(s, GFP_KERNEL);
	pr_info("%s: cache %s object 0x%p\n", __func__, s->name, p);
	kmem_cache_free(s, p);
	opaque(p)[10] = 0x42;
	q = kmem_cache_alloc(s, GFP_KERNEL);
	verdict(__func__, q && q != (void *)p,
		"the damaged object was handed out");
	kmem_cache_free(s, q);
}

static noinline void free_pointer(void)
{
	struct kmem_cache *s = make_cache("slqb_dbg_free_pointer");
	void *p, *q, *r;

	if (!s)
		return;
	p = kmem_cache_alloc(s, GFP_KERNEL);
	q = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, q);
	kmem_cache_free(s, p);
	pr_info("%s: cache %s object 0x%p\n", __func__, s->name, p);
	/* The free pointer lies after the red zone, at s->offset. */
	*(unsigned long *)(opaque(p) + s->offset) = 0x5afe5afeUL;
	r = kmem_cache_alloc(s, GFP_KERNEL);
	verdict(__func__, r && r != p && r != q,
		"an object behind the broken link was handed out");
	kmem_cache_free(s, r);
}

static noinline void wrong_cache(void)
{
	struct kmem_cache *s = make_cache("slqb_dbg_wrong_cache");
	struct kmem_cache *t = make_cache("slqb_dbg_wrong_cache_owner");
	void *p, *q;

	if (!s || !t)
		return;
	p = kmem_cache_alloc(t, GFP_KERNEL);
	pr_info("%s: cache %s object 0x%p owner %s\n", __func__, s->name, p,
		t->name);
	kmem_cache_free(s, p);
	/* It went back to its own cache, which hands it out again. */
	q = kmem_cache_alloc(t, GFP_KERNEL);
	verdict(__func__, q == p, "the object did not go back to its cache");
	kmem_cache_free(t, q);
}

/*
 * Damage a free object and leave it for /sys/kernel/slab/.../validate to
 * find. One object stays allocated for alloc_calls, one freed for
 * free_calls.
 */
static noinline void validate(void)
{
	struct kmem_cache *s = make_cache("slqb_dbg_validate");
	void *keep;
	u8 *p;

	if (!s)
		return;
	keep = kmem_cache_alloc(s, GFP_KERNEL);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, p);
	pr_info("%s: cache %s object 0x%p\n", __func__, s->name, p);
	opaque(p)[0] = 0x42;
	verdict(__func__, keep && p != keep, "no objects");
}

static int __init test_slqb_debug_init(void)
{
	double_free();
	invalid_free();
	foreign_free();
	red_zone();
	use_after_free();
	free_pointer();
	wrong_cache();
	validate();
	if (failures)
		pr_err("%u FAILED\n", failures);
	else
		pr_info("all cases done\n");
	return 0;
}
module_init(test_slqb_debug_init);

MODULE_DESCRIPTION("SLQB debugging: bugs on purpose");
MODULE_LICENSE("GPL");
