// SPDX-License-Identifier: GPL-2.0
/*
 * SLQB in /sys/kernel/slab: a directory per cache with its layout, flags and
 * tunables, the shrink file, the debugging files of CONFIG_SLQB_DEBUG and
 * the statistics of CONFIG_SLQB_STATS. Each statistics file shows the sum
 * over the cache's lists, then C<cpu>=<count> for each CPU that counted
 * any; writing 0 to it clears it. Merged caches appear as links.
 */

#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "slab.h"
#include "slqb.h"

static struct kset *slab_kset;

struct slqb_attribute {
	struct attribute attr;
	ssize_t (*show)(struct kmem_cache *s, char *buf);
	ssize_t (*store)(struct kmem_cache *s, const char *buf, size_t len);
};

#define SLQB_ATTR_RO(_name) \
	static struct slqb_attribute _name##_attr = __ATTR_RO(_name)
#define SLQB_ATTR_RW(_name) \
	static struct slqb_attribute _name##_attr = __ATTR_RW(_name)
#define SLQB_ATTR_WO(_name) \
	static struct slqb_attribute _name##_attr = __ATTR_WO(_name)

#define SLQB_SHOW_UINT(_name, _expr)					\
static ssize_t _name##_show(struct kmem_cache *s, char *buf)		\
{									\
	return sysfs_emit(buf, "%u\n", (unsigned int)(_expr));		\
}									\
SLQB_ATTR_RO(_name)

SLQB_SHOW_UINT(slab_size, s->size);
SLQB_SHOW_UINT(object_size, s->object_size);
SLQB_SHOW_UINT(objs_per_slab, s->objects);
SLQB_SHOW_UINT(order, s->order);
SLQB_SHOW_UINT(align, s->align);
SLQB_SHOW_UINT(hwcache_align, !!(s->flags & SLAB_HWCACHE_ALIGN));
SLQB_SHOW_UINT(reclaim_account, !!(s->flags & SLAB_RECLAIM_ACCOUNT));
SLQB_SHOW_UINT(destroy_by_rcu, !!(s->flags & SLAB_TYPESAFE_BY_RCU));
SLQB_SHOW_UINT(cache_dma, !!(s->flags & SLAB_CACHE_DMA));
SLQB_SHOW_UINT(red_zone, !!(s->flags & SLAB_RED_ZONE));
SLQB_SHOW_UINT(poison, !!(s->flags & SLAB_POISON));
SLQB_SHOW_UINT(store_user, !!(s->flags & SLAB_STORE_USER));
SLQB_SHOW_UINT(failslab, !!(s->flags & SLAB_FAILSLAB));
SLQB_SHOW_UINT(aliases, s->refcount < 0 ? 0 : s->refcount - 1);

static ssize_t ctor_show(struct kmem_cache *s, char *buf)
{
	if (!s->ctor)
		return 0;
	return sysfs_emit(buf, "%pS\n", s->ctor);
}
SLQB_ATTR_RO(ctor);

/* A file that shows a count of the cache's totals, @t: see slqb_cache_totals(). */
#define SLQB_SHOW_TOTAL(_name, _expr)					\
static ssize_t _name##_show(struct kmem_cache *s, char *buf)		\
{									\
	struct slqb_totals t;						\
									\
	slqb_cache_totals(s, &t);						\
	return sysfs_emit(buf, "%lu\n", (unsigned long)(_expr));	\
}									\
SLQB_ATTR_RO(_name)

SLQB_SHOW_TOTAL(partial, t.partial);
SLQB_SHOW_TOTAL(objects, totals_in_use(s, &t));
SLQB_SHOW_TOTAL(total_objects, t.objects);

/* All slabs, then " N<node>=<slabs>" for each node whose memory has some. */
static ssize_t slabs_show(struct kmem_cache *s, char *buf)
{
	struct kmem_cache_node *n;
	struct slqb_totals t;
	int node, len;

	slqb_cache_totals(s, &t);
	len = sysfs_emit(buf, "%lu", t.slabs);
	for_each_kmem_cache_node(s, node, n) {
		long nr = atomic_long_read(&n->list.node_slabs);

		if (nr > 0)
			len += sysfs_emit_at(buf, len, " N%d=%ld", node, nr);
	}
	return len + sysfs_emit_at(buf, len, "\n");
}
SLQB_ATTR_RO(slabs);

