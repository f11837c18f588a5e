// SPDX-License-Identifier: GPL-2.0
/*
 * The slab allocator's own failure paths under fault injection, for the
 * slqbtest.faults=1 boot of tools/testing/slqb: guest/init.sh loads it
 * while /sys/kernel/debug/fail_page_alloc fails a share of the page
 * allocations of the tasks that have make-it-fail set, and failslab is
 * off.
 *
 * A workload seldom gets there: the page allocator refusing the larger
 * order of a new slab (for objects this big SLQB, as SLUB, asks for order
 * 3 without reclaim, and falls back to the smallest order that holds one),
 * and a bulk allocation that runs out of slabs part way. On each online
 * CPU a kthread bound to it works in rounds:
 *
 *  - with no faults, it allocates two objects and frees one of them, so
 *    that the CPU holds free objects of the cache; it keeps the other
 *    until the end of the round. The largest order of their slabs seen
 *    so far is the cache's order;
 *  - with make-it-fail set on itself, it asks kmem_cache_alloc_bulk() for
 *    BULK_OBJECTS objects, more than a slab holds. The first come from
 *    what the CPU holds, so a bulk allocation that fails has failed part
 *    way, and must leave nothing allocated;
 *  - it counts the slabs below the cache's order that the objects came
 *    from (order fallbacks), writes a pattern of its own into each object
 *    and checks them all: objects that overlap spoil each other's pattern;
 *  - it frees everything and shrinks the cache, so that the next round
 *    needs new slabs again.
 *
 * A kthread stops once it has seen TARGET part-way failures and TARGET
 * fallback slabs, after MAX_ROUNDS rounds or after MAX_SECONDS. The module
 * prints a line per CPU, destroys its cache (which warns if a failed bulk
 * allocation left an object allocated) and prints its verdict, FAIL if an
 * object was bad or a kthread could not run:
 *
 *   slqb_faults: PASS cpus=4 rounds=... bulk_ok=... bulk_part_way=...
 *
 * on one line, with fallback_slabs=, order= and bad= after those. Its init
 * returns 0 either way, since busybox insmod runs a failing init a second
 * time.
 *
 * With memcg=1 the module checks what a failed bulk allocation does to the
 * memory cgroup's charges instead. The loading task, which guest/init.sh
 * puts in a cgroup of its own, allocates accounted objects in bulk with
 * make-it-fail set, until MEMCG_TARGET allocations have failed. Each one
 * took its charge for every object asked for, and must give back the
 * charge of every object it did not return: the guest reads the cgroup's
 * memory.current once the module is gone. The module prints an upper bound
 * of what a leak would leave charged, the bytes of the objects the failed
 * allocations did not return:
 *
 *   slqb_faults: memcg rounds=... failed=... unsettled=... bad=...
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/topology.h>

#define OBJECT_SIZE	2048	/* 2 per page, 16 per slab of order 3 */
#define BULK_OBJECTS	64
#define TARGET		4
#define MAX_ROUNDS	1000
#define MAX_SECONDS	20
#define MEMCG_TARGET	400
#define MAX_BAD_SHOWN	5
#define HELD_PATTERN	0xa5
#define BULK_PATTERN	0x40	/* object i gets BULK_PATTERN + i */

struct fault_worker {
	struct task_struct *task;
	struct completion done;
	unsigned int cpu;
	unsigned int order;		/* largest slab order seen */
	unsigned long rounds;
	unsigned long bulk_ok;
	unsigned long bulk_part_way;
	unsigned long fallback_slabs;
	unsigned long bad;
	void *objs[BULK_OBJECTS];
	struct folio *low[BULK_OBJECTS];
};

static struct kmem_cache *cache;

static bool memcg;
module_param(memcg, bool, 0444);
MODULE_PARM_DESC(memcg, "fail bulk allocations of accounted objects in the loading task, for its memory cgroup");

