// SPDX-License-Identifier: GPL-2.0
/*
 * SLQB: a queued slab allocator.
 *
 * Free objects wait on queues that are singly linked lists threaded through
 * the objects themselves:
 *
 *  - each CPU has a LIFO of hot objects (kmem_cache_list.freelist), used with
 *    interrupts disabled and no lock, except that an allocation pops its
 *    head with a compare-and-exchange where the architecture has one of two
 *    words. Any object whose slab is on the CPU's memory node may go there,
 *    whoever owns the slab;
 *  - each CPU owns a list of partial slabs, also used without a lock;
 *  - objects that belong to another CPU's slabs are collected on the freeing
 *    CPU's rlist and handed over to the owner's remote queue in one move. The
 *    owner claims the whole queue when its LIFO runs dry, from its periodic
 *    trim work, or at once when the queue grows past its cap;
 *  - each memory node has a list of slabs under a spinlock, used for
 *    node-specific allocations and for slabs orphaned by an offline CPU,
 *    and a small reserve of empty slabs that refills take before new ones.
 *
 * Nodes. "Local" always means the CPU's memory node: numa_mem_id() where
 * the architecture tracks memoryless nodes, and the nearest node with normal
 * memory where it does not (x86). A CPU on a memoryless node thus allocates
 * from and frees to the nearest node with memory, and its frees stay local.
 * The rules for a request that names a node:
 *
 *  - a node without normal memory (or out of range) is no node at all, as
 *    with NUMA_NO_NODE, __GFP_THISNODE or not;
 *  - the local node, without __GFP_THISNODE, is served from the LIFO. That
 *    is a preference: when the local node ran out of memory, the page
 *    allocator's fallback slabs sit on CPU lists and feed the LIFO too;
 *  - any other node, and any node with __GFP_THISNODE, is served from that
 *    node's list, never from a LIFO. A new slab for it comes from the node
 *    if it has one at hand, and only then, without __GFP_THISNODE, from
 *    wherever the caller's flags find one;
 *  - when memory hotplug changes a CPU's local node, the CPU gives its
 *    queued objects and its other nodes' partial slabs back.
 *
 * A slab's node list is that of the node its memory is on, always.
 *
 * Ownership rules: a slab's owner (slab->list) is a CPU list or the node list
 * of the slab's node. A live CPU list is only touched by its CPU, with
 * interrupts disabled but for the lockless pop. A node list, and any slab
 * that it or a dead CPU owns, is only touched under the node's list_lock,
 * and slab->list only changes under that lock. Anyone who read an owner
 * without the lock reads it again under the lock before acting on it.
 *
 * This file is the core. Debugging (slqb_debug=) lives in mm/slqb_debug.c,
 * /sys/kernel/slab in mm/slqb_sysfs.c, and what they share in mm/slqb.h.
 */

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/delay.h>
#include <linux/kfence.h>
#include <linux/ktime.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/ratelimit.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/shrinker.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/workqueue.h>
#include <trace/events/kmem.h>

#include "internal.h"
#include "slab.h"
#include "slqb.h"

/* Boot parameters, see Documentation/admin-guide/kernel-parameters.txt. */
static unsigned int slqb_min_order;
static unsigned int slqb_min_objects = 1;

#define SLQB_MAX_MIN_OBJECTS	1024
/* slab->objects is 16 bits wide. */
#define SLQB_MAX_OBJECTS	U16_MAX
/* Below this many objects a slab is of a larger order, see preferred_order(). */
#define SLQB_LARGE_OBJECTS	16
#define SLQB_MAX_HIWATER	65536
/* The bytes that hiwater allows a LIFO by default: a few pages. */
#define SLQB_QUEUE_BYTES	(2 * PAGE_SIZE)
#define SLQB_TRIM_INTERVAL	(3 * HZ)
/* A CPU whose LIFO ran dry less than this long ago is allocating. */
#define SLQB_BUSY_TICKS		(msecs_to_jiffies(10) + 1)
/* How long after a missed periodic trim pass a CPU is woken up for it. */
#define SLQB_TRIM_WAKE_SLACK	(HZ / 2)
/* The empty slabs a cache keeps per node, see reserve_slab(). */
#define SLQB_RESERVE_BYTES	(4 * PAGE_SIZE)
#define SLQB_MAX_RESERVE	8

/* The cache of kmem_cache_node structures and its static bootstrap copy. */
static struct kmem_cache *kmem_cache_node;
static struct kmem_cache slqb_boot_node_cache;
static struct kmem_cache slqb_boot_cache;

static DEFINE_PER_CPU(struct delayed_work, slqb_trim_work);
static DEFINE_PER_CPU(struct delayed_work, slqb_trim_wake_work);

/* Each CPU's local memory node, see above. */
DEFINE_PER_CPU(int, slqb_node);

/*
 * The nodes for which every cache has a node list, under slab_mutex. A node
 * joins before its first memory block goes online, so that a cache created
 * while the block is onlined gets a list too (the node joins N_NORMAL_MEMORY
 * only afterwards), and leaves once it has no normal memory left.
 */
nodemask_t slqb_nodes;

/* The node with normal memory nearest to @node. */
static int nearest_memory_node(int node)
{
	int n, best = first_node(node_states[N_NORMAL_MEMORY]);

	if (node < 0 || node >= nr_node_ids)
		return best;
	if (node_state(node, N_NORMAL_MEMORY))
		return node;
	for_each_node_state(n, N_NORMAL_MEMORY)
		if (node_distance(node, n) < node_distance(node, best))
			best = n;
	return best;
}

static void set_local_node(int cpu)
{
	WRITE_ONCE(per_cpu(slqb_node, cpu), nearest_memory_node(cpu_to_mem(cpu)));
}

#if IS_ENABLED(CONFIG_SLQB_KUNIT_TEST)
/* Fault injection for the KUnit suite: see the hooks in mm/slqb.h. */
static struct kmem_cache *slqb_fail_cache;
static atomic_t slqb_fail_allow;
static struct kmem_cache *slqb_fail_order_cache;
static unsigned int slqb_fail_order;

void slqb_test_fail_new_slabs(struct kmem_cache *s, unsigned int allow)
{
	atomic_set(&slqb_fail_allow, allow);
	WRITE_ONCE(slqb_fail_cache, s);
}

void slqb_test_fail_orders(struct kmem_cache *s, unsigned int order)
{
	WRITE_ONCE(slqb_fail_order, order);
	WRITE_ONCE(slqb_fail_order_cache, s);
}

static inline bool fail_new_slab(struct kmem_cache *s)
{
	return unlikely(READ_ONCE(slqb_fail_cache) == s) &&
	       atomic_dec_if_positive(&slqb_fail_allow) < 0;
}

static inline bool fail_slab_order(struct kmem_cache *s, unsigned int order)
{
	return unlikely(READ_ONCE(slqb_fail_order_cache) == s) &&
	       order >= READ_ONCE(slqb_fail_order);
}

static struct kmem_cache *slqb_fallback_cache;
static int slqb_fallback_node;

void slqb_test_fallback_node(struct kmem_cache *s, int node)
{
	WRITE_ONCE(slqb_fallback_cache, NULL);
	WRITE_ONCE(slqb_fallback_node, node);
	WRITE_ONCE(slqb_fallback_cache, s);
}

static inline int slab_pages_node(struct kmem_cache *s, int node)
{
	if (unlikely(READ_ONCE(slqb_fallback_cache) == s))
		return READ_ONCE(slqb_fallback_node);
	return node;
}

static struct kmem_cache *slqb_busy_cache;
static unsigned long slqb_busy_ticks;

void slqb_test_busy_ticks(struct kmem_cache *s, unsigned long ticks)
{
	WRITE_ONCE(slqb_busy_cache, NULL);
	WRITE_ONCE(slqb_busy_ticks, ticks);
	WRITE_ONCE(slqb_busy_cache, s);
}

static inline unsigned long busy_ticks(struct kmem_cache *s)
{
	if (unlikely(READ_ONCE(slqb_busy_cache) == s))
		return READ_ONCE(slqb_busy_ticks);
	return SLQB_BUSY_TICKS;
}

static struct kmem_cache *slqb_watch_cache;
static struct slqb_test_watch *slqb_watch;

void slqb_test_watch_pages(struct kmem_cache *s, struct slqb_test_watch *w)
{
	WRITE_ONCE(slqb_watch_cache, NULL);
	WRITE_ONCE(slqb_watch, w);
	WRITE_ONCE(slqb_watch_cache, s);
}

static void watch_pages(struct kmem_cache *s, gfp_t flags)
{
	struct slqb_test_watch *w;

	if (likely(READ_ONCE(slqb_watch_cache) != s))
		return;
	w = READ_ONCE(slqb_watch);
	if (!w->calls++)
		w->first_flags = flags;
	if (!irqs_disabled())
		w->irqs_enabled = true;
	if (w->during)
		w->during(w->arg);
}

static void watch_report(struct kmem_cache *s)
{
	if (READ_ONCE(slqb_watch_cache) == s)
		READ_ONCE(slqb_watch)->reports++;
}
#else
static inline bool fail_new_slab(struct kmem_cache *s)
{
	return false;
}

static inline unsigned long busy_ticks(struct kmem_cache *s)
{
	return SLQB_BUSY_TICKS;
}

static inline bool fail_slab_order(struct kmem_cache *s, unsigned int order)
{
	return false;
}

static inline int slab_pages_node(struct kmem_cache *s, int node)
{
	return node;
}

static inline void watch_pages(struct kmem_cache *s, gfp_t flags)
{
}

static inline void watch_report(struct kmem_cache *s)
{
}
#endif

/*
 * The hooks of mm/slab.h each test a static key first, and most calls find
 * it off. A kernel built for size keeps them out of line, though, so every
 * call costs a call, saved registers and a return before that test. These
 * test the key here and call the hook only when it is on.
 */
static __always_inline bool slqb_init_on_free(struct kmem_cache *s)
{
	return static_branch_maybe(CONFIG_INIT_ON_FREE_DEFAULT_ON,
				   &init_on_free) && slab_want_init_on_free(s);
}

static __always_inline bool slqb_init_on_alloc(gfp_t flags,
					       struct kmem_cache *s)
{
	if (!static_branch_maybe(CONFIG_INIT_ON_ALLOC_DEFAULT_ON,
				 &init_on_alloc))
		return flags & __GFP_ZERO;
	return slab_want_init_on_alloc(flags, s);
}

static __always_inline void slqb_memcg_free_hook(struct kmem_cache *s,
						 struct slab *slab, void **p,
						 int objects)
{
#ifdef CONFIG_MEMCG_KMEM
	/* memcg_kmem_enabled(), which a kernel built for size calls too */
	if (static_branch_likely(&memcg_kmem_enabled_key))
		memcg_slab_free_hook(s, slab, p, objects);
#endif
}

/* virt_to_slab() of an address known to be in a slab, inline. */
static __always_inline struct slab *object_slab(const void *x)
{
	struct folio *folio = page_folio(virt_to_page(x));

	return folio_slab(folio);
}

/*
 * Whether @x is in @slab, whose objects start at @base: one compare, where
 * object_slab() takes a page lookup. A KFENCE object never is. @base is
 * slab_address()'s, untagged; @x may carry a KASAN software tag.
 */
static __always_inline bool in_slab(const struct kmem_cache *s,
				    const struct slab *slab, const void *base,
				    const void *x)
{
	return (unsigned long)(kasan_reset_tag(x) - base) <
	       (unsigned long)slab->objects * s->size;
}

/* Slabs and the page allocator */

static struct folio *alloc_slab_pages(struct kmem_cache *s, gfp_t flags,
				      int node, unsigned int order)
{
	watch_pages(s, flags);
	if (fail_slab_order(s, order))
		return NULL;
	node = slab_pages_node(s, node);
	return (struct folio *)alloc_pages_node(node, flags, order);
}

/*
 * Make the object at @p ready for its first allocation. Return it as KASAN
 * tagged it: with software tags, an object of a cache with a constructor
 * keeps this tag for the slab's life, so the free list must carry it.
 */
static void *setup_object(struct kmem_cache *s, void *p)
{
	void *object = kasan_init_slab_obj(s, p);

	if (s->ctor) {
		kasan_unpoison_object_data(s, object);
		s->ctor(object);
		kasan_poison_object_data(s, object);
	}
	if (slqb_debug_cache(s))
		slqb_debug_init_object(s, p);
	return object;
}

#ifdef CONFIG_SLAB_FREELIST_RANDOM
/*
 * s->random_seq is a permutation of the indices of a slab of s->order, made
 * once per cache by the common code. Each new slab links its free objects
 * in that order, from a random place in it, and skips the indices that a
 * smaller slab of s->min_order does not have.
 */
static int init_random_seq(struct kmem_cache *s)
{
	return cache_random_seq_create(s, s->objects, GFP_KERNEL);
}

/* Set up and link the @objects objects from @start in random order. */
static void *link_random(struct kmem_cache *s, void *start,
			 unsigned int objects)
{
	unsigned int count = s->objects, pos, k, idx;
	void *first = NULL, *prev = NULL, *p;

	pos = get_random_u32_below(count);
	for (k = 0; k < count; k++, pos = pos + 1 < count ? pos + 1 : 0) {
		idx = s->random_seq[pos];
		if (idx >= objects)
			continue;
		p = setup_object(s, start + idx * s->size);
		if (prev)
			set_freepointer(s, prev, p);
		else
			first = p;
		prev = p;
	}
	set_freepointer(s, prev, NULL);
	return first;
}

static inline bool random_order(struct kmem_cache *s)
{
	return s->random_seq;
}
#else
static inline int init_random_seq(struct kmem_cache *s)
{
	return 0;
}

static inline void *link_random(struct kmem_cache *s, void *start,
				unsigned int objects)
{
	return NULL;
}

static inline bool random_order(struct kmem_cache *s)
{
	return false;
}
#endif

/*
 * Count the slabs on each node's memory, for /sys/kernel/slab/<cache>/slabs.
 * The node's list exists for any slab but those of kmem_cache_node made at
 * boot before it: early_node_alloc() counts its own.
 */
static inline void count_node_slab(struct kmem_cache *s, struct slab *slab,
				   int delta)
{
	struct kmem_cache_node *n = get_node(s, slab_nid(slab));

	if (n)
		atomic_long_add(delta, &n->list.node_slabs);
}

/*
 * A new slab, with its objects on its freelist. It is of s->order when the
 * page allocator has that at hand without reclaim, else of s->min_order.
 */
struct slab *slqb_new_slab(struct kmem_cache *s, gfp_t flags, int node)
{
	unsigned int order = s->order, objects = s->objects, i;
	struct folio *folio = NULL;
	struct slab *slab;
	void *start, *object, *prev;

