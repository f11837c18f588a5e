// SPDX-License-Identifier: GPL-2.0
/*
 * SLQB: a queued slab allocator. This comment is the design: the queues and
 * their bounds, who may touch what, every context that runs on its own, and
 * the lock order. A function that does not match it is a bug in one of them.
 *
 * Queues
 * ------
 * Free objects wait on singly linked lists threaded through the objects
 * themselves, by their free pointers:
 *
 *  - the LIFO (kmem_cache_list.freelist, .nr): each CPU's hot objects in
 *    each cache. Allocations pop it and frees push it with interrupts
 *    disabled and no lock; where the CPU has a two-word compare-and-exchange
 *    (found once at boot, slqb_init_lockless_pop()), an allocation pops
 *    with interrupts on instead (lifo_pop_lockless()). Any object whose
 *    slab is on the CPU's local node may go there, whoever owns the slab;
 *  - the CPU's partial slabs (kmem_cache_list.partial), used without a lock.
 *    A refill takes a slab's whole freelist when it fits under hiwater, else
 *    freebatch objects of it; a new slab whose objects fit under hiwater
 *    goes onto an empty LIFO whole, without passing through the list;
 *  - the stash (kmem_cache_cpu.stash): objects of one slab of a node list,
 *    for this CPU's node-specific allocations for that node (see "Nodes").
 *    They pop it as allocations pop the LIFO, lockless where the LIFO's pop
 *    is. One that finds the stash empty, or holding another node's objects,
 *    gives it back and takes an object under the node's lock, and the rest
 *    of the slab's freelist with it, as a refill of the LIFO does: all of it
 *    if it fits under hiwater, else freebatch objects in all. A CPU that
 *    allocates for another node takes the lock once a slab or a batch, not
 *    once an object. Drains, the dead-CPU drain, a change of the local node
 *    and every trim pass give it back;
 *  - the rlist (kmem_cache_cpu.rlist): objects freed here that belong to
 *    one other CPU's slabs, handed over to that CPU in one move once
 *    freebatch of them have gathered, or when a free for another CPU comes.
 *    A free of another node's object for the CPU it gathers for joins it
 *    as a free joins the LIFO, inline (rlist_push());
 *  - the remote queue (kmem_cache_list.remote_head, .remote_nr): what other
 *    CPUs handed over. Producers push a chain with a compare-and-exchange;
 *    only the owner takes, and it takes everything at once: onto an empty
 *    LIFO when it runs dry, from the trim work, from the claim irq_work
 *    when the queue passes its cap, or from the cap timer;
 *  - the node list (kmem_cache_node), under its list_lock: partial slabs
 *    for node-specific allocations and for those of offline CPUs, and the
 *    reserve, empty slabs that refills take before new ones.
 *
 * Bounds
 * ------
 * The tunables (mm/slqb.h has the constants):
 *
 *  - hiwater: the LIFO's length past which a free flushes freebatch objects
 *    from its cold end (from next to its head for objects of
 *    SLQB_HOT_FLUSH_SIZE and more, see slqb_flush_lifo()); SLQB_QUEUE_BYTES
 *    of objects, within SLQB_MIN_HIWATER and SLQB_DEFAULT_MAX_HIWATER.
 *    freebatch is half of it. Both can be written in sysfs, so a reader
 *    takes each once (READ_ONCE(), or data_race() where a fast path
 *    compares with it and any value is safe) and must be safe with any
 *    pair it sees;
 *  - the cap of a remote queue, past which its owner is interrupted to
 *    claim it (slqb_remote_over_cap()): SLQB_REMOTE_CAP LIFOs while the
 *    owner is idle, slqb_busy_cap() while it allocates. An owner allocates if
 *    its LIFO ran dry (kmem_cache_cpu.dry_stamp) within the busy window,
 *    SLQB_BUSY_TICKS: it would take its queue onto its LIFO soon anyway;
 *  - the reserve: up to s->reserve empty slabs per node (SLQB_RESERVE_BYTES
 *    of them, at most SLQB_MAX_RESERVE). A capped claim for an owner that
 *    allocates may keep the slabs it empties on the local node past that,
 *    up to slqb_busy_cap() objects' worth, and the LIFO up to slqb_busy_cap()
 *    objects, for the owner to allocate again. What was kept past the
 *    bounds goes back once the owner is idle: the cap timer flushes the
 *    LIFO to hiwater and frees the reserve down to its bound; the dead-CPU
 *    drain does so for a CPU that went offline. The trim work halves the
 *    local reserve every pass, and on the first online CPU also the
 *    reserves of nodes that are no online CPU's local node, which remote
 *    frees fill and no local pass would trim; shrink, the shrinker and
 *    memory offline empty them.
 *
 * Nodes
 * -----
 * "Local" always means the CPU's memory node: numa_mem_id() where the
 * architecture tracks memoryless nodes, and the nearest node with normal
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
 *    node's list, through the stash, never from a LIFO. A new slab for it
 *    comes from the node if it has one at hand, and only then, without
 *    __GFP_THISNODE, from wherever the caller's flags find one;
 *  - when memory hotplug changes a CPU's local node, the CPU gives its
 *    queued objects and its other nodes' partial slabs back.
 *
 * A slab's node list is that of the node its memory is on, always.
 *
 * Emergency reserves
 * ------------------
 * A slab made of pages that the page allocator gave from its emergency
 * reserves (slab_test_pfmemalloc()) serves only callers entitled to them
 * (gfp_pfmemalloc_allowed()): the reserves are what reclaim, and swap over
 * the network, make progress with, and an skb that did not ask for them
 * must not get them unmarked (kmalloc_reserve()). Such a slab never joins
 * a CPU list, and its objects never wait on a LIFO, stash, rlist or remote
 * queue:
 *
 *  - the node list owns it, behind all other partial slabs (partial_add());
 *    a refill or a node-specific allocation takes from it only for an
 *    entitled caller (node_partial(), adopt_node_slab()), one object at a
 *    time, and only when nothing else is left;
 *  - a free, single or bulk, sends its object straight home: the one
 *    compare of the page flags that finds an object of another node finds
 *    these too (slab_lifo_ok());
 *  - once empty, it goes back to the page allocator, never to the reserve
 *    of empty slabs.
 *
 * The larger slab order is never asked of the emergency reserves, nor with
 * reclaim (slqb_new_slab()).
 *
 * Ownership
 * ---------
 * A slab's owner (slab->list) is a CPU list or the node list of the slab's
 * node. A live CPU's list, its slabs, LIFO, stash and rlist are touched by that
 * CPU alone, with interrupts disabled (but for the lockless pop), with these
 * exceptions, all lockless: any CPU pushes onto its remote queue and adds to
 * remote_nr; any CPU reads its dead flag and dry_stamp, and arms its cap timer
 * (the cap_armed bit makes that once until the timer has run); statistics and
 * sysfs read its counters racily. A node list, and any slab that it or a dead
 * CPU owns, is only touched under the node's list_lock, and slab->list only
 * changes under that lock. Anyone who read an owner without the lock reads it
 * again under the lock before acting on it. A dead CPU's lists are touched by
 * the CPU hotplug callbacks, which run while it cannot run.
 *
 * Contexts that run on their own
 * ------------------------------
 *  - trim work (slqb_trim(), deferrable, every SLQB_TRIM_INTERVAL on each
 *    CPU) and trim-wake work (slqb_trim_wake(), armed while a pass leaves
 *    objects queued, and by a push that finds an owner's remote queue
 *    empty, so that a NOHZ idle CPU gets its pass): process context on
 *    their CPU, under slab_mutex, interrupts disabled per cache; they
 *    touch that CPU's lists and the local node's reserve, and on the first
 *    online CPU the reserves of nodes that are no CPU's local node;
 *  - claim irq_work (slqb_claim_work()): queued on the owner by a CPU whose
 *    push took the owner's remote queue past its cap; hard interrupt on the
 *    owner, which claims its own queue;
 *  - cap timer (slqb_cap_timer(), pinned, one per CPU and cache): armed by
 *    a pusher on any CPU, or by the claim, to expire when the owner's busy
 *    window ends; softirq on the owner, which claims, flushes and frees
 *    the reserve down to its bound once it is idle;
 *  - drains (drain_all_cpus_locked()): an IPI to every CPU, which empties
 *    its own queues; for shrink, destroy, memory offline and the shrinker
 *    (slqb_shrink_scan(), reclaim context, which only trylocks, and drains
 *    caches one at a time until it freed what reclaim asked for);
 *  - memory notifier (slqb_memory_callback()): adds node lists before a node
 *    gets memory, and IPIs the CPUs whose local node changed;
 *  - CPU hotplug callbacks: slqb_cpu_dead() drains a dead CPU's lists into
 *    the node lists, slqb_cpu_prepare() gives them back to it, and the
 *    online and offline callbacks start and stop its trim works.
 *
 * Lock order
 * ----------
 *   cpu_hotplug_lock (cpus_read_lock)
 *     mem_hotplug_lock (memory notifier)
 *       slab_mutex
 *         local_irq_disable()
 *           kmem_cache_node.list_lock (one node's at a time)
 *
 * slqb_tunables_mutex is taken alone. The trim work takes slab_mutex
 * without cpu_hotplug_lock: no holder of slab_mutex waits for the work.
 * Empty slabs are given back (slqb_discard_slabs()) only once no list_lock
 * is held and the lists are consistent: freeing a slab may re-enter the
 * allocator through kfree().
 *
 * Files
 * -----
 *  this file        the object paths: the slabs of a list; the hand-over of
 *                   objects to their owners; allocation, the slow paths and
 *                   then the fast path; freeing; bulk
 *  mm/slqb_remote.c the caps of the remote queues and the busy window, the
 *                   claim irq_work, the cap timer
 *  mm/slqb_slab.c   slabs and the page allocator; the reserve; what a cache
 *                   holds; node lists; orders and layout; caches: creation,
 *                   tunables, destruction; boot parameters; bootstrap
 *  mm/slqb_drain.c  local nodes; drains, shrink and destroy; CPU hotplug; the
 *                   periodic trim; memory hotplug; the shrinker
 *  mm/slqb_debug.c  slqb_debug=: checks, reports, validation, call lists
 *  mm/slqb_sysfs.c  /sys/kernel/slab and the statistics files
 *  mm/slqb.h        what they share: the tunables, the per-CPU state, list
 *                   and free pointer operations, the KUnit hooks
 */

