// SPDX-License-Identifier: GPL-2.0
/*
 * SLQB: slabs and caches. A slab's pages and its order, the layout of its
 * objects, the reserve of empty slabs that each node keeps, the node
 * lists, and the life of a cache: creation, tunables, destruction and the
 * bootstrap of the first caches. The design and the locking rules are at
 * the top of mm/slqb.c.
 */

#include <linux/kfence.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/ratelimit.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/swap.h>

#include "internal.h"
#include "slab.h"
#include "slqb.h"

/* Boot parameters, see Documentation/admin-guide/kernel-parameters.txt. */
static unsigned int slqb_min_order;
static unsigned int slqb_min_objects = 1;

#define SLQB_MAX_MIN_OBJECTS	1024

/* The cache of kmem_cache_node structures and its static bootstrap copy. */
static struct kmem_cache *kmem_cache_node;
static struct kmem_cache slqb_boot_node_cache;
static struct kmem_cache slqb_boot_cache;

/*
 * The nodes for which every cache has a node list, under slab_mutex. A node
 * joins before its first memory block goes online, so that a cache created
 * while the block is onlined gets a list too (the node joins N_NORMAL_MEMORY
 * only afterwards), and leaves once it has no normal memory left.
 */
nodemask_t slqb_nodes;

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

/*
 * Set up and link the @objects objects from @start in random order: the
 * order of s->random_seq from a random place, linked from its end back, as
 * slqb_new_slab() links a slab in address order, and for the same reason.
 */
static void *link_random(struct kmem_cache *s, void *start,
			 unsigned int objects)
{
	unsigned int count = s->objects, pos, k, idx;
	void *next = NULL, *p;

	pos = get_random_u32_below(count);
	for (k = 0; k < count; k++) {
		pos = pos ? pos - 1 : count - 1;
		idx = s->random_seq[pos];
		if (idx >= objects)
			continue;
		p = setup_object(s, start + idx * s->size);
		set_freepointer(s, p, next);
		next = p;
	}
	return next;
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
 * page allocator has that at hand, else of s->min_order. The larger order
 * is only worth having if it is free now: it is asked for without reclaim
 * or compaction (which the failure of a costly order would otherwise start,
 * and wake kswapd for), and never from the emergency reserves. Only the
 * fallback to s->min_order gets the caller's own flags.
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
					     __GFP_NORETRY | __GFP_NOMEMALLOC) &
					 ~(__GFP_RECLAIM | __GFP_NOFAIL),
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
	if (page_is_pfmemalloc(folio_page(folio, 0)) || test_pfmemalloc(s))
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
		/*
		 * In address order, but linked from the last object back, so
		 * that the first objects handed out are those written last.
		 * The free pointers of large objects share a few cache sets,
		 * and a slab's worth of them can fill those: taken in the
		 * order written, one other line there would evict each just
		 * before its turn; taken in reverse, the next one is always
		 * the most recent.
		 */
		for (i = objects, prev = NULL; i--; prev = object) {
			object = setup_object(s, start + i * s->size);
			set_freepointer(s, object, prev);
		}
		slab->freelist = prev;
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

static void free_slab_rcu(struct rcu_head *head)
{
	struct slab *slab = container_of(head, struct slab, rcu_head);

	slqb_free_slab(slab->slab_cache, slab);
}

/*
 * Give an empty slab of a cache in use back to the page allocator, after a
 * grace period for SLAB_TYPESAFE_BY_RCU: flush_slab_free counts these, not
 * the slabs that a reserve keeps.
 */
static void free_empty_slab(struct kmem_cache *s, struct slab *slab)
{
	stat_this_cpu(s, FLUSH_SLAB_FREE);
	if (unlikely(s->flags & SLAB_TYPESAFE_BY_RCU))
		call_rcu(&slab->rcu_head, free_slab_rcu);
	else
		slqb_free_slab(s, slab);
}

/* The reserve */