	if (unlikely(flags & GFP_SLAB_BUG_MASK))
		flags = kmalloc_fix_flags(flags);
	flags &= GFP_RECLAIM_MASK | GFP_CONSTRAINT_MASK;
	flags |= s->allocflags;

	if (fail_new_slab(s))
		return NULL;
	if (order > s->min_order)
		folio = alloc_slab_pages(s, (flags | __GFP_NOWARN |
					     __GFP_NORETRY) & ~__GFP_NOFAIL,
					 node, order);
	if (!folio) {
		order = s->min_order;
		objects = s->min_objects;
		folio = alloc_slab_pages(s, flags, node, order);
		if (!folio)
			return NULL;
	}

	slab = folio_slab(folio);
	__folio_set_slab(folio);
	if (page_is_pfmemalloc(folio_page(folio, 0)))
		slab_set_pfmemalloc(slab);
	slab->slab_cache = s;
	slab->list = NULL;
	slab->inuse = 0;
	/* Before account_slab(): memcg sizes its vector by objs_per_slab(). */
	slab->objects = objects;
	account_slab(slab, order, s, flags);

	/*
	 * KASAN: all of it off limits, objects open only while allocated.
	 * This also resets the pages' tag: slab_address() is untagged after.
	 */
	kasan_poison_slab(slab);
	start = slab_address(slab);
	if (random_order(s)) {
		slab->freelist = link_random(s, start, objects);
	} else {
		slab->freelist = setup_object(s, start);
		for (i = 1, prev = slab->freelist; i < objects; i++) {
			object = setup_object(s, start + i * s->size);
			set_freepointer(s, prev, object);
			prev = object;
		}
		set_freepointer(s, prev, NULL);
	}
	count_node_slab(s, slab, 1);
	return slab;
}

void slqb_free_slab(struct kmem_cache *s, struct slab *slab)
{
	struct folio *folio = slab_folio(slab);
	unsigned int order = folio_order(folio);

	count_node_slab(s, slab, -1);
	__slab_clear_pfmemalloc(slab);
	__folio_clear_slab(folio);
	page_mapcount_reset(folio_page(folio, 0));
	folio->mapping = NULL;
	if (current->reclaim_state)
		current->reclaim_state->reclaimed_slab += 1 << order;
	unaccount_slab(slab, order, s);
	__free_pages(folio_page(folio, 0), order);
}

static void rcu_free_slab(struct rcu_head *head)
{
	struct slab *slab = container_of(head, struct slab, rcu_head);

	slqb_free_slab(slab->slab_cache, slab);
}

/*
 * Give an empty slab back to the page allocator: flush_slab_free counts
 * these, not the slabs that a reserve keeps.
 */
static void release_slab(struct kmem_cache *s, struct slab *slab)
{
	stat_this_cpu(s, FLUSH_SLAB_FREE);
	if (unlikely(s->flags & SLAB_TYPESAFE_BY_RCU))
		call_rcu(&slab->rcu_head, rcu_free_slab);
	else
		slqb_free_slab(s, slab);
}

static void free_slabs(struct kmem_cache *s, struct list_head *discard)
{
	struct slab *slab, *next;

	list_for_each_entry_safe(slab, next, discard, slab_list)
		release_slab(s, slab);
}

/*
 * The reserve: a few empty slabs per node that a cache keeps instead of
 * freeing them, so that a workload that frees a batch and allocates it
 * again does not go through the page allocator, and build a freelist, for
 * every slab. The node's list owns them, under its list_lock, with every
 * object on the slab's freelist. Trim, shrink, the shrinker and memory
 * hotplug give them back. Debugged caches keep none. Up to @limit slabs:
 * s->reserve, or more on the local node for the claim of an allocating
 * owner's queue, which the owner's cap timer gives back (see
 * slqb_claim_work()).
 */
