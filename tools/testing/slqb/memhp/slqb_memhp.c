// SPDX-License-Identifier: GPL-2.0
/*
 * Cache churn while memory comes and goes, for `slqb boot --memory-hotplug`
 * (tools/testing/slqb/guest/init.sh loads it).
 *
 * Loaded without parameters, it starts a kthread that, round after round,
 * creates a cache, allocates objects from it with __GFP_THISNODE on every
 * node that has normal memory at that moment and checks that each object
 * lies on the node asked for, while the guest onlines hot-added memory
 * blocks. The last CHURN_CACHES caches stay, with some of their objects:
 * a cache made while a node came online thus lives on through CPU
 * hotplug, and its objects are freed later, maybe on another CPU, before
 * it is destroyed. Unloading it stops the kthread, frees and destroys
 * what is left and prints the counts with a verdict:
 *
 *   slqb_memhp: churn: PASS rounds=... allocs=... wrong_node=0 ...
 *
 * It also makes one cache in the window of the first block of a node that
 * gains normal memory, from a memory notifier, and checks in MEM_ONLINE that
 * the cache serves that node (the "window=<bad>/<objects>" of the verdict).
 *
 * Loaded with check_node=N, it checks once that node N is served from its
 * own memory by a new cache and by kmalloc_node(), and prints
 *
 *   slqb_memhp: check node N: PASS ...
 *
 * or FAIL with what went wrong. Its init returns 0 either way, since
 * busybox insmod runs a failing init a second time.
 *
 * Only the slab API is used, so the module works with any allocator.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/slab.h>

#define CHURN_OBJECTS	16	/* per node and round */
#define CHURN_CACHES	8	/* caches alive at a time */
#define CHURN_HELD	32	/* objects each of them keeps */
#define CHECK_OBJECTS	64
#define NAME_LEN	32

static int check_node = NUMA_NO_NODE;
module_param(check_node, int, 0444);
MODULE_PARM_DESC(check_node,
		 "check once that this node is served locally (default: churn)");

struct churn_stats {
	unsigned long rounds;
	unsigned long allocs;
	unsigned long no_memory;	/* __GFP_THISNODE allocations that failed */
	unsigned long wrong_node;
	unsigned long create_failed;
	nodemask_t seen;		/* nodes allocated from */
};

struct churn_slot {
	struct kmem_cache *cache;
	unsigned int held;
	void *objs[CHURN_HELD];
};

static struct churn_stats stats;
static struct churn_slot slots[CHURN_CACHES];
static struct task_struct *churn_task;

/* A constructor makes the cache unmergeable: each round gets a new one. */
static void churn_ctor(void *obj)
{
	memset(obj, 0, sizeof(unsigned long));
}

static int obj_nid(const void *obj)
{
	return folio_nid(virt_to_folio(obj));
}

static void churn_node(struct churn_slot *slot, int nid)
{
	void *objs[CHURN_OBJECTS];
	int i, n = 0;

	for (i = 0; i < CHURN_OBJECTS; i++) {
		void *obj = kmem_cache_alloc_node(slot->cache, GFP_KERNEL |
						  __GFP_THISNODE | __GFP_NOWARN,
						  nid);

		if (!obj) {
			stats.no_memory++;
			continue;
		}
		stats.allocs++;
		if (obj_nid(obj) != nid && !stats.wrong_node++)
			pr_err("churn: asked node %d, got an object on node %d\n",
			       nid, obj_nid(obj));
		if (slot->held < CHURN_HELD)
			slot->objs[slot->held++] = obj;
		else
			objs[n++] = obj;
	}
	while (n)
		kmem_cache_free(slot->cache, objs[--n]);
}

/* Frees what @slot kept and destroys its cache. */
static void retire(struct churn_slot *slot)
{
	if (!slot->cache)
		return;
	while (slot->held)
		kmem_cache_free(slot->cache, slot->objs[--slot->held]);
	kmem_cache_destroy(slot->cache);
	slot->cache = NULL;
}

static int churn_fn(void *unused)
{
	char name[NAME_LEN];
	int i;

	while (!kthread_should_stop()) {
		struct churn_slot *slot = &slots[stats.rounds % CHURN_CACHES];
		unsigned int size = 32U << (stats.rounds % 5);
		int nid;

		retire(slot);
		snprintf(name, sizeof(name), "slqb_memhp_%lu", stats.rounds);
		slot->cache = kmem_cache_create(name, size, 0, 0, churn_ctor);
		if (!slot->cache) {
			stats.create_failed++;
			usleep_range(10000, 20000);
			continue;
		}
		for_each_node_state(nid, N_NORMAL_MEMORY) {
			node_set(nid, stats.seen);
			churn_node(slot, nid);
		}
		stats.rounds++;
		usleep_range(500, 1000);
	}
	for (i = 0; i < CHURN_CACHES; i++)
		retire(&slots[i]);
	return 0;
}

/* Allocates CHECK_OBJECTS objects for node nid, counts the misses, frees. */
static void check_allocs(const char *what, struct kmem_cache *cache,
			 size_t size, gfp_t gfp, int nid, unsigned long *bad)
{
	void *objs[CHECK_OBJECTS];
	int i, failed = 0, remote = 0;

	for (i = 0; i < CHECK_OBJECTS; i++) {
		objs[i] = cache ? kmem_cache_alloc_node(cache, gfp, nid) :
				  kmalloc_node(size, gfp, nid);
		if (!objs[i])
			failed++;
		else if (obj_nid(objs[i]) != nid)
			remote++;
	}
	for (i = 0; i < CHECK_OBJECTS; i++) {
		if (!objs[i])
			continue;
		if (cache)
			kmem_cache_free(cache, objs[i]);
		else
			kfree(objs[i]);
	}
	pr_info("check node %d: %s: %d objects, %d failed, %d on other nodes\n",
		nid, what, CHECK_OBJECTS, failed, remote);
	*bad += failed + remote;
}

