/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MM_SLQB_H
#define MM_SLQB_H

/*
 * What the files of SLQB share, and nobody else sees: the tunables, the
 * per-CPU state, the operations on lists and free pointers, and the hooks
 * of the KUnit suites (lib/slqb_kunit*.c). The index of the files, the
 * design and the locking rules are at the top of mm/slqb.c. Include it
 * after "slab.h".
 */

#include <linux/jump_label.h>
#include <linux/kasan.h>
#include <linux/kmemleak.h>
#include <linux/kmsan.h>
#include <linux/nodemask.h>
#include <linux/debugobjects.h>
#include <linux/percpu.h>
#include <linux/sizes.h>
#include <linux/timer.h>

/*
 * The tunables, see "Bounds" at the top of mm/slqb.c.
 *
 * hiwater, the LIFO's bound: as many objects as fit in SLQB_QUEUE_BYTES,
 * from SLQB_MIN_HIWATER to SLQB_DEFAULT_MAX_HIWATER by default, and up to
 * SLQB_MAX_HIWATER through sysfs. freebatch, the objects a refill, a flush
 * or a hand-over moves, is half of it.
 */
#define SLQB_QUEUE_BYTES	(2 * PAGE_SIZE)
#define SLQB_MIN_HIWATER	8U
#define SLQB_DEFAULT_MAX_HIWATER 512U
#define SLQB_MAX_HIWATER	65536U

/*
 * A LIFO of objects of this size and more is flushed from next to its
 * head, not from its cold end: see slqb_flush_lifo().
 */
#define SLQB_HOT_FLUSH_SIZE	1024U

/*
 * The caps of a remote queue, see slqb_remote_over_cap(): SLQB_REMOTE_CAP
 * LIFOs of hiwater objects; while the owner allocates, SLQB_REMOTE_BUSY_CAP
 * LIFOs but no more than SLQB_REMOTE_BUSY_MAX objects (unless the first is
 * more). An owner allocates if its LIFO ran dry less than SLQB_BUSY_TICKS
 * ago.
 */
#define SLQB_REMOTE_CAP		4
#define SLQB_REMOTE_BUSY_CAP	32
#define SLQB_REMOTE_BUSY_MAX	4096U
#define SLQB_BUSY_TICKS		(msecs_to_jiffies(10) + 1)

/* The reserve: the empty slabs that fit in SLQB_RESERVE_BYTES, at most 8. */
#define SLQB_RESERVE_BYTES	(4 * PAGE_SIZE)
#define SLQB_MAX_RESERVE	8

/*
 * Below this many objects a slab is of a larger order, up to
 * PAGE_ALLOC_COSTLY_ORDER: see preferred_order() in mm/slqb_slab.c.
 */
#define SLQB_LARGE_OBJECTS	16

/*
 * The most objects a slab may hold. slab->inuse and slab->objects share the
 * word in which struct page keeps page_type: a value with the top four bits
 * of PAGE_TYPE_BASE set would read as a page type, PageBuddy() for one, to
 * compaction and memory offline. Both stay below 0xf000, so neither half of
 * the word can set them, whatever the byte order.
 */
#define SLQB_MAX_OBJECTS	((PAGE_TYPE_BASE >> 16) - 1)

/*
 * The trim work runs every SLQB_TRIM_INTERVAL; a CPU that still queues
 * objects is woken for it SLQB_TRIM_WAKE_SLACK after a pass it missed.
 */
#define SLQB_TRIM_INTERVAL	(3 * HZ)
#define SLQB_TRIM_WAKE_SLACK	(HZ / 2)

/**
 * struct slqb_stash - a CPU's objects for its allocations for one node
 * @head: the objects, linked through their free pointers
 * @nr: number of objects on @head
 * @seq: bumped by every pop, refill and flush, so that a lockless pop can
 *	tell that the stash changed under it, as the LIFO's @seq does
 * @counters: @nr and @seq as one word, compared together with @head
 * @node: the node of the objects
 */