/* Objects waiting on queues (LIFOs, stashes, rlists, remote queues). */
static ssize_t queued_show(struct kmem_cache *s, char *buf)
{
	unsigned long nr = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct kmem_cache_cpu *c = cpu_of(s, cpu);

		nr += READ_ONCE(c->list.nr) + READ_ONCE(c->rlist_nr) +
		      READ_ONCE(c->stash.nr) +
		      max(atomic_read(&c->list.remote_nr), 0);
	}
	return sysfs_emit(buf, "%lu\n", nr);
}
SLQB_ATTR_RO(queued);

/*
 * hiwater and freebatch: a write is checked against the other value and
 * takes effect whole, or not at all.
 */
static ssize_t store_tunable(struct kmem_cache *s, const char *buf,
			     size_t len, bool is_hiwater)
{
	unsigned int val;
	int err;

	err = kstrtouint(buf, 10, &val);
	if (!err && !val)
		err = -EINVAL;
	if (!err)
		err = is_hiwater ? slqb_set_tunables(s, val, 0) :
				   slqb_set_tunables(s, 0, val);
	return err ? err : len;
}

static ssize_t hiwater_show(struct kmem_cache *s, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(s->hiwater));
}

static ssize_t hiwater_store(struct kmem_cache *s, const char *buf, size_t len)
{
	return store_tunable(s, buf, len, true);
}
SLQB_ATTR_RW(hiwater);

static ssize_t freebatch_show(struct kmem_cache *s, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(s->freebatch));
}

static ssize_t freebatch_store(struct kmem_cache *s, const char *buf,
			       size_t len)
{
	return store_tunable(s, buf, len, false);
}
SLQB_ATTR_RW(freebatch);

static ssize_t shrink_store(struct kmem_cache *s, const char *buf, size_t len)
{
	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	kmem_cache_shrink(s);
	return len;
}
SLQB_ATTR_WO(shrink);

#ifdef CONFIG_SLQB_DEBUG
static ssize_t validate_store(struct kmem_cache *s, const char *buf,
			      size_t len)
{
	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	if (!slqb_debug_cache(s)) {
		pr_info_ratelimited("SLQB: validate %s: not a debugged cache; boot with slqb_debug=F,%s\n",
				    s->name, s->name);
		return -EINVAL;
	}
	slqb_debug_validate(s);
	return len;
}
SLQB_ATTR_WO(validate);

static ssize_t alloc_calls_show(struct kmem_cache *s, char *buf)
{
	return slqb_debug_list_calls(s, buf, true);
}
SLQB_ATTR_RO(alloc_calls);

static ssize_t free_calls_show(struct kmem_cache *s, char *buf)
{
	return slqb_debug_list_calls(s, buf, false);
}
SLQB_ATTR_RO(free_calls);
#endif

#ifdef CONFIG_SLQB_STATS
static ssize_t show_stat(struct kmem_cache *s, char *buf,
			 enum slqb_stat_item item)
{
	bool is_max = item == TRIM_WORST_NS || item == TRIM_WORST_OBJECTS;
	struct kmem_cache_node *n;
	unsigned long total = 0;
	int cpu, node, len;

	for_each_possible_cpu(cpu) {
		unsigned long v = READ_ONCE(cpu_of(s, cpu)->list.stats[item]);

		total = is_max ? max(total, v) : total + v;
	}
	for_each_kmem_cache_node(s, node, n) {
		unsigned long v = READ_ONCE(n->list.stats[item]);

		total = is_max ? max(total, v) : total + v;
	}
	len = sysfs_emit(buf, "%lu", total);
	for_each_online_cpu(cpu) {
		unsigned long v = READ_ONCE(cpu_of(s, cpu)->list.stats[item]);

		if (v)
			len += sysfs_emit_at(buf, len, " C%d=%lu", cpu, v);
	}
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t clear_stat(struct kmem_cache *s, const char *buf, size_t len,
			  enum slqb_stat_item item)
{
	struct kmem_cache_node *n;
	int cpu, node;