static bool reserve_slab(struct kmem_cache *s, struct slab *slab,
			 unsigned int limit)
{
	struct kmem_cache_node *n = get_node(s, slab_nid(slab));
	unsigned long flags;
	bool kept = false;

	if (!n || slqb_debug_cache(s) || READ_ONCE(n->list.nr_empty) >= limit)
		return false;
	spin_lock_irqsave(&n->list_lock, flags);
	if (n->list.nr_empty < limit) {
		WRITE_ONCE(slab->list, &n->list);
		list_own_slab(&n->list, slab);
		list_add(&slab->slab_list, &n->list.empty);
		WRITE_ONCE(n->list.nr_empty, n->list.nr_empty + 1);
		n->list.slab_free += slab->objects;
		kept = true;
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	return kept;
}

/* Move a slab of @n's reserve onto the partial list of @l, under list_lock. */
static struct slab *reserve_take(struct kmem_cache *s,
				 struct kmem_cache_node *n,
				 struct kmem_cache_list *l)
{
	struct slab *slab = list_first_entry_or_null(&n->list.empty,
						     struct slab, slab_list);

	if (!slab)
		return NULL;
	list_del(&slab->slab_list);
	WRITE_ONCE(n->list.nr_empty, n->list.nr_empty - 1);
	n->list.slab_free -= slab->objects;
	list_disown_slab(&n->list, slab);
	list_add_slab(s, l, slab);
	return slab;
}

/* Free the slabs of @n's reserve beyond the first @keep. */
static void reserve_release(struct kmem_cache *s, struct kmem_cache_node *n,
			    unsigned int keep)
{
	unsigned long flags;
	struct slab *slab;
	LIST_HEAD(discard);

	if (READ_ONCE(n->list.nr_empty) <= keep)
		return;
	spin_lock_irqsave(&n->list_lock, flags);
	while (n->list.nr_empty > keep) {
		slab = list_last_entry(&n->list.empty, struct slab, slab_list);
		list_move(&slab->slab_list, &discard);
		WRITE_ONCE(n->list.nr_empty, n->list.nr_empty - 1);
		n->list.slab_free -= slab->objects;
		list_disown_slab(&n->list, slab);
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	free_slabs(s, &discard);
}

static void reserve_release_all(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int node;

	for_each_kmem_cache_node(s, node, n)
		reserve_release(s, n, 0);
}

/* As slqb_discard_slabs(), with room for @extra more on the local node. */
static void discard_slabs(struct kmem_cache *s, struct list_head *discard,
			  unsigned int extra)
{
	unsigned int limit = READ_ONCE(s->reserve);
	int local = extra ? slqb_local_node() : NUMA_NO_NODE;
	struct slab *slab, *next;

	list_for_each_entry_safe(slab, next, discard, slab_list) {
		list_del(&slab->slab_list);
		if (!reserve_slab(s, slab, slab_nid(slab) == local ?
					   limit + extra : limit))
			release_slab(s, slab);
	}
}

/*
 * Give empty slabs back: to the reserve while it has room, else to the page
 * allocator. Callers collect them while they change lists and give them
 * back here once their lists are consistent again: freeing a slab may call
 * kfree() (memcg vectors), which re-enters the allocator.
 */
void slqb_discard_slabs(struct kmem_cache *s, struct list_head *discard)
{
	discard_slabs(s, discard, 0);
}

/*
 * No slab could be had for an allocation that did not ask for silence: say
 * so, a few times in a burst at most, with what the cache already holds.
 */
void slqb_report_no_slab(struct kmem_cache *s, gfp_t flags, int node)
{
	static DEFINE_RATELIMIT_STATE(rs, DEFAULT_RATELIMIT_INTERVAL,
				      DEFAULT_RATELIMIT_BURST);
	struct kmem_cache_node *n;
	struct slqb_totals t;
	int nid;

	if (flags & __GFP_NOWARN)
		return;
	watch_report(s);
	if (!__ratelimit(&rs))
		return;
	slqb_cache_totals(s, &t);
	pr_warn("SLQB: %s: no new slab on node %d, gfp %#x(%pGg)\n",
		s->name, node, flags, &flags);
	pr_warn("SLQB: %s: objects of %u bytes (%u with metadata), %u per slab of order %u, or %u of order %u\n",
		s->name, s->object_size, s->size, s->objects, s->order,
		s->min_objects, s->min_order);
	pr_warn("SLQB: %s: %lu slabs, %lu objects, %lu of them in use\n",
		s->name, t.slabs, t.objects, totals_in_use(s, &t));
	for_each_kmem_cache_node(s, nid, n)
		pr_warn("SLQB: %s: node %d has %ld slabs\n", s->name, nid,
			atomic_long_read(&n->list.node_slabs));
}

/*
 * Allocate a slab with interrupts disabled on entry and exit; @irqflags are
 * the caller's, saved before it disabled them. Interrupts are enabled around
 * the page allocation only if they were enabled in the caller and the flags
 * allow sleeping: the caller may then be running on another CPU. A caller
 * that had them disabled gets no direct reclaim.
 */
static struct slab *new_slab_irqoff(struct kmem_cache *s, gfp_t flags,
				    int node, unsigned long irqflags)
{
	struct slab *slab;

	flags &= gfp_allowed_mask;
	if (irqs_disabled_flags(irqflags))
		flags &= ~__GFP_DIRECT_RECLAIM;
	if (!gfpflags_allow_blocking(flags)) {
		slab = slqb_new_slab(s, flags, node);
	} else {
		local_irq_enable();
		slab = slqb_new_slab(s, flags, node);
		local_irq_disable();
	}
	if (unlikely(!slab))
		slqb_report_no_slab(s, flags, node);
	return slab;
}

#if IS_ENABLED(CONFIG_SLQB_KUNIT_TEST)
bool slqb_test_new_slab_irqoff(struct kmem_cache *s, gfp_t flags)
{
	unsigned long irqflags;
	struct slab *slab;

	local_irq_disable();
	local_save_flags(irqflags);
	slab = new_slab_irqoff(s, flags, slqb_local_node(), irqflags);
	local_irq_enable();
	if (slab)
		slqb_free_slab(s, slab);
	return slab;
}
#endif

/* Move a partial slab from list @from to list @to. */
static void list_move_slab(struct kmem_cache *s, struct kmem_cache_list *from,
			   struct kmem_cache_list *to, struct slab *slab)
{
	unsigned int nr_free = slab_free_objects(s, slab);

	list_del(&slab->slab_list);
	from->nr_partial--;
	from->slab_free -= nr_free;
	list_disown_slab(from, slab);
	list_add_slab(s, to, slab);
}

/*
 * Return a chain of @nr objects of @slab, which @l owns, from @head to
 * @tail, to the slab in one move. A full slab becomes partial; an empty one
 * leaves the list and goes on @discard.
 */
static __always_inline void slab_put_chain(struct kmem_cache *s,
					   struct kmem_cache_list *l,
					   struct slab *slab, void *head,
					   void *tail, unsigned int nr,
					   struct list_head *discard)
{
	set_freepointer(s, tail, slab->freelist);
	slab->freelist = head;
	if (slab->inuse == slab->objects) {
		list_add(&slab->slab_list, &l->partial);
		l->nr_partial++;
		stat(l, FLUSH_SLAB_PARTIAL);
	}
	slab->inuse -= nr;
	l->slab_free += nr;
	if (!slab->inuse) {
		list_del(&slab->slab_list);
		l->nr_partial--;
		l->slab_free -= slab->objects;
		list_disown_slab(l, slab);
		list_add(&slab->slab_list, discard);
	}
}

/*
 * Free a chain of objects of a slab that belongs to a node list or to an
 * offline CPU, under the node's lock. A slab left behind by an offline CPU
 * is adopted by the node list. Returns false if a live CPU owns the slab
 * after all; the caller must look at the owner again.
 */
static bool free_chain_locked(struct kmem_cache *s, struct slab *slab,
			      void *head, void *tail, unsigned int nr,
			      struct list_head *discard)
{
	struct kmem_cache_node *n = get_node(s, slab_nid(slab));
	struct kmem_cache_list *owner;

	spin_lock(&n->list_lock);
	owner = slab->list;
	if (owner != &n->list) {
		if (!READ_ONCE(owner->dead)) {
			spin_unlock(&n->list_lock);
			return false;
		}
		/* A dead CPU's slabs that reach here are full: no list links them. */
		list_disown_slab(owner, slab);
		WRITE_ONCE(slab->list, &n->list);
		list_own_slab(&n->list, slab);
	}
	slab_put_chain(s, &n->list, slab, head, tail, nr, discard);
	spin_unlock(&n->list_lock);
	return true;
}

/* Remote queues */

static void rlist_handover(struct kmem_cache *s, struct kmem_cache_cpu *c,
			   struct list_head *discard);
static bool send_run(struct kmem_cache *s, struct kmem_cache_cpu *c,
		     struct slab *slab, void *head, void *tail,
		     unsigned int nr, struct list_head *discard, bool batch);
static void rlist_add(struct kmem_cache *s, struct kmem_cache_cpu *c,
		      struct kmem_cache_list *target, void *head, void *tail,
		      unsigned int nr, struct list_head *discard);

/*
 * Walk the run of objects of @slab that starts at @head, on a chain linked
 * by free pointers: set *@tail to its last object and add its length to
 * *@run. Returns the object after it, NULL at the end of the chain.
 */
static __always_inline void *chain_run(struct kmem_cache *s,
				       struct slab *slab, void *head,
				       void **tail, unsigned int *run)
{
	void *base = slab_address(slab), *next;

	(*run)++;
	while ((next = get_freepointer(s, head)) &&
	       in_slab(s, slab, base, next)) {
		head = next;
		(*run)++;
	}
	*tail = head;
	return next;
}

/*
 * Return a chain of objects, linked by free pointers, through @c, in runs:
 * neighbours on the chain that share a slab go home in one move, and so do
 * neighbouring runs for one other live CPU, onto the rlist. @c may be an
 * offline CPU being drained: its own slabs then go to their node lists,
 * through send_run(). Returns how many objects there were; *@remote, if
 * given, counts those that went to the rlist.
 */
static unsigned int flush_chain(struct kmem_cache *s, struct kmem_cache_cpu *c,
				void *head, struct list_head *discard,
				unsigned int *remote)
{
	struct slab *slab = head ? object_slab(head) : NULL, *next_slab;
	unsigned int nr = 0, nr_remote = 0, run;
	struct kmem_cache_list *owner;
	void *tail, *next;

	while (head) {
		run = 0;
		next = chain_run(s, slab, head, &tail, &run);
		next_slab = next ? object_slab(next) : NULL;
		owner = READ_ONCE(slab->list);
		if (owner == &c->list && !READ_ONCE(owner->dead)) {
			slab_put_chain(s, owner, slab, head, tail, run, discard);
		} else if (owner != &c->list && !is_node_list(owner) &&
			   !READ_ONCE(owner->dead)) {
			/* The rlist takes runs of any slab of that owner. */
			while (next_slab && READ_ONCE(next_slab->list) == owner) {
				next = chain_run(s, next_slab, next, &tail, &run);
				next_slab = next ? object_slab(next) : NULL;
			}
			rlist_add(s, c, owner, head, tail, run, discard);
			nr_remote += run;
		} else if (send_run(s, c, slab, head, tail, run, discard,
				    true)) {
			nr_remote += run;
		}
		nr += run;
		head = next;
		slab = next_slab;
	}
	if (remote)
		*remote = nr_remote;
	return nr;
}

/* Take everything on @l's remote queue. */
static void *remote_take_all(struct kmem_cache_list *l)
{
	return xchg(&l->remote_head, NULL);
}

/*
 * Whether a CPU whose LIFO last ran dry at @stamp is allocating: it did so
 * in the last busy_ticks(). As an unsigned difference, a stamp that has not
 * moved for long looks recent again only for one window each time jiffies
 * wrap around; time_before() would take it for recent half the time.
 */
static bool owner_busy(struct kmem_cache *s, unsigned long stamp)
{
	return jiffies - stamp < busy_ticks(s);
}

/* The cap of the remote queue of an owner that allocates, in objects. */
static unsigned int busy_cap(struct kmem_cache *s)
{
	return max(SLQB_REMOTE_CAP * s->hiwater,
		   min(SLQB_REMOTE_BUSY_CAP * s->hiwater, SLQB_REMOTE_BUSY_MAX));
}

/* Whether @l's remote queue is past the cap of an owner that is idle. */
static bool queue_over_cap(struct kmem_cache *s, struct kmem_cache_list *l)
{
	return atomic_read(&l->remote_nr) > (int)(SLQB_REMOTE_CAP * s->hiwater);
}

/*
 * Whether @l holds more than an owner that stopped allocating would keep:
 * a queue past the shorter cap, a LIFO past @hiwater, or a reserve past
 * its bound on the owner's node. On the owner's CPU.
 */
static bool kept_for_busy(struct kmem_cache *s, struct kmem_cache_list *l,
			  unsigned int hiwater)
{
	struct kmem_cache_node *n = get_node(s, slqb_local_node());

	return queue_over_cap(s, l) || READ_ONCE(l->nr) > hiwater ||
	       (n && READ_ONCE(n->list.nr_empty) > READ_ONCE(s->reserve));
}

/*
 * Have slqb_cap_timer() look at @owner's queue, LIFO and node reserve once
 * the busy window that began at @stamp is over, unless it is armed already.
 *
 * With CONFIG_DEBUG_OBJECTS_TIMERS, arming the timer may allocate a debug
 * object: the allocator is re-entered here, from the free path or from the
 * claim's irq_work, with the lists of this CPU and of @owner consistent.
 */
static void arm_cap_timer(struct kmem_cache *s, struct kmem_cache_cpu *owner,
			  unsigned long stamp)
{
	if (!test_bit(0, &owner->cap_armed) &&
	    !test_and_set_bit(0, &owner->cap_armed)) {
		owner->cap_timer.expires = stamp + busy_ticks(s);
		add_timer_on(&owner->cap_timer, owner->list.cpu);
	}
}

/*
 * A push took @target's remote queue past SLQB_REMOTE_CAP LIFOs. If the
 * owner stopped allocating, interrupt it to claim the queue now
 * (claim_capped()): else the queue would wait for the owner's next trim
 * pass, each object keeping a slab from being freed.
 *
 * An owner that allocates takes its whole queue onto its LIFO each time the
 * LIFO runs dry, and allocates those objects again, so its queue may grow
 * to busy_cap() before it is interrupted. Interrupting it at the shorter cap
 * let a CPU that frees faster than the owner allocates interrupt the owner
 * every few hand-overs, with claims that found its LIFO full and sent the
 * objects through their slabs back to the page allocator, for the owner to
 * allocate new slabs. The timer makes sure that a queue left past the
 * shorter cap, when the owner stops, is claimed once the owner's busy window
 * is over, and that a LIFO such a claim left past hiwater is flushed back
 * to it (slqb_cap_timer()).
 *
 * @queued is what this push counted; pushes that go on until the claim has
 * run, from this CPU or others, can take the queue somewhat further. This
 * CPU's rlist is already handed over when the timer is armed.
 */
static void remote_over_cap(struct kmem_cache *s, struct kmem_cache_cpu *c,
			    struct kmem_cache_list *target, int queued)
{
	struct kmem_cache_cpu *owner = container_of(target,
						    struct kmem_cache_cpu, list);
	unsigned long stamp = READ_ONCE(owner->dry_stamp);

	if (!owner_busy(s, stamp) || queued > (int)busy_cap(s)) {
		stat(&c->list, REMOTE_CAP_HIT);
		irq_work_queue_on(&target->claim_work, target->cpu);
	} else {
		arm_cap_timer(s, owner, stamp);
	}
}

/*
 * Push a chain of @nr objects owned by @target onto its remote queue in one
 * move. No lock: producers only push, the consumer only takes everything.
 * Past its cap, the owner is asked to claim the queue at once, with an
 * irq_work that is queued once until it has run, not once a push
 * (remote_over_cap()). If the owner went offline, nobody would claim the
 * queue, so the objects go back to their slabs here, under the node locks.
 */
static void remote_push(struct kmem_cache *s, struct kmem_cache_cpu *c,
			struct kmem_cache_list *target, void *head, void *tail,
			unsigned int nr, struct list_head *discard)
{
	void *old = READ_ONCE(target->remote_head);
	int queued;

	do {
		set_freepointer(s, tail, old);
	} while (!try_cmpxchg(&target->remote_head, &old, head));

	/* A claim may take pushes before they count themselves: queued < 0. */
	queued = atomic_add_return(nr, &target->remote_nr);
	if (queued > (int)(SLQB_REMOTE_CAP * s->hiwater) &&
	    !READ_ONCE(target->dead) && cpu_online(target->cpu))
		remote_over_cap(s, c, target, queued);

	/* Pairs with the barrier in slqb_drain_dead_cpu(). */
	smp_mb();
	if (unlikely(READ_ONCE(target->dead))) {
		head = remote_take_all(target);
		if (head)
			atomic_sub(flush_chain(s, c, head, discard, NULL),
				   &target->remote_nr);
	}
}

/* Hand this CPU's rlist over to its target. */
static void rlist_handover(struct kmem_cache *s, struct kmem_cache_cpu *c,
			   struct list_head *discard)
{
	void *head = c->rlist, *tail = c->rlist_tail;
	unsigned int nr = c->rlist_nr;

	if (!nr)
		return;
	c->rlist = NULL;
	c->rlist_tail = NULL;
	c->rlist_nr = 0;
	stat(&c->list, FLUSH_RFREE_LIST);
	stat_add(&c->list, FLUSH_RFREE_LIST_OBJECTS, nr);
	remote_push(s, c, c->rlist_target, head, tail, nr, discard);
}

/* Add a chain of @nr objects for @target to this CPU's rlist. */
static void rlist_add(struct kmem_cache *s, struct kmem_cache_cpu *c,
		      struct kmem_cache_list *target, void *head, void *tail,
		      unsigned int nr, struct list_head *discard)
{
	if (c->rlist_nr && c->rlist_target != target)
		rlist_handover(s, c, discard);
	c->rlist_target = target;
	set_freepointer(s, tail, c->rlist);
	if (!c->rlist)
		c->rlist_tail = tail;
	c->rlist = head;
	c->rlist_nr += nr;
	if (c->rlist_nr >= s->freebatch)
		rlist_handover(s, c, discard);
}

/*
 * Send a chain of @nr objects of @slab, from @head to @tail, home in one
 * move, from CPU @c's point of view: into the slab if @c owns it, under the
 * node lock if a node or a dead CPU owns it, and to the owner if another
 * live CPU owns it: through the rlist if @batch, else onto the owner's
 * remote queue at once. Returns true in that last case.
 */
static bool send_run(struct kmem_cache *s, struct kmem_cache_cpu *c,
		     struct slab *slab, void *head, void *tail,
		     unsigned int nr, struct list_head *discard, bool batch)
{
	struct kmem_cache_list *owner;

	for (;;) {
		owner = READ_ONCE(slab->list);
		if (is_node_list(owner) || READ_ONCE(owner->dead)) {
			if (free_chain_locked(s, slab, head, tail, nr, discard))
				return false;
			continue;
		}
		if (owner == &c->list) {
			slab_put_chain(s, owner, slab, head, tail, nr, discard);
			return false;
		}
		if (batch) {
			rlist_add(s, c, owner, head, tail, nr, discard);
		} else {
			stat(&c->list, FLUSH_RFREE_LIST);
			stat_add(&c->list, FLUSH_RFREE_LIST_OBJECTS, nr);
			remote_push(s, c, owner, head, tail, nr, discard);
		}
		return true;
	}
}

/* Claim this CPU's remote queue and return the objects to their slabs. */
static void claim_remote(struct kmem_cache *s, struct kmem_cache_cpu *c,
			 struct list_head *discard)
{
	void *head = remote_take_all(&c->list);
	unsigned int nr;

	if (!head)
		return;
	nr = flush_chain(s, c, head, discard, NULL);
	atomic_sub(nr, &c->list.remote_nr);
	stat(&c->list, CLAIM_REMOTE_LIST);
	stat_add(&c->list, CLAIM_REMOTE_LIST_OBJECTS, nr);
}

/*
 * Flush @nr objects from the cold end of the LIFO: the objects freed
 * longest ago, whose cache lines are the least likely to be hot.
 */
static void flush_lifo(struct kmem_cache *s, struct kmem_cache_cpu *c,
		       unsigned int nr, struct list_head *discard)
{
	struct kmem_cache_list *l = &c->list;
	unsigned int keep, remote;
	void *head, *last;

	if (!nr || !l->nr)
		return;
	if (nr >= l->nr) {
		head = l->freelist;
		nr = l->nr;
		l->freelist = NULL;
		l->nr = 0;
		l->seq++;
	} else {
		keep = l->nr - nr;
		last = l->freelist;
		while (--keep)
			last = get_freepointer(s, last);
		head = get_freepointer(s, last);
		set_freepointer(s, last, NULL);
		l->nr -= nr;
		l->seq++;
	}
	stat(l, FLUSH_FREE_LIST);
	stat_add(l, FLUSH_FREE_LIST_OBJECTS, nr);
	flush_chain(s, c, head, discard, &remote);
	stat_add(l, FLUSH_FREE_LIST_REMOTE, remote);
}

/*
 * Claim the remote queue of @c after its cap was hit. What fits on the LIFO
 * under @keep objects goes there, where the next allocations take it rather
 * than a slab the claim would have emptied and freed; the rest goes back to
 * its slabs.
 */
static void claim_capped(struct kmem_cache *s, struct kmem_cache_cpu *c,
			 unsigned int keep, struct list_head *discard)
{
	struct kmem_cache_list *l = &c->list;
	unsigned int room = l->nr < keep ? keep - l->nr : 0;
	void *head, *last, *next;
	unsigned int nr;

	if (!room) {
		claim_remote(s, c, discard);
		return;
	}
	head = remote_take_all(l);
	if (!head)
		return;
	last = head;
	for (nr = 1; nr < room; nr++) {
		next = get_freepointer(s, last);
		if (!next)
			break;
		last = next;
	}
	next = get_freepointer(s, last);
	set_freepointer(s, last, l->freelist);
	l->freelist = head;
	l->nr += nr;
	if (next)
		nr += flush_chain(s, c, next, discard, NULL);
	atomic_sub(nr, &l->remote_nr);
	stat(l, CLAIM_REMOTE_LIST);
	stat_add(l, CLAIM_REMOTE_LIST_OBJECTS, nr);
}

/*
 * The cap was hit: claim the remote queue now, on the owning CPU. An owner
 * that stopped allocating keeps hiwater objects on its LIFO. One that
 * allocates keeps up to busy_cap(): it would take the whole queue onto its
 * LIFO anyway the next time the LIFO ran dry (claim_to_lifo()), so a LIFO
 * that long holds nothing that it could not already hold. Topped up to
 * hiwater only, it would send most of a queue that a faster freer filled
 * through its slabs back to the page allocator, and then allocate new
 * slabs for the same objects. For the same reason, the slabs of the local
 * node that the rest of its queue empties may wait in that node's reserve,
 * up to busy_cap() objects' worth beyond its bound: a freer that outruns
 * the owner by more than the LIFO holds would otherwise have them freed and
 * allocated again, a whole batch at a time, where slabs of order 3 have no
 * reserve at all. The reserve is the node's: whichever CPU of the node
 * refills next takes them, and the cap timer of whichever stops gives back
 * what is past the bound.
 */
static void slqb_claim_work(struct irq_work *work)
{
	struct kmem_cache_list *l = container_of(work, struct kmem_cache_list,
						 claim_work);
	struct kmem_cache *s = l->cache;
	struct kmem_cache_cpu *c = this_cpu_ptr(s->cpu_slab);
	unsigned long stamp = READ_ONCE(c->dry_stamp);
	unsigned int hiwater = READ_ONCE(s->hiwater);
	unsigned int keep = hiwater, room = 0;
	LIST_HEAD(discard);

	if (WARN_ON_ONCE(&c->list != l))
		return;
	if (owner_busy(s, stamp)) {
		keep = busy_cap(s);
		room = keep / s->objects;
	}
	claim_capped(s, c, keep, &discard);
	discard_slabs(s, &discard, room);
	/*
	 * Once the owner stops, the LIFO goes back to hiwater and the
	 * reserve to its bound. The pushes usually armed the timer already,
	 * but not when one push took the queue past the longer cap at once,
	 * nor when the owner began to allocate after the push that queued
	 * this claim.
	 */
	if (kept_for_busy(s, l, hiwater))
		arm_cap_timer(s, c, stamp);
}

/*
 * Armed when a push took the queue of an owner that allocates past the
 * shorter cap (remote_over_cap()), or when a claim left such an owner's
 * LIFO or node reserve past its bound (slqb_claim_work()), it runs on the
 * owner's CPU once the owner's busy window is over. While the owner has
 * extended its window, it waits for the end of the new window. Once the
 * owner stopped, it gives back what was kept for an owner that allocates:
 * it claims a queue past the shorter cap, as the irq_work would have,
 * flushes the LIFO down to hiwater and frees the local node's reserve
 * down to its bound.
 */
static void slqb_cap_timer(struct timer_list *t)
{
	struct kmem_cache_cpu *c = from_timer(c, t, cap_timer);
	struct kmem_cache_list *l = &c->list;
	struct kmem_cache *s = l->cache;
	unsigned long stamp = READ_ONCE(c->dry_stamp), flags;
	unsigned int hiwater = READ_ONCE(s->hiwater);
	bool busy = owner_busy(s, stamp);
	struct kmem_cache_node *n;
	LIST_HEAD(discard);

	/* Moved off a CPU that went offline, whose queue is taken care of. */
	if (l->cpu != smp_processor_id()) {
		clear_bit(0, &c->cap_armed);
		return;
	}
	if (busy && kept_for_busy(s, l, hiwater)) {
		mod_timer(t, stamp + busy_ticks(s));
		return;
	}
	clear_bit(0, &c->cap_armed);
	/* Either a push sees the bit clear, or this sees its objects. */
	smp_mb__after_atomic();
	if (busy) {
		/*
		 * A push, or a claim that interrupted this timer, came in
		 * between and found the bit still set.
		 */
		if (kept_for_busy(s, l, hiwater) &&
		    !test_and_set_bit(0, &c->cap_armed))
			mod_timer(t, stamp + busy_ticks(s));
		return;
	}
	local_irq_save(flags);
	if (queue_over_cap(s, l))
		claim_capped(s, c, hiwater, &discard);
	if (l->nr > hiwater)
		flush_lifo(s, c, l->nr - hiwater, &discard);
	local_irq_restore(flags);
	slqb_discard_slabs(s, &discard);
	n = get_node(s, slqb_local_node());
	if (n)
		reserve_release(s, n, READ_ONCE(s->reserve));
}

/* Allocation */

/*
 * @n objects were taken off the freelist of @slab, a partial slab of @l:
 * count them, and take the slab off the list if that emptied its freelist.
 */
static __always_inline void slab_taken(struct kmem_cache_list *l,
				       struct slab *slab, unsigned int n)
{
	if (!slab->freelist) {
		list_del(&slab->slab_list);
		l->nr_partial--;
	}
	slab->inuse += n;
	l->slab_free -= n;
}

/*
 * Refill the empty LIFO from the first partial slab: its whole freelist in
 * one move when that fits under hiwater, else its first freebatch objects,
 * which takes a walk along them.
 */
static void fill_lifo(struct kmem_cache *s, struct kmem_cache_list *l)
{
	struct slab *slab = list_first_entry(&l->partial, struct slab,
					     slab_list);
	unsigned int n = slab_free_objects(s, slab), i;
	void *head = slab->freelist, *last = head;

	if (n > s->hiwater) {
		n = s->freebatch;
		for (i = 1; i < n; i++)
			last = get_freepointer(s, last);
		slab->freelist = get_freepointer(s, last);
		set_freepointer(s, last, NULL);
	} else {
		slab->freelist = NULL;
	}
	slab_taken(l, slab, n);
	l->freelist = head;
	l->nr += n;
	stat(l, ALLOC_SLAB_FILL);
}

/* Claim the remote queue onto an empty LIFO. */
static bool claim_to_lifo(struct kmem_cache *s, struct kmem_cache_list *l)
{
	void *head = remote_take_all(l), *p;
	unsigned int nr = 1;

	if (!head)
		return false;
	for (p = head; get_freepointer(s, p); p = get_freepointer(s, p))
		nr++;
	set_freepointer(s, p, l->freelist);
	l->freelist = head;
	l->nr += nr;
	atomic_sub(nr, &l->remote_nr);
	stat(l, CLAIM_REMOTE_LIST);
	stat_add(l, CLAIM_REMOTE_LIST_OBJECTS, nr);
	return true;
}

/*
 * Take a partial slab left on the local node list, or else a slab of the
 * node's reserve, rather than a new one.
 */
static void adopt_node_slab(struct kmem_cache *s, struct kmem_cache_list *l)
{
	struct kmem_cache_node *n = get_node(s, slqb_local_node());
	struct slab *slab;

	if (!n || !(READ_ONCE(n->list.nr_partial) |
		    READ_ONCE(n->list.nr_empty)))
		return;
	spin_lock(&n->list_lock);
	slab = list_first_entry_or_null(&n->list.partial, struct slab,
					slab_list);
	if (slab)
		list_move_slab(s, &n->list, l, slab);
	else
		reserve_take(s, n, l);
	spin_unlock(&n->list_lock);
}

static __always_inline void *lifo_pop(struct kmem_cache *s,
				      struct kmem_cache_list *l)
{
	void *object = l->freelist;

	l->freelist = get_freepointer(s, object);
	l->nr--;
	l->seq++;
	stat(l, ALLOC);
	return object;
}

#if defined(CONFIG_64BIT) && defined(CONFIG_HAVE_CMPXCHG_DOUBLE)
/* kmem_cache_list's @nr and @seq, and the word they make together. */
union lifo_counters {
	struct {
		unsigned int nr;
		unsigned int seq;
	};
	unsigned long counters;
};

static_assert(offsetof(struct kmem_cache_list, counters) == sizeof(void *));
static_assert(offsetof(struct kmem_cache_list, nr) ==
	      offsetof(struct kmem_cache_list, counters));
static_assert(offsetof(struct kmem_cache_list, seq) -
	      offsetof(struct kmem_cache_list, nr) ==
	      offsetof(union lifo_counters, seq));
static_assert(offsetof(struct kmem_cache_cpu, list) == 0);

/*
 * Pop the head of this CPU's LIFO with interrupts on. With preemption off,
 * only an interrupt on this CPU can change the LIFO between the reads and
 * the compare-and-exchange, and whatever it does changes the pair of
 * @freelist and @counters for good: a push raises @nr, and every removal
 * of objects, this one included, bumps @seq. So if the pair is still as it
 * was read, the LIFO is, and @next is still its head's successor; if not,
 * the reads are done again. @next may be read from an object that an
 * interrupt has just allocated, or from a slab it has freed, hence
 * data_race() and no lockless pop under debug_pagealloc, which unmaps
 * freed pages.
 *
 * lifo_peek() does the reads, lifo_take() the exchange; both run with
 * preemption disabled.
 */
static __always_inline void *lifo_peek(struct kmem_cache *s,
				       struct kmem_cache_list *l,
				       union lifo_counters *old, void **next)
{
	void *object;

	old->counters = READ_ONCE(l->counters);
	object = READ_ONCE(l->freelist);
	if (object) {
		/* A stale @next is harmless: the exchange then fails. */
		*next = data_race(get_freepointer(s, object));
	}
	return object;
}

/*
 * The exchange is a local one on this CPU's list: it need not be atomic
 * against other CPUs, only against interrupts, and preemption is off.
 *
 * Its result is made a value before it is tested, rather than a branch on
 * the flags that x86's cmpxchg16b leaves. QEMU 7.2's TCG (Debian 12's)
 * can leave those flags in a stale state after an interrupt return, and a
 * branch on them that ends a translation block then loads garbage into
 * EFLAGS: the guest dies in a double fault. Setting a register from the
 * flags and testing it right away keeps the stale state inside the block.
 * QEMU 8.0 rewrote the instruction's emulation.
 */
static __always_inline bool lifo_take(struct kmem_cache_list *l, void *object,
				      union lifo_counters old, void *next)
{
	union lifo_counters new;
	bool taken;

#ifdef __LITTLE_ENDIAN
	/* @nr is the low half and at least 1: one addition does both. */
	new.counters = old.counters + (1UL << 32) - 1;
#else
	new.nr = old.nr - 1;
	new.seq = old.seq + 1;
#endif
	taken = cmpxchg_double_local(&l->freelist, &l->counters,
				     object, old.counters, next, new.counters);
	OPTIMIZER_HIDE_VAR(taken);
	return taken;
}

/*
 * Returns NULL when the LIFO is empty, or when the request is one for the
 * irq-off path: a node other than the local one, or __GFP_THISNODE.
 */
static __always_inline void *lifo_pop_lockless(struct kmem_cache *s,
					       gfp_t gfpflags, int node)
{
	union lifo_counters old;
	struct kmem_cache_list *l;
	void *object = NULL, *next;

	if (debug_pagealloc_enabled_static() || !system_has_cmpxchg_double())
		return NULL;
	preempt_disable();
	if (unlikely(node != NUMA_NO_NODE &&
		     (node != slqb_local_node() || gfpflags & __GFP_THISNODE)))
		goto out;
	l = raw_cpu_ptr(&s->cpu_slab->list);
	do {
		object = lifo_peek(s, l, &old, &next);
		if (unlikely(!object))
			goto out;
	} while (!lifo_take(l, object, old, next));
	stat_this_cpu(s, ALLOC);
out:
	preempt_enable();
	return object;
}

#if IS_ENABLED(CONFIG_SLQB_KUNIT_TEST)
void *slqb_test_interrupted_pop(struct kmem_cache *s, void (*irq)(void *),
				void *arg)
{
	struct kmem_cache_list *l;
	union lifo_counters old;
	void *object, *next;

	if (!system_has_cmpxchg_double())
		return ERR_PTR(-EOPNOTSUPP);
	preempt_disable();
	l = raw_cpu_ptr(&s->cpu_slab->list);
	object = lifo_peek(s, l, &old, &next);
	irq(arg);
	if (object && !lifo_take(l, object, old, next))
		object = ERR_PTR(-EAGAIN);
	preempt_enable();
	return object;
}
#endif

/* The per-CPU state starts the LIFO's pair on the boundary it needs. */
#define SLQB_CPU_ALIGN		(2 * sizeof(void *))
#else
static __always_inline void *lifo_pop_lockless(struct kmem_cache *s,
					       gfp_t gfpflags, int node)
{
	return NULL;
}

#define SLQB_CPU_ALIGN		__alignof__(struct kmem_cache_cpu)

#if IS_ENABLED(CONFIG_SLQB_KUNIT_TEST)
void *slqb_test_interrupted_pop(struct kmem_cache *s, void (*irq)(void *),
				void *arg)
{
	return ERR_PTR(-EOPNOTSUPP);
}
#endif
#endif

/* The local LIFO is empty. Interrupts are disabled, see new_slab_irqoff(). */
static void *alloc_slow(struct kmem_cache *s, gfp_t gfpflags,
			unsigned long irqflags)
{
	struct kmem_cache_cpu *c = this_cpu_ptr(s->cpu_slab);
	struct kmem_cache_list *l = &c->list;
	struct slab *slab;
	unsigned long now;

	/* The LIFO ran dry: see remote_over_cap(). */
	now = jiffies;
	if (READ_ONCE(c->dry_stamp) != now)
		WRITE_ONCE(c->dry_stamp, now);
	if (READ_ONCE(l->remote_head) && claim_to_lifo(s, l))
		return lifo_pop(s, l);
	if (list_empty(&l->partial))
		adopt_node_slab(s, l);
	if (list_empty(&l->partial)) {
		slab = new_slab_irqoff(s, gfpflags, slqb_local_node(), irqflags);
		if (!slab)
			return NULL;
		l = &this_cpu_ptr(s->cpu_slab)->list;
		list_add_slab(s, l, slab);
		stat(l, ALLOC_SLAB_NEW);
		/*
		 * Meanwhile other CPUs may have pushed onto the remote queue,
		 * and, with interrupts on, a free from an interrupt may have
		 * refilled the LIFO, here or on the CPU that this task moved
		 * to. Take from the new slab all the same: a slab left on the
		 * partial list with no object taken would stay there, empty,
		 * as only a flush that empties a slab gives it back.
		 */
		if (l->freelist) {
			stat(l, ALLOC);
			return slab_take_object(s, l, slab);
		}
	}
	fill_lifo(s, l);
	return lifo_pop(s, l);
}

/*
 * A node-specific allocation: from that node's list, under its lock. A node
 * with no normal memory is no node at all: NULL with *fallback set tells the
 * caller to use the local path. Otherwise a new slab comes from @node if it
 * has one at hand (no reclaim, no warning), and then, unless the caller
 * insists on @node, from wherever the page allocator finds one with the
 * caller's own flags; it goes on the list of its own node.
 */
static void *alloc_node(struct kmem_cache *s, gfp_t gfpflags, int node,
			bool *fallback, unsigned long irqflags)
{
	struct kmem_cache_node *n;
	struct slab *slab;
	void *object = NULL;

	n = slqb_alloc_node_list(s, node);
	if (!n) {
		*fallback = true;
		return NULL;
	}

	spin_lock(&n->list_lock);
	slab = list_first_entry_or_null(&n->list.partial, struct slab,
					slab_list);
	if (!slab)
		slab = reserve_take(s, n, &n->list);
	if (slab) {
		object = slab_take_object(s, &n->list, slab);
		stat(&n->list, ALLOC);
	}
	spin_unlock(&n->list_lock);
	if (object)
		return object;

	if (gfpflags & __GFP_THISNODE) {
		slab = new_slab_irqoff(s, gfpflags, node, irqflags);
	} else {
		slab = new_slab_irqoff(s, slqb_node_try_flags(gfpflags), node,
				       irqflags);
		if (!slab)
			slab = new_slab_irqoff(s, gfpflags, node, irqflags);
	}
	if (!slab)
		return NULL;
	n = get_node(s, slab_nid(slab));
	spin_lock(&n->list_lock);
	list_add_slab(s, &n->list, slab);
	stat(&n->list, ALLOC_SLAB_NEW);
	object = slab_take_object(s, &n->list, slab);
	stat(&n->list, ALLOC);
	spin_unlock(&n->list_lock);
	return object;
}

/*
 * Allocate one object with interrupts disabled; @irqflags are the caller's.
 * A request for a node other than the local one, or for any node with
 * __GFP_THISNODE, goes to that node's list: the LIFO and the CPU's slabs
 * may hold other nodes' objects (see "Nodes" at the top).
 */
static __always_inline void *__slqb_alloc(struct kmem_cache *s, gfp_t gfpflags,
					  int node, unsigned long irqflags)
{
	struct kmem_cache_list *l;
	bool fallback = false;
	void *object;

	if (unlikely(node != NUMA_NO_NODE &&
		     (node != slqb_local_node() || gfpflags & __GFP_THISNODE))) {
		object = alloc_node(s, gfpflags, node, &fallback, irqflags);
		if (likely(!fallback))
			return object;
	}

	l = &this_cpu_ptr(s->cpu_slab)->list;
	if (likely(l->freelist))
		return lifo_pop(s, l);
	return alloc_slow(s, gfpflags, irqflags);
}

/* Clear the free pointer if it lies inside the object (init_on_free). */
static __always_inline void wipe_freepointer(struct kmem_cache *s,
					     void *object)
{
	if (unlikely(slqb_init_on_free(s)) && object &&
	    s->offset < s->object_size && !is_kfence_address(object))
		*(void **)(object + s->offset) = NULL;
}

/*
 * The entry points below come in pairs: an inline body that takes a
 * constant @debug, and an out-of-line copy built with @debug true that the
 * inline one branches to when slqb_debug_enabled(). Built with @debug false,
 * the body has none of the debugging code: the fast path is that of a kernel
 * without CONFIG_SLQB_DEBUG, but for the test and what the compiler keeps
 * live across it.
 */
static __always_inline void *__slab_alloc_node(struct kmem_cache *s,
					       struct list_lru *lru,
					       gfp_t gfpflags, int node,
					       unsigned long addr,
					       size_t orig_size, bool debug)
{
	struct obj_cgroup *objcg = NULL;
	unsigned long flags;
	bool init = false;
	void *object;

	s = slab_pre_alloc_hook(s, lru, &objcg, 1, gfpflags);
	if (!s)
		return NULL;

	/*
	 * A KFENCE object is only @orig_size bytes long, with canaries in the
	 * rest of its page, and kfence_alloc() has already zeroed it if the
	 * caller asked: clearing s->object_size bytes of it here would write
	 * over the canaries.
	 */
	object = kfence_alloc(s, orig_size, gfpflags);
	if (unlikely(object))
		goto out;
	if (debug && slqb_debug_cache(s)) {
		object = slqb_debug_alloc(s, gfpflags, node, addr);
	} else {
		object = lifo_pop_lockless(s, gfpflags, node);
		if (unlikely(!object)) {
			local_irq_save(flags);
			object = __slqb_alloc(s, gfpflags, node, flags);
			local_irq_restore(flags);
		}
		wipe_freepointer(s, object);
	}
	init = slqb_init_on_alloc(gfpflags, s);
out:
	slab_post_alloc_hook(s, objcg, gfpflags, 1, &object, init);
	return object;
}

static noinline __cold void *
slab_alloc_node_debug(struct kmem_cache *s, struct list_lru *lru,
		      gfp_t gfpflags, int node, unsigned long addr,
		      size_t orig_size)
{
	return __slab_alloc_node(s, lru, gfpflags, node, addr, orig_size,
				 true);
}

static __always_inline void *slab_alloc_node(struct kmem_cache *s,
					     struct list_lru *lru,
					     gfp_t gfpflags, int node,
					     unsigned long addr,
					     size_t orig_size)
{
	if (slqb_debug_enabled())
		return slab_alloc_node_debug(s, lru, gfpflags, node, addr,
					     orig_size);
	return __slab_alloc_node(s, lru, gfpflags, node, addr, orig_size,
				 false);
}

void *__kmem_cache_alloc_node(struct kmem_cache *s, gfp_t gfpflags, int node,
			      size_t orig_size, unsigned long caller)
{
	return slab_alloc_node(s, NULL, gfpflags, node, caller, orig_size);
}

/**
 * kmem_cache_alloc - allocate an object
 * @s: the cache to allocate from
 * @gfpflags: GFP flags
 *
 * Return: a pointer to the new object, or %NULL.
 */
void *kmem_cache_alloc(struct kmem_cache *s, gfp_t gfpflags)
{
	void *ret = slab_alloc_node(s, NULL, gfpflags, NUMA_NO_NODE, _RET_IP_,
				    s->object_size);

	trace_kmem_cache_alloc(_RET_IP_, ret, s, gfpflags, NUMA_NO_NODE);
	return ret;
}
EXPORT_SYMBOL(kmem_cache_alloc);

/**
 * kmem_cache_alloc_lru - allocate an object accounted to a list_lru
 * @s: the cache to allocate from
 * @lru: the list_lru whose memcg-aware lists must be ready for the object
 * @gfpflags: GFP flags
 *
 * Return: a pointer to the new object, or %NULL.
 */
void *kmem_cache_alloc_lru(struct kmem_cache *s, struct list_lru *lru,
			   gfp_t gfpflags)
{
	void *ret = slab_alloc_node(s, lru, gfpflags, NUMA_NO_NODE, _RET_IP_,
				    s->object_size);

	trace_kmem_cache_alloc(_RET_IP_, ret, s, gfpflags, NUMA_NO_NODE);
	return ret;
}
EXPORT_SYMBOL(kmem_cache_alloc_lru);

/**
 * kmem_cache_alloc_node - allocate an object on a given memory node
 * @s: the cache to allocate from
 * @gfpflags: GFP flags
 * @node: the node, or %NUMA_NO_NODE for any
 *
 * The object comes from @node when it has memory. Without %__GFP_THISNODE
 * the allocation falls back to the local node when @node has none left.
 *
 * Return: a pointer to the new object, or %NULL.
 */
void *kmem_cache_alloc_node(struct kmem_cache *s, gfp_t gfpflags, int node)
{
	void *ret = slab_alloc_node(s, NULL, gfpflags, node, _RET_IP_,
				    s->object_size);

	trace_kmem_cache_alloc(_RET_IP_, ret, s, gfpflags, node);
	return ret;
}
EXPORT_SYMBOL(kmem_cache_alloc_node);

/* Freeing */

/* The slow part of a free: a LIFO over hiwater, or an object of another node. */
static noinline void free_slow(struct kmem_cache *s, struct kmem_cache_cpu *c,
			       void *object, bool local)
{
	unsigned int hiwater = READ_ONCE(s->hiwater);
	unsigned int batch = READ_ONCE(s->freebatch);
	unsigned int nr = c->list.nr;
	LIST_HEAD(discard);

	if (local) {
		/*
		 * The LIFO is past hiwater, usually by this one object: flush
		 * freebatch from its cold end. A claim of the remote queue
		 * (claim_to_lifo(), or slqb_claim_work() while this CPU
		 * allocates) may have left it longer, by up to about
		 * busy_cap() objects: flush all that in the same walk, down
		 * to where a flush usually leaves the LIFO, rather than walk
		 * past most of it for each freebatch. A write to the
		 * tunables in between may leave the LIFO short of hiwater:
		 * then flush freebatch.
		 */
		if (nr > hiwater && batch <= hiwater)
			nr -= hiwater + 1 - batch;
		else
			nr = batch;
		flush_lifo(s, c, nr, &discard);
	} else {
		stat(&c->list, FREE_REMOTE);
		send_run(s, c, object_slab(object), object, object, 1,
			 &discard, true);
	}
	slqb_discard_slabs(s, &discard);
}

/*
 * Free one object with interrupts disabled. An object of the local memory
 * node goes on this CPU's LIFO, whoever owns its slab; one of another node
 * goes home at once.
 */
static __always_inline void __slqb_free(struct kmem_cache *s, struct slab *slab,
					void *object)
{
	struct kmem_cache_cpu *c = this_cpu_ptr(s->cpu_slab);
	struct kmem_cache_list *l = &c->list;

	stat(l, FREE);
	if (likely(slab_nid(slab) == slqb_local_node())) {
		set_freepointer(s, object, l->freelist);
		l->freelist = object;
		if (likely(++l->nr <= s->hiwater))
			return;
		free_slow(s, c, object, true);
	} else {
		free_slow(s, c, object, false);
	}
}

/*
 * The naive double free: an object freed twice in a row on one CPU is still
 * the head of its LIFO. Pushing it again would link it to itself, and the
 * next two allocations would both get it. Report it and drop the second
 * free, as SLUB's freelist hardening catches the same mistake.
 */
static noinline __cold void report_double_free(struct kmem_cache *s,
					       void *object, unsigned long addr)
{
	static DEFINE_RATELIMIT_STATE(rs, DEFAULT_RATELIMIT_INTERVAL,
				      DEFAULT_RATELIMIT_BURST);

	if (!__ratelimit(&rs))
		return;
	pr_err("SLQB: %s: double free of %p from %pS: the object is already free, at the head of this CPU's queue; the free is ignored\n",
	       s->name, object, (void *)addr);
	dump_stack();
}

static __always_inline void slab_free(struct kmem_cache *s, struct slab *slab,
				      void *object, unsigned long addr,
				      bool debug)
{
	unsigned long flags;

	if (debug && slqb_debug_cache(s) && !is_kfence_address(object)) {
		slqb_debug_slab_free(s, slab, object, addr);
		return;
	}
	/*
	 * Before the hooks: init_on_free would wipe the free pointer of the
	 * LIFO's head. No object that is being freed for the first time can
	 * be on a free list, so this finds no false double free; it only
	 * misses those that are not the head of this CPU's LIFO. KASAN, if it
	 * is on, finds the object poisoned and reports the double free
	 * itself, with the object's stacks, as it does with SLUB.
	 */
	if (IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) &&
	    unlikely(object == this_cpu_read(s->cpu_slab->list.freelist))) {
		if (!kasan_slab_free(s, object, false))
			report_double_free(s, object, addr);
		return;
	}
	slqb_memcg_free_hook(s, slab, &object, 1);
	if (slab_free_hook(s, object, slqb_init_on_free(s) &&
			   !is_kfence_address(object)))
		return;
	if (kfence_free(object))
		return;

	local_irq_save(flags);
	__slqb_free(s, slab, object);
	local_irq_restore(flags);
}

/*
 * The debug copies are named after the entry points they serve: KFENCE's
 * reports skip the allocator's frames by those names, and a tail call
 * leaves only the copy on the stack.
 */
static noinline __cold void __kmem_cache_free_debug(struct kmem_cache *s,
						    void *x,
						    unsigned long caller)
{
	slab_free(s, virt_to_slab(x), x, caller, true);
}

void __kmem_cache_free(struct kmem_cache *s, void *x, unsigned long caller)
{
	if (slqb_debug_enabled()) {
		__kmem_cache_free_debug(s, x, caller);
		return;
	}
	slab_free(s, object_slab(x), x, caller, false);
}

static __always_inline void __kmem_cache_free_one(struct kmem_cache *s,
						  void *x, unsigned long addr,
						  bool debug)
{
	if (debug) {
		s = slqb_debug_check_cache(s, x);
		if (!s)
			return;
	}
	s = cache_from_obj(s, x);
	if (!s)
		return;
	trace_kmem_cache_free(addr, x, s);
	slab_free(s, object_slab(x), x, addr, debug);
}

static noinline __cold void kmem_cache_free_debug(struct kmem_cache *s,
						  void *x, unsigned long addr)
{
	__kmem_cache_free_one(s, x, addr, true);
}

#ifdef CONFIG_KASAN_GENERIC
/*
 * KASAN's quarantine gives back an object that slab_free_hook() kept: the
 * hooks have run, so it goes straight to the queues, or through the rest of
 * the checked free in a debugged cache. Called with interrupts on or off.
 */
void ___cache_free(struct kmem_cache *s, void *x, unsigned long addr)
{
	struct slab *slab = object_slab(x);
	unsigned long flags;

	if (slqb_debug_cache(s)) {
		slqb_debug_release(s, slab, x);
		return;
	}
	local_irq_save(flags);
	__slqb_free(s, slab, x);
	local_irq_restore(flags);
}
#endif

/**
 * kmem_cache_free - free an object
 * @s: the cache the object was allocated from
 * @x: the object
 */
void kmem_cache_free(struct kmem_cache *s, void *x)
{
	if (slqb_debug_enabled()) {
		kmem_cache_free_debug(s, x, _RET_IP_);
		return;
	}
	__kmem_cache_free_one(s, x, _RET_IP_, false);
}
EXPORT_SYMBOL(kmem_cache_free);

/*
 * kmem_cache_free_bulk() frees in runs: objects of one slab, found together
 * in the array, that take one slab lookup, one cache check, one memcg hook
 * call and one move onto the LIFO or into their slab.
 */
struct slqb_run {
	struct kmem_cache *s;
	struct slab *slab;
	void *head;		/* the run, linked by free pointers */
	void *tail;
	unsigned int nr;
};

/* Objects of other slabs that the search for a run's objects passes over. */
#define SLQB_RUN_LOOKAHEAD	4

/*
 * Take the run of the last object of @p[0..@size): it and the objects of
 * its slab before it, until SLQB_RUN_LOOKAHEAD objects of other slabs have
 * been passed. The run moves to the end of the array and is linked up.
 * Returns how many objects are left before it. A large kmalloc, a KFENCE
 * object or an object of a wrong cache is dealt with here; run->nr is 0.
 */
static __always_inline size_t take_run(struct kmem_cache *s, size_t size,
				       void **p, struct slqb_run *run)
{
	void *object = p[--size], *base;
	struct folio *folio = virt_to_folio(object);
	unsigned int misses = 0;
	size_t end = size + 1, i = size;
	bool init;

	run->nr = 0;
	if (!s) {
		if (unlikely(!folio_test_slab(folio))) {
			free_large_kmalloc(folio, object);
			return size;
		}
		run->s = folio_slab(folio)->slab_cache;
	} else {
		run->s = cache_from_obj(s, object);
		if (unlikely(!run->s))
			return size;
	}
	run->slab = folio_slab(folio);
	if (unlikely(is_kfence_address(object))) {
		slqb_memcg_free_hook(run->s, run->slab, &p[size], 1);
		slab_free_hook(run->s, object, false);
		WARN_ON_ONCE(!kfence_free(object));
		return size;
	}

	base = slab_address(run->slab);
	while (i && misses < SLQB_RUN_LOOKAHEAD) {
		void *x = p[--i];

		if (!in_slab(run->s, run->slab, base, x)) {
			misses++;
			continue;
		}
		p[i] = p[--size];
		p[size] = x;
	}

	run->nr = end - size;
	slqb_memcg_free_hook(run->s, run->slab, &p[size], run->nr);
	init = slqb_init_on_free(run->s);
	run->head = NULL;
	for (i = size; i < end; i++) {
		/* Quarantined by KASAN: left out of the run, marked done. */
		if (slab_free_hook(run->s, p[i], init)) {
			p[i] = NULL;
			run->nr--;
			continue;
		}
		set_freepointer(run->s, p[i], run->head);
		run->head = p[i];
	}
	run->tail = p[size];
	if (IS_ENABLED(CONFIG_KASAN) && run->nr)
		for (i = size; !run->tail; )
			run->tail = p[++i];
	return size;
}

/*
 * A run of the local node goes onto the LIFO while it fits under hiwater;
 * otherwise it goes home, in one move.
 */
static __always_inline void free_run(struct slqb_run *run)
{
	struct kmem_cache *s = run->s;
	struct kmem_cache_list *l;
	struct kmem_cache_cpu *c;
	unsigned long flags;
	LIST_HEAD(discard);
	bool local;

	local_irq_save(flags);
	local = slab_nid(run->slab) == slqb_local_node();
	c = this_cpu_ptr(s->cpu_slab);
	l = &c->list;
	stat_add(l, FREE, run->nr);
	if (likely(local && l->nr + run->nr <= s->hiwater)) {
		set_freepointer(s, run->tail, l->freelist);
		l->freelist = run->head;
		l->nr += run->nr;
		local_irq_restore(flags);
		return;
	}
	if (!local)
		stat_add(l, FREE_REMOTE, run->nr);
	send_run(s, c, run->slab, run->head, run->tail, run->nr, &discard,
		 false);
	local_irq_restore(flags);
	slqb_discard_slabs(s, &discard);
}

/* With slqb_debug=, each object takes the checked single-object path. */
static noinline __cold void
kmem_cache_free_bulk_debug(struct kmem_cache *s, size_t size, void **p,
			   unsigned long addr)
{
	size_t i;

	for (i = 0; i < size; i++) {
		struct folio *folio = virt_to_folio(p[i]);
		struct kmem_cache *cache = s;

		if (!s) {
			if (unlikely(!folio_test_slab(folio))) {
				free_large_kmalloc(folio, p[i]);
				continue;
			}
			cache = folio_slab(folio)->slab_cache;
		} else {
			cache = slqb_debug_check_cache(s, p[i]);
			if (cache)
				cache = cache_from_obj(cache, p[i]);
			if (!cache)
				continue;
		}
		slab_free(cache, folio_slab(folio), p[i], addr, true);
	}
}

/**
 * kmem_cache_free_bulk - free an array of objects
 * @s: the cache, or %NULL to look each object's cache up (kfree_bulk())
 * @size: number of objects
 * @p: the objects; the array's order is not kept
 *
 * Objects of one slab that sit close together in the array are freed as
 * one run: one slab lookup, one memcg hook call and one move each.
 */
void kmem_cache_free_bulk(struct kmem_cache *s, size_t size, void **p)
{
	struct slqb_run run;

	if (slqb_debug_enabled()) {
		kmem_cache_free_bulk_debug(s, size, p, _RET_IP_);
		return;
	}
	while (size) {
		size = take_run(s, size, p, &run);
		if (run.nr)
			free_run(&run);
	}
}
EXPORT_SYMBOL(kmem_cache_free_bulk);

/*
 * Pop up to @n objects off the LIFO into @p, KFENCE having its turn before
 * each, and stop when the LIFO runs dry. The head stays in a register and
 * the list is written once, not once an object. Returns the slots filled.
 */
static __always_inline size_t lifo_pop_bulk(struct kmem_cache *s,
					    struct kmem_cache_list *l,
					    gfp_t flags, void **p, size_t n)
{
	void *head = l->freelist, *object;
	size_t i, popped = 0;

	for (i = 0; i < n; i++) {
		object = kfence_alloc(s, s->object_size, flags);
		if (unlikely(object)) {
			p[i] = object;
			continue;
		}
		if (!head)
			break;
		p[i] = head;
		head = get_freepointer(s, head);
		popped++;
	}
	l->freelist = head;
	l->nr -= popped;
	l->seq++;
	stat_add(l, ALLOC, popped);
	return i;
}

/*
 * The LIFO ran dry with @n objects still to go and a partial slab at hand:
 * take up to @n of its objects straight into @p, in the one walk that fills
 * the array, rather than walking them onto the LIFO and off it again.
 */
static size_t slab_take_bulk(struct kmem_cache *s, struct kmem_cache_list *l,
			     void **p, size_t n)
{
	struct slab *slab = list_first_entry(&l->partial, struct slab,
					     slab_list);
	void *object = slab->freelist;
	size_t i;

	n = min_t(size_t, n, slab_free_objects(s, slab));
	for (i = 0; i < n; i++) {
		p[i] = object;
		object = get_freepointer(s, object);
	}
	slab->freelist = object;
	slab_taken(l, slab, n);
	stat_add(l, ALLOC, n);
	return n;
}

static __always_inline int __alloc_bulk(struct kmem_cache *s, gfp_t flags,
					size_t size, void **p,
					unsigned long addr, bool debug)
{
	struct obj_cgroup *objcg = NULL;
	struct kmem_cache_list *l;
	unsigned long irqflags;
	size_t i, j;

	s = slab_pre_alloc_hook(s, NULL, &objcg, size, flags);
	if (unlikely(!s))
		return 0;

	if (debug && slqb_debug_cache(s)) {
		for (i = 0; i < size; i++) {
			p[i] = kfence_alloc(s, s->object_size, flags);
			if (!p[i])
				p[i] = slqb_debug_alloc(s, flags,
							NUMA_NO_NODE, addr);
			if (unlikely(!p[i]))
				break;
		}
		goto done;
	}
	/* Pop the LIFO in one go; refill it only when it runs dry. */
	local_irq_save(irqflags);
	l = &this_cpu_ptr(s->cpu_slab)->list;
	i = lifo_pop_bulk(s, l, flags, p, size);
	while (i < size) {
		void *object;

		if (!READ_ONCE(l->remote_head) && !list_empty(&l->partial)) {
			i += slab_take_bulk(s, l, p + i, size - i);
			continue;
		}
		object = alloc_slow(s, flags, irqflags);
		if (unlikely(!object))
			break;
		p[i++] = object;
		l = &this_cpu_ptr(s->cpu_slab)->list;
		i += lifo_pop_bulk(s, l, flags, p + i, size - i);
	}
	local_irq_restore(irqflags);
	if (unlikely(slqb_init_on_free(s))) {
		for (j = 0; j < i; j++)
			wipe_freepointer(s, p[j]);
	}
done:

	if (unlikely(i < size)) {
		slab_post_alloc_hook(s, objcg, flags, i, p, false);
		kmem_cache_free_bulk(s, i, p);
		return 0;
	}
	slab_post_alloc_hook(s, objcg, flags, size, p,
			     slqb_init_on_alloc(flags, s));
	return size;
}

static noinline __cold int
kmem_cache_alloc_bulk_debug(struct kmem_cache *s, gfp_t flags, size_t size,
			    void **p, unsigned long addr)
{
	return __alloc_bulk(s, flags, size, p, addr, true);
}

/**
 * kmem_cache_alloc_bulk - allocate an array of objects
 * @s: the cache
 * @flags: GFP flags
 * @size: number of objects
 * @p: array to fill
 *
 * Return: @size on success. On failure nothing is left allocated and 0 is
 * returned.
 */
int kmem_cache_alloc_bulk(struct kmem_cache *s, gfp_t flags, size_t size,
			  void **p)
{
	if (slqb_debug_enabled())
		return kmem_cache_alloc_bulk_debug(s, flags, size, p, _RET_IP_);
	return __alloc_bulk(s, flags, size, p, _RET_IP_, false);
}
EXPORT_SYMBOL(kmem_cache_alloc_bulk);

/* Draining: shrink, CPU hotplug and the periodic trim */

/* Phase one of a drain, on each CPU: empty the LIFO and the rlist. */
static void drain_local_queues(void *info)
{
	struct kmem_cache *s = info;
	struct kmem_cache_cpu *c = this_cpu_ptr(s->cpu_slab);
	LIST_HEAD(discard);

	flush_lifo(s, c, c->list.nr, &discard);
	rlist_handover(s, c, &discard);
	slqb_discard_slabs(s, &discard);
}

/*
 * Phase two, once no CPU holds objects for others: claim remote queues.
 * A capped claim (slqb_claim_work()) may have run since phase one: its
 * objects, all of this CPU's own slabs, went onto the LIFO.
 */
static void drain_remote_queue(void *info)
{
	struct kmem_cache *s = info;
	struct kmem_cache_cpu *c = this_cpu_ptr(s->cpu_slab);
	LIST_HEAD(discard);

	claim_remote(s, c, &discard);
	flush_lifo(s, c, c->list.nr, &discard);
	rlist_handover(s, c, &discard);
	slqb_discard_slabs(s, &discard);
}

/*
 * Return every queued object of @s to its slab and free the empty slabs.
 * The caller holds cpus_read_lock(); offline CPUs were drained when they
 * died.
 */
static void drain_all_cpus_locked(struct kmem_cache *s)
{
	on_each_cpu(drain_local_queues, s, 1);
	on_each_cpu(drain_remote_queue, s, 1);
	reserve_release_all(s);
}

static void list_totals(struct kmem_cache_list *l, struct slqb_totals *t)
{
	t->slabs += atomic_long_read(&l->nr_slabs);
	t->objects += atomic_long_read(&l->nr_objects);
	t->partial += READ_ONCE(l->nr_partial);
	t->free += READ_ONCE(l->slab_free) + READ_ONCE(l->nr) +
		   max(atomic_read(&l->remote_nr), 0);
}

/* Sum the counters of every list of @s. */
void slqb_cache_totals(struct kmem_cache *s, struct slqb_totals *t)
{
	struct kmem_cache_node *n;
	int cpu, node;

	memset(t, 0, sizeof(*t));
	for_each_possible_cpu(cpu) {
		struct kmem_cache_cpu *c = cpu_of(s, cpu);

		list_totals(&c->list, t);
		t->free += READ_ONCE(c->rlist_nr);
	}
	for_each_kmem_cache_node(s, node, n)
		list_totals(&n->list, t);
}

int __kmem_cache_shrink(struct kmem_cache *s)
{
	struct slqb_totals t;

	cpus_read_lock();
	drain_all_cpus_locked(s);
	cpus_read_unlock();
	slqb_debug_release_empty_slabs(s);
	slqb_cache_totals(s, &t);
	return t.partial ? 1 : 0;
}

bool __kmem_cache_empty(struct kmem_cache *s)
{
	struct slqb_totals t;

	slqb_cache_totals(s, &t);
	return !t.slabs;
}

/*
 * Wait for the claims that run on their own, the capped claim's irq_work
 * and the cap timer, and leave none of them queued or armed. A claim may
 * push to another CPU and arm that one's timer, hence the order.
 */
static void stop_claims(struct kmem_cache *s)
{
	struct kmem_cache_cpu *c;
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(&cpu_of(s, cpu)->list.claim_work);
	for_each_possible_cpu(cpu) {
		c = cpu_of(s, cpu);
		del_timer_sync(&c->cap_timer);
		clear_bit(0, &c->cap_armed);
	}
}

int __kmem_cache_shutdown(struct kmem_cache *s)
{
	struct slqb_totals t;

	drain_all_cpus_locked(s);
	/*
	 * A cap timer that claimed just before the drain gives the slabs it
	 * emptied back with interrupts on, possibly into a reserve that the
	 * drain has emptied already; the drain's own hand-overs may have
	 * armed it again. Wait for it, then empty the reserves once more.
	 */
	stop_claims(s);
	reserve_release_all(s);
	slqb_debug_release_empty_slabs(s);
	slqb_cache_totals(s, &t);
	if (!t.slabs) {
		slqb_forget_early_aliases(s);
		return 0;
	}
	pr_err("SLQB: cache %s still has %lu objects allocated in %lu slabs at shutdown\n",
	       s->name, totals_in_use(s, &t), t.slabs);
	return -EBUSY;
}

/*
 * @cpu is dead. Hand its partial slabs to the node lists, then, once it is
 * marked dead so that whoever frees into its remaining (full) slabs adopts
 * them, return its LIFO, rlist and remote queue.
 */
static void slqb_drain_dead_cpu(struct kmem_cache *s, int cpu)
{
	struct kmem_cache_cpu *c = cpu_of(s, cpu);
	struct kmem_cache_list *l = &c->list;
	struct kmem_cache_node *n;
	struct slab *slab, *next;
	LIST_HEAD(discard);
	void *head;

	local_irq_disable();
	list_for_each_entry_safe(slab, next, &l->partial, slab_list) {
		n = get_node(s, slab_nid(slab));
		spin_lock(&n->list_lock);
		list_move_slab(s, l, &n->list, slab);
		spin_unlock(&n->list_lock);
	}

	WRITE_ONCE(l->dead, true);
	/* Pairs with the barrier in remote_push(). */
	smp_mb();

	flush_lifo(s, c, l->nr, &discard);
	rlist_handover(s, c, &discard);
	head = remote_take_all(l);
	if (head)
		atomic_sub(flush_chain(s, c, head, &discard, NULL), &l->remote_nr);
	rlist_handover(s, c, &discard);
	slqb_discard_slabs(s, &discard);
	local_irq_enable();
	/* Its cap timer will not run: give back what a claim kept past it. */
	n = get_node(s, per_cpu(slqb_node, cpu));
	if (n)
		reserve_release(s, n, READ_ONCE(s->reserve));
}

/*
 * @cpu is coming up: it owns its lists again. Wait for anyone who saw it
 * dead under a node lock before it starts using them without locks.
 */
static void slqb_revive_cpu(struct kmem_cache *s, int cpu)
{
	struct kmem_cache_list *l = &cpu_of(s, cpu)->list;
	struct kmem_cache_node *n;
	int node;

	WRITE_ONCE(l->dead, false);
	for_each_kmem_cache_node(s, node, n) {
		spin_lock_irq(&n->list_lock);
		spin_unlock_irq(&n->list_lock);
	}
}

static int slqb_cpu_prepare(unsigned int cpu)
{
	struct kmem_cache *s;

	set_local_node(cpu);

	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list)
		slqb_revive_cpu(s, cpu);
	mutex_unlock(&slab_mutex);
	return 0;
}