struct slqb_stash {
	void *head;
	union {
		struct {
			unsigned int nr;
			unsigned int seq;
		};
		unsigned long counters;
	};
	int node;
};

/**
 * struct kmem_cache_cpu - a CPU's state in one cache
 * @list: objects and slabs this CPU owns
 * @rlist: objects freed here that belong to another CPU's list, all for
 *	the list @rlist_target; handed over to it in one move
 * @rlist_tail: last object on @rlist
 * @rlist_nr: number of objects on @rlist
 * @trim_nr: length of the LIFO after the last trim pass
 * @rlist_target: the list that @rlist is for
 * @trim_head: head of the LIFO then: a LIFO that still has both went
 *	untouched
 * @stash: objects of one slab of a node list, taken under the node's lock
 *	in one move, for this CPU's next allocations for that node
 * @dry_stamp: jiffies when an allocation last found the LIFO empty: whether
 *	this CPU is allocating, for the cap of its remote queue
 *	(slqb_remote_over_cap())
 * @cap_armed: bit 0 is set while @cap_timer is armed
 * @cap_timer: looks at the remote queue and the LIFO again once the owner
 *	may have stopped allocating (slqb_cap_timer())
 */
struct kmem_cache_cpu {
	struct kmem_cache_list list;
	void *rlist;
	void *rlist_tail;
	unsigned int rlist_nr;
	unsigned int trim_nr;
	struct kmem_cache_list *rlist_target;
	void *trim_head;
	struct slqb_stash stash __aligned(2 * sizeof(void *));
	unsigned long dry_stamp;
	unsigned long cap_armed;
	struct timer_list cap_timer;
};

/*
 * Where there is a two-word compare-and-exchange, the allocation fast path
 * pops the LIFO with interrupts on (lifo_pop_lockless()): the per-CPU state
 * then starts the LIFO's pair of words on the boundary that needs.
 */
#if defined(CONFIG_64BIT) && defined(CONFIG_HAVE_CMPXCHG_DOUBLE)
#define SLQB_LOCKLESS_POP
#define SLQB_CPU_ALIGN		(2 * sizeof(void *))
void __init slqb_init_lockless_pop(void);
#else
#define SLQB_CPU_ALIGN		__alignof__(struct kmem_cache_cpu)
static inline void slqb_init_lockless_pop(void) { }
#endif

/* Each CPU's local memory node: see the top of mm/slqb.c. */
DECLARE_PER_CPU(int, slqb_node);

static __always_inline int slqb_local_node(void)
{
	return this_cpu_read(slqb_node);
}

/*
 * May a free put an object of @slab on this CPU's LIFO? Only if the slab is
 * of the local node and not of the emergency reserves. Where the page flags
 * hold the node, they hold both answers (the reserves' mark is PG_active,
 * see slab_test_pfmemalloc()): the free compares one load of them with the
 * bits a local, ordinary slab has, which each CPU keeps beside its node.
 */
#ifndef NODE_NOT_IN_PAGE_FLAGS
#define SLQB_LIFO_FLAGS_MASK	((NODES_MASK << NODES_PGSHIFT) | BIT(PG_active))

DECLARE_PER_CPU(unsigned long, slqb_node_flags);
/*
 * SLQB_LIFO_FLAGS_MASK, read from memory: x86-64 has no AND with a 64-bit
 * immediate, and an AND that loads its operand saves the instruction that
 * would put the constant in a register, on every free.
 */
extern const unsigned long slqb_lifo_flags_mask;

static __always_inline bool slab_lifo_ok(struct slab *slab)
{
	return (READ_ONCE(slab->__page_flags) & slqb_lifo_flags_mask) ==
	       this_cpu_read(slqb_node_flags);
}
#else
static __always_inline bool slab_lifo_ok(struct slab *slab)
{
	return slab_nid(slab) == slqb_local_node() &&
	       !slab_test_pfmemalloc(slab);
}
#endif

