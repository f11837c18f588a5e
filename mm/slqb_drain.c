// SPDX-License-Identifier: GPL-2.0
/*
 * SLQB: giving memory back. What the queues and reserves hold goes back to
 * the slabs and the page allocator here: in drains, on shrink and destroy,
 * in the periodic trim of each CPU, when a CPU goes offline, when memory
 * comes or goes, and to the shrinker. The design and the locking rules are
 * at the top of mm/slqb.c.
 */

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/delay.h>
#include <linux/jump_label.h>
#include <linux/ktime.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "slab.h"
#include "slqb.h"

static DEFINE_PER_CPU(struct delayed_work, slqb_trim_work);
static DEFINE_PER_CPU(struct delayed_work, slqb_trim_wake_work);

/* Local nodes */

/* Each CPU's local memory node, see "Nodes" at the top of mm/slqb.c. */
DEFINE_PER_CPU(int, slqb_node);
#ifndef NODE_NOT_IN_PAGE_FLAGS
/* The node's bits in the page flags, for slab_lifo_ok(). */
DEFINE_PER_CPU(unsigned long, slqb_node_flags);
const unsigned long slqb_lifo_flags_mask = SLQB_LIFO_FLAGS_MASK;
#endif

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

void slqb_set_local_node(int cpu)
{
	int node = nearest_memory_node(cpu_to_mem(cpu));

	WRITE_ONCE(per_cpu(slqb_node, cpu), node);
#ifndef NODE_NOT_IN_PAGE_FLAGS
	WRITE_ONCE(per_cpu(slqb_node_flags, cpu),
		   ((unsigned long)node & NODES_MASK) << NODES_PGSHIFT);
#endif
}

/* Drains, shrink and destroy */