static int slqb_cpu_dead(unsigned int cpu)
{
	struct kmem_cache *s;

	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list)
		slqb_drain_dead_cpu(s, cpu);
	mutex_unlock(&slab_mutex);
	return 0;
}

/*
 * One trim pass over a cache on this CPU: claim the remote queue, flush the
 * LIFO and hand the rlist over, and free half of the local node's reserve.
 * A LIFO that nobody touched since the last pass (same head, same length)
 * is flushed whole; a busy one loses freebatch objects from its cold end.
 * The work is bounded by hiwater objects plus the capped remote queue
 * (see remote_over_cap()).
 * Returns how many objects this CPU still queues for @s.
 */
static unsigned int trim_cache(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	struct kmem_cache_cpu *c;
	struct kmem_cache_list *l;
	unsigned int before, nr, released;
	LIST_HEAD(discard);
#ifdef CONFIG_SLQB_STATS
	u64 start = ktime_get_ns(), took;
#endif

	local_irq_disable();
	n = get_node(s, slqb_local_node());
	if (n)
		reserve_release(s, n, READ_ONCE(n->list.nr_empty) / 2);
	c = this_cpu_ptr(s->cpu_slab);
	l = &c->list;
	before = l->nr + atomic_read(&l->remote_nr) + c->rlist_nr;
	if (!before) {
		local_irq_enable();
		return 0;
	}
	claim_remote(s, c, &discard);
	nr = min(l->nr, s->freebatch);
	if (l->freelist == c->trim_head && l->nr == c->trim_nr)
		nr = l->nr;
	flush_lifo(s, c, nr, &discard);
	c->trim_head = l->freelist;
	c->trim_nr = l->nr;
	rlist_handover(s, c, &discard);
	/* A remote push after the count above can leave more on the LIFO. */
	released = before > l->nr ? before - l->nr : 0;
	stat(l, TRIM_RUNS);
	stat_add(l, TRIM_OBJECTS, released);
	slqb_discard_slabs(s, &discard);
#ifdef CONFIG_SLQB_STATS
	took = min_t(u64, ktime_get_ns() - start, UINT_MAX);
	if (took > l->stats[TRIM_WORST_NS])
		l->stats[TRIM_WORST_NS] = took;
	if (released > l->stats[TRIM_WORST_OBJECTS])
		l->stats[TRIM_WORST_OBJECTS] = released;
#endif
	nr = l->nr;
	local_irq_enable();
	return nr;
}