static inline struct kmem_cache_cpu *cpu_of(struct kmem_cache *s, int cpu)
{
	return per_cpu_ptr(s->cpu_slab, cpu);
}

static inline bool is_node_list(const struct kmem_cache_list *l)
{
	return l->cpu < 0;
}

/* The cap of the remote queue of an owner that allocates, in objects. */
static inline unsigned int slqb_busy_cap(const struct kmem_cache *s)
{
	unsigned int hiwater = READ_ONCE(s->hiwater);

	return max(SLQB_REMOTE_CAP * hiwater,
		   min(SLQB_REMOTE_BUSY_CAP * hiwater, SLQB_REMOTE_BUSY_MAX));
}

static inline void stat(struct kmem_cache_list *l, enum slqb_stat_item item)
{
#ifdef CONFIG_SLQB_STATS
	l->stats[item]++;
#endif
}

/*
 * stat() on this CPU's list, for code that may run with interrupts on or
 * that does not own the list it works on.
 */
static inline void stat_this_cpu(struct kmem_cache *s,
				 enum slqb_stat_item item)
{
#ifdef CONFIG_SLQB_STATS
	this_cpu_inc(s->cpu_slab->list.stats[item]);
#endif
}

static inline void stat_add(struct kmem_cache_list *l,
			    enum slqb_stat_item item, unsigned long n)
{
#ifdef CONFIG_SLQB_STATS
	l->stats[item] += n;
#endif
}

/*
 * Free pointers. With CONFIG_SLAB_FREELIST_HARDENED the stored value is
 * mixed with a per-cache secret and with the address it is stored at, so
 * an overwritten pointer decodes to garbage instead of to a chosen address.
 * The address is taken without its KASAN tag: with software tags, one
 * object is reached through pointers that differ in the tag (a new one for
 * each allocation), and the stored value must decode the same through each.
 * Every path reads and writes them, in loops too: they are inlined even
 * where the kernel is built for size, and so is the byte swap, which swab()
 * leaves to __fswab64(), a plain inline that -Os keeps out of line on arm64.
 */
static __always_inline unsigned long freeptr_swab(unsigned long where)
{
#if BITS_PER_LONG == 64
	return __builtin_bswap64(where);
#else
	return __builtin_bswap32(where);
#endif
}

static __always_inline unsigned long freeptr_mix(const struct kmem_cache *s,
						 unsigned long val,
						 unsigned long where)
{
#ifdef CONFIG_SLAB_FREELIST_HARDENED
	return val ^ s->random ^ freeptr_swab(where);
#else
	return val;
#endif
}

static __always_inline void *get_freepointer(const struct kmem_cache *s,
					     void *object)
{
	unsigned long where = (unsigned long)kasan_reset_tag(object) + s->offset;

	return (void *)freeptr_mix(s, *(unsigned long *)where, where);
}

/*
 * What set_freepointer() reads of the cache. A loop of stores, which the
 * compiler cannot tell from stores to the cache, takes a copy first, which
 * then stays in registers.
 */
struct freeptr_key {
	unsigned int offset;
#ifdef CONFIG_SLAB_FREELIST_HARDENED
	unsigned long random;
#endif
};

static __always_inline struct freeptr_key
freeptr_key(const struct kmem_cache *s)
{
	return (struct freeptr_key){
		.offset = s->offset,
#ifdef CONFIG_SLAB_FREELIST_HARDENED
		.random = s->random,
#endif
	};
}

static __always_inline void freeptr_store(struct freeptr_key key, void *object,
					  void *fp)
{
	unsigned long where = (unsigned long)kasan_reset_tag(object) + key.offset;
	unsigned long val = (unsigned long)fp;

#ifdef CONFIG_SLAB_FREELIST_HARDENED
	val ^= key.random ^ freeptr_swab(where);
#endif
	*(unsigned long *)where = val;
}

