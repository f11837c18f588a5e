/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_SLQB_DEF_H
#define _LINUX_SLQB_DEF_H

/*
 * SLQB: a queued slab allocator.
 *
 * Every cache has one kmem_cache_list per CPU and one per memory node.
 * A list owns slabs: the partially used ones sit on its partial list, the
 * full ones are only pointed at by slab->list. A CPU's list is used by
 * that CPU alone, with interrupts disabled, but for the lockless pop of
 * its LIFO's head; a node's list is used by any CPU under the node's
 * list_lock. See Documentation/mm/slqb.rst.
 */

#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/kasan.h>
#include <linux/kfence.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/reciprocal_div.h>
#include <linux/types.h>

enum slqb_stat_item {
#define SLQB_STAT(item, name)	item,
#include <linux/slqb_stats.h>
	NR_SLQB_STAT_ITEMS
};

/**
 * struct kmem_cache_list - objects and slabs owned by one CPU or one node
 * @freelist: LIFO of free objects, linked through their free pointers
 * @nr: number of objects on @freelist
 * @seq: bumped each time objects leave @freelist, so that a lockless pop
 *	can tell that the LIFO changed under it (see lifo_pop_lockless())
 * @counters: @nr and @seq as one word, compared together with @freelist
 * @partial: slabs with both free and allocated objects
 * @nr_partial: number of slabs on @partial
 * @slab_free: free objects sitting on the slab freelists of @partial
 * @nr_slabs: all slabs owned by this list, full ones included
 * @nr_objects: the objects of those slabs, free or not
 * @remote_head: objects of this list's slabs freed by other CPUs, pushed
 *	in batches without a lock and claimed all at once by the owner
 * @remote_nr: approximate number of objects on @remote_head
 * @cache: the cache this list belongs to
 * @cpu: owning CPU, or -1 for a node list
 * @dead: the owning CPU is offline; its slabs are adopted under the node
 *	lock by whoever frees into them
 * @claim_work: asks the owning CPU to claim @remote_head when it grew past
 *	its cap
 * @full: full slabs of a node list of a debugged cache, so that validation
 *	and the tracking reports can reach every slab (CONFIG_SLQB_DEBUG)
 * @stats: event counters (CONFIG_SLQB_STATS)
 * @node_slabs: slabs on this node's memory, whoever owns them (node lists)
 * @empty: empty slabs kept for reuse, at most the cache's @reserve (node
 *	lists); their objects count in @slab_free
 * @nr_empty: number of slabs on @empty
 */
struct kmem_cache_list {
	void *freelist;
	union {
		struct {
			unsigned int nr;
			unsigned int seq;
		};
		unsigned long counters;	/* both of them on 64-bit only */
	};
	struct list_head partial;
	unsigned long nr_partial;
	unsigned long slab_free;
	atomic_long_t nr_slabs;
	atomic_long_t nr_objects;
	void *remote_head;
	atomic_t remote_nr;
	struct kmem_cache *cache;
	int cpu;
	bool dead;
	struct irq_work claim_work;
#ifdef CONFIG_SLQB_DEBUG
	struct list_head full;		/* debugged caches: full slabs */
#endif
#ifdef CONFIG_SLQB_STATS
	unsigned int stats[NR_SLQB_STAT_ITEMS];
#endif
	atomic_long_t node_slabs;
	struct list_head empty;
	unsigned int nr_empty;
};

/*
 * Slab cache management. The fields used by the fast paths come first.
 */
struct kmem_cache {
	struct kmem_cache_cpu __percpu *cpu_slab;
	unsigned int offset;		/* free pointer offset in an object */
	unsigned int hiwater;		/* LIFO length that triggers a flush */
	unsigned int freebatch;		/* objects moved per flush or refill */
	slab_flags_t flags;
	unsigned int size;		/* object size with metadata and padding */
	unsigned int object_size;	/* object size as the user asked */
	unsigned int inuse;		/* offset of metadata after the object */
	unsigned int align;
	unsigned int objects;		/* objects per slab of @order */
	unsigned int order;		/* slab order, tried first */
	unsigned int min_order;		/* order when @order cannot be had */
	unsigned int min_objects;	/* objects per slab of @min_order */
	unsigned int reserve;		/* empty slabs kept per node */
	struct reciprocal_value reciprocal_size;
	gfp_t allocflags;		/* gfp flags for every slab allocation */
	int refcount;			/* for merged caches and destroy */
	void (*ctor)(void *object);
	unsigned int useroffset;	/* usercopy region offset */
	unsigned int usersize;		/* usercopy region size */
	const char *name;
	struct list_head list;		/* on slab_caches */
#ifdef CONFIG_SLAB_FREELIST_HARDENED
	unsigned long random;		/* free pointer obfuscation */
#endif
#ifdef CONFIG_SLAB_FREELIST_RANDOM
	unsigned int *random_seq;	/* free order of new slabs */
#endif
#ifdef CONFIG_KASAN
	struct kasan_cache kasan_info;	/* where KASAN keeps its metadata */
#endif
#ifdef CONFIG_SYSFS
	struct kobject kobj;
#endif
	struct kmem_cache_node *node[MAX_NUMNODES];
};

#ifdef CONFIG_SYSFS
#define SLAB_SUPPORTS_SYSFS
void sysfs_slab_unlink(struct kmem_cache *s);
void sysfs_slab_release(struct kmem_cache *s);
#endif

int slqb_set_tunables(struct kmem_cache *s, unsigned int hiwater,
		      unsigned int freebatch);

#ifdef CONFIG_SLQB_DEBUG
/* kmem_cache_create() was asked for debug flags, before it takes slab_mutex. */
void slqb_debug_cache_create(slab_flags_t flags);
#endif

/* @addr is the slab's untagged address; @obj may carry a KASAN tag. */
static inline unsigned int __obj_to_index(const struct kmem_cache *cache,
					  void *addr, void *obj)
{
	return reciprocal_divide(kasan_reset_tag(obj) - addr,
				 cache->reciprocal_size);
}

static inline unsigned int obj_to_index(const struct kmem_cache *cache,
					const struct slab *slab, void *obj)
{
	/* A KFENCE object has a page, and slab, of its own. */
	if (is_kfence_address(obj))
		return 0;
	return __obj_to_index(cache, slab_address(slab), obj);
}

/* The start of the object that @x points into (for KASAN's reports). */
static inline void *nearest_obj(struct kmem_cache *cache,
				const struct slab *slab, void *x)
{
	void *base = slab_address(slab);
	unsigned int index = __obj_to_index(cache, base, x);

	if (index >= slab->objects)
		index = slab->objects - 1;
	return base + index * cache->size;
}

static inline int objs_per_slab(const struct kmem_cache *cache,
				const struct slab *slab)
{
	if (is_kfence_address(slab_address(slab)))
		return 1;
	return slab->objects;
}

#endif /* _LINUX_SLQB_DEF_H */