#if IS_ENABLED(CONFIG_SLQB_KUNIT_TEST)
void slqb_test_trim(struct kmem_cache *s)
{
	trim_cache(s);
}
#endif

/*
 * Trim every cache on this CPU. Waiting for slab_mutex is safe: nobody
 * holds it while waiting for this work. slqb_cpu_offline() cancels the work
 * under the CPU hotplug lock alone, and no holder of slab_mutex takes that
 * lock (kmem_cache_destroy() takes it first).
 *
 * The periodic work is deferrable, so that a CPU with nothing queued is not
 * woken up for it. Neither would a NOHZ idle CPU be that still queues
 * objects, and they would wait until something else woke it. So while a
 * pass leaves objects queued, a second work, not deferrable, is armed a
 * little after the next periodic pass is due: on a busy CPU the periodic
 * pass comes first and pushes it on, on an idle one it runs the pass
 * itself. An idle LIFO is flushed whole by its second pass, so an idle CPU
 * is woken a few times at most and then left alone.
 */
static void trim_all_caches(void)
{
	struct delayed_work *wake = this_cpu_ptr(&slqb_trim_wake_work);
	unsigned int queued = 0;
	struct kmem_cache *s;

	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list)
		queued += trim_cache(s);
	mutex_unlock(&slab_mutex);
	if (queued)
		mod_delayed_work_on(smp_processor_id(), system_wq, wake,
				    SLQB_TRIM_INTERVAL + SLQB_TRIM_WAKE_SLACK);
	else
		cancel_delayed_work(wake);
}