/* Whether fault injection with task-filter may fail this task's allocations. */
static void fail_here(bool on)
{
#ifdef CONFIG_FAULT_INJECTION
	current->make_it_fail = on;
#endif
}

static void note_bad(struct fault_worker *w, const char *what, int index)
{
	if (w->bad++ < MAX_BAD_SHOWN)
		pr_err("cpu %u round %lu: object %d: %s\n", w->cpu, w->rounds,
		       index, what);
}

static bool listed(struct folio **list, unsigned int n, struct folio *folio)
{
	while (n--)
		if (list[n] == folio)
			return true;
	return false;
}

/* Counts the slabs below the cache's order that the objects came from. */
static void count_fallbacks(struct fault_worker *w)
{
	unsigned int i, n = 0;

	for (i = 0; i < BULK_OBJECTS; i++) {
		struct folio *folio = virt_to_folio(w->objs[i]);

		if (folio_order(folio) < w->order && !listed(w->low, n, folio))
			w->low[n++] = folio;
	}
	w->fallback_slabs += n;
}

/* Each object a slab object of its own, which no other object overlaps. */
static void check_objects(struct fault_worker *w)
{
	int i;

	for (i = 0; i < BULK_OBJECTS; i++) {
		if (!w->objs[i] || !folio_test_slab(virt_to_folio(w->objs[i]))) {
			note_bad(w, "not a slab object", i);
			return;
		}
	}
	for (i = 0; i < BULK_OBJECTS; i++)
		memset(w->objs[i], BULK_PATTERN + i, OBJECT_SIZE);
	for (i = 0; i < BULK_OBJECTS; i++)
		if (memchr_inv(w->objs[i], BULK_PATTERN + i, OBJECT_SIZE))
			note_bad(w, "overwritten: another object overlaps it", i);
}

static void one_round(struct fault_worker *w)
{
	void *held, *spare;
	int got;

	held = kmem_cache_alloc(cache, GFP_KERNEL);
	spare = kmem_cache_alloc(cache, GFP_KERNEL);
	if (!held || !spare) {
		note_bad(w, "no object with the faults off", -1);
		goto out;
	}
	w->order = max(w->order, folio_order(virt_to_folio(held)));
	memset(held, HELD_PATTERN, OBJECT_SIZE);
	kmem_cache_free(cache, spare);
	spare = NULL;

	fail_here(true);
	got = kmem_cache_alloc_bulk(cache, GFP_KERNEL, BULK_OBJECTS, w->objs);
	fail_here(false);

	if (got == BULK_OBJECTS) {
		w->bulk_ok++;
		count_fallbacks(w);
		check_objects(w);
		kmem_cache_free_bulk(cache, BULK_OBJECTS, w->objs);
	} else if (got) {
		note_bad(w, "kmem_cache_alloc_bulk() returned neither 0 nor all",
			 got);
		kmem_cache_free_bulk(cache, got, w->objs);
	} else {
		w->bulk_part_way++;
	}
	if (memchr_inv(held, HELD_PATTERN, OBJECT_SIZE))
		note_bad(w, "overwritten while it was held", -1);
out:
	if (spare)
		kmem_cache_free(cache, spare);
	if (held)
		kmem_cache_free(cache, held);
	kmem_cache_shrink(cache);
	w->rounds++;
}

