// SPDX-License-Identifier: GPL-2.0
/*
 * SLQB debugging (CONFIG_SLQB_DEBUG): the slqb_debug= boot parameter, the
 * checked allocation and free paths of the caches it names, the reports,
 * validation and the alloc/free call lists of /sys/kernel/slab/<cache>/.
 *
 * A debugged cache bypasses every queue: its objects go straight from and
 * to their slabs under the node's list_lock, and its node lists keep their
 * full slabs too, so that every object can be found. With a debug flag the
 * object layout is:
 *
 *	object_size bytes of object
 *	red zone up to the next word, plus one word (SLAB_RED_ZONE)
 *	free pointer (always outside the object)
 *	alloc and free tracks (SLAB_STORE_USER)
 *	padding to the alignment
 *
 * The entry points in mm/slqb.c test slqb_debug_enabled() once and branch
 * to their out-of-line debugging copies, which call in here.
 */

#include <linux/bitmap.h>
#include <linux/ctype.h>
#include <linux/kasan.h>
#include <linux/kmsan-checks.h>
#include <linux/mm.h>
#include <linux/poison.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stackdepot.h>
#include <linux/stacktrace.h>

#include "slab.h"
#include "slqb.h"

/* What slqb_debug without flags means. */
#define SLQB_DEBUG_DEFAULT	(SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE | \
				 SLAB_POISON | SLAB_STORE_USER)

DEFINE_STATIC_KEY_MAYBE(CONFIG_SLQB_DEBUG_ON, slqb_debug_key);

struct slqb_track {
	unsigned long addr;		/* the caller */
#ifdef CONFIG_STACKDEPOT
	depot_stack_handle_t handle;	/* its stack, 0 if none was saved */
#endif
	int cpu;
	int pid;
	unsigned long when;		/* jiffies */
};

enum slqb_track_item { TRACK_ALLOC, TRACK_FREE };

/* End of the red zone, or of the word-aligned object without one. */
static inline unsigned int red_zone_end(const struct kmem_cache *s)
{
	unsigned int end = ALIGN(s->object_size, sizeof(void *));

	return s->flags & SLAB_RED_ZONE ? end + sizeof(void *) : end;
}

static inline struct slqb_track *track_of(const struct kmem_cache *s,
					  void *object,
					  enum slqb_track_item item)
{
	struct slqb_track *t = kasan_reset_tag(object) + s->offset +
			       sizeof(void *);

	return t + item;
}

/*
 * Red zones, poison and tracks lie where KASAN lets nobody read: this file
 * is not instrumented, but the library functions that scan and dump them
 * are, and must not report. KASAN's hardware tags check every access, this
 * file's too, so everything here reaches object memory through the
 * match-all tag (kasan_reset_tag()): a free object's memory tag is no
 * longer its pointer's.
 */
static u8 *bytes_not(void *start, u8 value, unsigned int len)
{
	u8 *bad;

	kasan_disable_current();
	bad = memchr_inv(kasan_reset_tag(start), value, len);
	kasan_enable_current();
	return bad;
}

static void dump_bytes(const char *level, const char *prefix, void *start,
		       unsigned int len)
{
	kasan_disable_current();
	print_hex_dump(level, prefix, DUMP_PREFIX_ADDRESS, 16, 1,
		       kasan_reset_tag(start), len, true);
	kasan_enable_current();
}

/* Poison a free object and mark its red zone inactive. */
static void debug_mark_free(struct kmem_cache *s, void *object)
{
	object = kasan_reset_tag(object);
	if (s->flags & SLAB_POISON) {
		memset(object, POISON_FREE, s->object_size - 1);
		*(u8 *)(object + s->object_size - 1) = POISON_END;
	}
	if (s->flags & SLAB_RED_ZONE)
		memset(object + s->object_size, SLUB_RED_INACTIVE,
		       red_zone_end(s) - s->object_size);
}

/* A new slab's object of a debugged cache. */
void slqb_debug_init_object(struct kmem_cache *s, void *object)
{
	debug_mark_free(s, object);
	if (s->flags & SLAB_STORE_USER)
		memset(track_of(s, object, TRACK_ALLOC), 0,
		       2 * sizeof(struct slqb_track));
}

unsigned int slqb_debug_metadata_size(slab_flags_t flags)
{
	return flags & SLAB_STORE_USER ? 2 * sizeof(struct slqb_track) : 0;
}