/* Phase one of a drain, on each CPU: empty the LIFO, stash and rlist. */
static void drain_local_queues(void *info)
{
	struct kmem_cache *s = info;
	struct kmem_cache_cpu *c = this_cpu_ptr(s->cpu_slab);
	LIST_HEAD(discard);

	slqb_flush_lifo(s, c, c->list.nr, &discard);
	slqb_flush_stash(s, c, &discard);
	slqb_rlist_handover(s, c, &discard);
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

	slqb_claim_remote(s, c, &discard);
	slqb_flush_lifo(s, c, c->list.nr, &discard);
	slqb_rlist_handover(s, c, &discard);
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
	slqb_reserve_empty(s);
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
	slqb_stop_claims(s);
	slqb_reserve_empty(s);
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

/* CPU hotplug */

/*
 * @cpu is dead. Hand its partial slabs to the node lists, then, once it is
 * marked dead so that whoever frees into its remaining (full) slabs adopts
 * them, return its LIFO, stash, rlist and remote queue.
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

	slqb_flush_lifo(s, c, l->nr, &discard);
	slqb_flush_stash(s, c, &discard);
	slqb_rlist_handover(s, c, &discard);
	head = remote_take_all(l);
	if (head)
		atomic_sub(slqb_flush_chain(s, c, head, &discard, NULL), &l->remote_nr);
	slqb_rlist_handover(s, c, &discard);
	slqb_discard_slabs(s, &discard);
	local_irq_enable();
	/* Its cap timer will not run: give back what a claim kept past it. */
	n = get_node(s, per_cpu(slqb_node, cpu));
	if (n)
		slqb_reserve_trim(s, n, READ_ONCE(s->reserve));
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

	slqb_set_local_node(cpu);

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

/* The periodic trim */

/*
 * One trim pass over a cache on this CPU: claim the remote queue, give the
 * stash back, flush the LIFO and hand the rlist over, and free half of the
 * local node's reserve.
 * A LIFO that nobody touched since the last pass (same head, same length)
 * is flushed whole; a busy one loses freebatch objects (slqb_flush_lifo()).
 * The work is bounded by hiwater objects, as many on the stash and the
 * capped remote queue (see slqb_remote_over_cap()).
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
		slqb_reserve_trim(s, n, READ_ONCE(n->list.nr_empty) / 2);
	c = this_cpu_ptr(s->cpu_slab);
	l = &c->list;
	/* A claim may take pushes before they count themselves: remote_nr < 0. */
	before = l->nr + max(atomic_read(&l->remote_nr), 0) + c->rlist_nr +
		 c->stash.nr;
	if (!before) {
		local_irq_enable();
		return 0;
	}
	slqb_claim_remote(s, c, &discard);
	slqb_flush_stash(s, c, &discard);
	nr = min(l->nr, READ_ONCE(s->freebatch));
	if (l->freelist == c->trim_head && l->nr == c->trim_nr)
		nr = l->nr;
	slqb_flush_lifo(s, c, nr, &discard);
	c->trim_head = l->freelist;
	c->trim_nr = l->nr;
	slqb_rlist_handover(s, c, &discard);
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

/*
 * Remote frees fill the reserve of a node that is no online CPU's local
 * node (one whose CPUs are all offline, or that has none), and no CPU's
 * pass trims it as its own: the first online CPU's pass halves these too.
 * @owned: the local nodes of the online CPUs.
 */
static void trim_unowned_reserves(struct kmem_cache *s,
				  const nodemask_t *owned)
{
	struct kmem_cache_node *n;
	int node;

	for_each_node_mask(node, slqb_nodes) {
		n = get_node(s, node);
		if (n && !node_isset(node, *owned))
			slqb_reserve_trim(s, n, READ_ONCE(n->list.nr_empty) / 2);
	}
}

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
 * is woken a few times at most and then left alone. A push that finds one
 * of its remote queues empty arms it too (slqb_trim_wake_on()): the pass
 * before may have left nothing queued.
 */
static void trim_all_caches(void)
{
	struct delayed_work *wake = this_cpu_ptr(&slqb_trim_wake_work);
	nodemask_t owned = NODE_MASK_NONE;
	unsigned int queued = 0;
	struct kmem_cache *s;
	bool first;
	int cpu;

	mutex_lock(&slab_mutex);
	/* Racing with CPU hotplug, two CPUs or none may do it: harmless. */
	first = raw_smp_processor_id() == cpumask_first(cpu_online_mask);
	if (first)
		for_each_online_cpu(cpu)
			node_set(per_cpu(slqb_node, cpu), owned);
	list_for_each_entry(s, &slab_caches, list) {
		queued += trim_cache(s);
		if (first)
			trim_unowned_reserves(s, &owned);
	}
	mutex_unlock(&slab_mutex);
	if (queued)
		mod_delayed_work_on(smp_processor_id(), system_wq, wake,
				    SLQB_TRIM_INTERVAL + SLQB_TRIM_WAKE_SLACK);
	else
		cancel_delayed_work(wake);
}

/* Set once the trim works of every possible CPU are initialised. */
static DEFINE_STATIC_KEY_FALSE(slqb_trim_ready);

/*
 * A push found @cpu's remote queue of some cache empty. Its owner may sleep
 * in NOHZ idle past its deferrable pass, with nothing queued when it last
 * ran and so no trim-wake work armed: arm that now. On a CPU that goes
 * offline meanwhile, the work runs wherever its workqueue puts it, and
 * trims that CPU; the dead CPU's queues are drained by slqb_cpu_dead().
 */
void slqb_trim_wake_on(int cpu)
{
	struct delayed_work *wake;

	if (!static_branch_likely(&slqb_trim_ready))
		return;
	wake = per_cpu_ptr(&slqb_trim_wake_work, cpu);
	if (!delayed_work_pending(wake))
		queue_delayed_work_on(cpu, system_wq, wake,
				      SLQB_TRIM_INTERVAL + SLQB_TRIM_WAKE_SLACK);
}

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
	slqb_set_local_node(cpu);
	schedule_delayed_work_on(cpu, work, SLQB_TRIM_INTERVAL + cpu);
	return 0;
}

static int slqb_cpu_offline(unsigned int cpu)
{
	cancel_delayed_work_sync(per_cpu_ptr(&slqb_trim_work, cpu));
	cancel_delayed_work_sync(per_cpu_ptr(&slqb_trim_wake_work, cpu));
	return 0;
}

/* Memory hotplug */

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

		slqb_flush_lifo(s, c, l->nr, &discard);
		slqb_flush_stash(s, c, &discard);
		slqb_rlist_handover(s, c, &discard);
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
		slqb_set_local_node(cpu);
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
		ret = slqb_node_lists_online(nid);
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

/* The shrinker */

/*
 * Under memory pressure the objects waiting on queues pin slabs that could
 * go back to the page allocator, and the reserves hold empty ones: the
 * shrinker counts both. A scan drains caches one at a time, in the order of
 * slab_caches (newest first), until it has given back sc->nr_to_scan
 * objects; a cache with nothing queued costs it no IPI. Reclaim may run
 * inside an allocation made with slab_mutex or the CPU hotplug lock held,
 * so both are only tried.
 */
