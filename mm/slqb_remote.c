// SPDX-License-Identifier: GPL-2.0
/*
 * SLQB: the caps of the remote queues, and the claims that keep them.
 *
 * A CPU that frees objects of another CPU's slabs pushes them onto that
 * CPU's remote queue (mm/slqb.c). The owner takes the queue onto its LIFO
 * when the LIFO runs dry; this file decides when the owner must be
 * interrupted to take it before that, and what it keeps of it:
 *
 *  - past SLQB_REMOTE_CAP LIFOs, an idle owner is interrupted at once, by
 *    the claim irq_work, which sends what does not fit on its LIFO home;
 *  - an owner that allocates (its LIFO ran dry within the busy window)
 *    may let its queue grow to slqb_busy_cap(), and its claim keeps as
 *    much on the LIFO, and the slabs it empties in the local node's
 *    reserve;
 *  - the cap timer gives back what was kept once the owner is idle.
 *
 * The design and the locking rules are at the top of mm/slqb.c.
 */

#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/timer.h>

#include "slab.h"
#include "slqb.h"

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

/* Whether @l's remote queue is past the cap of an owner that is idle. */
static bool queue_over_cap(struct kmem_cache *s, struct kmem_cache_list *l)
{
	return atomic_read(&l->remote_nr) > (int)(SLQB_REMOTE_CAP * READ_ONCE(s->hiwater));
}

/*
 * Whether @l holds more than an owner that stopped allocating would keep:
 * a queue past the shorter cap, a LIFO past @hiwater, or a reserve past
 * its bound on the owner's node. On the owner's CPU.
 */
static bool over_idle_bounds(struct kmem_cache *s, struct kmem_cache_list *l,
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
 * to slqb_busy_cap() before it is interrupted. Interrupting it at the
 * shorter cap let a CPU that frees faster than the owner allocates interrupt
 * the owner every few hand-overs, with claims that found its LIFO full and
 * sent the objects through their slabs back to the page allocator, for the
 * owner to allocate new slabs. The timer makes sure that a queue left past the
 * shorter cap, when the owner stops, is claimed once the owner's busy window
 * is over, and that a LIFO such a claim left past hiwater is flushed back
 * to it (slqb_cap_timer()).
 *
 * @queued is what this push counted; pushes that go on until the claim has
 * run, from this CPU or others, can take the queue somewhat further. This
 * CPU's rlist is already handed over when the timer is armed.
 */
void slqb_remote_over_cap(struct kmem_cache *s, struct kmem_cache_cpu *c,
			  struct kmem_cache_list *target, int queued)
{
	struct kmem_cache_cpu *owner = container_of(target,
						    struct kmem_cache_cpu, list);
	unsigned long stamp = READ_ONCE(owner->dry_stamp);

	if (!owner_busy(s, stamp) || queued > (int)slqb_busy_cap(s)) {
		stat(&c->list, REMOTE_CAP_HIT);
		irq_work_queue_on(&target->claim_work, target->cpu);
	} else {
		arm_cap_timer(s, owner, stamp);
	}
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
		slqb_claim_remote(s, c, discard);
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
		nr += slqb_flush_chain(s, c, next, discard, NULL);
	atomic_sub(nr, &l->remote_nr);
	stat(l, CLAIM_REMOTE_LIST);
	stat_add(l, CLAIM_REMOTE_LIST_OBJECTS, nr);
}

/*
 * The cap was hit: claim the remote queue now, on the owning CPU. An owner
 * that stopped allocating keeps hiwater objects on its LIFO. One that
 * allocates keeps up to slqb_busy_cap(): it would take the whole queue onto its
 * LIFO anyway the next time the LIFO ran dry (claim_to_lifo()), so a LIFO
 * that long holds nothing that it could not already hold. Topped up to
 * hiwater only, it would send most of a queue that a faster freer filled
 * through its slabs back to the page allocator, and then allocate new
 * slabs for the same objects. For the same reason, the slabs of the local
 * node that the rest of its queue empties may wait in that node's reserve,
 * up to slqb_busy_cap() objects' worth beyond its bound: a freer that outruns
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
		keep = slqb_busy_cap(s);
		room = keep / s->objects;
	}
	claim_capped(s, c, keep, &discard);
	slqb_discard_claimed(s, &discard, room);
	/*
	 * Once the owner stops, the LIFO goes back to hiwater and the
	 * reserve to its bound. The pushes usually armed the timer already,
	 * but not when one push took the queue past the longer cap at once,
	 * nor when the owner began to allocate after the push that queued
	 * this claim.
	 */
	if (over_idle_bounds(s, l, hiwater))
		arm_cap_timer(s, c, stamp);
}

/*
 * Armed when a push took the queue of an owner that allocates past the
 * shorter cap (slqb_remote_over_cap()), or when a claim left such an owner's
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
	if (busy && over_idle_bounds(s, l, hiwater)) {
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
		if (over_idle_bounds(s, l, hiwater) &&
		    !test_and_set_bit(0, &c->cap_armed))
			mod_timer(t, stamp + busy_ticks(s));
		return;
	}
	local_irq_save(flags);
	if (queue_over_cap(s, l))
		claim_capped(s, c, hiwater, &discard);
	if (l->nr > hiwater)
		slqb_flush_lifo(s, c, l->nr - hiwater, &discard);
	local_irq_restore(flags);
	slqb_discard_slabs(s, &discard);
	n = get_node(s, slqb_local_node());
	if (n)
		slqb_reserve_trim(s, n, READ_ONCE(s->reserve));
}

/* Set up @cpu's claims in a new cache. */
void slqb_remote_init_cpu(struct kmem_cache *s, int cpu)
{
	struct kmem_cache_cpu *c = cpu_of(s, cpu);

	init_irq_work(&c->list.claim_work, slqb_claim_work);
	timer_setup(&c->cap_timer, slqb_cap_timer, TIMER_PINNED);
	/* Not allocating yet: see owner_busy(). */
	c->dry_stamp = jiffies - ULONG_MAX / 2;
}

/*
 * Wait for the claims that run on their own, the capped claim's irq_work
 * and the cap timer, and leave none of them queued or armed. A claim may
 * push to another CPU and arm that one's timer, hence the order.
 */
void slqb_stop_claims(struct kmem_cache *s)
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