static __always_inline void set_freepointer(const struct kmem_cache *s,
					    void *object, void *fp)
{
	freeptr_store(freeptr_key(s), object, fp);
}

/*
 * Operations on the slabs of a list. The caller owns the list: it is its
 * CPU with interrupts disabled, or it holds the node's list_lock.
 */

static inline unsigned int slab_free_objects(const struct kmem_cache *s,
					     const struct slab *slab)
{
	return slab->objects - slab->inuse;
}

/* Count @slab in, or out of, the slabs and objects that @l owns. */
static inline void list_own_slab(struct kmem_cache_list *l,
				 const struct slab *slab)
{
	atomic_long_inc(&l->nr_slabs);
	atomic_long_add(slab->objects, &l->nr_objects);
}

static inline void list_disown_slab(struct kmem_cache_list *l,
				    const struct slab *slab)
{
	atomic_long_dec(&l->nr_slabs);
	atomic_long_sub(slab->objects, &l->nr_objects);
}

/*
 * Put @slab on the partial list of @l: at the head, but a slab of the
 * emergency reserves at the tail. Only node lists own those (see "Emergency
 * reserves" in mm/slqb.c), and they stay behind all the others there, so
 * that node_partial() finds them only where nothing else is left.
 */
static inline void partial_add(struct kmem_cache_list *l, struct slab *slab)
{
	if (unlikely(slab_test_pfmemalloc(slab)))
		list_add_tail(&slab->slab_list, &l->partial);
	else
		list_add(&slab->slab_list, &l->partial);
	l->nr_partial++;
}

/*
 * The partial slab of node list @l that an allocation with @flags takes
 * objects from: the first, unless it is a slab of the emergency reserves
 * (then all left are) and @flags do not entitle the caller to them.
 */
static inline struct slab *node_partial(struct kmem_cache_list *l,
					gfp_t flags)
{
	struct slab *slab = list_first_entry_or_null(&l->partial, struct slab,
						     slab_list);

	if (slab && unlikely(slab_test_pfmemalloc(slab)) &&
	    !gfp_pfmemalloc_allowed(flags))
		return NULL;
	return slab;
}

static inline void list_add_slab(struct kmem_cache *s,
				 struct kmem_cache_list *l, struct slab *slab)
{
	WRITE_ONCE(slab->list, l);
	list_own_slab(l, slab);
	partial_add(l, slab);
	l->slab_free += slab_free_objects(s, slab);
}

/* Take one object from a partial slab of @l. */
static inline void *slab_take_object(struct kmem_cache *s,
				     struct kmem_cache_list *l,
				     struct slab *slab)
{
	void *object = slab->freelist;

	slab->freelist = get_freepointer(s, object);
	slab->inuse++;
	l->slab_free--;
	if (!slab->freelist) {
		list_del(&slab->slab_list);
		l->nr_partial--;
	}
	return object;
}

/* Move a partial slab from list @from to list @to. */
static inline void list_move_slab(struct kmem_cache *s,
				  struct kmem_cache_list *from,
				  struct kmem_cache_list *to, struct slab *slab)
{
	unsigned int nr_free = slab_free_objects(s, slab);

	list_del(&slab->slab_list);
	from->nr_partial--;
	from->slab_free -= nr_free;
	list_disown_slab(from, slab);
	list_add_slab(s, to, slab);
}

/* Take everything on @l's remote queue. */
static inline void *remote_take_all(struct kmem_cache_list *l)
{
	return xchg(&l->remote_head, NULL);
}

/*
 * The hooks of every free, before the object goes back to SLQB. True when
 * KASAN keeps the object in its quarantine (or refuses a bad free): it must
 * not be queued now; the quarantine hands it back through ___cache_free().
 * The clearing for init_on_free stays next to kasan_slab_free(), which in
 * KASAN's hardware tags mode would clear the object itself.
 */