/*
 * kmem_cache_create() was given debug flags: the cache takes the checked
 * paths even when slqb_debug= asked for nothing, as with SLUB. Called before
 * slab_mutex is taken: enabling a static key takes cpu_hotplug_lock, which
 * nests outside slab_mutex.
 */
void slqb_debug_cache_create(slab_flags_t flags)
{
	if (flags & SLQB_DEBUG_FLAGS)
		static_branch_enable(&slqb_debug_key);
	if (flags & SLAB_STORE_USER)
		stack_depot_init();
}

#ifdef CONFIG_PRINTK
static void track_stack(void **stack, const struct slqb_track *t)
{
#ifdef CONFIG_STACKDEPOT
	unsigned long *entries;
	unsigned int i, nr = 0;

	if (t->handle) {
		nr = stack_depot_fetch(t->handle, &entries);
		/*
		 * lib/stackdepot.c is not instrumented: KMSAN saw neither its
		 * store to entries nor the ones that filled the record.
		 */
		kmsan_unpoison_memory(&entries, sizeof(entries));
		kmsan_unpoison_memory(entries, nr * sizeof(*entries));
	}
	for (i = 0; i < nr && i < KS_ADDRS_COUNT; i++)
		stack[i] = (void *)entries[i];
#endif
}

/*
 * For mem_dump_obj(): where @object, an object of @s, was last allocated and
 * freed. Only caches with SLAB_STORE_USER keep tracks.
 */
void slqb_debug_obj_info(struct kmem_obj_info *kpp, struct kmem_cache *s,
			 void *object)
{
	const struct slqb_track *t;

	if (!slqb_debug_cache(s) || !(s->flags & SLAB_STORE_USER))
		return;
	t = track_of(s, object, TRACK_ALLOC);
	kpp->kp_ret = (void *)t->addr;
	track_stack(kpp->kp_stack, t);
	track_stack(kpp->kp_free_stack, track_of(s, object, TRACK_FREE));
}
#endif

/* Reports */

static void debug_report(struct kmem_cache *s, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_err("=============================================================================\n");
	pr_err("BUG %s (%s): %pV\n", s->name, print_tainted(), &vaf);
	pr_err("-----------------------------------------------------------------------------\n");
	va_end(args);
}

/* Ends a report with what was done about it and where it was found. */
static void debug_report_end(struct kmem_cache *s, const char *fix)
{
	pr_err("FIX %s: %s\n", s->name, fix);
	dump_stack();
	add_taint(TAINT_BAD_PAGE, LOCKDEP_STILL_OK);
}

static void print_track(const char *what, const struct slqb_track *t)
{
	if (!t->addr) {
		pr_err("%s: no record\n", what);
		return;
	}
	pr_err("%s by %pS age=%lu cpu=%d pid=%d\n", what, (void *)t->addr,
	       jiffies - t->when, t->cpu, t->pid);
#ifdef CONFIG_STACKDEPOT
	if (t->handle)
		stack_depot_print(t->handle);
#endif
}

static void print_object(struct kmem_cache *s, struct slab *slab,
			 void *object)
{
	pr_err("Slab 0x%p objects=%u inuse=%u, object 0x%p @offset=%lu\n",
	       slab, s->objects, slab->inuse, object,
	       (unsigned long)(kasan_reset_tag(object) - slab_address(slab)));
	if (s->flags & SLAB_STORE_USER) {
		print_track("Allocated", track_of(s, object, TRACK_ALLOC));
		print_track("Freed", track_of(s, object, TRACK_FREE));
	}
	dump_bytes(KERN_ERR, "Object  ", object, min(s->object_size, 256U));
	if (s->flags & SLAB_RED_ZONE)
		dump_bytes(KERN_ERR, "Redzone ", object + s->object_size,
			   red_zone_end(s) - s->object_size);
}

/*
 * Checks that @len bytes at @start hold @value. If not, reports the damage,
 * restores the bytes and ends the report with @fix.
 */
