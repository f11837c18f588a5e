/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of QEMU's TCG plugin API (version 1, as QEMU 4.2 to 8.1 define
 * it in qemu-plugin.h, documented in docs/devel/tcg-plugins.rst) that
 * slqb-cache.c uses. Debian 12 ships QEMU 7.2 with plugin support but no
 * qemu-plugin.h. A plugin id is a uint64_t there and a memory-access
 * descriptor a uint32_t; both are spelled as the C types they are on
 * x86_64 Linux.
 */
#ifndef SLQB_QEMU_PLUGIN_H
#define SLQB_QEMU_PLUGIN_H

#include <stddef.h>

struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_info_t;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_mem_rw {
	QEMU_PLUGIN_MEM_R = 1,
	QEMU_PLUGIN_MEM_W,
	QEMU_PLUGIN_MEM_RW,
};

#define EXPORT __attribute__((visibility("default")))

void qemu_plugin_register_vcpu_tb_trans_cb(unsigned long long id,
					   void (*cb)(unsigned long long id,
						      struct qemu_plugin_tb *tb));
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
unsigned long long qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    void (*cb)(unsigned int vcpu,
						       void *data),
					    enum qemu_plugin_cb_flags flags,
					    void *data);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
				      void (*cb)(unsigned int vcpu,
						 unsigned int info,
						 unsigned long long vaddr,
						 void *data),
				      enum qemu_plugin_cb_flags flags,
				      enum qemu_plugin_mem_rw rw, void *data);
void qemu_plugin_outs(const char *string);

#endif /* SLQB_QEMU_PLUGIN_H */
