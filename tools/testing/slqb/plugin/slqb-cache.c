// SPDX-License-Identifier: GPL-2.0
/*
 * slqb-cache: a QEMU TCG plugin that models a data cache hierarchy and a
 * data TLB for the guest's accesses inside the bench module's timed
 * regions, so that `slqb bench` can count cache and TLB misses per
 * operation exactly and repeatably (with -icount, every run of the same
 * kernel makes the same accesses in the same order).
 *
 * The bench module (bench/slqb_bench.c, with model=1) marks its timed
 * regions with an 8-byte NOP whose displacement carries a code:
 *
 *   nopl SLQB_MARK|code(%rax,%rax,1)   0f 1f 84 00 <disp32>
 *
 * MARK_BEGIN + m starts counting into meter m (0: the allocations, or the
 * pairs; 1: the frees), MARK_END stops counting, and MARK_REPORT prints
 * each meter's totals since the last report and clears them. The module
 * emits MARK_REPORT once per case and size, before it prints its own
 * results, so the n-th report line here belongs to the n-th report of
 * the module's console output.
 *
 * The model: L1D 32 KiB, 8-way; L2 1 MiB, 16-way; 64-byte lines; a
 * 64-entry, 4-way dTLB of 4 KiB pages; LRU everywhere, by virtual
 * address; loads and stores alike; no prefetching. It is a yardstick, not
 * a particular CPU: what it shows is how many distinct lines and pages an
 * allocator's operations touch and how well they reuse them.
 *
 * Debian ships no qemu-plugin.h, so slqb-qemu-plugin.h declares the part
 * of QEMU's plugin API (version 1, stable since QEMU 4.2) that this file
 * uses.
 *
 * With the argument pcs=on, it also attributes each meter's instructions
 * and misses to the guest instructions that made them (by address), for
 * `slqb bench` to resolve into functions with the kernel's System.map.
 *
 * Output lines, through qemu_plugin_outs() (QEMU's -d plugin -D FILE):
 *   SLQB-MODEL report=N meter=M insns=I accesses=A l1_miss=X l2_miss=Y tlb_miss=Z
 * and with pcs=on, after each of those, one line per guest instruction
 * that counted something for that meter:
 *   SLQB-MODEL-PC report=N meter=M pc=HEX insns=I l1_miss=X l2_miss=Y tlb_miss=Z
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "slqb-qemu-plugin.h"

EXPORT int qemu_plugin_version = 1;

/* ---- the marks (bench/slqb_bench.c has the same values) */
#define SLQB_MARK	0x51b0c000u
#define MARK_MASK	0xfffff000u
#define MARK_BEGIN	0x10u		/* + meter */
#define MARK_END	0x20u
#define MARK_REPORT	0x30u
#define METERS		2

/* ---- the model */
#define LINE_SHIFT	6
#define PAGE_SHIFT	12
#define L1_SETS		64		/* 32 KiB / 64 B / 8 ways */
#define L1_WAYS		8
#define L2_SETS		1024		/* 1 MiB / 64 B / 16 ways */
#define L2_WAYS		16
#define TLB_SETS	16		/* 64 entries / 4 ways */
#define TLB_WAYS	4
#define MAX_WAYS	16

struct level {
	unsigned int sets, ways, shift;
	unsigned long long *tag;			/* sets * ways; 0: empty */
	unsigned long long *used;			/* when each way was last used */
	unsigned long long clock;
};

static unsigned long long l1_tag[L1_SETS * L1_WAYS], l1_used[L1_SETS * L1_WAYS];
static unsigned long long l2_tag[L2_SETS * L2_WAYS], l2_used[L2_SETS * L2_WAYS];
static unsigned long long tlb_tag[TLB_SETS * TLB_WAYS], tlb_used[TLB_SETS * TLB_WAYS];
static struct level l1 = { L1_SETS, L1_WAYS, LINE_SHIFT, l1_tag, l1_used, 0 };
static struct level l2 = { L2_SETS, L2_WAYS, LINE_SHIFT, l2_tag, l2_used, 0 };
static struct level tlb = { TLB_SETS, TLB_WAYS, PAGE_SHIFT, tlb_tag, tlb_used, 0 };

struct meter {
	unsigned long long insns, accesses, l1_miss, l2_miss, tlb_miss;
};

static struct meter meters[METERS];
static int active = -1;			/* the meter counting, or -1 */
static unsigned int reports;

/*
 * ---- attribution (pcs=on): the counts of each guest instruction that ran
 * in a timed region since the last report, in an open-addressed table by
 * address. Instructions past its capacity count in slot 0, address 0.
 */
#define PC_SLOTS	65536u		/* a power of two */
#define PC_PROBES	64

enum { PC_INSNS, PC_L1, PC_L2, PC_TLB, PC_COUNTS };

struct pc_count {
	unsigned long long pc;
	unsigned long long n[METERS][PC_COUNTS];
};

static struct pc_count pc_table[PC_SLOTS];
static bool attribute;

static struct pc_count *pc_slot(unsigned long long pc)
{
	unsigned int h = (unsigned int)((pc * 0x9e3779b97f4a7c15ull) >> 48);
	unsigned int i;