	if (!sysfs_streq(buf, "0"))
		return -EINVAL;
	for_each_possible_cpu(cpu)
		WRITE_ONCE(cpu_of(s, cpu)->list.stats[item], 0);
	for_each_kmem_cache_node(s, node, n)
		WRITE_ONCE(n->list.stats[item], 0);
	return len;
}

/* The show and store functions of each statistic, then its attribute. */
#define SLQB_STAT(_item, _name)						\
static const enum slqb_stat_item _name##_stat = _item;			\
static ssize_t _name##_show(struct kmem_cache *s, char *buf)		\
{									\
	return show_stat(s, buf, _name##_stat);				\
}									\
static ssize_t _name##_store(struct kmem_cache *s, const char *buf,	\
			     size_t len)				\
{									\
	return clear_stat(s, buf, len, _name##_stat);			\
}

#include <linux/slqb_stats.h>

static struct slqb_attribute slqb_stat_attrs[] = {
#define SLQB_STAT(_item, _name)	__ATTR_RW(_name),
#include <linux/slqb_stats.h>
};
#endif /* CONFIG_SLQB_STATS */

static struct attribute *slqb_attrs[] = {
	&slab_size_attr.attr,
	&object_size_attr.attr,
	&objs_per_slab_attr.attr,
	&order_attr.attr,
	&objects_attr.attr,
	&total_objects_attr.attr,
	&slabs_attr.attr,
	&partial_attr.attr,
	&queued_attr.attr,
	&ctor_attr.attr,
	&align_attr.attr,
	&hwcache_align_attr.attr,
	&reclaim_account_attr.attr,
	&destroy_by_rcu_attr.attr,
	&cache_dma_attr.attr,
	&red_zone_attr.attr,
	&poison_attr.attr,
	&store_user_attr.attr,
	&failslab_attr.attr,
	&aliases_attr.attr,
	&hiwater_attr.attr,
	&freebatch_attr.attr,
	&shrink_attr.attr,
#ifdef CONFIG_SLQB_DEBUG
	&validate_attr.attr,
	&alloc_calls_attr.attr,
	&free_calls_attr.attr,
#endif
#ifdef CONFIG_SLQB_STATS
#define SLQB_STAT(_item, _name)	(&slqb_stat_attrs[_item].attr),
#include <linux/slqb_stats.h>
#endif
	NULL
};

static const struct attribute_group slqb_attr_group = {
	.attrs = slqb_attrs,
};

#define to_slqb_attr(a) container_of(a, struct slqb_attribute, attr)
#define to_cache(k) container_of(k, struct kmem_cache, kobj)

static ssize_t slqb_attr_show(struct kobject *kobj, struct attribute *attr,
			      char *buf)
{
	struct slqb_attribute *a = to_slqb_attr(attr);

	if (!a->show)
		return -EIO;
	return a->show(to_cache(kobj), buf);
}

static ssize_t slqb_attr_store(struct kobject *kobj, struct attribute *attr,
			       const char *buf, size_t len)
{
	struct slqb_attribute *a = to_slqb_attr(attr);

	if (!a->store)
		return -EIO;
	return a->store(to_cache(kobj), buf, len);
}

static void slqb_kobj_release(struct kobject *kobj)
{
	slab_kmem_cache_release(to_cache(kobj));
}

static const struct sysfs_ops slqb_sysfs_ops = {
	.show = slqb_attr_show,
	.store = slqb_attr_store,
};

static struct kobj_type slqb_ktype = {
	.sysfs_ops = &slqb_sysfs_ops,
	.release = slqb_kobj_release,
};

/* For a kobject that never made it into sysfs: its cache's creator frees it. */
static void slqb_kobj_release_none(struct kobject *kobj)
{
}

static struct kobj_type slqb_failed_ktype = {
	.release = slqb_kobj_release_none,
};

/*
 * A new cache's name may still be taken in /sys/kernel/slab: by a
 * SLAB_TYPESAFE_BY_RCU cache, which keeps its directory until its release
 * after a grace period, or by the link of a merged cache's alias, which
 * stays when the alias goes. A link gives way; a directory makes the new
 * cache take the name with a unique suffix.
 */
static bool slab_name_taken(const char *name)
{
	struct kernfs_node *kn = sysfs_get_dirent(slab_kset->kobj.sd, name);
	bool dir;

	if (!kn)
		return false;
	dir = kernfs_type(kn) != KERNFS_LINK;
	sysfs_put(kn);
	if (!dir)
		sysfs_remove_link(&slab_kset->kobj, name);
	return dir;
}

int slqb_sysfs_add(struct kmem_cache *s)
{
	static atomic_t seq = ATOMIC_INIT(0);
	int err;

	kobject_init(&s->kobj, &slqb_ktype);
	s->kobj.kset = slab_kset;
	if (slab_name_taken(s->name))
		err = kobject_add(&s->kobj, NULL, "%s:%d", s->name,
				  atomic_inc_return(&seq));
	else
		err = kobject_add(&s->kobj, NULL, "%s", s->name);
	if (!err) {
		err = sysfs_create_group(&s->kobj, &slqb_attr_group);
		if (err)
			kobject_del(&s->kobj);
	}
	if (err) {
		s->kobj.ktype = &slqb_failed_ktype;
		kobject_put(&s->kobj);
		return err;
	}
	kobject_uevent(&s->kobj, KOBJ_ADD);
	return 0;
}

void sysfs_slab_unlink(struct kmem_cache *s)
{
	if (slab_state >= FULL && s->kobj.state_in_sysfs)
		kobject_del(&s->kobj);
}

void sysfs_slab_release(struct kmem_cache *s)
{
	if (s->kobj.ktype == &slqb_ktype)
		kobject_put(&s->kobj);
	else
		slab_kmem_cache_release(s);
}

/* Merged caches appear as links to the cache they were merged into. */
struct slqb_early_alias {
	struct kmem_cache *s;
	const char *name;
	struct slqb_early_alias *next;
};

static struct slqb_early_alias *early_aliases;

int slqb_sysfs_alias(struct kmem_cache *s, const char *name)
{
	struct slqb_early_alias *al;

	if (slab_state >= FULL) {
		sysfs_remove_link(&slab_kset->kobj, name);
		return sysfs_create_link(&slab_kset->kobj, &s->kobj, name);
	}
	al = kmalloc(sizeof(*al), GFP_KERNEL);
	if (!al)
		return -ENOMEM;
	al->s = s;
	al->name = name;
	al->next = early_aliases;
	early_aliases = al;
	return 0;
}

/* @s is going away before sysfs is up: forget the links it was to get. */
void slqb_forget_early_aliases(struct kmem_cache *s)
{
	struct slqb_early_alias **pp = &early_aliases, *al;

	while ((al = *pp)) {
		if (al->s == s) {
			*pp = al->next;
			kfree(al);
		} else {
			pp = &al->next;
		}
	}
}

static int __init slqb_sysfs_init(void)
{
	struct kmem_cache *s;
	int err;

	mutex_lock(&slab_mutex);
	slab_kset = kset_create_and_add("slab", NULL, kernel_kobj);
	if (!slab_kset) {
		mutex_unlock(&slab_mutex);
		pr_err("SLQB: cannot create /sys/kernel/slab\n");
		return -ENOMEM;
	}
	slab_state = FULL;
	list_for_each_entry(s, &slab_caches, list)
		if (slqb_sysfs_add(s))
			pr_err("SLQB: cannot add %s to /sys/kernel/slab\n",
			       s->name);
	while (early_aliases) {
		struct slqb_early_alias *al = early_aliases;

		early_aliases = al->next;
		err = slqb_sysfs_alias(al->s, al->name);
		if (err)
			pr_err("SLQB: cannot link alias %s to %s: %d\n",
			       al->name, al->s->name, err);
		kfree(al);
	}
	mutex_unlock(&slab_mutex);
	return 0;
}
device_initcall(slqb_sysfs_init);