static bool check_bytes(struct kmem_cache *s, struct slab *slab, void *object,
			const char *what, u8 *start, u8 value,
			unsigned int len, const char *fix)
{
	u8 *bad = bytes_not(start, value, len);
	u8 *end = (u8 *)kasan_reset_tag(start) + len;

	if (!bad)
		return true;
	while (end > bad && end[-1] == value)
		end--;
	debug_report(s, "%s overwritten", what);
	pr_err("0x%p-0x%p @offset=%lu: first byte 0x%x instead of 0x%x\n",
	       bad, end - 1,
	       (unsigned long)((void *)bad - kasan_reset_tag(object)), *bad,
	       value);
	print_object(s, slab, object);
	memset(bad, value, end - bad);
	debug_report_end(s, fix);
	return false;
}

static bool check_poison(struct kmem_cache *s, struct slab *slab,
			 void *object, const char *fix)
{
	if (!(s->flags & SLAB_POISON))
		return true;
	return check_bytes(s, slab, object, "Poison", object, POISON_FREE,
			   s->object_size - 1, fix) &&
	       check_bytes(s, slab, object, "Poison",
			   object + s->object_size - 1, POISON_END, 1, fix);
}

static bool check_red_zone(struct kmem_cache *s, struct slab *slab,
			   void *object, u8 value, const char *fix)
{
	if (!(s->flags & SLAB_RED_ZONE))
		return true;
	return check_bytes(s, slab, object, "Redzone", object + s->object_size,
			   value, red_zone_end(s) - s->object_size, fix);
}

static inline bool red_zone_is(struct kmem_cache *s, void *object, u8 value)
{
	return !bytes_not(object + s->object_size, value,
			  red_zone_end(s) - s->object_size);
}

static bool object_start_in_slab(const struct kmem_cache *s,
				 const struct slab *slab, const void *p)
{
	const void *base = slab_address(slab);

	p = kasan_reset_tag(p);
	if (p < base || p >= base + s->objects * s->size)
		return false;
	return (p - base) % s->size == 0;
}

/*
 * Take all of @slab's free objects out of use after its free list was found
 * broken. @slab is on @l's partial list; it then counts as full and stays
 * on the full list for validation.
 */
static void debug_retire_free_objects(struct kmem_cache *s,
				      struct kmem_cache_list *l,
				      struct slab *slab)
{
	void *base = slab_address(slab);
	unsigned int i;

	l->slab_free -= slab_free_objects(s, slab);
	slab->inuse = s->objects;
	slab->freelist = NULL;
	list_move(&slab->slab_list, &l->full);
	l->nr_partial--;
	/* They are in use now, as far as validation is concerned. */
	for (i = 0; (s->flags & SLAB_RED_ZONE) && i < s->objects; i++) {
		void *p = base + i * s->size;

		if (red_zone_is(s, p, SLUB_RED_INACTIVE))
			memset(p + s->object_size, SLUB_RED_ACTIVE,
			       red_zone_end(s) - s->object_size);
	}
}

/*
 * Walks @slab's free list looking for @object. A link that is not an object
 * of the slab is reported and the list is cut before it.
 */
static bool on_freelist(struct kmem_cache *s, struct kmem_cache_list *l,
			struct slab *slab, void *object)
{
	void *p = slab->freelist, *prev = NULL;
	unsigned int nr = 0;

	while (p && nr++ < s->objects) {
		if (kasan_reset_tag(p) == kasan_reset_tag(object))
			return true;
		if (!object_start_in_slab(s, slab, p)) {
			debug_report(s, "Free pointer corrupted");
			pr_err("0x%p, linked from the free object 0x%p, is not an object of slab 0x%p\n",
			       p, prev, slab);
			if (prev)
				print_object(s, slab, prev);
			debug_retire_free_objects(s, l, slab);
			debug_report_end(s, "the slab's free objects are out of use");
			return false;
		}
		prev = p;
		p = get_freepointer(s, p);
	}
	return false;
}

static void set_track(struct kmem_cache *s, void *object,
		      enum slqb_track_item item, unsigned long addr,
		      depot_stack_handle_t handle)
{
	struct slqb_track *t = track_of(s, object, item);

	t->addr = addr;
#ifdef CONFIG_STACKDEPOT
	t->handle = handle;
#endif
	t->cpu = raw_smp_processor_id();
	t->pid = current->pid;
	t->when = jiffies;
}

static depot_stack_handle_t save_stack(struct kmem_cache *s)
{
#ifdef CONFIG_STACKDEPOT
	unsigned long entries[16];
	unsigned int nr;

	if (!(s->flags & SLAB_STORE_USER))
		return 0;
	nr = stack_trace_save(entries, ARRAY_SIZE(entries), 3);
	return stack_depot_save(entries, nr, GFP_NOWAIT | __GFP_NOWARN);
#else
	return 0;
#endif
}