#include <linux/jump_label.h>
#include <linux/kfence.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/ratelimit.h>
#include <linux/slab.h>
#include <trace/events/kmem.h>

#include "internal.h"
#include "slab.h"
#include "slqb.h"

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

/* The bytes of @slab that its objects take, for in_slab(). */
static __always_inline unsigned long slab_span(const struct kmem_cache *s,
					       const struct slab *slab)
{
	return (unsigned long)slab->objects * s->size;
}

/*
 * Whether @x is in the slab whose objects start at @base and take @span
 * bytes (slab_span()): one compare, where object_slab() takes a page lookup.
 * A KFENCE object never is. @base is slab_address()'s, untagged; @x may
 * carry a KASAN software tag. A walk computes @span once, before its loop:
 * the compiler cannot always tell that the loop's stores leave the cache
 * and the slab alone, and would read both and multiply for each object.
 */
static __always_inline bool in_slab(const void *base, unsigned long span,
				    const void *x)
{
	return (unsigned long)(kasan_reset_tag(x) - base) < span;
}

/* The slabs of a list */

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
		partial_add(l, slab);
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

/* The hand-over of objects to their owners */

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
	unsigned long span = slab_span(s, slab);

	(*run)++;
	while ((next = get_freepointer(s, head)) && in_slab(base, span, next)) {
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
unsigned int slqb_flush_chain(struct kmem_cache *s, struct kmem_cache_cpu *c,
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

/*
 * Push a chain of @nr objects owned by @target onto its remote queue in one
 * move. No lock: producers only push, the consumer only takes everything.
 * Past its cap, the owner is asked to claim the queue at once, with an
 * irq_work that is queued once until it has run, not once a push
 * (slqb_remote_over_cap()). If the owner went offline, nobody would claim the
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
	if (queued > (int)(SLQB_REMOTE_CAP * READ_ONCE(s->hiwater)) &&
	    !READ_ONCE(target->dead) && cpu_online(target->cpu))
		slqb_remote_over_cap(s, c, target, queued);
	else if (queued == (int)nr && !READ_ONCE(target->dead))
		slqb_trim_wake_on(target->cpu);

	/* Pairs with the barrier in slqb_drain_dead_cpu(). */
	smp_mb();
	if (unlikely(READ_ONCE(target->dead))) {
		head = remote_take_all(target);
		if (head)
			atomic_sub(slqb_flush_chain(s, c, head, discard, NULL),
				   &target->remote_nr);
	}
}

/* Hand this CPU's rlist over to its target. */
void slqb_rlist_handover(struct kmem_cache *s, struct kmem_cache_cpu *c,
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
		slqb_rlist_handover(s, c, discard);
	c->rlist_target = target;
	set_freepointer(s, tail, c->rlist);
	if (!c->rlist)
		c->rlist_tail = tail;
	c->rlist = head;
	c->rlist_nr += nr;
	if (c->rlist_nr >= READ_ONCE(s->freebatch))
		slqb_rlist_handover(s, c, discard);
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
void slqb_claim_remote(struct kmem_cache *s, struct kmem_cache_cpu *c,
		       struct list_head *discard)
{
	void *head = remote_take_all(&c->list);
	unsigned int nr;

	if (!head)
		return;
	nr = slqb_flush_chain(s, c, head, discard, NULL);
	atomic_sub(nr, &c->list.remote_nr);
	stat(&c->list, CLAIM_REMOTE_LIST);
	stat_add(&c->list, CLAIM_REMOTE_LIST_OBJECTS, nr);
}

/*
 * Flush @nr objects of the LIFO. Those of small objects go from its cold
 * end: the objects freed longest ago, whose cache lines are the least
 * likely to be hot, and the LIFO keeps the hot ones for the next
 * allocations. Those of objects of SLQB_HOT_FLUSH_SIZE and more go from
 * next to its head: the free pointers of such objects share a few cache
 * sets, which the LIFO alone can fill, so the walk to its cold end and the
 * flush there would miss on nearly every object; next to the head they
 * hit. The head itself stays, as it does in a flush from the cold end: it
 * is the object freed last, which the next allocation takes and which the
 * double-free check compares a free with. What the LIFO keeps of the
 * others is a line or two of a large object, which is little for its next
 * user to find hot anyway.
 */
void slqb_flush_lifo(struct kmem_cache *s, struct kmem_cache_cpu *c,
		     unsigned int nr, struct list_head *discard)
{
	struct kmem_cache_list *l = &c->list;
	unsigned int keep, remote;
	void *head, *last, *first;

	if (!nr || !l->nr)
		return;
	if (nr >= l->nr) {
		head = l->freelist;
		nr = l->nr;
		l->freelist = NULL;
		l->nr = 0;
	} else if (s->size >= SLQB_HOT_FLUSH_SIZE) {
		first = l->freelist;
		head = get_freepointer(s, first);
		last = head;
		for (keep = nr; --keep; )
			last = get_freepointer(s, last);
		set_freepointer(s, first, get_freepointer(s, last));
		set_freepointer(s, last, NULL);
		l->nr -= nr;
	} else {
		keep = l->nr - nr;
		last = l->freelist;
		while (--keep)
			last = get_freepointer(s, last);
		head = get_freepointer(s, last);
		set_freepointer(s, last, NULL);
		l->nr -= nr;
	}
	l->seq++;
	stat(l, FLUSH_FREE_LIST);
	stat_add(l, FLUSH_FREE_LIST_OBJECTS, nr);
	slqb_flush_chain(s, c, head, discard, &remote);
	stat_add(l, FLUSH_FREE_LIST_REMOTE, remote);
}

/*
 * Give the stash back. Its objects are of one node's slabs, which that
 * node's list owns, or a CPU that has adopted one since: the walk finds
 * each owner.
 */
void slqb_flush_stash(struct kmem_cache *s, struct kmem_cache_cpu *c,
		      struct list_head *discard)
{
	void *head = c->stash.head;

	if (!head)
		return;
	c->stash.head = NULL;
	c->stash.nr = 0;
	c->stash.seq++;
	slqb_flush_chain(s, c, head, discard, NULL);
}

/* Allocation: the slow paths */

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
 * which takes a walk along them. A write to the tunables may be seen half
 * done, with a freebatch above hiwater: never walk past the freelist's end.
 */
static void fill_lifo(struct kmem_cache *s, struct kmem_cache_list *l)
{
	struct slab *slab = list_first_entry(&l->partial, struct slab,
					     slab_list);
	unsigned int n = slab_free_objects(s, slab), i;
	unsigned int batch = READ_ONCE(s->freebatch);
	void *head = slab->freelist, *last = head;

	if (n > READ_ONCE(s->hiwater) && n > batch) {
		n = batch;
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

/*
 * Take a partial slab left on the local node list, or else a slab of the
 * node's reserve, rather than a new one. A slab of the emergency reserves
 * never joins a CPU list: if only such slabs are left, a caller entitled to
 * them gets one object here, and a caller that is not gets nothing.
 */
static void *adopt_node_slab(struct kmem_cache *s, struct kmem_cache_list *l,
			     gfp_t gfpflags)
{
	struct kmem_cache_node *n = get_node(s, slqb_local_node());
	struct slab *slab;
	void *object = NULL;

	if (!n || !(READ_ONCE(n->list.nr_partial) |
		    READ_ONCE(n->list.nr_empty)))
		return NULL;
	spin_lock(&n->list_lock);
	slab = list_first_entry_or_null(&n->list.partial, struct slab,
					slab_list);
	if (slab && likely(!slab_test_pfmemalloc(slab))) {
		list_move_slab(s, &n->list, l, slab);
	} else if (!reserve_take(s, n, l) && slab &&
		   gfp_pfmemalloc_allowed(gfpflags)) {
		object = slab_take_object(s, &n->list, slab);
		stat(&n->list, ALLOC);
	}
	spin_unlock(&n->list_lock);
	return object;
}

/*
 * Take an object of @slab, a partial slab of the list of @n, under the
 * node's lock. An empty stash takes the rest of the slab's freelist in the
 * same move, for the next allocations for that node, as a refill of the
 * LIFO does (fill_lifo()): all of it when that fits under hiwater, which
 * takes no walk, else freebatch objects in all. A slab of the emergency
 * reserves gives one object at a time (see "Emergency reserves" at the top).
 */
static void *node_take(struct kmem_cache *s, struct kmem_cache_node *n,
		       struct slab *slab)
{
	struct kmem_cache_cpu *c = this_cpu_ptr(s->cpu_slab);
	unsigned int nr = slab_free_objects(s, slab), i;
	unsigned int batch = READ_ONCE(s->freebatch);
	bool whole = nr <= READ_ONCE(s->hiwater) || nr <= batch;
	void *object = slab->freelist, *last = object;

	if (!whole)
		nr = batch;
	stat(&n->list, ALLOC);
	if (c->stash.nr || nr < 2 || unlikely(slab_test_pfmemalloc(slab)))
		return slab_take_object(s, &n->list, slab);
	if (whole) {
		slab->freelist = NULL;
	} else {
		for (i = 1; i < nr; i++)
			last = get_freepointer(s, last);
		slab->freelist = get_freepointer(s, last);
		set_freepointer(s, last, NULL);
	}
	slab_taken(&n->list, slab, nr);
	c->stash.head = get_freepointer(s, object);
	c->stash.nr = nr - 1;
	c->stash.seq++;
	c->stash.node = slab_nid(slab);
	return object;
}

/* Put a new slab on the list of its node and take from it, under its lock. */
static void *node_slab_object(struct kmem_cache *s, struct slab *slab)
{
	struct kmem_cache_node *n = get_node(s, slab_nid(slab));
	void *object;

	spin_lock(&n->list_lock);
	list_add_slab(s, &n->list, slab);
	stat(&n->list, ALLOC_SLAB_NEW);
	object = node_take(s, n, slab);
	spin_unlock(&n->list_lock);
	return object;
}

/* Pop the head of the LIFO, which is not empty, with interrupts disabled. */
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

/*
 * A new slab whose objects all fit under hiwater, for the empty LIFO of @l:
 * @l owns it full, as fill_lifo() would leave it, without putting it on
 * the partial list first. Returns the first object.
 */
static void *lifo_fill_new(struct kmem_cache *s, struct kmem_cache_list *l,
			   struct slab *slab)
{
	WRITE_ONCE(slab->list, l);
	list_own_slab(l, slab);
	l->freelist = slab->freelist;
	l->nr += slab->objects;
	slab->freelist = NULL;
	slab->inuse = slab->objects;
	stat(l, ALLOC_SLAB_FILL);
	return lifo_pop(s, l);
}

/* The local LIFO is empty. Interrupts are disabled, see new_slab_irqoff(). */
static void *alloc_slow(struct kmem_cache *s, gfp_t gfpflags,
			unsigned long irqflags)
{
	struct kmem_cache_cpu *c = this_cpu_ptr(s->cpu_slab);
	struct kmem_cache_list *l = &c->list;
	struct slab *slab;
	unsigned long now;
	void *object;

	/* The LIFO ran dry: see slqb_remote_over_cap(). */
	now = jiffies;
	if (READ_ONCE(c->dry_stamp) != now)
		WRITE_ONCE(c->dry_stamp, now);
	if (READ_ONCE(l->remote_head) && claim_to_lifo(s, l))
		return lifo_pop(s, l);
	if (list_empty(&l->partial)) {
		object = adopt_node_slab(s, l, gfpflags);
		if (unlikely(object))
			return object;
	}
	if (list_empty(&l->partial)) {
		slab = new_slab_irqoff(s, gfpflags, slqb_local_node(), irqflags);
		if (!slab)
			return NULL;
		/* See "Emergency reserves" at the top. */
		if (unlikely(slab_test_pfmemalloc(slab)))
			return node_slab_object(s, slab);
		l = &this_cpu_ptr(s->cpu_slab)->list;
		stat(l, ALLOC_SLAB_NEW);
		if (!l->freelist && slab->objects <= READ_ONCE(s->hiwater))
			return lifo_fill_new(s, l, slab);
		list_add_slab(s, l, slab);
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
 * A node-specific allocation: from the stash if it holds that node's
 * objects, else from that node's list, under its lock, which refills an
 * empty stash (node_take()); a stash of another node's objects goes back
 * first. A node with no normal memory is no node at all: NULL with
 * *fallback set tells the caller to use the local path. Otherwise a new
 * slab comes from @node if it has one at hand (no reclaim, no warning),
 * and then, unless the caller insists on @node, from wherever the page
 * allocator finds one with the caller's own flags; it goes on the list of
 * its own node.
 */
static void *alloc_node(struct kmem_cache *s, gfp_t gfpflags, int node,
			bool *fallback, unsigned long irqflags)
{
	struct kmem_cache_cpu *c = this_cpu_ptr(s->cpu_slab);
	struct kmem_cache_node *n;
	struct slab *slab;
	void *object = NULL;
	LIST_HEAD(discard);

	if (c->stash.nr && c->stash.node == node) {
		object = c->stash.head;
		c->stash.head = get_freepointer(s, object);
		c->stash.nr--;
		c->stash.seq++;
		stat(&c->list, ALLOC);
		return object;
	}
	n = slqb_alloc_node_list(s, node);
	if (!n) {
		*fallback = true;
		return NULL;
	}
	if (c->stash.nr) {
		slqb_flush_stash(s, c, &discard);
		slqb_discard_slabs(s, &discard);
	}

	spin_lock(&n->list_lock);
	slab = node_partial(&n->list, gfpflags);
	/* The reserve comes before a slab of the emergency reserves. */
	if (!slab || unlikely(slab_test_pfmemalloc(slab)))
		slab = reserve_take(s, n, &n->list) ?: slab;
	if (slab)
		object = node_take(s, n, slab);
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
	return node_slab_object(s, slab);
}

/* Allocation: the fast path */

#ifdef SLQB_LOCKLESS_POP
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
static_assert(offsetof(struct slqb_stash, counters) == sizeof(void *));
static_assert(offsetof(struct slqb_stash, seq) -
	      offsetof(struct slqb_stash, nr) ==
	      offsetof(union lifo_counters, seq));

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
 * preemption disabled. The stash, a pair of the same shape, is popped
 * the same way (stash_pop_lockless()).
 */
static __always_inline void *lifo_peek(struct kmem_cache *s, void **head,
				       unsigned long *counters,
				       union lifo_counters *old, void **next)
{
	void *object;

	old->counters = READ_ONCE(*counters);
	object = READ_ONCE(*head);
	if (object) {
		/* A stale @next is harmless: the exchange then fails. */
		*next = data_race(get_freepointer(s, object));
		/*
		 * If an interrupt allocated the object meanwhile, KMSAN sees
		 * uninitialised bytes, and would report their use in the
		 * exchange, which fails then and so does not use them.
		 */
		kmsan_unpoison_memory(next, sizeof(*next));
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
static __always_inline bool lifo_take(void **head, unsigned long *counters,
				      void *object, union lifo_counters old,
				      void *next)
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
	taken = cmpxchg_double_local(head, counters, object, old.counters,
				     next, new.counters);
	OPTIMIZER_HIDE_VAR(taken);
	return taken;
}

/*
 * On once boot has found the two-word exchange and no debug_pagealloc: a
 * jump patched out, where testing the CPU's feature bits would cost a load
 * and a test on every allocation.
 */
static DEFINE_STATIC_KEY_FALSE(slqb_lockless_pop);

void __init slqb_init_lockless_pop(void)
{
	if (system_has_cmpxchg_double() && !debug_pagealloc_enabled())
		static_branch_enable(&slqb_lockless_pop);
}

/*
 * Pop the stash if it holds objects of @node. Its node is read after the
 * pair: a refill for another node bumps @seq, so the exchange fails if
 * the node changed since the pair was read.
 */
static __always_inline void *stash_pop_lockless(struct kmem_cache *s,
						int node)
{
	struct slqb_stash *stash = raw_cpu_ptr(&s->cpu_slab->stash);
	union lifo_counters old;
	void *object, *next;

	do {
		object = lifo_peek(s, &stash->head, &stash->counters, &old,
				   &next);
		if (!object || READ_ONCE(stash->node) != node)
			return NULL;
	} while (!lifo_take(&stash->head, &stash->counters, object, old,
			    next));
	return object;
}

/*
 * Returns NULL when the LIFO is empty, or when the request is one for a
 * node list (a node other than the local one, or __GFP_THISNODE) and the
 * stash has no object of that node: the irq-off path then serves it.
 */
static __always_inline void *lifo_pop_lockless(struct kmem_cache *s,
					       gfp_t gfpflags, int node)
{
	union lifo_counters old;
	struct kmem_cache_list *l;
	void *object, *next;

	if (!static_branch_likely(&slqb_lockless_pop))
		return NULL;
	preempt_disable();
	if (unlikely(node != NUMA_NO_NODE &&
		     (node != slqb_local_node() || gfpflags & __GFP_THISNODE))) {
		object = stash_pop_lockless(s, node);
		goto out;
	}
	l = raw_cpu_ptr(&s->cpu_slab->list);
	do {
		object = lifo_peek(s, &l->freelist, &l->counters, &old, &next);
		if (unlikely(!object))
			goto out;
	} while (!lifo_take(&l->freelist, &l->counters, object, old, next));
out:
	if (object)
		stat_this_cpu(s, ALLOC);
	preempt_enable();
	return object;
}

#else
static __always_inline void *lifo_pop_lockless(struct kmem_cache *s,
					       gfp_t gfpflags, int node)
{
	return NULL;
}
#endif

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

/*
 * Clear the free pointer if it lies inside the object (init_on_free). The
 * object is not yet retagged for its new life: the match-all tag.
 */
static __always_inline void wipe_freepointer(struct kmem_cache *s,
					     void *object)
{
	if (unlikely(slqb_init_on_free(s)) && object &&
	    s->offset < s->object_size && !is_kfence_address(object))
		*(void **)(kasan_reset_tag(object) + s->offset) = NULL;
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
			       struct slab *slab, void *object, bool local)
{
	unsigned int hiwater = READ_ONCE(s->hiwater);
	unsigned int batch = READ_ONCE(s->freebatch);
	unsigned int nr = c->list.nr;
	LIST_HEAD(discard);

	if (local) {
		/*
		 * The LIFO is past hiwater, usually by this one object: flush
		 * freebatch (slqb_flush_lifo()). A claim of the remote queue
		 * (claim_to_lifo(), or slqb_claim_work() while this CPU
		 * allocates) may have left it longer, by up to about
		 * slqb_busy_cap() objects: flush all that in the same walk, down
		 * to where a flush usually leaves the LIFO, rather than walk
		 * past most of it for each freebatch. A write to the
		 * tunables in between may leave the LIFO short of hiwater:
		 * then flush freebatch.
		 */
		if (nr > hiwater && batch <= hiwater)
			nr -= hiwater + 1 - batch;
		else
			nr = batch;
		slqb_flush_lifo(s, c, nr, &discard);
	} else {
		/* Not an object of the emergency reserves: see __slqb_free(). */
		if (slab_nid(slab) != slqb_local_node())
			stat(&c->list, FREE_REMOTE);
		send_run(s, c, slab, object, object, 1, &discard, true);
	}
	slqb_discard_slabs(s, &discard);
}

/*
 * An object of another node whose slab the CPU that the rlist gathers for
 * owns joins the rlist here, with no call, unless it completes a batch:
 * free_slow() hands that over, and takes the objects for any other owner.
 * The owner may go offline meanwhile, as it may after any rlist_add():
 * remote_push() sends what reaches a dead owner home. A slab of the
 * emergency reserves is a node list's, never the rlist's target.
 */
static __always_inline bool rlist_push(struct kmem_cache *s,
				       struct kmem_cache_cpu *c,
				       struct slab *slab, void *object)
{
	/* A racing write of freebatch is safe: see Bounds at the top. */
	unsigned int batch = data_race(s->freebatch);

	if (READ_ONCE(slab->list) != c->rlist_target || c->rlist_nr + 1 >= batch)
		return false;
	if (!c->rlist)
		c->rlist_tail = object;
	set_freepointer(s, object, c->rlist);
	c->rlist = object;
	c->rlist_nr++;
	stat(&c->list, FREE_REMOTE);
	return true;
}

/*
 * Free one object with interrupts disabled. An object of the local memory
 * node goes on this CPU's LIFO, whoever owns its slab; one of another node
 * goes to the rlist if another CPU owns its slab, else home at once, and
 * so does one of a slab of the emergency reserves.
 */
static __always_inline void __slqb_free(struct kmem_cache *s, struct slab *slab,
					void *object)
{
	struct kmem_cache_cpu *c = this_cpu_ptr(s->cpu_slab);
	struct kmem_cache_list *l = &c->list;

	stat(l, FREE);
	if (likely(slab_lifo_ok(slab))) {
		set_freepointer(s, object, l->freelist);
		l->freelist = object;
		/* A racing write of hiwater is safe: see Bounds at the top. */
		if (likely(++l->nr <= data_race(s->hiwater)))
			return;
		free_slow(s, c, slab, object, true);
	} else if (!rlist_push(s, c, slab, object)) {
		free_slow(s, c, slab, object, false);
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
	pr_err("SLQB: %s: double free of %p from %pS: the object is already free; the free is ignored\n",
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

/* Bulk */

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
 * Link the objects p[from..end) of a run behind @head, in reverse, each
 * after its free hooks; return the run's head. An object the hooks keep
 * (KASAN's quarantine) or that is freed twice is left out: its p[] entry
 * becomes NULL and run->nr drops.
 */
static __always_inline void *link_run(struct slqb_run *run, void **p,
				      size_t from, size_t end, void *head,
				      bool init, unsigned long addr)
{
	/* In registers: the stores below might alias the cache. */
	struct freeptr_key key = freeptr_key(run->s);
	size_t i;

	for (i = from; i < end; i++) {
		void *x = p[i];

		/*
		 * The naive double free, the object twice in a row (or the
		 * LIFO's head, see take_run()): linked to itself, it would be
		 * allocated twice. As in slab_free(), KASAN reports it if it
		 * is on. Before the hooks, which may wipe the free pointer.
		 * Quarantined by KASAN, the object is left out of the run too.
		 */
		if (likely(!IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) ||
			   x != head) &&
		    likely(!slab_free_hook(run->s, x, init))) {
			freeptr_store(key, x, head);
			head = x;
			continue;
		}
		if (IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) && x == head &&
		    !kasan_slab_free(run->s, x, false))
			report_double_free(run->s, x, addr);
		p[i] = NULL;
		run->nr--;
	}
	return head;
}

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
	void *object = p[--size], *base, *head;
	struct folio *folio = virt_to_folio(object);
	unsigned int misses = 0;
	unsigned long span;
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
	span = slab_span(run->s, run->slab);
	while (i && misses < SLQB_RUN_LOOKAHEAD) {
		void *x = p[--i];

		if (!in_slab(base, span, x)) {
			misses++;
			continue;
		}
		p[i] = p[--size];
		p[size] = x;
	}

	run->nr = end - size;
	slqb_memcg_free_hook(run->s, run->slab, &p[size], run->nr);
	init = slqb_init_on_free(run->s);
	/*
	 * The first object linked, the run's last, is checked against the
	 * head of this CPU's LIFO, as slab_free() checks: the naive double
	 * free of an object freed singly just before. The link it gets is
	 * never followed: whatever takes the run sets its last object's.
	 */
	head = IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) ?
	       this_cpu_read(run->s->cpu_slab->list.freelist) : NULL;
	/* One loop for each value of init: no test of it per object. */
	if (unlikely(init))
		run->head = link_run(run, p, size, end, head, true, _RET_IP_);
	else
		run->head = link_run(run, p, size, end, head, false, _RET_IP_);
	/* The first object linked is the run's last, unless it was dropped. */
	run->tail = p[size];
	if ((IS_ENABLED(CONFIG_KASAN) ||
	     IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED)) &&
	    unlikely(!run->tail) && run->nr)
		for (i = size; !run->tail; )
			run->tail = p[++i];
	return size;
}

/*
 * A run of the local node goes onto the LIFO while it fits under hiwater;
 * otherwise, and always for a slab of the emergency reserves, it goes home,
 * in one move.
 */
static __always_inline void free_run(struct slqb_run *run)
{
	struct kmem_cache *s = run->s;
	struct kmem_cache_list *l;
	struct kmem_cache_cpu *c;
	unsigned long flags;
	LIST_HEAD(discard);
	bool lifo;

	local_irq_save(flags);
	lifo = slab_lifo_ok(run->slab);
	c = this_cpu_ptr(s->cpu_slab);
	l = &c->list;
	stat_add(l, FREE, run->nr);
	/* A racing write of hiwater is safe: see Bounds at the top. */
	if (likely(lifo && l->nr + run->nr <= data_race(s->hiwater))) {
		set_freepointer(s, run->tail, l->freelist);
		l->freelist = run->head;
		l->nr += run->nr;
		local_irq_restore(flags);
		return;
	}
	if (slab_nid(run->slab) != slqb_local_node())
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
		/*
		 * memcg was charged for @size objects: its hook settles the
		 * charge of each object, and gives back that of each empty
		 * slot. The objects then go back as any others do.
		 */
		memset(p + i, 0, (size - i) * sizeof(*p));
		slab_post_alloc_hook(s, objcg, flags, size, p, false);
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

#if IS_ENABLED(CONFIG_SLQB_KUNIT_TEST)
/* The hooks of the KUnit suite into the paths, see mm/slqb.h. */

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

void *slqb_test_interrupted_pop(struct kmem_cache *s, int node,
				void (*irq)(void *), void *arg)
{
#ifdef SLQB_LOCKLESS_POP
	struct kmem_cache_cpu *c;
	unsigned long *counters;
	union lifo_counters old;
	void *object, *next;
	void **head;

	if (!static_branch_likely(&slqb_lockless_pop))
		return ERR_PTR(-EOPNOTSUPP);
	preempt_disable();
	c = raw_cpu_ptr(s->cpu_slab);
	head = node == NUMA_NO_NODE ? &c->list.freelist : &c->stash.head;
	counters = node == NUMA_NO_NODE ? &c->list.counters :
					  &c->stash.counters;
	object = lifo_peek(s, head, counters, &old, &next);
	irq(arg);
	if (object && ((node != NUMA_NO_NODE &&
			READ_ONCE(c->stash.node) != node) ||
		       !lifo_take(head, counters, object, old, next)))
		object = ERR_PTR(-EAGAIN);
	preempt_enable();
	return object;
#else
	return ERR_PTR(-EOPNOTSUPP);
#endif
}
#endif