static __always_inline bool slab_free_hook(struct kmem_cache *s, void *x,
					   bool init)
{
	kmemleak_free_recursive(x, s->flags);
	kmsan_slab_free(s, x);
	debug_check_no_locks_freed(x, s->object_size);
	if (!(s->flags & SLAB_DEBUG_OBJECTS))
		debug_check_no_obj_freed(x, s->object_size);
	if (init && !kasan_has_integrated_init())
		memset(kasan_reset_tag(x), 0, s->object_size);
	return kasan_slab_free(s, x, init);
}

/* The object paths, mm/slqb.c: the hand-over and the flushes. */
unsigned int slqb_flush_chain(struct kmem_cache *s, struct kmem_cache_cpu *c,
			      void *head, struct list_head *discard,
			      unsigned int *remote);
void slqb_rlist_handover(struct kmem_cache *s, struct kmem_cache_cpu *c,
			 struct list_head *discard);
void slqb_claim_remote(struct kmem_cache *s, struct kmem_cache_cpu *c,
		       struct list_head *discard);
void slqb_flush_lifo(struct kmem_cache *s, struct kmem_cache_cpu *c,
		     unsigned int nr, struct list_head *discard);
void slqb_flush_stash(struct kmem_cache *s, struct kmem_cache_cpu *c,
		      struct list_head *discard);

/* The caps of the remote queues, mm/slqb_remote.c. */
void slqb_remote_over_cap(struct kmem_cache *s, struct kmem_cache_cpu *c,
			  struct kmem_cache_list *target, int queued);
void slqb_remote_init_cpu(struct kmem_cache *s, int cpu);
void slqb_stop_claims(struct kmem_cache *s);

/* Slabs, the reserve and node lists, mm/slqb_slab.c. */
struct slab *slqb_new_slab(struct kmem_cache *s, gfp_t flags, int node);
void __cold slqb_report_no_slab(struct kmem_cache *s, gfp_t flags, int node);
void slqb_free_slab(struct kmem_cache *s, struct slab *slab);
void slqb_discard_slabs(struct kmem_cache *s, struct list_head *discard);
void slqb_discard_claimed(struct kmem_cache *s, struct list_head *discard,
			  unsigned int extra);
void slqb_reserve_trim(struct kmem_cache *s, struct kmem_cache_node *n,
		       unsigned int keep);
void slqb_reserve_empty(struct kmem_cache *s);
int slqb_node_lists_online(int nid);

/* Draining, trim and hotplug, mm/slqb_drain.c. */
void slqb_set_local_node(int cpu);
void slqb_trim_wake_on(int cpu);
void __init slqb_hotplug_init(void);

extern nodemask_t slqb_nodes;

/*
 * The list of @node for a node-specific allocation: NULL for no node. Memory
 * hot-add publishes a new list before the node's bit, but a reader that sees
 * the bit may still read the pointer from before: NULL, no node yet. One it
 * reads is initialised (the release in slqb_node_lists_online(), and the
 * dependency of what it reads through the pointer).
 */
static inline struct kmem_cache_node *
slqb_alloc_node_list(struct kmem_cache *s, int node)
{
	if ((unsigned int)node >= nr_node_ids || !node_isset(node, slqb_nodes))
		return NULL;
	return READ_ONCE(s->node[node]);
}

/*
 * The flags of a first try for a slab on a given node: only what the node
 * has at hand, quietly. The caller's own flags come second, see alloc_node().
 */
static inline gfp_t slqb_node_try_flags(gfp_t flags)
{
	return (flags | __GFP_THISNODE | __GFP_NOWARN) &
	       ~(__GFP_NOFAIL | __GFP_DIRECT_RECLAIM);
}

/* What the lists of a cache hold, summed; see slqb_cache_totals(). */
struct slqb_totals {
	unsigned long slabs;
	unsigned long objects;
	unsigned long partial;
	unsigned long free;	/* on slab freelists and queues */
};