static void debug_trace(struct kmem_cache *s, struct slab *slab, void *object,
			bool alloc)
{
	if (!(s->flags & SLAB_TRACE))
		return;
	pr_info("TRACE %s %s 0x%p inuse=%u\n", s->name,
		alloc ? "alloc" : "free", object, slab->inuse);
	if (!alloc)
		dump_bytes(KERN_INFO, "Object ", object,
			   min(s->object_size, 64U));
	dump_stack();
}

/*
 * Take the first free object of @slab, a partial slab of the node list @l,
 * and check it. Returns NULL if it may not be handed out; the caller then
 * tries again.
 */
static void *debug_take_object(struct kmem_cache *s, struct kmem_cache_list *l,
			       struct slab *slab, unsigned long addr,
			       depot_stack_handle_t handle)
{
	void *object = slab->freelist;
	void *next = get_freepointer(s, object);
	bool ok;

	if (next && !object_start_in_slab(s, slab, next)) {
		debug_report(s, "Free pointer corrupted");
		pr_err("0x%p, the free pointer of 0x%p, is not an object of slab 0x%p\n",
		       next, object, slab);
		print_object(s, slab, object);
		debug_retire_free_objects(s, l, slab);
		debug_report_end(s, "the slab's free objects are out of use");
		return NULL;
	}
	slab_take_object(s, l, slab);
	if (!slab->freelist)
		list_add(&slab->slab_list, &l->full);

	ok = check_red_zone(s, slab, object, SLUB_RED_INACTIVE,
			    "restored; the object is out of use");
	ok = ok && check_poison(s, slab, object,
				"restored; the object is out of use");
	if (s->flags & SLAB_RED_ZONE)
		memset(kasan_reset_tag(object) + s->object_size,
		       SLUB_RED_ACTIVE, red_zone_end(s) - s->object_size);
	if (s->flags & SLAB_STORE_USER)
		set_track(s, object, TRACK_ALLOC, ok ? addr : 0, handle);
	/* A damaged object stays allocated: nobody gets it. */
	return ok ? object : NULL;
}

/* Allocate from a debugged cache. Interrupts are enabled on entry. */
void *slqb_debug_alloc(struct kmem_cache *s, gfp_t gfpflags, int node,
		       unsigned long addr)
{
	depot_stack_handle_t handle = save_stack(s);
	struct kmem_cache_node *n;
	unsigned long flags;
	struct slab *slab;
	void *object;

	/* The node rules of alloc_node() and __slqb_alloc() apply. */
	n = slqb_alloc_node_list(s, node);
	if (!n) {
		node = slqb_local_node();
		n = get_node(s, node);
	}
	for (;;) {
		spin_lock_irqsave(&n->list_lock, flags);
		slab = node_partial(&n->list, gfpflags);
		if (slab) {
			object = debug_take_object(s, &n->list, slab, addr,
						   handle);
			if (object)
				stat(&n->list, ALLOC);
			spin_unlock_irqrestore(&n->list_lock, flags);
			if (!object)
				continue;
			debug_trace(s, slab, object, true);
			return object;
		}
		spin_unlock_irqrestore(&n->list_lock, flags);

		gfpflags &= gfp_allowed_mask;
		slab = slqb_new_slab(s, (gfpflags & __GFP_THISNODE) ? gfpflags :
				     slqb_node_try_flags(gfpflags), node);
		/* Another node's slab goes on that node's list. */
		if (!slab && !(gfpflags & __GFP_THISNODE))
			slab = slqb_new_slab(s, gfpflags, node);
		/*
		 * Only a caller entitled to the emergency reserves gets a
		 * slab of them (node_partial()), or this would loop.
		 */
		if (slab && (!get_node(s, slab_nid(slab)) ||
			     (slab_test_pfmemalloc(slab) &&
			      !gfp_pfmemalloc_allowed(gfpflags)))) {
			slqb_free_slab(s, slab);
			slab = NULL;
		}
		if (!slab) {
			slqb_report_no_slab(s, gfpflags, node);
			return NULL;
		}
		n = get_node(s, slab_nid(slab));
		spin_lock_irqsave(&n->list_lock, flags);
		list_add_slab(s, &n->list, slab);
		stat(&n->list, ALLOC_SLAB_NEW);
		spin_unlock_irqrestore(&n->list_lock, flags);
	}
}