static void check_local(int nid)
{
	static const size_t sizes[] = { 64, 256, 1024 };
	unsigned long bad = 0;
	struct kmem_cache *cache;
	char what[NAME_LEN];
	unsigned int i;

	if (nid < 0 || nid >= MAX_NUMNODES || !node_state(nid, N_NORMAL_MEMORY)) {
		pr_err("check node %d: FAIL: not a node with normal memory (%*pbl)\n",
		       nid, nodemask_pr_args(&node_states[N_NORMAL_MEMORY]));
		return;
	}
	cache = kmem_cache_create("slqb_memhp_check", 192, 0, 0, churn_ctor);
	if (!cache) {
		pr_err("check node %d: FAIL: cannot create a cache\n", nid);
		return;
	}
	check_allocs("new cache, __GFP_THISNODE", cache, 0,
		     GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN, nid, &bad);
	check_allocs("new cache", cache, 0, GFP_KERNEL, nid, &bad);
	kmem_cache_destroy(cache);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		snprintf(what, sizeof(what), "kmalloc_node(%zu)", sizes[i]);
		check_allocs(what, NULL, sizes[i], GFP_KERNEL, nid, &bad);
	}
	pr_info("check node %d: %s: %lu objects failed or were not local\n",
		nid, bad ? "FAIL" : "PASS", bad);
}

/*
 * The window of a node's first memory block: a cache created after the
 * allocator's own MEM_GOING_ONLINE callback ran, and before the node joins
 * N_NORMAL_MEMORY, must serve the node once its memory is online. This
 * notifier runs after the slab allocator's, makes such a cache there, and
 * allocates from it with __GFP_THISNODE in MEM_ONLINE.
 */
static struct kmem_cache *window_cache;
static int window_nid = NUMA_NO_NODE;
static unsigned long window_objects, window_bad;

static int window_callback(struct notifier_block *nb, unsigned long action,
			   void *arg)
{
	struct memory_notify *mn = arg;
	void *objs[CHECK_OBJECTS];
	int i;

	if (action == MEM_GOING_ONLINE && mn->status_change_nid_normal >= 0 &&
	    !window_cache) {
		window_cache = kmem_cache_create("slqb_memhp_window", 128, 0, 0,
						 churn_ctor);
		if (window_cache)
			window_nid = mn->status_change_nid_normal;
		return NOTIFY_OK;
	}
	if (action != MEM_ONLINE || !window_cache || window_objects ||
	    mn->status_change_nid_normal != window_nid)
		return NOTIFY_OK;
	for (i = 0; i < CHECK_OBJECTS; i++) {
		objs[i] = kmem_cache_alloc_node(window_cache, GFP_KERNEL |
						__GFP_THISNODE | __GFP_NOWARN,
						window_nid);
		window_objects++;
		if (!objs[i] || obj_nid(objs[i]) != window_nid)
			window_bad++;
	}
	while (i--)
		if (objs[i])
			kmem_cache_free(window_cache, objs[i]);
	if (window_bad)
		pr_err("window: %lu of %lu objects of a cache made as node %d came online failed or were not on it\n",
		       window_bad, window_objects, window_nid);
	return NOTIFY_OK;
}

static struct notifier_block window_nb = {
	.notifier_call = window_callback,
	.priority = SLAB_CALLBACK_PRI - 1,
};

static int __init slqb_memhp_init(void)
{
	int err;

	if (check_node != NUMA_NO_NODE) {
		check_local(check_node);
		return 0;
	}
	err = register_memory_notifier(&window_nb);
	if (err) {
		pr_err("churn: FAIL: cannot register the memory notifier\n");
		return err;
	}
	churn_task = kthread_run(churn_fn, NULL, "slqb_memhp");
	if (IS_ERR(churn_task)) {
		pr_err("churn: FAIL: cannot start the kthread\n");
		unregister_memory_notifier(&window_nb);
		return PTR_ERR(churn_task);
	}
	pr_info("churn: started on nodes %*pbl\n",
		nodemask_pr_args(&node_states[N_NORMAL_MEMORY]));
	return 0;
}

static void __exit slqb_memhp_exit(void)
{
	bool pass;

	if (!churn_task)
		return;
	kthread_stop(churn_task);
	unregister_memory_notifier(&window_nb);
	kmem_cache_destroy(window_cache);
	pass = stats.rounds && !stats.wrong_node && !stats.create_failed &&
	       window_objects && !window_bad;
	pr_info("churn: %s rounds=%lu allocs=%lu wrong_node=%lu no_memory=%lu create_failed=%lu nodes=%*pbl window=%lu/%lu\n",
		pass ? "PASS" : "FAIL", stats.rounds, stats.allocs,
		stats.wrong_node, stats.no_memory, stats.create_failed,
		nodemask_pr_args(&stats.seen), window_bad, window_objects);
}

module_init(slqb_memhp_init);
module_exit(slqb_memhp_exit);
MODULE_DESCRIPTION("Slab cache churn during memory hotplug (SLQB harness)");
MODULE_LICENSE("GPL");