void slqb_cache_totals(struct kmem_cache *s, struct slqb_totals *t);

/* Objects in use: in slabs, and neither on a slab freelist nor queued. */
static inline unsigned long totals_in_use(const struct kmem_cache *s,
					  const struct slqb_totals *t)
{
	return t->objects > t->free ? t->objects - t->free : 0;
}

struct kmem_obj_info;

/*
 * Debugging, mm/slqb_debug.c. Caches named by slqb_debug=, or created with
 * debug flags, carry them and take the checked paths there; the static key
 * keeps the test out of the fast paths until one of those asks for
 * debugging.
 */
#ifdef CONFIG_SLQB_DEBUG

/* The flags that send a cache down the checked paths. */
#define SLQB_DEBUG_FLAGS	(SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE | \
				 SLAB_POISON | SLAB_STORE_USER | SLAB_TRACE)

DECLARE_STATIC_KEY_MAYBE(CONFIG_SLQB_DEBUG_ON, slqb_debug_key);

/*
 * Whether slqb_debug= asked for any debugging at all. The entry points test
 * this once, first thing, and branch to an out-of-line copy of themselves
 * that can debug: with jump labels, a kernel booted without slqb_debug runs
 * the fast paths with a NOP where the test is.
 */
static __always_inline bool slqb_debug_enabled(void)
{
	return static_branch_maybe(CONFIG_SLQB_DEBUG_ON, &slqb_debug_key);
}

static __always_inline bool slqb_debug_cache(const struct kmem_cache *s)
{
	return slqb_debug_enabled() && unlikely(s->flags & SLQB_DEBUG_FLAGS);
}

extern bool slqb_debug_skip_order;

void slqb_debug_init_object(struct kmem_cache *s, void *object);
unsigned int slqb_debug_metadata_size(slab_flags_t flags);
slab_flags_t slqb_debug_cache_flags(slab_flags_t flags, const char *name);
void *slqb_debug_alloc(struct kmem_cache *s, gfp_t gfpflags, int node,
		       unsigned long addr);
void slqb_debug_slab_free(struct kmem_cache *s, struct slab *slab,
			  void *object, unsigned long addr);
void slqb_debug_release(struct kmem_cache *s, struct slab *slab, void *object);
struct kmem_cache *slqb_debug_check_cache(struct kmem_cache *s, void *x);
void slqb_debug_release_empty_slabs(struct kmem_cache *s);
/* mem_dump_obj()'s stacks of @object, from its tracks. */
void slqb_debug_obj_info(struct kmem_obj_info *kpp, struct kmem_cache *s,
			 void *object);
/* For the sysfs files validate, alloc_calls and free_calls. */
void slqb_debug_validate(struct kmem_cache *s);
ssize_t slqb_debug_list_calls(struct kmem_cache *s, char *buf, bool alloc);

#else /* !CONFIG_SLQB_DEBUG */

#define SLQB_DEBUG_FLAGS	((__force slab_flags_t)0)
#define slqb_debug_skip_order	false

static __always_inline bool slqb_debug_enabled(void)
{
	return false;
}

static __always_inline bool slqb_debug_cache(const struct kmem_cache *s)
{
	return false;
}

static inline void slqb_debug_init_object(struct kmem_cache *s, void *object)
{
}

static inline unsigned int slqb_debug_metadata_size(slab_flags_t flags)
{
	return 0;
}

static inline slab_flags_t slqb_debug_cache_flags(slab_flags_t flags,
						  const char *name)
{
	return flags;
}

static inline void *slqb_debug_alloc(struct kmem_cache *s, gfp_t gfpflags,
				     int node, unsigned long addr)
{
	return NULL;
}

static inline void slqb_debug_slab_free(struct kmem_cache *s,
					struct slab *slab, void *object,
					unsigned long addr)
{
}

static inline void slqb_debug_release(struct kmem_cache *s,
				      struct slab *slab, void *object)
{
}