/*
 * Put @object back into @slab, owned by the node list @l, under its lock.
 * Unlike the core's slab_put_chain(), keep an empty slab while it is the
 * list's only partial one (see slqb_debug_release_empty_slabs()), unless
 * it is a slab of the emergency reserves.
 */
static void debug_put_object(struct kmem_cache *s, struct kmem_cache_list *l,
			     struct slab *slab, void *object,
			     struct list_head *discard)
{
	if (slab->inuse == s->objects) {
		list_del(&slab->slab_list);
		partial_add(l, slab);
	}
	set_freepointer(s, object, slab->freelist);
	slab->freelist = object;
	slab->inuse--;
	l->slab_free++;
	if (!slab->inuse &&
	    (l->nr_partial > 1 || slab_test_pfmemalloc(slab))) {
		list_move(&slab->slab_list, discard);
		l->nr_partial--;
		l->slab_free -= s->objects;
		list_disown_slab(l, slab);
	}
}

/* Checks before a free. Called with the node's list_lock held. */
static bool debug_free_checks(struct kmem_cache *s, struct kmem_cache_list *l,
			      struct slab *slab, void *object)
{
	bool already_free;

	if (!object_start_in_slab(s, slab, object)) {
		debug_report(s, "Invalid pointer freed");
		pr_err("0x%p is not the start of an object of slab 0x%p (objects=%u size=%u)\n",
		       object, slab, s->objects, s->size);
		debug_report_end(s, "not freed");
		return false;
	}
	if ((s->flags & SLAB_CONSISTENCY_CHECKS) && slab->list != l) {
		debug_report(s, "Slab not on its node list");
		pr_err("slab 0x%p of object 0x%p is owned by list 0x%p, not 0x%p\n",
		       slab, object, slab->list, l);
		debug_report_end(s, "not freed");
		return false;
	}
	already_free = (s->flags & SLAB_CONSISTENCY_CHECKS) &&
		       on_freelist(s, l, slab, object);
	if (!already_free && (s->flags & SLAB_RED_ZONE))
		already_free = red_zone_is(s, object, SLUB_RED_INACTIVE);
	if (already_free) {
		debug_report(s, "Object already free");
		pr_err("double free of object 0x%p\n", object);
		print_object(s, slab, object);
		debug_report_end(s, "not freed again");
		return false;
	}
	check_red_zone(s, slab, object, SLUB_RED_ACTIVE, "restored");
	return true;
}

/*
 * The second half of a checked free: mark the object free, under the lock.
 * Also where KASAN's quarantine gives back an object of a debugged cache.
 */
void slqb_debug_release(struct kmem_cache *s, struct slab *slab, void *object)
{
	struct kmem_cache_node *n = get_node(s, slab_nid(slab));
	unsigned long flags;
	LIST_HEAD(discard);

	debug_trace(s, slab, object, false);
	spin_lock_irqsave(&n->list_lock, flags);
	debug_mark_free(s, object);
	stat(&n->list, FREE);
	debug_put_object(s, &n->list, slab, object, &discard);
	spin_unlock_irqrestore(&n->list_lock, flags);
	slqb_discard_slabs(s, &discard);
}

/*
 * Free to a debugged cache: check, record the free, run the hooks, then
 * free under the lock. An object that KASAN quarantines is marked free
 * only when the quarantine gives it back (slqb_debug_release()): until
 * then KASAN's free metadata may sit where the poison would go.
 */
void slqb_debug_slab_free(struct kmem_cache *s, struct slab *slab,
			  void *object, unsigned long addr)
{
	struct kmem_cache_node *n = get_node(s, slab_nid(slab));
	depot_stack_handle_t handle = save_stack(s);
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&n->list_lock, flags);
	ok = debug_free_checks(s, &n->list, slab, object);
	if (ok && (s->flags & SLAB_STORE_USER))
		set_track(s, object, TRACK_FREE, addr, handle);
	spin_unlock_irqrestore(&n->list_lock, flags);
	if (!ok)
		return;

	memcg_slab_free_hook(s, slab, &object, 1);
	if (!slab_free_hook(s, object, slab_want_init_on_free(s)))
		slqb_debug_release(s, slab, object);
}