#if IS_ENABLED(CONFIG_SLQB_KUNIT_TEST)
void slqb_test_trim_all(void)
{
	trim_all_caches();
}

bool slqb_test_trim_wake_armed(int cpu)
{
	return delayed_work_pending(per_cpu_ptr(&slqb_trim_wake_work, cpu));
}
#endif

static void slqb_trim(struct work_struct *work)
{
	trim_all_caches();
	schedule_delayed_work_on(smp_processor_id(), to_delayed_work(work),
				 SLQB_TRIM_INTERVAL);
}

static void slqb_trim_wake(struct work_struct *work)
{
	trim_all_caches();
}

static int slqb_cpu_online(unsigned int cpu)
{
	struct delayed_work *work = per_cpu_ptr(&slqb_trim_work, cpu);

	/*
	 * The prepare callback ran before the architecture may have set up
	 * cpu_to_mem() for this CPU (powerpc does so as it comes up).
	 */
	set_local_node(cpu);
	INIT_DEFERRABLE_WORK(work, slqb_trim);
	INIT_DELAYED_WORK(per_cpu_ptr(&slqb_trim_wake_work, cpu),
			  slqb_trim_wake);
	schedule_delayed_work_on(cpu, work, SLQB_TRIM_INTERVAL + cpu);
	return 0;
}