static unsigned long cache_queued_objects(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	unsigned long nr = 0;
	int cpu, node;

	lockdep_assert_held(&slab_mutex);
	for_each_possible_cpu(cpu) {
		struct kmem_cache_cpu *c = cpu_of(s, cpu);

		nr += READ_ONCE(c->list.nr) + READ_ONCE(c->rlist_nr) +
		      READ_ONCE(c->stash.nr) +
		      max(atomic_read(&c->list.remote_nr), 0);
	}
	for_each_kmem_cache_node(s, node, n)
		nr += READ_ONCE(n->list.nr_empty) * s->objects;
	return nr;
}

static unsigned long slqb_shrink_count(struct shrinker *shrinker,
				       struct shrink_control *sc)
{
	unsigned long nr = 0;
	struct kmem_cache *s;

	if (!mutex_trylock(&slab_mutex))
		return 0;
	list_for_each_entry(s, &slab_caches, list)
		nr += cache_queued_objects(s);
	mutex_unlock(&slab_mutex);
	return nr ?: SHRINK_EMPTY;
}

static unsigned long slqb_shrink_scan(struct shrinker *shrinker,
				      struct shrink_control *sc)
{
	unsigned long before, after, freed = 0;
	struct kmem_cache *s;

	if (!cpus_read_trylock())
		return SHRINK_STOP;
	if (!mutex_trylock(&slab_mutex)) {
		cpus_read_unlock();
		return SHRINK_STOP;
	}
	list_for_each_entry(s, &slab_caches, list) {
		if (freed >= sc->nr_to_scan)
			break;
		before = cache_queued_objects(s);
		if (!before)
			continue;
		drain_all_cpus_locked(s);
		after = cache_queued_objects(s);
		if (before > after)
			freed += before - after;
	}
	mutex_unlock(&slab_mutex);
	cpus_read_unlock();
	return freed;
}

static struct shrinker slqb_shrinker = {
	.count_objects = slqb_shrink_count,
	.scan_objects = slqb_shrink_scan,
	.seeks = DEFAULT_SEEKS,
};

/*
 * From kmem_cache_init(), once the kmalloc caches exist: the memory
 * notifier, and the CPU hotplug state that drains a dead CPU's lists.
 */
void __init slqb_hotplug_init(void)
{
	int state;

	register_hotmemory_notifier(&slqb_memory_nb);
	state = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN,
					  "mm/slqb:prepare", slqb_cpu_prepare,
					  slqb_cpu_dead);
	if (state < 0)
		pr_err("SLQB: no CPU hotplug state (%d): offline CPUs will keep their objects\n",
		       state);
}

/* Once workqueues run: the shrinker, and each CPU's trim works. */
static int __init slqb_trim_init(void)
{
	int state, cpu;

	/*
	 * Once for all: a push may arm a CPU's trim-wake work while the CPU
	 * is offline, and it must still be a work when the CPU comes back.
	 */
	for_each_possible_cpu(cpu) {
		INIT_DEFERRABLE_WORK(per_cpu_ptr(&slqb_trim_work, cpu),
				     slqb_trim);
		INIT_DELAYED_WORK(per_cpu_ptr(&slqb_trim_wake_work, cpu),
				  slqb_trim_wake);
	}
	static_branch_enable(&slqb_trim_ready);

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

#if IS_ENABLED(CONFIG_SLQB_KUNIT_TEST)
/* The KUnit suite's hooks into the trim and the shrinker, see mm/slqb.h. */

void slqb_test_trim(struct kmem_cache *s)
{
	trim_cache(s);
}

void slqb_test_trim_all(void)
{
	trim_all_caches();
}

bool slqb_test_trim_wake_armed(int cpu)
{
	return delayed_work_pending(per_cpu_ptr(&slqb_trim_wake_work, cpu));
}

void slqb_test_trim_wake_cancel(int cpu)
{
	cancel_delayed_work(per_cpu_ptr(&slqb_trim_wake_work, cpu));
}

/* Retried while the callback could not take its locks (0 or SHRINK_STOP). */
unsigned long slqb_test_shrinker(unsigned long nr_to_scan)
{
	struct shrink_control sc = { .gfp_mask = GFP_KERNEL,
				     .nr_to_scan = nr_to_scan };
	bool scan = nr_to_scan;
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