/*
 * Give the free empty slabs of @s's node lists back: a debugged cache keeps
 * its last empty slab, so that a double free or a use after free of its
 * last object still lands in a slab that can tell.
 */
void slqb_debug_release_empty_slabs(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	struct slab *slab, *next;
	LIST_HEAD(discard);
	int node;

	if (!slqb_debug_cache(s))
		return;
	for_each_kmem_cache_node(s, node, n) {
		spin_lock_irq(&n->list_lock);
		list_for_each_entry_safe(slab, next, &n->list.partial,
					 slab_list) {
			if (slab->inuse)
				continue;
			list_move(&slab->slab_list, &discard);
			n->list.nr_partial--;
			n->list.slab_free -= s->objects;
			list_disown_slab(&n->list, slab);
		}
		spin_unlock_irq(&n->list_lock);
	}
	slqb_discard_slabs(s, &discard);
}

/*
 * kmem_cache_free() to a debugged cache: the object must be in a slab of
 * that cache. Returns the cache to free to, or NULL to leave it alone.
 */
struct kmem_cache *slqb_debug_check_cache(struct kmem_cache *s, void *x)
{
	struct slab *slab;

	if (!slqb_debug_cache(s) || !(s->flags & SLAB_CONSISTENCY_CHECKS))
		return s;
	slab = virt_to_slab(x);
	if (!slab) {
		debug_report(s, "Foreign pointer freed");
		pr_err("0x%p is not in a slab page\n", x);
		debug_report_end(s, "not freed");
		return NULL;
	}
	if (slab->slab_cache != s) {
		debug_report(s, "Wrong cache");
		pr_err("object 0x%p freed to %s belongs to cache %s\n", x,
		       s->name, slab->slab_cache->name);
		debug_report_end(s, "freed to the cache it belongs to");
		return slab->slab_cache;
	}
	return s;
}

/* Validation and the tracking reports */

/* Marks @slab's free objects in @map; false if the free list is broken. */
static bool map_free_objects(struct kmem_cache *s, struct slab *slab,
			     unsigned long *map)
{
	unsigned int nr = 0;
	void *p;

	bitmap_zero(map, s->objects);
	for (p = slab->freelist; p; p = get_freepointer(s, p)) {
		if (!object_start_in_slab(s, slab, p) || nr++ >= s->objects ||
		    __test_and_set_bit(obj_to_index(s, slab, p), map))
			return false;
	}
	return true;
}

static unsigned long validate_slab(struct kmem_cache *s,
				   struct kmem_cache_list *l,
				   struct slab *slab, unsigned long *map)
{
	unsigned long errors = 0;
	void *base = slab_address(slab);
	unsigned int i, nr_free;

	if (slab->slab_cache != s || slab->list != l) {
		debug_report(s, "Slab 0x%p is on the wrong list", slab);
		debug_report_end(s, "left alone");
		return 1;
	}
	if (!map_free_objects(s, slab, map)) {
		debug_report(s, "Free list of slab 0x%p broken", slab);
		debug_retire_free_objects(s, l, slab);
		debug_report_end(s, "the slab's free objects are out of use");
		return 1;
	}
	nr_free = bitmap_weight(map, s->objects);
	if (nr_free != slab_free_objects(s, slab)) {
		debug_report(s, "Slab 0x%p counts %u objects in use, its free list has %u free",
			     slab, slab->inuse, nr_free);
		l->slab_free += nr_free;
		l->slab_free -= slab_free_objects(s, slab);
		slab->inuse = s->objects - nr_free;
		debug_report_end(s, "count corrected");
		errors++;
	}
	for (i = 0; i < s->objects; i++) {
		void *p = base + i * s->size;
		bool free = test_bit(i, map);

		if (!check_red_zone(s, slab, p, free ? SLUB_RED_INACTIVE :
				    SLUB_RED_ACTIVE, "restored"))
			errors++;
		if (free && !check_poison(s, slab, p, "restored"))
			errors++;
	}
	return errors;
}

