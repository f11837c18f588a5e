/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics of CONFIG_SLQB_STATS, the one list of them. This is not a
 * header of its own: define SLQB_STAT(item, name) and include it, and it
 * undefines SLQB_STAT again. item is the statistic's name in enum
 * slqb_stat_item, name the name of its file in /sys/kernel/slab/<cache>/.
 * tools/vm/slqbinfo.c and the test harness are checked against this list.
 */

/* objects allocated */
SLQB_STAT(ALLOC, alloc)
/* LIFO refills from a partial slab */
SLQB_STAT(ALLOC_SLAB_FILL, alloc_slab_fill)
/* new slabs from the page allocator */
SLQB_STAT(ALLOC_SLAB_NEW, alloc_slab_new)
/* objects freed */
SLQB_STAT(FREE, free)
/* frees of objects of another node */
SLQB_STAT(FREE_REMOTE, free_remote)
/* LIFO flushes above hiwater */
SLQB_STAT(FLUSH_FREE_LIST, flush_free_list)
/* objects moved by those flushes */
SLQB_STAT(FLUSH_FREE_LIST_OBJECTS, flush_free_list_objects)
/* of those, objects sent to another CPU */
SLQB_STAT(FLUSH_FREE_LIST_REMOTE, flush_free_list_remote)
/* slabs that became partial again */
SLQB_STAT(FLUSH_SLAB_PARTIAL, flush_slab_partial)
/* empty slabs given back to the page allocator */
SLQB_STAT(FLUSH_SLAB_FREE, flush_slab_free)
/* rlist hand-overs to another list */
SLQB_STAT(FLUSH_RFREE_LIST, flush_rfree_list)
/* objects in those hand-overs */
SLQB_STAT(FLUSH_RFREE_LIST_OBJECTS, flush_rfree_list_objects)
/* remote free lists claimed by the owner */
SLQB_STAT(CLAIM_REMOTE_LIST, claim_remote_list)
/* objects in those claims */
SLQB_STAT(CLAIM_REMOTE_LIST_OBJECTS, claim_remote_list_objects)
/* hand-overs that found the target over its cap */
SLQB_STAT(REMOTE_CAP_HIT, remote_cap_hit)
/* periodic trim passes */
SLQB_STAT(TRIM_RUNS, trim_runs)
/* objects released by trim passes */
SLQB_STAT(TRIM_OBJECTS, trim_objects)
/* longest trim pass seen, in ns (a maximum) */
SLQB_STAT(TRIM_WORST_NS, trim_worst_ns)
/* most objects released by one trim pass (a maximum) */
SLQB_STAT(TRIM_WORST_OBJECTS, trim_worst_objects)

#undef SLQB_STAT