static int slqb_cpu_offline(unsigned int cpu)
{
	cancel_delayed_work_sync(per_cpu_ptr(&slqb_trim_work, cpu));
	cancel_delayed_work_sync(per_cpu_ptr(&slqb_trim_wake_work, cpu));
	return 0;
}

static void init_node_list(struct kmem_cache *s, struct kmem_cache_node *n);

/*
 * The local node of this CPU changed: give back the objects on its queues
 * and hand the partial slabs of other nodes to their node lists, so that
 * the LIFO serves local memory again (see "Nodes" at the top).
 */
static void requeue_foreign(void *info)
{
	int local = slqb_local_node();
	struct slab *slab, *next;
	struct kmem_cache *s;

	list_for_each_entry(s, &slab_caches, list) {
		struct kmem_cache_cpu *c = this_cpu_ptr(s->cpu_slab);
		struct kmem_cache_list *l = &c->list;
		LIST_HEAD(discard);

		flush_lifo(s, c, l->nr, &discard);
		rlist_handover(s, c, &discard);
		list_for_each_entry_safe(slab, next, &l->partial, slab_list) {
			struct kmem_cache_node *n = get_node(s, slab_nid(slab));

			if (slab_nid(slab) == local || !n)
				continue;
			spin_lock(&n->list_lock);
			list_move_slab(s, l, &n->list, slab);
			spin_unlock(&n->list_lock);
		}
		slqb_discard_slabs(s, &discard);
	}
}

/*
 * Recompute the local nodes after memory came or went. The caller holds
 * slab_mutex and the CPU hotplug lock; offline CPUs recompute theirs when
 * they come up.
 */
static void update_local_nodes(void)
{
	int cpu, old;

	for_each_online_cpu(cpu) {
		old = per_cpu(slqb_node, cpu);
		set_local_node(cpu);
		if (per_cpu(slqb_node, cpu) != old)
			smp_call_function_single(cpu, requeue_foreign, NULL, 1);
	}
}

/*
 * Memory hotplug. A node that gains normal memory gets a list in every
 * cache, and joins slqb_nodes, before its pages can be allocated; it leaves
 * slqb_nodes when its last normal memory has gone, but the lists stay: a
 * cache never loses one. Queues are drained before memory goes offline, so
 * that queued objects do not pin its slabs.
 */
static int slqb_memory_callback(struct notifier_block *self,
				unsigned long action, void *arg)
{
	struct memory_notify *marg = arg;
	int nid = marg->status_change_nid_normal;
	struct kmem_cache *s;
	int ret = 0;

	switch (action) {
	case MEM_GOING_ONLINE:
		if (nid < 0)
			break;
		mutex_lock(&slab_mutex);
		list_for_each_entry(s, &slab_caches, list) {
			struct kmem_cache_node *n;

			if (s->node[nid])
				continue;
			n = kmem_cache_alloc(kmem_cache_node, GFP_KERNEL);
			if (!n) {
				ret = -ENOMEM;
				break;
			}
			init_node_list(s, n);
			s->node[nid] = n;
		}
		if (!ret)
			node_set(nid, slqb_nodes);
		mutex_unlock(&slab_mutex);
		break;
	case MEM_CANCEL_ONLINE:
	case MEM_OFFLINE:
		mutex_lock(&slab_mutex);
		if (nid >= 0 && !node_state(nid, N_NORMAL_MEMORY))
			node_clear(nid, slqb_nodes);
		update_local_nodes();
		mutex_unlock(&slab_mutex);
		break;
	case MEM_ONLINE:
		mutex_lock(&slab_mutex);
		update_local_nodes();
		mutex_unlock(&slab_mutex);
		break;
	case MEM_GOING_OFFLINE:
		mutex_lock(&slab_mutex);
		list_for_each_entry(s, &slab_caches, list)
			drain_all_cpus_locked(s);
		mutex_unlock(&slab_mutex);
		break;
	default:
		break;
	}
	return notifier_from_errno(ret);
}

static struct notifier_block slqb_memory_nb = {
	.notifier_call = slqb_memory_callback,
	.priority = SLAB_CALLBACK_PRI,
};

/* Cache creation and teardown */

static void init_list(struct kmem_cache *s, struct kmem_cache_list *l, int cpu)
{
	INIT_LIST_HEAD(&l->partial);
	atomic_long_set(&l->nr_slabs, 0);
	atomic_long_set(&l->nr_objects, 0);
	atomic_long_set(&l->node_slabs, 0);
	atomic_set(&l->remote_nr, 0);
	l->cache = s;
	l->cpu = cpu;
	init_irq_work(&l->claim_work, slqb_claim_work);
	INIT_LIST_HEAD(&l->empty);
	l->nr_empty = 0;
#ifdef CONFIG_SLQB_DEBUG
	INIT_LIST_HEAD(&l->full);
#endif
}

static void init_node_list(struct kmem_cache *s, struct kmem_cache_node *n)
{
	memset(n, 0, sizeof(*n));
	spin_lock_init(&n->list_lock);
	init_list(s, &n->list, -1);
}

/*
 * The node lists of the kmem_cache_node cache itself: carve each one out of
 * a fresh slab on its node, which the new list then owns. The slab must be
 * of that node, or the list would own another node's slab; NULL if the node
 * has no page to spare.
 */
static struct kmem_cache_node *__init early_node_alloc(struct kmem_cache *s,
						       int node)
{
	struct kmem_cache_node *n;
	struct slab *slab;

	slab = slqb_new_slab(s, GFP_NOWAIT | __GFP_THISNODE, node);
	if (!slab)
		return NULL;
	n = slab->freelist;
	slab->freelist = get_freepointer(s, n);
	slab->inuse = 1;
	/* Taken past the allocation hooks: open it to KASAN by hand. */
	n = kasan_slab_alloc(s, n, GFP_NOWAIT, false);
	init_node_list(s, n);
	atomic_long_set(&n->list.node_slabs, 1);
	slab->list = &n->list;
	list_own_slab(&n->list, slab);
	if (slab->freelist) {
		list_add(&slab->slab_list, &n->list.partial);
		n->list.nr_partial = 1;
		n->list.slab_free = slab->objects - 1;
	}
	return n;
}

static void free_node_lists(struct kmem_cache *s)
{
	int node;

	for (node = 0; node < nr_node_ids; node++) {
		if (s->node[node])
			kmem_cache_free(kmem_cache_node, s->node[node]);
		s->node[node] = NULL;
	}
}

/*
 * A list for each node of slqb_nodes; the caller holds slab_mutex. A node
 * whose list cannot come from its own memory at boot gets one from the
 * nearest node instead, through the normal path.
 */
static int alloc_node_lists(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int node;

	for_each_node_mask(node, slqb_nodes) {
		n = slab_state == DOWN ? early_node_alloc(s, node) : NULL;
		if (!n) {
			n = kmem_cache_alloc_node(kmem_cache_node, GFP_KERNEL,
						  node);
			if (!n)
				return -ENOMEM;
			init_node_list(s, n);
		}
		s->node[node] = n;
	}
	return 0;
}

static inline unsigned long order_objects(unsigned int order,
					  unsigned int size)
{
	return (PAGE_SIZE << order) / size;
}

/*
 * The smallest order that wastes at most a quarter of the slab and meets
 * slqb_min_order and slqb_min_objects; failing that, the smallest that
 * holds an object. This is the order every slab can fall back to.
 */
static int calculate_order(unsigned int size)
{
	unsigned int first = slqb_min_order, order;

	/* Where slqb_min_order would give too many objects, it gives way. */
	while (first && order_objects(first, size) > SLQB_MAX_OBJECTS)
		first--;
	for (order = first; order < MAX_ORDER; order++) {
		unsigned long bytes = PAGE_SIZE << order;
		unsigned long objects = order_objects(order, size);

		if (objects > SLQB_MAX_OBJECTS)
			break;
		if (objects && objects >= slqb_min_objects &&
		    (bytes - objects * size) * 4 <= bytes)
			return order;
	}
	/* No order meets both goals: take the first that holds an object. */
	for (order = first; order < MAX_ORDER; order++) {
		if (order_objects(order, size) > SLQB_MAX_OBJECTS)
			break;
		if (order_objects(order, size))
			return order;
	}
	return -E2BIG;
}

/*
 * The order to try first. Large objects, of which a slab of @min_order
 * holds fewer than SLQB_LARGE_OBJECTS, would cost a trip to the page
 * allocator nearly every time a slab fills or empties: their slabs are of
 * the smallest order that holds that many, up to PAGE_ALLOC_COSTLY_ORDER.
 * That order is only tried without reclaim. Sixteen is about what SLUB
 * asks of a slab on a small machine (12 objects with 2 CPUs, 16 with 4):
 * with eight, a batch of kmalloc-512 objects made twice SLUB's trips to
 * the page allocator.
 */
static unsigned int preferred_order(unsigned int size, unsigned int min_order)
{
	unsigned int order = min_order;

	if (order_objects(order, size) >= SLQB_LARGE_OBJECTS)
		return order;
	while (order < PAGE_ALLOC_COSTLY_ORDER && order + 1 < MAX_ORDER &&
	       order_objects(order, size) < SLQB_LARGE_OBJECTS)
		order++;
	return order;
}

/*
 * Object layout: the object, then the free pointer when it may not overlay
 * the object (constructors and SLAB_TYPESAFE_BY_RCU need the contents kept
 * while free, and debugged caches check them), then padding to the
 * alignment. A free pointer that overlays the object sits in its middle,
 * where a small overflow out of the object before it, or underflow out of
 * the one after it, does not reach it. Debugged caches add a red zone
 * before the free pointer and their tracks after it (see mm/slqb_debug.c);
 * KASAN's metadata and red zone come after all of these. Returns the size
 * up to KASAN's part and sets *offset to the free pointer's offset.
 */
static unsigned int object_layout(struct kmem_cache *s, slab_flags_t flags,
				  unsigned int *offset)
{
	unsigned int size = ALIGN(s->object_size, sizeof(void *));

	flags &= SLQB_DEBUG_FLAGS | SLAB_TYPESAFE_BY_RCU;
	if (flags & SLAB_RED_ZONE)
		size += sizeof(void *);
	if (s->ctor || flags) {
		*offset = size;
		size += sizeof(void *);
	} else {
		*offset = ALIGN_DOWN(s->object_size / 2, sizeof(void *));
	}
	return size + slqb_debug_metadata_size(flags);
}

static int calculate_sizes(struct kmem_cache *s)
{
	unsigned int size;
	int order;

	/* Constructed and RCU-typesafe objects keep their contents when free. */
	if (s->ctor || (s->flags & SLAB_TYPESAFE_BY_RCU))
		s->flags &= ~SLAB_POISON;
	if (slqb_debug_skip_order && (s->flags & SLQB_DEBUG_FLAGS)) {
		unsigned int plain, debug, offset;

		plain = object_layout(s, s->flags & ~SLQB_DEBUG_FLAGS, &offset);
		debug = object_layout(s, s->flags, &offset);
		if (calculate_order(ALIGN(debug, s->align)) >
		    calculate_order(ALIGN(plain, s->align))) {
			pr_info("SLQB: %s is not debugged: its slabs would need a higher order (slqb_debug=O)\n",
				s->name);
			s->flags &= ~SLQB_DEBUG_FLAGS;
		}
	}
	s->inuse = object_layout(s, s->flags, &s->offset);
	/* KASAN's metadata and red zone come after all of SLQB's. */
	size = s->inuse;
	kasan_cache_create(s, &size, &s->flags);
	size = ALIGN(size, s->align);

	order = calculate_order(size);
	if (order < 0)
		return order;
	s->size = size;
	s->min_order = order;
	s->min_objects = order_objects(order, size);
	/* The checks of debugged caches take every slab to be alike. */
	if (!(s->flags & SLQB_DEBUG_FLAGS))
		order = preferred_order(size, order);
	s->order = order;
	s->objects = order_objects(order, size);
	s->reciprocal_size = reciprocal_value(size);

	s->allocflags = 0;
	if (order)
		s->allocflags |= __GFP_COMP;
	if (s->flags & SLAB_CACHE_DMA)
		s->allocflags |= GFP_DMA;
	if (s->flags & SLAB_CACHE_DMA32)
		s->allocflags |= GFP_DMA32;
	if (s->flags & SLAB_RECLAIM_ACCOUNT)
		s->allocflags |= __GFP_RECLAIMABLE;
	return 0;
}