/*
 * The reserve: a few empty slabs per node that a cache keeps instead of
 * freeing them, so that a workload that frees a batch and allocates it
 * again does not go through the page allocator, and build a freelist, for
 * every slab. The node's list owns them, under its list_lock, with every
 * object on the slab's freelist. Trim, shrink, the shrinker and memory
 * hotplug give them back. Debugged caches keep none, and no cache keeps a
 * slab of the emergency reserves: those go back at once. Up to @limit slabs:
 * s->reserve, or more on the local node for the claim of an allocating
 * owner's queue, which the owner's cap timer gives back (see
 * slqb_claim_work()).
 */
static bool reserve_keep(struct kmem_cache *s, struct slab *slab,
			 unsigned int limit)
{
	struct kmem_cache_node *n = get_node(s, slab_nid(slab));
	unsigned long flags;
	bool kept = false;

	if (!n || slqb_debug_cache(s) || READ_ONCE(n->list.nr_empty) >= limit ||
	    slab_test_pfmemalloc(slab))
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

/* Free the slabs of @n's reserve beyond the first @keep. */
void slqb_reserve_trim(struct kmem_cache *s, struct kmem_cache_node *n,
		       unsigned int keep)
{
	struct slab *slab, *next;
	unsigned long flags;
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
	list_for_each_entry_safe(slab, next, &discard, slab_list)
		free_empty_slab(s, slab);
}

/* Free every reserve of @s. */
void slqb_reserve_empty(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int node;

	for_each_kmem_cache_node(s, node, n)
		slqb_reserve_trim(s, n, 0);
}

/* Keep each slab of @discard in its node's reserve, or free it. */
static void discard_slabs(struct kmem_cache *s, struct list_head *discard,
			  unsigned int extra)
{
	unsigned int limit = READ_ONCE(s->reserve);
	int local = extra ? slqb_local_node() : NUMA_NO_NODE;
	struct slab *slab, *next;

	list_for_each_entry_safe(slab, next, discard, slab_list) {
		list_del(&slab->slab_list);
		if (!reserve_keep(s, slab, slab_nid(slab) == local ?
					   limit + extra : limit))
			free_empty_slab(s, slab);
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
 * As slqb_discard_slabs(), for the slabs that the claim of a busy owner's
 * queue emptied, with room for @extra more in the local node's reserve.
 */
void slqb_discard_claimed(struct kmem_cache *s, struct list_head *discard,
			  unsigned int extra)
{
	discard_slabs(s, discard, extra);
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

/* What a cache holds */

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
		t->free += READ_ONCE(c->rlist_nr) + READ_ONCE(c->stash.nr);
	}
	for_each_kmem_cache_node(s, node, n)
		list_totals(&n->list, t);
}

bool __kmem_cache_empty(struct kmem_cache *s)
{
	struct slqb_totals t;

	slqb_cache_totals(s, &t);
	return !t.slabs;
}

/* Node lists */

static void init_list(struct kmem_cache *s, struct kmem_cache_list *l, int cpu)
{
	INIT_LIST_HEAD(&l->partial);
	atomic_long_set(&l->nr_slabs, 0);
	atomic_long_set(&l->nr_objects, 0);
	atomic_long_set(&l->node_slabs, 0);
	atomic_set(&l->remote_nr, 0);
	l->cache = s;
	l->cpu = cpu;
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
 * has no page to spare. Not __init: its caller, alloc_node_lists(), runs
 * after boot too (it calls this only while slab_state is DOWN).
 */
static struct kmem_cache_node *early_node_alloc(struct kmem_cache *s,
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

/*
 * Memory hotplug is about to give @nid its first normal memory: give it a
 * list in every cache, then let caches use it. The caller holds slab_mutex.
 * A cache never loses a list: once the node has no normal memory left, it
 * only leaves slqb_nodes.
 */
int slqb_node_lists_online(int nid)
{
	struct kmem_cache_node *n;
	struct kmem_cache *s;

	list_for_each_entry(s, &slab_caches, list) {
		if (s->node[nid])
			continue;
		n = kmem_cache_alloc(kmem_cache_node, GFP_KERNEL);
		if (!n)
			return -ENOMEM;
		init_node_list(s, n);
		/* Pairs with slqb_alloc_node_list(): the list is ready first. */
		smp_store_release(&s->node[nid], n);
	}
	node_set(nid, slqb_nodes);
	return 0;
}

/* Orders and layout */

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

/* Caches: creation, tunables, destruction */

/*
 * hiwater: as many objects as fit in SLQB_QUEUE_BYTES, but from
 * SLQB_MIN_HIWATER to SLQB_DEFAULT_MAX_HIWATER: each CPU may keep that much
 * of each cache queued. The budget is small
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

	s->hiwater = clamp_t(unsigned long, hiwater, SLQB_MIN_HIWATER,
			     SLQB_DEFAULT_MAX_HIWATER);
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
		slqb_remote_init_cpu(s, cpu);
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
	slqb_stop_claims(s);
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
	int cpu;

	/*
	 * Two statically allocated caches: the one for node lists (whose own
	 * node lists come straight from the page allocator) and the one for
	 * kmem_cache structures. Everything else is allocated from them.
	 */
	for_each_possible_cpu(cpu)
		slqb_set_local_node(cpu);
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

	slqb_init_lockless_pop();
	setup_kmalloc_cache_index_table();
	create_kmalloc_caches(0);
	list_for_each_entry(s, &slab_caches, list)
		if (init_random_seq(s))
			pr_warn("SLQB: %s: no random free order, no memory\n",
				s->name);

	slqb_hotplug_init();

	pr_info("SLQB: min_order=%u, min_objects=%u, CPUs=%u, Nodes=%u\n",
		slqb_min_order, slqb_min_objects, nr_cpu_ids, nr_node_ids);
}

void __init kmem_cache_init_late(void)
{
	if (!IS_ENABLED(CONFIG_SYSFS))
		slab_state = FULL;
}

#if IS_ENABLED(CONFIG_SLQB_KUNIT_TEST)
/* The knobs of the KUnit suite, see mm/slqb.h. */
struct slqb_test_hooks slqb_test_hooks;

void slqb_test_fail_new_slabs(struct kmem_cache *s, unsigned int allow)
{
	atomic_set(&slqb_test_hooks.fail_allow, allow);
	WRITE_ONCE(slqb_test_hooks.fail_cache, s);
}

void slqb_test_fail_orders(struct kmem_cache *s, unsigned int order)
{
	WRITE_ONCE(slqb_test_hooks.order, order);
	WRITE_ONCE(slqb_test_hooks.order_cache, s);
}

/* Each knob below is off while its value changes. */
void slqb_test_fallback_node(struct kmem_cache *s, int node)
{
	WRITE_ONCE(slqb_test_hooks.fallback_cache, NULL);
	WRITE_ONCE(slqb_test_hooks.fallback_node, node);
	WRITE_ONCE(slqb_test_hooks.fallback_cache, s);
}

void slqb_test_busy_ticks(struct kmem_cache *s, unsigned long ticks)
{
	WRITE_ONCE(slqb_test_hooks.busy_cache, NULL);
	WRITE_ONCE(slqb_test_hooks.busy_ticks, ticks);
	WRITE_ONCE(slqb_test_hooks.busy_cache, s);
}

void slqb_test_watch_pages(struct kmem_cache *s, struct slqb_test_watch *w)
{
	WRITE_ONCE(slqb_test_hooks.watch_cache, NULL);
	WRITE_ONCE(slqb_test_hooks.watch, w);
	WRITE_ONCE(slqb_test_hooks.watch_cache, s);
}

void slqb_test_pfmemalloc_slabs(struct kmem_cache *s)
{
	WRITE_ONCE(slqb_test_hooks.pfmemalloc_cache, s);
}

/* Only cache creation reads it, under slab_mutex. */
unsigned int slqb_test_min_order(unsigned int order)
{
	unsigned int old;

	mutex_lock(&slab_mutex);
	old = slqb_min_order;
	slqb_min_order = order;
	mutex_unlock(&slab_mutex);
	return old;
}
#endif