static inline struct kmem_cache *slqb_debug_check_cache(struct kmem_cache *s,
							void *x)
{
	return s;
}

static inline void slqb_debug_release_empty_slabs(struct kmem_cache *s)
{
}

static inline void slqb_debug_obj_info(struct kmem_obj_info *kpp,
				       struct kmem_cache *s, void *object)
{
}

#endif /* CONFIG_SLQB_DEBUG */

/* /sys/kernel/slab, mm/slqb_sysfs.c */
#ifdef CONFIG_SYSFS
int slqb_sysfs_add(struct kmem_cache *s);
int slqb_sysfs_alias(struct kmem_cache *s, const char *name);
void slqb_forget_early_aliases(struct kmem_cache *s);
#else
static inline int slqb_sysfs_add(struct kmem_cache *s)
{
	return 0;
}

static inline int slqb_sysfs_alias(struct kmem_cache *s, const char *name)
{
	return 0;
}

static inline void slqb_forget_early_aliases(struct kmem_cache *s)
{
}
#endif

/*
 * Hooks for the KUnit suites, lib/slqb_kunit*.c. Each knob of slqb_test_hooks
 * acts on one cache, the one its @..._cache field names (NULL: off); the
 * slqb_test_*() functions set them, in mm/slqb_slab.c.
 */
#if IS_ENABLED(CONFIG_SLQB_KUNIT_TEST)
/* What the page allocations of a watched cache were asked for. */
struct slqb_test_watch {
	unsigned int calls;
	gfp_t first_flags;
	gfp_t last_flags;
	bool irqs_enabled;	/* in any of them */
	unsigned int reports;	/* failures reported on the console */
	/* if set, called before each page allocation, as an interrupt could */
	void (*during)(void *arg);
	void *arg;
};

struct slqb_test_hooks {
	struct kmem_cache *fail_cache;	/* new slabs fail after... */
	atomic_t fail_allow;		/* ...this many more */
	struct kmem_cache *order_cache;	/* page allocations fail... */
	unsigned int order;		/* ...from this order */
	struct kmem_cache *fallback_cache; /* pages come from... */
	int fallback_node;		/* ...this node */
	struct kmem_cache *busy_cache;	/* the busy window is... */
	unsigned long busy_ticks;	/* ...this long */
	struct kmem_cache *watch_cache;	/* page allocations are recorded... */
	struct slqb_test_watch *watch;	/* ...here */
	/* new slabs count as made from the emergency reserves */
	struct kmem_cache *pfmemalloc_cache;
};

extern struct slqb_test_hooks slqb_test_hooks;

static inline bool fail_new_slab(struct kmem_cache *s)
{
	return unlikely(READ_ONCE(slqb_test_hooks.fail_cache) == s) &&
	       atomic_dec_if_positive(&slqb_test_hooks.fail_allow) < 0;
}

static inline bool fail_slab_order(struct kmem_cache *s, unsigned int order)
{
	return unlikely(READ_ONCE(slqb_test_hooks.order_cache) == s) &&
	       order >= READ_ONCE(slqb_test_hooks.order);
}

static inline int slab_pages_node(struct kmem_cache *s, int node)
{
	if (unlikely(READ_ONCE(slqb_test_hooks.fallback_cache) == s))
		return READ_ONCE(slqb_test_hooks.fallback_node);
	return node;
}

static inline unsigned long busy_ticks(struct kmem_cache *s)
{
	if (unlikely(READ_ONCE(slqb_test_hooks.busy_cache) == s))
		return READ_ONCE(slqb_test_hooks.busy_ticks);
	return SLQB_BUSY_TICKS;
}

static inline void watch_pages(struct kmem_cache *s, gfp_t flags)
{
	struct slqb_test_watch *w;

	if (likely(READ_ONCE(slqb_test_hooks.watch_cache) != s))
		return;
	w = READ_ONCE(slqb_test_hooks.watch);
	if (!w->calls++)
		w->first_flags = flags;
	w->last_flags = flags;
	if (!irqs_disabled())
		w->irqs_enabled = true;
	if (w->during)
		w->during(w->arg);
}