static int fault_fn(void *data)
{
	struct fault_worker *w = data;
	unsigned long end = jiffies + MAX_SECONDS * HZ;

	while (w->rounds < MAX_ROUNDS && time_before(jiffies, end) &&
	       (w->bulk_part_way < TARGET || w->fallback_slabs < TARGET)) {
		one_round(w);
		cond_resched();
	}
	complete(&w->done);
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* memcg=1: see the top of this file. */
static void memcg_rounds(void)
{
	unsigned long end = jiffies + MAX_SECONDS * HZ;
	unsigned long rounds = 0, failed = 0, bad = 0;
	unsigned long long unsettled = 0;
	static void *objs[BULK_OBJECTS];
	int got;

	while (failed < MEMCG_TARGET && time_before(jiffies, end)) {
		fail_here(true);
		got = kmem_cache_alloc_bulk(cache, GFP_KERNEL, BULK_OBJECTS,
					    objs);
		fail_here(false);
		if (!got) {
			failed++;
			unsettled += BULK_OBJECTS * kmem_cache_size(cache);
		} else if (got != BULK_OBJECTS) {
			bad++;
			pr_err("round %lu: kmem_cache_alloc_bulk() returned %d\n",
			       rounds, got);
		}
		if (got)
			kmem_cache_free_bulk(cache, got, objs);
		/* New slabs again next round, where the faults strike. */
		kmem_cache_shrink(cache);
		rounds++;
		cond_resched();
	}
	pr_info("memcg rounds=%lu failed=%lu unsettled=%llu bad=%lu\n", rounds,
		failed, unsettled, bad);
}

static int __init slqb_faults_init(void)
{
	unsigned long rounds = 0, ok = 0, part_way = 0, fallbacks = 0, bad = 0;
	unsigned int cpu, cpus = 0, order = 0, not_started = 0;
	struct fault_worker *workers = NULL;

	if (!IS_ENABLED(CONFIG_FAULT_INJECTION)) {
		pr_err("FAIL: the kernel has no CONFIG_FAULT_INJECTION\n");
		return 0;
	}
	/* A usercopy region keeps the cache from being merged with another. */
	cache = kmem_cache_create_usercopy("slqb_faults", OBJECT_SIZE, 0,
					   memcg ? SLAB_ACCOUNT : 0, 0,
					   OBJECT_SIZE, NULL);
	if (cache && memcg) {
		memcg_rounds();
		goto out;
	}
	workers = kcalloc(nr_cpu_ids, sizeof(*workers), GFP_KERNEL);
	if (!cache || !workers) {
		pr_err("FAIL: no memory for the cache or the workers\n");
		goto out;
	}
	for_each_online_cpu(cpu) {
		struct fault_worker *w = &workers[cpu];

		w->cpu = cpu;
		init_completion(&w->done);
		w->task = kthread_create_on_node(fault_fn, w, cpu_to_node(cpu),
						 "slqb_faults/%u", cpu);
		if (IS_ERR(w->task)) {
			w->task = NULL;
			not_started++;
			continue;
		}
		kthread_bind(w->task, cpu);
		wake_up_process(w->task);
	}
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct fault_worker *w = &workers[cpu];

		if (!w->task)
			continue;
		wait_for_completion(&w->done);
		kthread_stop(w->task);
		pr_info("cpu %u node %d: rounds=%lu bulk_ok=%lu bulk_part_way=%lu fallback_slabs=%lu order=%u bad=%lu\n",
			cpu, cpu_to_node(cpu), w->rounds, w->bulk_ok,
			w->bulk_part_way, w->fallback_slabs, w->order, w->bad);
		cpus++;
		rounds += w->rounds;
		ok += w->bulk_ok;
		part_way += w->bulk_part_way;
		fallbacks += w->fallback_slabs;
		bad += w->bad;
		order = max(order, w->order);
	}
	kmem_cache_destroy(cache);
	cache = NULL;
	pr_info("%s cpus=%u rounds=%lu bulk_ok=%lu bulk_part_way=%lu fallback_slabs=%lu order=%u bad=%lu\n",
		!bad && cpus && !not_started ? "PASS" : "FAIL", cpus, rounds,
		ok, part_way, fallbacks, order, bad);
out:
	kmem_cache_destroy(cache);
	kfree(workers);
	return 0;
}

static void __exit slqb_faults_exit(void)
{
}

module_init(slqb_faults_init);
module_exit(slqb_faults_exit);
MODULE_DESCRIPTION("Slab failure paths under fault injection (SLQB harness)");
MODULE_LICENSE("GPL");