void slqb_debug_validate(struct kmem_cache *s)
{
	unsigned long slabs = 0, errors = 0;
	unsigned long *map = bitmap_alloc(s->objects, GFP_KERNEL);
	struct kmem_cache_node *n;
	struct slab *slab, *next;
	int node;

	if (!map) {
		pr_err("SLQB: validate %s: no memory for the object map\n",
		       s->name);
		return;
	}
	for_each_kmem_cache_node(s, node, n) {
		spin_lock_irq(&n->list_lock);
		list_for_each_entry_safe(slab, next, &n->list.partial,
					 slab_list) {
			errors += validate_slab(s, &n->list, slab, map);
			slabs++;
		}
		list_for_each_entry(slab, &n->list.full, slab_list) {
			errors += validate_slab(s, &n->list, slab, map);
			slabs++;
		}
		spin_unlock_irq(&n->list_lock);
	}
	bitmap_free(map);
	pr_info("SLQB: validate %s: %lu slabs checked, %lu errors\n", s->name,
		slabs, errors);
}

struct slqb_call {
	unsigned long addr;
	unsigned long count;
	unsigned long min_age, max_age;
	int min_pid, max_pid;
};

static void add_call(struct slqb_call *calls, unsigned int *nr,
		     unsigned int max, const struct slqb_track *t)
{
	unsigned long age = jiffies - t->when;
	struct slqb_call *c;
	unsigned int i;

	for (i = 0; i < *nr; i++)
		if (calls[i].addr == t->addr)
			break;
	c = &calls[i];
	if (i == *nr) {
		if (*nr == max)
			return;
		(*nr)++;
		*c = (struct slqb_call){ .addr = t->addr, .min_age = age,
					 .max_age = age, .min_pid = t->pid,
					 .max_pid = t->pid };
	}
	c->count++;
	c->min_age = min(c->min_age, age);
	c->max_age = max(c->max_age, age);
	c->min_pid = min(c->min_pid, t->pid);
	c->max_pid = max(c->max_pid, t->pid);
}