static inline void watch_report(struct kmem_cache *s)
{
	if (READ_ONCE(slqb_test_hooks.watch_cache) == s)
		READ_ONCE(slqb_test_hooks.watch)->reports++;
}

static inline bool test_pfmemalloc(struct kmem_cache *s)
{
	return unlikely(READ_ONCE(slqb_test_hooks.pfmemalloc_cache) == s);
}

/* Let @allow more new slabs of @s be made, then fail them; NULL: stop. */
void slqb_test_fail_new_slabs(struct kmem_cache *s, unsigned int allow);
/* Fail the page allocations of @s at @order or above; NULL: stop. */
void slqb_test_fail_orders(struct kmem_cache *s, unsigned int order);
/*
 * Have the page allocations of @s prefer @node, as if the page allocator
 * had fallen back there; NULL: stop.
 */
void slqb_test_fallback_node(struct kmem_cache *s, int node);
/* A CPU whose LIFO of @s ran dry in the last @ticks is busy; NULL: stop. */
void slqb_test_busy_ticks(struct kmem_cache *s, unsigned long ticks);
/* Record the page allocations of @s in @w; NULL: stop. */
void slqb_test_watch_pages(struct kmem_cache *s, struct slqb_test_watch *w);
/* Mark the new slabs of @s as made from the emergency reserves; NULL: stop. */
void slqb_test_pfmemalloc_slabs(struct kmem_cache *s);
/* Set slqb_min_order for the caches created next; returns the old one. */
unsigned int slqb_test_min_order(unsigned int order);

/* One trim pass over @s on the calling CPU. */
void slqb_test_trim(struct kmem_cache *s);
/* The trim work's pass over every cache, on the calling CPU. */
void slqb_test_trim_all(void);
/* Whether @cpu's trim is armed to wake it up (it still queues objects). */
bool slqb_test_trim_wake_armed(int cpu);
/* Disarm @cpu's trim wake-up, as a pass that left nothing queued does. */
void slqb_test_trim_wake_cancel(int cpu);
/*
 * SLQB's shrinker: what it counts (@nr_to_scan 0), or what one scan for
 * @nr_to_scan objects freed.
 */
unsigned long slqb_test_shrinker(unsigned long nr_to_scan);
/* Make a slab of @s as a caller with interrupts disabled; true if one came. */
bool slqb_test_new_slab_irqoff(struct kmem_cache *s, gfp_t flags);
/*
 * Pop this CPU's LIFO (@node NUMA_NO_NODE), or its stash for @node,
 * locklessly with @irq(@arg) run between the reads and the exchange, as an
 * interrupt could. Returns the object popped, NULL if the LIFO or stash was
 * empty, ERR_PTR(-EAGAIN) if the exchange found it changed (or the stash
 * holding another node's objects), or ERR_PTR(-EOPNOTSUPP) where there is
 * no lockless pop.
 */
void *slqb_test_interrupted_pop(struct kmem_cache *s, int node,
				void (*irq)(void *), void *arg);
#else
static inline bool fail_new_slab(struct kmem_cache *s)
{
	return false;
}

static inline bool fail_slab_order(struct kmem_cache *s, unsigned int order)
{
	return false;
}

static inline int slab_pages_node(struct kmem_cache *s, int node)
{
	return node;
}

static inline unsigned long busy_ticks(struct kmem_cache *s)
{
	return SLQB_BUSY_TICKS;
}

static inline void watch_pages(struct kmem_cache *s, gfp_t flags)
{
}

static inline void watch_report(struct kmem_cache *s)
{
}

static inline bool test_pfmemalloc(struct kmem_cache *s)
{
	return false;
}
#endif

#endif /* MM_SLQB_H */