	for (i = 0; i < PC_PROBES; i++) {
		struct pc_count *slot = &pc_table[(h + i) & (PC_SLOTS - 1)];

		if (slot->pc == pc)
			return slot;
		if (!slot->pc && slot != pc_table) {
			slot->pc = pc;
			return slot;
		}
	}
	return pc_table;
}

/* Looks addr up in lv; on a miss, fills the least recently used way. */
static bool lookup(struct level *lv, unsigned long long addr)
{
	unsigned long long key = (addr >> lv->shift) + 1;	/* never 0 */
	unsigned int set = key % lv->sets, w, victim = 0;
	unsigned long long *tag = lv->tag + (size_t)set * lv->ways;
	unsigned long long *used = lv->used + (size_t)set * lv->ways;

	lv->clock++;
	for (w = 0; w < lv->ways; w++) {
		if (tag[w] == key) {
			used[w] = lv->clock;
			return true;
		}
		if (used[w] < used[victim])
			victim = w;
	}
	tag[victim] = key;
	used[victim] = lv->clock;
	return false;
}

/*
 * Every access runs through the model, inside the timed regions or not,
 * so that a region starts with the caches as the code before it left
 * them; only the counting is limited to the regions.
 */
static void on_access(unsigned int vcpu, unsigned int info,
		      unsigned long long vaddr, void *data)
{
	bool hit1, hit2 = true, hit_tlb;

	hit_tlb = lookup(&tlb, vaddr);
	hit1 = lookup(&l1, vaddr);
	if (!hit1)
		hit2 = lookup(&l2, vaddr);
	if (active < 0)
		return;
	meters[active].accesses++;
	meters[active].l1_miss += !hit1;
	meters[active].l2_miss += !hit2;
	meters[active].tlb_miss += !hit_tlb;
	if (attribute && (!hit1 || !hit_tlb)) {
		unsigned long long *n = pc_slot((uintptr_t)data)->n[active];

		n[PC_L1] += !hit1;
		n[PC_L2] += !hit2;
		n[PC_TLB] += !hit_tlb;
	}
}

static void on_insn(unsigned int vcpu, void *data)
{
	if (active < 0)
		return;
	meters[active].insns++;
	if (attribute)
		pc_slot((uintptr_t)data)->n[active][PC_INSNS]++;
}

static void print_pcs(int m)
{
	char line[256];
	unsigned int i;

	for (i = 0; i < PC_SLOTS; i++) {
		const unsigned long long *n = pc_table[i].n[m];

		if (!n[PC_INSNS] && !n[PC_L1] && !n[PC_TLB])
			continue;
		snprintf(line, sizeof(line),
			 "SLQB-MODEL-PC report=%u meter=%d pc=%llx insns=%llu l1_miss=%llu l2_miss=%llu tlb_miss=%llu\n",
			 reports, m, pc_table[i].pc, n[PC_INSNS], n[PC_L1],
			 n[PC_L2], n[PC_TLB]);
		qemu_plugin_outs(line);
	}
}

static void print_meters(void)
{
	char line[256];
	int m;

	for (m = 0; m < METERS; m++) {
		snprintf(line, sizeof(line),
			 "SLQB-MODEL report=%u meter=%d insns=%llu accesses=%llu l1_miss=%llu l2_miss=%llu tlb_miss=%llu\n",
			 reports, m, meters[m].insns, meters[m].accesses,
			 meters[m].l1_miss, meters[m].l2_miss,
			 meters[m].tlb_miss);
		qemu_plugin_outs(line);
		if (attribute)
			print_pcs(m);
	}
	memset(meters, 0, sizeof(meters));
	if (attribute)
		memset(pc_table, 0, sizeof(pc_table));
	reports++;
}

static void on_mark(unsigned int vcpu, void *data)
{
	unsigned int code = (unsigned int)(uintptr_t)data;

	if (code >= MARK_BEGIN && code < MARK_BEGIN + METERS)
		active = code - MARK_BEGIN;
	else if (code == MARK_END)
		active = -1;
	else if (code == MARK_REPORT)
		print_meters();
}

/* The code of a mark instruction, or -1 for any other instruction. */
static int mark_code(struct qemu_plugin_insn *insn)
{
	static const unsigned char nopl[4] = { 0x0f, 0x1f, 0x84, 0x00 };
	const unsigned char *bytes = qemu_plugin_insn_data(insn);
	unsigned int disp;

	if (qemu_plugin_insn_size(insn) != 8 || memcmp(bytes, nopl, 4))
		return -1;
	memcpy(&disp, bytes + 4, sizeof(disp));	/* x86 is little-endian */
	if ((disp & MARK_MASK) != SLQB_MARK)
		return -1;
	return disp & ~MARK_MASK;
}

static void on_translate(unsigned long long id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		void *pc = (void *)(uintptr_t)qemu_plugin_insn_vaddr(insn);
		int code = mark_code(insn);

		if (code >= 0)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)code);
		qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn,
						       QEMU_PLUGIN_CB_NO_REGS, pc);
		qemu_plugin_register_vcpu_mem_cb(insn, on_access,
						 QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, pc);
	}
}

EXPORT int qemu_plugin_install(unsigned long long id,
			       const struct qemu_info_t *info,
			       int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "pcs=on")) {
			attribute = true;
		} else if (strcmp(argv[i], "pcs=off")) {
			qemu_plugin_outs("slqb-cache: takes pcs=on or pcs=off\n");
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	return 0;
}