static int cmp_calls(const void *a, const void *b)
{
	const struct slqb_call *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static void collect_calls(struct kmem_cache *s, struct kmem_cache_list *l,
			  struct list_head *slabs, enum slqb_track_item item,
			  unsigned long *map, struct slqb_call *calls,
			  unsigned int *nr, unsigned int max)
{
	bool want_free = item == TRACK_FREE;
	struct slab *slab;
	unsigned int i;

	list_for_each_entry(slab, slabs, slab_list) {
		if (!map_free_objects(s, slab, map))
			continue;
		for (i = 0; i < s->objects; i++) {
			void *p = slab_address(slab) + i * s->size;
			struct slqb_track *t = track_of(s, p, item);

			if (test_bit(i, map) == want_free && t->addr)
				add_call(calls, nr, max, t);
		}
	}
}

/* alloc_calls and free_calls: objects in use, or free, by caller. */
ssize_t slqb_debug_list_calls(struct kmem_cache *s, char *buf, bool alloc)
{
	unsigned int nr = 0, max = PAGE_SIZE / sizeof(struct slqb_call), i;
	enum slqb_track_item item = alloc ? TRACK_ALLOC : TRACK_FREE;
	struct kmem_cache_node *n;
	struct slqb_call *calls;
	unsigned long *map;
	ssize_t len = 0;
	int node;

	if (!slqb_debug_cache(s) || !(s->flags & SLAB_STORE_USER))
		return sysfs_emit(buf, "No data: boot with slqb_debug=U,%s to track this cache\n",
				  s->name);
	calls = kmalloc_array(max, sizeof(*calls), GFP_KERNEL);
	map = bitmap_alloc(s->objects, GFP_KERNEL);
	if (!calls || !map) {
		kfree(calls);
		bitmap_free(map);
		return -ENOMEM;
	}
	for_each_kmem_cache_node(s, node, n) {
		spin_lock_irq(&n->list_lock);
		collect_calls(s, &n->list, &n->list.partial, item, map, calls,
			      &nr, max);
		collect_calls(s, &n->list, &n->list.full, item, map, calls,
			      &nr, max);
		spin_unlock_irq(&n->list_lock);
	}
	sort(calls, nr, sizeof(*calls), cmp_calls, NULL);
	for (i = 0; i < nr && len < PAGE_SIZE - 160; i++)
		len += sysfs_emit_at(buf, len, "%7lu %pS age=%lu-%lu pid=%d-%d\n",
				     calls[i].count, (void *)calls[i].addr,
				     calls[i].min_age, calls[i].max_age,
				     calls[i].min_pid, calls[i].max_pid);
	if (!nr)
		len = sysfs_emit(buf, "No data\n");
	kfree(calls);
	bitmap_free(map);
	return len;
}

/* The slqb_debug= boot parameter */

static slab_flags_t slqb_debug_flags = IS_ENABLED(CONFIG_SLQB_DEBUG_ON) ?
				       SLQB_DEBUG_DEFAULT : 0;
static char *slqb_debug_caches;		/* ';'-separated names, NULL: all */
bool slqb_debug_skip_order;		/* O: never raise a slab's order */

static int __init setup_slqb_debug(char *str)
{
	slab_flags_t flags = 0;
	bool off = false;
	char *p;

	if (*str && *str++ != '=')
		return 0;	/* some other parameter */
	for (p = str; *p && *p != ','; p++) {
		switch (tolower(*p)) {
		case 'f':
			flags |= SLAB_CONSISTENCY_CHECKS;
			break;
		case 'z':
			flags |= SLAB_RED_ZONE;
			break;
		case 'p':
			flags |= SLAB_POISON;
			break;
		case 'u':
			flags |= SLAB_STORE_USER;
			break;
		case 't':
			flags |= SLAB_TRACE;
			break;
		case 'a':
			flags |= SLAB_FAILSLAB;
			break;
		case 'o':
			slqb_debug_skip_order = true;
			break;
		case '-':
			off = true;
			break;
		default:
			pr_warn("SLQB: slqb_debug: unknown flag '%c' ignored (flags: F Z P U T A O -)\n",
				*p);
		}
	}
	if (p == str)
		flags = SLQB_DEBUG_DEFAULT;
	if (*p == ',' && p[1])
		slqb_debug_caches = p + 1;
	if (off) {
		slqb_debug_flags = 0;
		static_branch_disable(&slqb_debug_key);
		return 1;
	}
	slqb_debug_flags = flags;
	if (flags & SLQB_DEBUG_FLAGS)
		static_branch_enable(&slqb_debug_key);
	if (flags & SLAB_STORE_USER)
		stack_depot_want_early_init();
	return 1;
}
__setup("slqb_debug", setup_slqb_debug);

/* Whether @name matches the @len bytes at @pattern; '*' at its end: a prefix. */
static bool debug_name_matches(const char *name, const char *pattern,
			       size_t len)
{
	if (!len)
		return false;
	if (pattern[len - 1] == '*')
		return !strncmp(name, pattern, len - 1);
	return strlen(name) == len && !strncmp(name, pattern, len);
}

/* Whether @name is in slqb_debug's list. */
static bool debug_name_listed(const char *name)
{
	const char *p = slqb_debug_caches;

	while (*p) {
		size_t len = strchrnul(p, ';') - p;

		if (debug_name_matches(name, p, len))
			return true;
		p += len;
		if (*p == ';')
			p++;
	}
	return false;
}

slab_flags_t slqb_debug_cache_flags(slab_flags_t flags, const char *name)
{
	slab_flags_t debug = slqb_debug_flags;

	/* The node list cache is carved up before it could be checked. */
	if (!debug || slab_state == DOWN || (flags & SLAB_NO_USER_FLAGS))
		return flags;
	if (slqb_debug_caches && !debug_name_listed(name))
		return flags;
	/* kmemleak's own caches: no stack traces unless asked by name. */
	if ((flags & SLAB_NOLEAKTRACE) && !slqb_debug_caches)
		debug &= ~SLAB_STORE_USER;
	return flags | debug;
}

/* One warning per name in slqb_debug's list that matches no cache. */
static int __init slqb_debug_check_names(void)
{
	const char *p = slqb_debug_caches;
	struct kmem_cache *s;

	if (!p || !slqb_debug_flags)
		return 0;
	mutex_lock(&slab_mutex);
	while (*p) {
		size_t len = strchrnul(p, ';') - p;
		bool found = false;

		list_for_each_entry(s, &slab_caches, list) {
			if (debug_name_matches(s->name, p, len)) {
				found = true;
				break;
			}
		}
		if (len && !found)
			pr_warn("SLQB: slqb_debug: no cache named '%.*s' yet; it is debugged if it is created later\n",
				(int)len, p);
		p += len;
		if (*p == ';')
			p++;
	}
	mutex_unlock(&slab_mutex);
	return 0;
}
late_initcall(slqb_debug_check_names);