/*
 * hiwater: as many objects as fit in SLQB_QUEUE_BYTES, but from 8 to 512:
 * each CPU may keep that much of each cache queued. The budget is small
 * because a queued object keeps its whole slab from the page allocator,
 * and the objects that go round through the queues (freed on one CPU,
 * claimed and allocated again by another) end up spread over many slabs,
 * a few of them on each. The budget is in pages: with 64K pages a LIFO of
 * objects from 128 bytes to 8 KiB holds a whole slab's worth, so that a
 * refill takes a slab's freelist in one move there too.
 * freebatch, the objects moved per refill, flush and hand-over: half of
 * that, as SLAB's batchcount is. reserve: the empty slabs kept per node,
 * as many as fit in SLQB_RESERVE_BYTES, up to eight: none for slabs larger
 * than that (SLUB keeps five to ten on each node's partial list, for good,
 * whatever their size).
 */
static void set_tunables(struct kmem_cache *s)
{
	unsigned long hiwater = SLQB_QUEUE_BYTES / s->size;

	s->hiwater = clamp_t(unsigned long, hiwater, 8, 512);
	s->freebatch = s->hiwater / 2;
	s->reserve = min_t(unsigned long,
			   SLQB_RESERVE_BYTES >> (PAGE_SHIFT + s->order),
			   SLQB_MAX_RESERVE);
}

slab_flags_t kmem_cache_flags(unsigned int object_size, slab_flags_t flags,
			      const char *name)
{
	return slqb_debug_cache_flags(flags, name);
}

int __kmem_cache_create(struct kmem_cache *s, slab_flags_t flags)
{
	int cpu, err;

	s->flags = kmem_cache_flags(s->size, flags, s->name);
#ifdef CONFIG_SLAB_FREELIST_HARDENED
	s->random = get_random_long();
#endif
	err = calculate_sizes(s);
	if (err)
		return err;
	set_tunables(s);
	/* The boot caches get theirs in kmem_cache_init(). */
	if (slab_state >= UP) {
		err = init_random_seq(s);
		if (err)
			return err;
	}

	s->cpu_slab = __alloc_percpu(sizeof(struct kmem_cache_cpu),
				     SLQB_CPU_ALIGN);
	if (!s->cpu_slab) {
		err = -ENOMEM;
		goto fail;
	}
	for_each_possible_cpu(cpu) {
		init_list(s, &cpu_of(s, cpu)->list, cpu);
		/* Not allocating yet: see owner_busy(). */
		cpu_of(s, cpu)->dry_stamp = jiffies - ULONG_MAX / 2;
		timer_setup(&cpu_of(s, cpu)->cap_timer, slqb_cap_timer,
			    TIMER_PINNED);
	}

	err = alloc_node_lists(s);
	if (err)
		goto fail;

	if (slab_state >= FULL) {
		err = slqb_sysfs_add(s);
		if (err)
			goto fail;
	}
	return 0;

fail:
	free_node_lists(s);
	free_percpu(s->cpu_slab);
	s->cpu_slab = NULL;
	cache_random_seq_destroy(s);
	return err;
}

void __kmem_cache_release(struct kmem_cache *s)
{
	stop_claims(s);
	free_percpu(s->cpu_slab);
	free_node_lists(s);
	cache_random_seq_destroy(s);
}

struct kmem_cache *__kmem_cache_alias(const char *name, unsigned int size,
				      unsigned int align, slab_flags_t flags,
				      void (*ctor)(void *))
{
	struct kmem_cache *s = find_mergeable(size, align, flags, name, ctor);

	if (!s)
		return NULL;
	if (slqb_sysfs_alias(s, name))
		return NULL;
	s->refcount++;
	/* kzalloc() of the larger size must clear all of it. */
	s->object_size = max(s->object_size, size);
	return s;
}

static DEFINE_MUTEX(slqb_tunables_mutex);

/**
 * slqb_set_tunables - change a cache's LIFO limits
 * @s: the cache
 * @hiwater: the new hiwater, or 0 to keep the current one
 * @freebatch: the new freebatch, or 0 to keep the current one
 *
 * The pair must satisfy 1 <= freebatch <= hiwater <= SLQB_MAX_HIWATER
 * after the change. Either both values change or neither does.
 *
 * Return: 0, or -EINVAL if the resulting pair is out of range.
 */
int slqb_set_tunables(struct kmem_cache *s, unsigned int hiwater,
		      unsigned int freebatch)
{
	int err = 0;

	mutex_lock(&slqb_tunables_mutex);
	hiwater = hiwater ?: s->hiwater;
	freebatch = freebatch ?: s->freebatch;
	if (freebatch > hiwater || hiwater > SLQB_MAX_HIWATER) {
		err = -EINVAL;
	} else {
		WRITE_ONCE(s->hiwater, hiwater);
		WRITE_ONCE(s->freebatch, freebatch);
	}
	mutex_unlock(&slqb_tunables_mutex);
	return err;
}
EXPORT_SYMBOL_GPL(slqb_set_tunables);

/* /proc/slabinfo */

void get_slabinfo(struct kmem_cache *s, struct slabinfo *sinfo)
{
	struct slqb_totals t;

	slqb_cache_totals(s, &t);
	sinfo->active_objs = totals_in_use(s, &t);
	sinfo->num_objs = t.objects;
	sinfo->active_slabs = t.slabs;
	sinfo->num_slabs = t.slabs;
	sinfo->objects_per_slab = s->objects;
	sinfo->cache_order = s->order;
	sinfo->limit = READ_ONCE(s->hiwater);
	sinfo->batchcount = READ_ONCE(s->freebatch);
	sinfo->shared = 0;
	sinfo->shared_avail = 0;
}

void slabinfo_show_stats(struct seq_file *m, struct kmem_cache *s)
{
}

ssize_t slabinfo_write(struct file *file, const char __user *buffer,
		       size_t count, loff_t *ppos)
{
	return -EIO;
}

/* Object introspection for mem_dump_obj() and hardened usercopy */

#ifdef CONFIG_PRINTK
void __kmem_obj_info(struct kmem_obj_info *kpp, void *object,
		     struct slab *slab)
{
	struct kmem_cache *s = slab->slab_cache;
	void *base = slab_address(slab);
	void *objp;

	kpp->kp_ptr = object;
	kpp->kp_slab = slab;
	kpp->kp_slab_cache = s;
	object = kasan_reset_tag(object);
	if (is_kfence_address(object)) {
		kpp->kp_objp = (void *)kfence_object_start(object);
		kpp->kp_data_offset = object - kpp->kp_objp;
		return;
	}
	if (object < base || object >= base + slab->objects * s->size)
		return;
	objp = base + s->size * obj_to_index(s, slab, object);
	kpp->kp_objp = objp;
	kpp->kp_data_offset = object - objp;
	slqb_debug_obj_info(kpp, s, objp);
}
#endif

#ifdef CONFIG_HARDENED_USERCOPY
void __check_heap_object(const void *ptr, unsigned long n,
			 const struct slab *slab, bool to_user)
{
	struct kmem_cache *s = slab->slab_cache;
	unsigned long offset;

	ptr = kasan_reset_tag(ptr);
	/*
	 * A KFENCE object may sit anywhere in its page, past the objects a
	 * slab of @s would hold: measure it from its own start.
	 */
	if (is_kfence_address(ptr)) {
		offset = ptr - kfence_object_start(ptr);
	} else {
		offset = ptr - slab_address(slab);
		if (ptr < slab_address(slab) ||
		    offset >= slab->objects * s->size)
			usercopy_abort("SLQB object not in a SLQB slab", NULL,
				       to_user, 0, n);
		offset %= s->size;
	}
	if (offset >= s->useroffset &&
	    offset - s->useroffset <= s->usersize &&
	    n <= s->useroffset - offset + s->usersize)
		return;
	usercopy_abort("SLQB object", s->name, to_user, offset, n);
}
#endif

/* Boot parameters */

static int __init setup_slqb_min_order(char *str)
{
	unsigned int order;

	if (kstrtouint(str, 0, &order) || order >= MAX_ORDER) {
		pr_err("SLQB: slqb_min_order=%s is invalid: it takes an order from 0 to %d; keeping %u\n",
		       str, MAX_ORDER - 1, slqb_min_order);
		return 1;
	}
	slqb_min_order = order;
	return 1;
}
__setup("slqb_min_order=", setup_slqb_min_order);

static int __init setup_slqb_min_objects(char *str)
{
	unsigned int objects;

	if (kstrtouint(str, 0, &objects) || !objects ||
	    objects > SLQB_MAX_MIN_OBJECTS) {
		pr_err("SLQB: slqb_min_objects=%s is invalid: it takes a count from 1 to %u; keeping %u\n",
		       str, SLQB_MAX_MIN_OBJECTS, slqb_min_objects);
		return 1;
	}
	slqb_min_objects = objects;
	return 1;
}
__setup("slqb_min_objects=", setup_slqb_min_objects);

/* Bootstrap */

void __init kmem_cache_init(void)
{
	struct kmem_cache *s;
	int cpu, state;

	/*
	 * Two statically allocated caches: the one for node lists (whose own
	 * node lists come straight from the page allocator) and the one for
	 * kmem_cache structures. Everything else is allocated from them.
	 */
	for_each_possible_cpu(cpu)
		set_local_node(cpu);
	slqb_nodes = node_states[N_NORMAL_MEMORY];

	kmem_cache_node = &slqb_boot_node_cache;
	kmem_cache = &slqb_boot_cache;
	create_boot_cache(kmem_cache_node, "kmem_cache_node",
			  sizeof(struct kmem_cache_node), SLAB_HWCACHE_ALIGN,
			  0, 0);
	list_add(&kmem_cache_node->list, &slab_caches);
	slab_state = PARTIAL;

	create_boot_cache(kmem_cache, "kmem_cache",
			  offsetof(struct kmem_cache, node) +
				nr_node_ids * sizeof(struct kmem_cache_node *),
			  SLAB_HWCACHE_ALIGN, 0, 0);
	list_add(&kmem_cache->list, &slab_caches);

	register_hotmemory_notifier(&slqb_memory_nb);

	setup_kmalloc_cache_index_table();
	create_kmalloc_caches(0);
	list_for_each_entry(s, &slab_caches, list)
		if (init_random_seq(s))
			pr_warn("SLQB: %s: no random free order, no memory\n",
				s->name);

	state = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN,
					  "mm/slqb:prepare", slqb_cpu_prepare,
					  slqb_cpu_dead);
	if (state < 0)
		pr_err("SLQB: no CPU hotplug state (%d): offline CPUs will keep their objects\n",
		       state);

	pr_info("SLQB: min_order=%u, min_objects=%u, CPUs=%u, Nodes=%u\n",
		slqb_min_order, slqb_min_objects, nr_cpu_ids, nr_node_ids);
}

void __init kmem_cache_init_late(void)
{
	if (!IS_ENABLED(CONFIG_SYSFS))
		slab_state = FULL;
}

/*
 * Under memory pressure the objects waiting on queues pin slabs that could
 * go back to the page allocator, and the reserves hold empty ones: the
 * shrinker counts both, and drains every cache when asked to scan. Reclaim
 * may run inside an allocation made with slab_mutex or the CPU hotplug lock
 * held, so both are only tried.
 */
static unsigned long slqb_queued_objects(void)
{
	struct kmem_cache_node *n;
	unsigned long nr = 0;
	struct kmem_cache *s;
	int cpu, node;

	lockdep_assert_held(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list) {
		for_each_possible_cpu(cpu) {
			struct kmem_cache_cpu *c = cpu_of(s, cpu);

			nr += READ_ONCE(c->list.nr) + READ_ONCE(c->rlist_nr) +
			      max(atomic_read(&c->list.remote_nr), 0);
		}
		for_each_kmem_cache_node(s, node, n)
			nr += READ_ONCE(n->list.nr_empty) * s->objects;
	}
	return nr;
}

static unsigned long slqb_shrink_count(struct shrinker *shrinker,
				       struct shrink_control *sc)
{
	unsigned long nr;

	if (!mutex_trylock(&slab_mutex))
		return 0;
	nr = slqb_queued_objects();
	mutex_unlock(&slab_mutex);
	return nr ?: SHRINK_EMPTY;
}

static unsigned long slqb_shrink_scan(struct shrinker *shrinker,
				      struct shrink_control *sc)
{
	unsigned long before, after;
	struct kmem_cache *s;

	if (!cpus_read_trylock())
		return SHRINK_STOP;
	if (!mutex_trylock(&slab_mutex)) {
		cpus_read_unlock();
		return SHRINK_STOP;
	}
	before = slqb_queued_objects();
	list_for_each_entry(s, &slab_caches, list)
		drain_all_cpus_locked(s);
	after = slqb_queued_objects();
	mutex_unlock(&slab_mutex);
	cpus_read_unlock();
	return before > after ? before - after : 0;
}

static struct shrinker slqb_shrinker = {
	.count_objects = slqb_shrink_count,
	.scan_objects = slqb_shrink_scan,
	.seeks = DEFAULT_SEEKS,
};

#if IS_ENABLED(CONFIG_SLQB_KUNIT_TEST)
/* Retried while the callback could not take its locks (0 or SHRINK_STOP). */
unsigned long slqb_test_shrinker(bool scan)
{
	struct shrink_control sc = { .gfp_mask = GFP_KERNEL };
	unsigned long ret;
	int tries = 2000;

	do {
		ret = scan ? slqb_shrink_scan(&slqb_shrinker, &sc) :
			     slqb_shrink_count(&slqb_shrinker, &sc);
		if (ret != (scan ? SHRINK_STOP : 0))
			break;
		usleep_range(500, 1000);
	} while (--tries);
	return ret;
}
#endif

static int __init slqb_trim_init(void)
{
	int state;

	state = register_shrinker(&slqb_shrinker, "slqb-queues");
	if (state)
		pr_err("SLQB: no shrinker for the queues (%d)\n", state);

	state = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "mm/slqb:online",
				  slqb_cpu_online, slqb_cpu_offline);
	if (state < 0)
		pr_err("SLQB: cannot start the trim work (%d)\n", state);
	return 0;
}
late_initcall(slqb_trim_init);
