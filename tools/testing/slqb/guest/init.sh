#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the SLQB harness initramfs (busybox sh).
#
# Parameters come from the kernel command line (the last one wins):
#   slqbtest.mode=boot|quick|shell|hang|bench|modules
#   slqbtest.load=MOD[,MOD]   modules: /lib/slqbtest-extra/MOD.ko to load
#   slqbtest.debugcheck=1     modules: validate the slqb_dbg_* caches
#       boot: check the machine shape, run the slab workload, show slab
#             statistics, print the verdict and reboot (QEMU then exits).
#       quick: shape check and statistics only.   shell: interactive shell.
#       hang: never finish (to test the harness's timeout).
#       bench: `slqb bench`: the benchmarks named by slqbtest.bench (see
#             bench_mode below); results on "SLQB-BENCH " lines.
#   slqbtest.stress=SECONDS   stress-ng time in the workload (0: none)
#   slqbtest.selftests=1|NAME[,NAME]  boot: load the self-test modules, all
#                             of them or those named (test_meminit, ...)
#   slqbtest.alloc=NAME       allocator of this kernel (slqb shows slqbinfo)
#   slqbtest.cpus=N slqbtest.nodes=N slqbtest.memnodes=N   expected shape
#   slqbtest.fake=BUG|WARNING print a fake kernel report (harness self-test)
#   slqbtest.memhp=MB slqbtest.memhpkernel=N slqbtest.memhpmovable=N
#       boot: memory hotplug (see memhp_add below): during the stress ask
#             the harness for MB pc-dimms, online node N's for the kernel
#             and the other node's movable; after it, offline and remove.
#   slqbtest.faults=1         boot: fault injection (see faults_setup below):
#             failslab and fail_page_alloc fail allocations of stress-ng's
#             tasks during the stress, then fail_page_alloc those of the
#             faults module (/lib/slqbtest-faults/slqb_faults.ko), if the
#             initramfs has it; slab memory must come back after them.
#   slqbtest.faultrate=P:I:M  their rates (default 10:10:20): the stress's
#             faults hit P% of every I-th eligible allocation, the module's
#             M% of its page allocations.
#   slqbtest.kmemleak=1       boot: after the shrink, have kmemleak scan
#             and list what it suspects (CONFIG_DEBUG_KMEMLEAK kernels).
#
# Output lines for the harness start with "SLQB-GUEST: "; the last one is
# "SLQB-GUEST: PASS" or "SLQB-GUEST: FAIL <failed steps>". The host side
# of the parameters and of these markers is tools/testing/slqb/slqb_guest.py:
# change both together.

PATH=/bin:/sbin:/usr/bin:/usr/sbin
export PATH
FAILED=""

say() {
	echo "SLQB-GUEST: $*"
}

param() {	# param NAME DEFAULT: value of slqbtest.NAME= on the cmdline
	value=$2
	for word in $(cat /proc/cmdline); do
		case "$word" in
		slqbtest.$1=*) value=${word#*=} ;;
		esac
	done
	echo "$value"
}

step() {	# step NAME COMMAND...: run a step, record a failure
	name=$1
	shift
	say "step $name"
	t0=$(date +%s)
	"$@"
	rc=$?
	if [ $rc -eq 0 ]; then
		say "step $name ok ($(( $(date +%s) - t0 ))s)"
	else
		say "step $name FAILED (exit $rc)"
		FAILED="$FAILED $name"
	fi
}

count_list() {	# count_list "0-2,5": how many numbers a sysfs list names
	n=0
	for part in $(echo "$1" | tr ',' ' '); do
		case "$part" in
		*-*) n=$(( n + ${part#*-} - ${part%-*} + 1 )) ;;
		*) n=$(( n + 1 )) ;;
		esac
	done
	echo $n
}

mount_all() {
	mount -t proc none /proc
	mount -t sysfs none /sys
	mount -t devtmpfs none /dev 2>/dev/null
	mount -t tmpfs -o mode=1777 tmpfs /tmp
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
}

check_shape() {	# the CPUs and NUMA nodes the kernel sees, against the ask
	cpus=$(count_list "$(cat /sys/devices/system/cpu/online)")
	# A kernel without CONFIG_NUMA has no node directory: one node, 0.
	nodes=$(count_list "$(cat /sys/devices/system/node/online 2>/dev/null || echo 0)")
	memnodes=$(count_list "$(cat /sys/devices/system/node/has_memory 2>/dev/null || echo 0)")
	echo "cpus online: $cpus ($(cat /sys/devices/system/cpu/online))"
	echo "nodes online: $nodes, with memory: $memnodes" \
	     "($(cat /sys/devices/system/node/has_memory 2>/dev/null))"
	for node in /sys/devices/system/node/node*; do
		[ -d "$node" ] || continue
		mem=$(awk '/MemTotal/ { print $4 " " $5 }' "$node/meminfo")
		echo "  ${node##*/}: cpus $(cat "$node/cpulist") memory $mem"
	done
	ok=0
	for what in cpus nodes memnodes; do
		want=$(param $what "")
		eval have=\$$what
		if [ -n "$want" ] && [ "$want" != "$have" ]; then
			echo "shape: expected $what=$want, the kernel has $have"
			ok=1
		fi
	done
	return $ok
}

run_hackbench() {	# processes on sockets, then threads on pipes
	hackbench -g 2 -l 20 && hackbench -T -p -g 2 -l 20
}

run_churn() {	# run_churn [N]: fork/exec, file, directory and dentry churn on tmpfs
	i=0
	while [ $i -lt "${1:-100}" ]; do
		mkdir -p /tmp/churn/$i/a/b
		echo "$i" > /tmp/churn/$i/a/b/file || return 1
		cat /tmp/churn/$i/a/b/file > /dev/null || return 1
		ln -s file /tmp/churn/$i/a/b/link
		i=$(( i + 1 ))
	done
	find /tmp/churn > /dev/null
	rm -rf /tmp/churn
	find /proc/self /sys/kernel /sys/devices/system > /dev/null 2>&1
	return 0
}

cpu_hotplug() {	# take the last CPU offline and back, twice
	last=$(count_list "$(cat /sys/devices/system/cpu/online)")
	last=/sys/devices/system/cpu/cpu$(( last - 1 ))
	if [ ! -w "$last/online" ]; then
		echo "no hot-pluggable CPU; skipped"
		return 0
	fi
	for round in 1 2; do
		echo 0 > "$last/online" || return 1
		hackbench -g 1 -l 10 > /dev/null || return 1
		echo 1 > "$last/online" || return 1
	done
	echo "cpu hotplug: ${last##*/} offline/online x2"
}

run_in_memcg() {	# allocate inside a memory cgroup (kmem accounting hooks)
	mkdir -p /sys/fs/cgroup
	mount -t cgroup2 none /sys/fs/cgroup || return 1
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control || return 1
	mkdir /sys/fs/cgroup/slqbtest || return 1
	# In a subshell $$ is still init's pid; /proc/self/stat has our own.
	(read -r pid rest < /proc/self/stat &&
	 echo "$pid" > /sys/fs/cgroup/slqbtest/cgroup.procs &&
	 run_churn 30 && hackbench -g 1 -l 5 > /dev/null) || return 1
	grep -E '^(slab|slab_reclaimable|slab_unreclaimable) ' /sys/fs/cgroup/slqbtest/memory.stat
	rmdir /sys/fs/cgroup/slqbtest
}

slab_kb() {	# slab_kb FIELD: a /proc/meminfo field, in kB
	awk -v f="$1:" '$1 == f { print $2 }' /proc/meminfo
}

MEM_BEFORE=""

# record_mem LABEL [kept]: slab memory now, for the host to collect, after
# dropping the page cache, dentries and inodes unless "kept" is given.
record_mem() {
	if [ "$2" != kept ]; then
		sync
		echo 3 > /proc/sys/vm/drop_caches
	fi
	slab=$(slab_kb Slab)
	say "mem $1 Slab=$slab SUnreclaim=$(slab_kb SUnreclaim)"
	[ -n "$MEM_BEFORE" ] || MEM_BEFORE=$slab
}

# After shrink and drop_caches, slab memory must be back within 10% (and
# 512 kB for page-sized rounding) of where it was before the workload, or
# of BEFORE kB (LABEL names that moment; a fault-injection boot's is
# before the faults).
# A memory hotplug boot allows 1 MB more: the memoryless node's dimm stays
# (see memhp_remove), and the objects of what ran on its CPU now sit in
# slabs of that node besides the partial slabs left on the others (SLUB
# was once 56 kB over the plain bound there). Under KASAN the "before"
# figure also holds what the quarantine kept then, which only loosens this.
mem_returned() {	# mem_returned [BEFORE LABEL]
	before=${1:-$MEM_BEFORE}
	now=$(slab_kb Slab)
	limit=$(( before + before / 10 + 512 ))
	! memhp_on || limit=$(( limit + 1024 ))
	echo "slab memory: ${2:-before} $before kB, after shrink $now kB," \
	     "limit $limit kB (SReclaimable $(slab_kb SReclaimable) kB)"
	[ "$now" -le "$limit" ]
}

run_selftests() {	# the kernel's own slab self-tests, when the boot asks
	want=$(param selftests 0)	# 1: all of them; or NAME[,NAME]
	[ "$want" != 0 ] || { echo "not asked for"; return 0; }
	rc=0
	found=0
	for module in /lib/slqbtest/*.ko; do
		[ -e "$module" ] || { echo "no self-test modules"; return 1; }
		name=${module##*/}
		name=${name%.ko}
		case ",$want," in
		,1,|*",$name,"*) ;;
		*) continue ;;
		esac
		found=$(( found + 1 ))
		echo "loading $name.ko"
		insmod "$module" || rc=1
	done
	[ "$found" -gt 0 ] || { echo "no self-test module named $want"; return 1; }
	return $rc
}

hotplug_loop() {	# hotplug_loop FILE READY: offline/online a CPU until FILE goes
	last=$(count_list "$(cat /sys/devices/system/cpu/online)")
	last=/sys/devices/system/cpu/cpu$(( last - 1 ))
	[ -w "$last/online" ] || { echo "no hot-pluggable CPU; no hotplug"; return 0; }
	while [ -e "$1" ] && [ ! -e "$2" ]; do
		sleep 1
	done
	rounds=0
	while [ -e "$1" ]; do
		echo 0 > "$last/online" || return 1
		sleep 1
		echo 1 > "$last/online" || return 1
		rounds=$(( rounds + 1 ))
	done
	echo "cpu hotplug: ${last##*/} offline/online x$rounds during the stress"
}

stress_all() {	# stress-ng, hackbench and churn at once, CPUs coming and going
	touch /tmp/stress-running
	rm -f /tmp/stress-ready
	memhp_start
	hotplug_loop /tmp/stress-running /tmp/stress-ready > /tmp/hotplug.out 2>&1 &
	hp=$!
	(while [ -e /tmp/stress-running ]; do
		hackbench -g 2 -l 10 > /dev/null || exit 1
		run_churn 20 || exit 1
	done) &
	hb=$!
	run_stress_ng /tmp/stress-ready
	rc=$?
	touch /tmp/stress-ready
	rm -f /tmp/stress-running
	wait $hb || rc=1
	wait $hp || rc=1
	cat /tmp/hotplug.out
	memhp_wait
	return $rc
}

# ------------------------------------------------------------ memory hotplug
# The harness plugs in one pc-dimm on each of two nodes when asked with
# "SLQB-GUEST: memhp add", and unplugs them after "SLQB-GUEST: memhp remove
# nodeA nodeB" (tools/testing/slqb/slqb_memhp/). Their memory blocks
# appear in and vanish from /sys/devices/system/memory (ACPI), offline:
# this init onlines and offlines them itself.

MEMDIR=/sys/devices/system/memory
MEMHP_MOD=/lib/slqbtest-memhp/slqb_memhp.ko

memhp_on() {
	[ -n "$(param memhp "")" ]
}

in_list() {	# in_list N "0-2,5": whether a sysfs list names N
	for part in $(echo "$2" | tr ',' ' '); do
		case "$part" in
		*-*) [ "$1" -ge "${part%-*}" ] && [ "$1" -le "${part#*-}" ] && return 0 ;;
		*) [ "$1" = "$part" ] && return 0 ;;
		esac
	done
	return 1
}

node_blocks() {	# node_blocks NODE: the memory blocks (memoryN) of NODE
	for link in $MEMDIR/memory*/node$1; do
		[ -e "$link" ] || continue
		link=${link%/node*}
		echo "${link##*/}"
	done
}

new_blocks() {	# new_blocks NODE: NODE's blocks that were not there at boot
	for b in $(node_blocks "$1"); do
		grep -qx "$b" /tmp/memhp-boot-blocks || echo "$b"
	done
}

node_mem_kb() {	# node_mem_kb NODE: MemTotal of NODE in kB
	awk '/MemTotal/ { print $4 }' "/sys/devices/system/node/node$1/meminfo"
}

wait_blocks() {	# wait_blocks NODE COUNT: until NODE has COUNT new blocks (60 s)
	t=0
	while [ "$(new_blocks "$1" | wc -l)" -ne "$2" ]; do
		[ $t -lt 60 ] || { echo "node$1: $(new_blocks "$1" | wc -l)" \
			"new memory blocks after 60 s, want $2"; return 1; }
		sleep 1
		t=$(( t + 1 ))
	done
	echo "node$1: new memory blocks $(new_blocks "$1" | tr '\n' ' ')after ${t}s"
}

online_blocks() {	# online_blocks NODE HOW: echo HOW to NODE's new blocks
	for b in $(new_blocks "$1"); do
		echo "$2" > "$MEMDIR/$b/state" ||
			{ echo "$b (node$1): $2 refused"; return 1; }
		[ "$(cat "$MEMDIR/$b/state")" = online ] || return 1
		echo "$b (node$1): $2: zone $(cat "$MEMDIR/$b/valid_zones")"
	done
}

memhp_add() {	# ask for the dimms, wait for their blocks, online them
	kern=$(param memhpkernel "")
	mov=$(param memhpmovable "")
	size=$(( $(param memhp 0) * 1024 * 1024 ))
	per=$(( size / $(printf '%d' "0x$(cat $MEMDIR/block_size_bytes)") ))
	say "memhp add" > /dev/console	# our output goes to a file
	wait_blocks "$kern" $per && wait_blocks "$mov" $per || return 1
	online_blocks "$kern" online_kernel || return 1
	online_blocks "$mov" online_movable || return 1
	grep -q Movable "$MEMDIR/$(new_blocks "$mov" | head -1)/valid_zones" ||
		{ echo "node$mov: the movable blocks are not in ZONE_MOVABLE"; return 1; }
	in_list "$kern" "$(cat /sys/devices/system/node/has_normal_memory)" ||
		{ echo "node$kern did not gain normal memory"; return 1; }
	now=$(slab_kb MemTotal)
	echo "MemTotal $MEMHP_TOTAL kB -> $now kB; node$kern: $(node_mem_kb "$kern") kB," \
	     "has_normal_memory $(cat /sys/devices/system/node/has_normal_memory)"
	[ $(( now - MEMHP_TOTAL )) -eq $(( 2 * size / 1024 )) ] ||
		{ echo "MemTotal grew by $(( now - MEMHP_TOTAL )) kB," \
		       "want $(( 2 * size / 1024 ))"; return 1; }
}

memhp_start() {	# in stress_all: the churn module, then memhp_add meanwhile
	memhp_on || return 0
	ls $MEMDIR | grep '^memory[0-9]' > /tmp/memhp-boot-blocks
	MEMHP_TOTAL=$(slab_kb MemTotal)
	insmod $MEMHP_MOD || echo "insmod slqb_memhp failed" > /tmp/memhp-churn.err
	sleep 2
	(memhp_add; echo $? > /tmp/memhp-add.rc) > /tmp/memhp-add.out 2>&1 &
	MEMHP_PID=$!
}

memhp_wait() {	# in stress_all: let memhp_add finish
	memhp_on || return 0
	wait $MEMHP_PID
}

memhp_online_result() {	# step: what memhp_add did during the stress
	cat /tmp/memhp-add.out
	[ "$(cat /tmp/memhp-add.rc 2>/dev/null)" = 0 ]
}

memhp_stop_churn() {	# step: unload the churn module, read its verdict
	[ ! -e /tmp/memhp-churn.err ] || { cat /tmp/memhp-churn.err; return 1; }
	rmmod slqb_memhp || return 1
	line=$(dmesg | grep -E 'slqb_memhp: churn: (PASS|FAIL)' | tail -1)
	echo "${line#*] }"
	case "$line" in
	*"churn: PASS"*) return 0 ;;
	*) return 1 ;;
	esac
}

memhp_check_local() {	# step: the node that gained memory is served locally
	kern=$(param memhpkernel "")
	insmod $MEMHP_MOD check_node="$kern" || return 1
	rmmod slqb_memhp
	dmesg | grep "slqb_memhp: check node $kern:" | sed 's/^.*] //'
	dmesg | grep -q "slqb_memhp: check node $kern: PASS"
}

offline_node() {	# offline_node NODE: offline NODE's new blocks, retrying
	for b in $(new_blocks "$1"); do
		try=1
		until echo offline > "$MEMDIR/$b/state" 2>/tmp/offline.err; do
			echo "$b (node$1): offline try $try: $(cat /tmp/offline.err)"
			[ $try -lt 5 ] || return 1
			shrink_caches
			sleep 1
			try=$(( try + 1 ))
		done
		echo "$b (node$1): offline (try $try)"
	done
}

wait_gone() {	# wait_gone NODE: until NODE's new blocks are gone (60 s)
	t=0
	while [ -n "$(new_blocks "$1")" ]; do
		[ $t -lt 60 ] || { echo "node$1: blocks $(new_blocks "$1" | tr '\n' ' ')" \
			"still there 60 s after the removal"; return 1; }
		sleep 1
		t=$(( t + 1 ))
	done
	echo "node$1: the new blocks are gone after ${t}s"
}

memhp_remove() {	# step: offline the blocks, have the harness unplug the dimms
	kern=$(param memhpkernel "")
	mov=$(param memhpmovable "")
	kept=0
	rc=0
	gone=""
	# ZONE_MOVABLE blocks must go offline. Offlining ZONE_NORMAL is best
	# effort: it fails (EBUSY) while unmovable pages sit there (slab
	# pages, task stacks and page tables of tasks that ran on the node's
	# CPU), and on SLUB it did every time here. So the memoryless node's
	# dimm goes only if its blocks do, and stays online otherwise.
	if offline_node "$mov"; then
		gone=" node$mov"
	else
		echo "node$mov: its movable blocks did not go offline"
		rc=1
	fi
	if offline_node "$kern"; then
		gone="$gone node$kern"
	else
		echo "node$kern: ZONE_NORMAL blocks still in use: the dimm stays"
		online_blocks_again "$kern" online_kernel || rc=1
		kept=$(( $(param memhp 0) * 1024 ))
	fi
	[ -n "$gone" ] || return 1
	say "memhp remove$gone"
	for node in $gone; do
		wait_gone "${node#node}" || rc=1
	done
	now=$(slab_kb MemTotal)
	echo "MemTotal: $MEMHP_TOTAL kB before the dimms, $now kB now, $kept kB of" \
	     "them kept"
	[ "$now" -eq $(( MEMHP_TOTAL + kept )) ] || rc=1
	case "$gone" in
	*" node$kern"*)
		echo "node$kern: MemTotal $(node_mem_kb "$kern") kB, has_memory" \
		     "$(cat /sys/devices/system/node/has_memory)"
		[ "$(node_mem_kb "$kern")" -eq 0 ] || rc=1
		! in_list "$kern" "$(cat /sys/devices/system/node/has_memory)" || rc=1
		;;
	esac
	return $rc
}

online_blocks_again() {	# online_blocks_again NODE HOW: what offline_node took
	for b in $(new_blocks "$1"); do
		[ "$(cat "$MEMDIR/$b/state")" = online ] && continue
		echo "$2" > "$MEMDIR/$b/state" || return 1
		echo "$b (node$1): $2 again"
	done
}

memhp_slabs() {	# step: each cache's slabs file, for the harness to read
	for d in /sys/kernel/slab/*; do
		[ -L "$d" ] || [ ! -r "$d/slabs" ] && continue
		# read, not $(cat): no fork per cache, which is slow under TCG
		read -r line < "$d/slabs" || [ -n "$line" ] || return 1
		echo "slqb-memhp-slabs ${d##*/}: $line"
	done
}

children_of() {	# children_of PID: how many processes PID has forked
	n=0
	for f in /proc/[0-9]*/stat; do
		read -r _ _ _ ppid _ 2> /dev/null < "$f" || continue
		[ "$ppid" = "$1" ] && n=$(( n + 1 ))
	done
	echo "$n"
}

# stress-ng; READY appears once its stressors run. Before it forks them,
# stress-ng 0.15 reads every CPU's cache details from sysfs, and a CPU going
# or coming meanwhile can crash it (SIGSEGV in that code, CI of 6fa7767):
# the CPU hotplug waits for READY.
# stress-ng's files go to a folder of their own, removed after it: under
# fault injection a stressor may fail to clean up, and what it leaves on
# tmpfs would hold slab memory (dentries, inodes) past the shrink.
STRESS_NG_TMP=/tmp/stress-ng
STRESS_NG_ARGS="--temp-path $STRESS_NG_TMP --metrics-brief --fork 2 --dentry 1
--dir 1 --sockpair 1 --sock 1 --pipe 1 --eventfd 1 --timerfd 1 --msg 1
--memfd 1 --signal 1"

run_stress_ng() {	# run_stress_ng READY
	secs=$(param stress 10)
	[ "$secs" -gt 0 ] 2>/dev/null || { echo "stress-ng: skipped"; return 0; }
	command -v stress-ng > /dev/null || { echo "stress-ng: not in initramfs"; return 0; }
	mkdir -p $STRESS_NG_TMP
	if [ -n "$FAULTS_READY" ]; then
		# make-it-fail before the exec: every stressor inherits it.
		# The faults start once the stressors run (faults_start).
		(echo 1 > /proc/self/make-it-fail &&
		 exec stress-ng --timeout "${secs}s" $STRESS_NG_ARGS) &
	else
		stress-ng --timeout "${secs}s" $STRESS_NG_ARGS &
	fi
	pid=$!
	while [ "$(children_of "$pid")" -eq 0 ]; do
		read -r _ _ state _ 2> /dev/null < "/proc/$pid/stat" || break
		[ "$state" != Z ] || break
		sleep 1
	done
	frc=0
	if [ -n "$FAULTS_READY" ]; then
		faults_start "$(fault_rate 1)" "$(fault_rate 1)" "$(fault_rate 2)" || frc=1
	fi
	touch "$1"
	wait "$pid"
	rc=$?
	if [ -n "$FAULTS_READY" ]; then
		faults_stop stress || frc=1
	fi
	left=$(find $STRESS_NG_TMP | wc -l)
	[ "$left" -le 1 ] || echo "stress-ng left $(( left - 1 )) files; removed"
	rm -rf $STRESS_NG_TMP
	[ $frc -eq 0 ] || { echo "fault injection: could not switch it on or off"; return 1; }
	# 3: a stressor could not get resources; 4: not implemented here.
	# 2: a stressor failed, which one whose allocations fail on purpose may.
	case $rc in
	0) return 0 ;;
	3|4) echo "stress-ng: exit $rc (some stressors skipped)"; return 0 ;;
	2) [ -n "$FAULTS_READY" ] || return 2
	   echo "stress-ng: exit 2 (stressors failed under the injected faults)"
	   return 0 ;;
	*) return $rc ;;
	esac
}

# ------------------------------------------------------------ fault injection
# slqbtest.faults=1: failslab and fail_page_alloc fail the allocations of
# tasks with make-it-fail set only (task-filter): stress-ng and its
# stressors during the stress, then the faults module's kthreads, which
# set it on themselves (tools/testing/slqb/faults/). Sleeping allocations
# fail too (ignore-gfp-wait=N), and for pages highmem ones and order 0.
# Each "times" counts down from FAULT_TIMES, so what it lost is how many
# failures were injected: faults_stop says so on a "faults PHASE ..."
# marker (the host side is tools/testing/slqb/slqb_faults.py). verbose=0:
# the default (2, not rate limited) dumps a stack at every failure.

FAULT_DIR=/sys/kernel/debug
FAULT_TYPES="failslab fail_page_alloc"
FAULT_TIMES=1000000000
FAULTS_MOD=/lib/slqbtest-faults/slqb_faults.ko
FAULTS_READY=""
MEM_FAULTS=""

faults_on() {	# whether the boot asks for fault injection
	[ "$(param faults 0)" = 1 ]
}

fault_rate() {	# fault_rate N: field N of slqbtest.faultrate=P:I:M
	param faultrate 10:10:20 | cut -d: -f"$1"
}

fault_set() {	# fault_set TYPE FILE VALUE
	echo "$3" > "$FAULT_DIR/$1/$2" || { echo "$1/$2: cannot write $3"; return 1; }
}

faults_setup() {	# step: both capabilities ready, at probability 0
	[ -d $FAULT_DIR/failslab ] || mount -t debugfs none $FAULT_DIR
	for type in $FAULT_TYPES; do
		[ -d "$FAULT_DIR/$type" ] || { echo "no $FAULT_DIR/$type: is the kernel" \
			"built with CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC and" \
			"CONFIG_FAULT_INJECTION_DEBUG_FS?"; return 1; }
		for setting in probability=0 verbose=0 task-filter=Y \
			       ignore-gfp-wait=N interval=1 space=0 times=$FAULT_TIMES; do
			fault_set "$type" "${setting%%=*}" "${setting#*=}" || return 1
		done
	done
	fault_set failslab cache-filter N &&
	fault_set fail_page_alloc ignore-gfp-highmem N &&
	fault_set fail_page_alloc min-order 0 || return 1
	FAULTS_READY=1
	echo "failslab, fail_page_alloc: make-it-fail tasks only, sleeping" \
	     "allocations too, pages of any order; rate $(param faultrate 10:10:20)"
}

faults_start() {	# faults_start SLAB% PAGE% INTERVAL: switch the faults on
	[ -n "$FAULTS_READY" ] || return 1
	for type in $FAULT_TYPES; do
		fault_set "$type" times $FAULT_TIMES &&
		fault_set "$type" interval "$3" || return 1
	done
	fault_set failslab probability "$1" &&
	fault_set fail_page_alloc probability "$2"
}

faults_stop() {	# faults_stop PHASE: switch them off, say how many hit
	counts=""
	for type in $FAULT_TYPES; do
		fault_set "$type" probability 0 || return 1
		read -r left < "$FAULT_DIR/$type/times" || return 1
		counts="$counts $type=$(( FAULT_TIMES - left ))"
	done
	say "faults $1$counts"
}

# The module again (memcg=1), loaded by a task of a memory cgroup of its
# own: its failed bulk allocations must leave no charge behind. The host
# judges the line this prints (slqb_faults.py).
faults_memcg() {
	cg=/sys/fs/cgroup/slqbfaults
	[ -e /sys/fs/cgroup/cgroup.procs ] || { echo "no cgroup2 at /sys/fs/cgroup"; return 1; }
	mkdir $cg || return 1
	# In a subshell $$ is still init's pid; /proc/self/stat has our own.
	(read -r pid rest < /proc/self/stat && echo "$pid" > $cg/cgroup.procs &&
	 exec insmod "$FAULTS_MOD" memcg=1)
	mrc=$?
	rmmod slqb_faults || mrc=1
	sleep 1	# the subshell's last charges go with its RCU-freed task
	line=$(dmesg | grep -E 'slqb_faults: memcg ' | tail -1)
	say "faults-memcg: memory.current=$(cat $cg/memory.current) ${line#*slqb_faults: memcg }"
	rmdir $cg || mrc=1
	return $mrc
}

faults_slqb() {	# step: the faults module, with fail_page_alloc alone on
	[ -e "$FAULTS_MOD" ] || { echo "no $FAULTS_MOD in this initramfs: skipped"; return 0; }
	[ -n "$FAULTS_READY" ] || return 1
	faults_start 0 "$(fault_rate 3)" 1 || return 1
	insmod "$FAULTS_MOD"
	rc=$?
	rmmod slqb_faults || rc=1
	faults_memcg || rc=1
	faults_stop slqb || rc=1
	line=$(dmesg | grep -E 'slqb_faults: (PASS|FAIL)' | tail -1)
	echo "${line#*] }"
	case "$line" in
	*"slqb_faults: PASS"*) return $rc ;;
	*) return 1 ;;
	esac
}

# Drop caches twice, as inodes whose dentries the first pass freed can go
# only in the second, then shrink every cache. The shrink comes last: under
# KASAN, what drop_caches frees waits in the quarantine, keeping its slabs,
# and a cache's shrink takes its objects out of the quarantine first.
shrink_caches() {
	sync
	echo 3 > /proc/sys/vm/drop_caches || return 1
	echo 3 > /proc/sys/vm/drop_caches || return 1
	for f in /sys/kernel/slab/*/shrink; do
		[ -w "$f" ] && echo 1 > "$f"
	done
	return 0
}

# kmemleak reports an object only once it has gone unreferenced through
# two scans and is older than 5 s (Documentation/dev-tools/kmemleak.rst):
# wait, scan twice, then list every suspect with its allocation stack.
kmemleak_scan() {	# step: no leak that kmemleak can find after the workloads
	f=/sys/kernel/debug/kmemleak
	[ -e $f ] || mount -t debugfs none /sys/kernel/debug
	[ -e $f ] || { echo "no $f: is the kernel built with" \
		"CONFIG_DEBUG_KMEMLEAK?"; return 1; }
	sleep 6
	echo scan > $f || return 1
	sleep 1
	echo scan > $f || return 1
	leaks=$(grep -c '^unreferenced object' $f)
	say "kmemleak: $leaks suspected leaks"
	[ "$leaks" = 0 ] && return 0
	head -n 200 $f
	return 1
}

check_tunables() {	# SLQB: bad hiwater/freebatch writes are refused, good ones taken
	[ "$(param alloc "")" = slqb ] || { echo "not SLQB"; return 0; }
	d=/sys/kernel/slab/kmalloc-64
	hw=$(cat $d/hiwater)
	fb=$(cat $d/freebatch)
	for bad in 0 -1 abc 99999999 "$(( fb - 1 ))"; do
		if echo "$bad" > $d/hiwater 2>/dev/null; then
			echo "hiwater took the bad value '$bad'"
			return 1
		fi
	done
	if echo $(( hw + 1 )) > $d/freebatch 2>/dev/null; then
		echo "freebatch took a value above hiwater"
		return 1
	fi
	[ "$(cat $d/hiwater)/$(cat $d/freebatch)" = "$hw/$fb" ] || return 1
	echo $(( hw * 2 )) > $d/hiwater || return 1
	[ "$(cat $d/hiwater)" = $(( hw * 2 )) ] || return 1
	echo "$hw" > $d/hiwater || return 1
	echo "hiwater/freebatch $hw/$fb: bad writes refused, good ones taken"
}

show_slabs() {
	if [ "$(param alloc "")" = slqb ] && [ -x /bin/slqbinfo ]; then
		# The activity view needs CONFIG_SLQB_STATS, which a kernel
		# of slqb boot --base-config may not have.
		if [ -e /sys/kernel/slab/kmalloc-64/alloc ]; then
			slqbinfo -AD
		else
			slqbinfo
		fi
	elif [ -r /proc/slabinfo ]; then
		cat /proc/slabinfo
	else
		echo "no /proc/slabinfo with this allocator"
	fi
}

# ------------------------------------------------------------ slqb bench
# Results are "SLQB-BENCH <kind> key=value ..." lines, read by slqb_bench/.

bench_say() {
	echo "SLQB-BENCH $*"
}

bench_mem() {	# bench_mem STAGE: slab memory now (no dropping of caches)
	b_pages=$(awk '$1 ~ /^nr_slab_(reclaimable|unreclaimable)$/ { n += $2 }
		END { print n + 0 }' /proc/vmstat)
	bench_say "mem stage=$1 Slab=$(slab_kb Slab) SUnreclaim=$(slab_kb SUnreclaim)" \
		"slab_pages=$b_pages"
}

valid_reps() {	# valid_reps NAME N: N is a repeat count, 1 to 99
	case "$2" in
	[1-9]|[1-9][0-9]) return 0 ;;
	esac
	bench_say "error name=$1 rc=bad-sysreps-$2"
	return 1
}

# repeat_stats [-r] VALUE...: "value=MEDIAN best=BEST" of a workload's
# repeats (of an even count, the middle one nearer BEST). BEST is the least, or
# with -r (a rate) the largest: under MTTCG a repeat runs in one of two
# speed modes, and the best shows the fast one.
repeat_stats() {
	b_order=-n
	[ "$1" = -r ] && { b_order=-rn; shift; }
	echo "$@" | tr ' ' '\n' | sort $b_order | awk '{ v[NR] = $1 }
		END { printf "value=%.4f best=%.4f", v[int((NR + 1) / 2)], v[1] }'
}

bench_time() {	# bench_time NAME COMMAND...: wall seconds of COMMAND, slqbtest.sysreps times
	b_name=$1
	shift
	b_reps=$(param sysreps 1)
	valid_reps "$b_name" "$b_reps" || return 1
	b_times=""
	b_n=0
	while [ $b_n -lt "$b_reps" ]; do
		b_t0=$EPOCHREALTIME
		"$@" > /tmp/bench.out 2>&1
		b_rc=$?
		b_t1=$EPOCHREALTIME
		if [ $b_rc -ne 0 ]; then
			bench_say "error name=$b_name rc=$b_rc"
			tail -5 /tmp/bench.out
			return 1
		fi
		b_times="$b_times $(awk -v a="$b_t0" -v b="$b_t1" 'BEGIN { print b - a }')"
		b_n=$((b_n + 1))
	done
	bench_say "sys name=$b_name $(repeat_stats $b_times) reps=$b_reps unit=s"
}

bench_micro() {	# the slqb_bench module; slqbtest.benchmod=a=1:b=2 are its parameters
	[ -e /lib/slqbtest/slqb_bench.ko ] ||
		{ bench_say "error name=micro rc=no-module"; return 1; }
	insmod /lib/slqbtest/slqb_bench.ko $(param benchmod "" | tr ':' ' ') || {
		bench_say "error name=micro rc=insmod"; return 1; }
	rmmod slqb_bench
}

# CONFIG_SLQB_STATS files: include/linux/slqb_stats.h's names, in its order
# (the harness's unit tests check that they are the same).
SLQB_STATS="alloc alloc_slab_fill alloc_slab_new free free_remote flush_free_list
flush_free_list_objects flush_free_list_remote flush_slab_partial flush_slab_free
flush_rfree_list flush_rfree_list_objects claim_remote_list
claim_remote_list_objects remote_cap_hit trim_runs trim_objects trim_worst_ns
trim_worst_objects"
# CONFIG_SLUB_STATS files read for the same table: allocations, and the
# slabs taken from and given back to the page allocator
SLUB_STATS="alloc_fastpath alloc_slowpath free_fastpath free_slowpath alloc_slab
free_slab"
# and the slab counts and tunables dumped with them
SLAB_COUNTS="slabs objects"
SLQB_TUNABLES="hiwater freebatch"

has_stats() {	# has_stats DIR: a cache directory with SLQB's or SLUB's counters
	[ -r "$1/alloc" ] || [ -r "$1/alloc_slab" ]
}

bench_stat_dump() {	# bench_stat_dump PHASE CASE [GLOB]: the counters of kmalloc-N, or GLOB
	for b_dir in /sys/kernel/slab/${3:-kmalloc-[0-9]*}; do
		has_stats "$b_dir" || continue
		# an alias is a link to a cache of its own name
		[ -n "$3" ] && [ -L "$b_dir" ] && continue
		b_line=""
		for b_f in $SLQB_STATS $SLUB_STATS $SLAB_COUNTS $SLQB_TUNABLES; do
			[ -r "$b_dir/$b_f" ] || continue
			b_line="$b_line $b_f=$(cut -d' ' -f1 < "$b_dir/$b_f")"
		done
		bench_say "stat phase=$1 case=$2 cache=${b_dir##*/}$b_line"
	done
}

bench_stats() {	# each micro case alone, with the counters before and after
	has_stats /sys/kernel/slab/kmalloc-64 ||
		{ bench_say "skip name=stats why=no-SLQB_STATS-or-SLUB_STATS"; return 0; }
	for b_case in $(param statcases pair,batch,bulk,allcpu,remote,node,rcu | tr ',' ' '); do
		bench_stat_dump before "$b_case"
		insmod /lib/slqbtest/slqb_bench.ko $(param benchmod "" | tr ':' ' ') \
			cases="$b_case" || return 1
		rmmod slqb_bench
		bench_stat_dump after "$b_case"
	done
}

bench_trim() {	# every cache's counters after the workloads: the trim maxima
	has_stats /sys/kernel/slab/kmalloc-64 ||
		{ bench_say "skip name=trim why=no-SLQB_STATS-or-SLUB_STATS"; return 0; }
	bench_stat_dump after workloads '*'
}

bench_hackbench() {	# hackbench: processes/threads on sockets/pipes
	set -- $(param hackbench 4:50 | tr ':' ' ')
	command -v hackbench > /dev/null ||
		{ bench_say "skip name=hackbench why=missing"; return 0; }
	for b_v in "proc-sock:" "proc-pipe:-p" "thread-sock:-T" "thread-pipe:-T -p"; do
		bench_time "hackbench-${b_v%%:*}" hackbench ${b_v#*:} -g "$1" -l "$2"
	done
}

bench_perf() {	# perf bench sched messaging, processes and threads
	set -- $(param hackbench 4:50 | tr ':' ' ')
	if ! perf bench sched messaging -g 1 -l 1 > /tmp/perf.out 2>&1; then
		bench_say "skip name=perf-messaging why=perf-does-not-run"
		tail -3 /tmp/perf.out
		return 0
	fi
	for b_v in "proc:" "thread:-t"; do
		bench_time "perf-messaging-${b_v%%:*}" \
			perf bench sched messaging ${b_v#*:} -g "$1" -l "$2"
	done
}

bench_churn() {	# fork/exec and file churn on tmpfs
	bench_time churn churn_loop "$(param churn 200)"
}

churn_loop() {	# churn_loop N: N rounds of sh -c, cat, mkdir, ln, rm
	b_i=0
	mkdir -p /tmp/bench-churn
	while [ $b_i -lt "$1" ]; do
		mkdir -p /tmp/bench-churn/$b_i/a
		sh -c "echo $b_i > /tmp/bench-churn/$b_i/a/f" || return 1
		cat /tmp/bench-churn/$b_i/a/f > /dev/null || return 1
		ln -s f /tmp/bench-churn/$b_i/a/l
		[ $(( b_i % 20 )) -eq 19 ] && rm -rf /tmp/bench-churn/*
		b_i=$(( b_i + 1 ))
	done
	rm -rf /tmp/bench-churn
}

iperf_once() {	# one iperf3 run over loopback: the receiver's Mbit/s
	iperf3 -s -1 > /tmp/iperf-server.out 2>&1 &
	b_server=$!
	sleep 1
	iperf3 -c 127.0.0.1 -t "$(param iperf 3)" -f m > /tmp/iperf.out 2>&1
	b_rc=$?
	wait $b_server
	[ $b_rc -eq 0 ] || { tail -5 /tmp/iperf.out >&2; return $b_rc; }
	awk '/receiver/ { for (i = 1; i < NF; i++)
			if ($(i + 1) == "Mbits/sec") v = $i }
		END { print v }' /tmp/iperf.out
}

bench_iperf() {	# iperf3 over loopback (skb allocations), slqbtest.sysreps times
	command -v iperf3 > /dev/null || { bench_say "skip name=iperf3 why=missing"; return 0; }
	bench_rate iperf3-tcp Mbit/s iperf_once
}

# bench_rate NAME UNIT COMMAND...: COMMAND slqbtest.sysreps times, each
# printing its rate; the median and best rate (higher is better)
bench_rate() {
	b_name=$1
	b_unit=$2
	shift 2
	b_reps=$(param sysreps 1)
	valid_reps "$b_name" "$b_reps" || return 1
	b_rates=""
	b_n=0
	while [ $b_n -lt "$b_reps" ]; do
		b_rate=$("$@" 2> /tmp/bench.err)
		b_rc=$?
		if [ $b_rc -ne 0 ] || ! awk -v r="$b_rate" 'BEGIN { exit !(r + 0 > 0) }'; then
			bench_say "error name=$b_name rc=$b_rc"
			tail -5 /tmp/bench.err
			return 1
		fi
		b_rates="$b_rates $b_rate"
		b_n=$((b_n + 1))
	done
	bench_say "sys name=$b_name $(repeat_stats -r $b_rates) reps=$b_reps unit=$b_unit"
}

SYSBENCH=/usr/bin/slqb-sysbench

# netperf's TCP_RR and UDP_RR over loopback with 1, 4 and 16 pairs per CPU,
# and a UDP stream of 4 KiB datagrams with one pair per CPU, each for
# slqbtest.iperf seconds (guest/slqb-sysbench.c)
bench_net() {
	[ -x $SYSBENCH ] || { bench_say "skip name=net why=no-slqb-sysbench"; return 0; }
	b_secs=$(param iperf 3)
	b_cpus=$(nproc)
	for b_per in 1 4 16; do
		for b_proto in tcp udp; do
			bench_rate "$b_proto-rr-${b_per}x" trans/s \
				$SYSBENCH rr $b_proto $((b_cpus * b_per)) "$b_secs" || return 1
		done
	done
	bench_rate udp-stream-4k dgram/s $SYSBENCH stream udp "$b_cpus" "$b_secs" 4096
}

# will-it-scale's per-system-call loops, one process per CPU, a second each
bench_loops() {
	[ -x $SYSBENCH ] || { bench_say "skip name=loops why=no-slqb-sysbench"; return 0; }
	for b_loop in mmap brk open signal pipe eventfd threadspawn; do
		bench_rate "loop-$b_loop" ops/s $SYSBENCH loop $b_loop "$(nproc)" 1 || return 1
	done
}

# tbench_once CLIENTS: one tbench run (dbench's network half: the SMB
# traffic of its loadfile, over loopback to tbench_srv) of slqbtest.iperf
# seconds; its throughput in MB/s
tbench_once() {
	tbench -t "$(param iperf 3)" "$1" 127.0.0.1 > /tmp/tbench.out 2>&1 ||
		{ tail -5 /tmp/tbench.out >&2; return 1; }
	awk '$1 == "Throughput" { v = $2 } END { print v }' /tmp/tbench.out
}

# tbench with one and four clients per CPU, against one tbench_srv
bench_tbench() {
	command -v tbench > /dev/null && command -v tbench_srv > /dev/null ||
		{ bench_say "skip name=tbench why=missing"; return 0; }
	tbench_srv > /tmp/tbench-srv.out 2>&1 &
	b_srv=$!
	sleep 1
	b_tb_rc=0
	for b_per in 1 4; do
		bench_rate "tbench-${b_per}x" MB/s tbench_once $(($(nproc) * b_per)) ||
			{ b_tb_rc=1; break; }
	done
	kill $b_srv
	wait $b_srv 2> /dev/null
	return $b_tb_rc
}

# stressng_rate STRESSOR: stress-ng's STRESSOR with one instance per CPU for
# slqbtest.iperf seconds; its bogo ops per second of wall time
stressng_rate() {
	stress-ng --"$1" "$(nproc)" -t "$(param iperf 3)" --metrics-brief --temp-path /tmp \
		> /tmp/stressng.out 2>&1 || { tail -5 /tmp/stressng.out >&2; return 1; }
	awk -v s="$1" '$2 == "metrc:" && $4 == s && $5 ~ /^[0-9]+$/ { v = $9 }
		END { print v }' /tmp/stressng.out
}

# stress-ng's raw-socket stressors, which lkp runs on every slab change:
# rawudp (IPv4 raw sockets) and rawpkt (AF_PACKET, where the kernel has it)
bench_rawnet() {
	command -v stress-ng > /dev/null ||
		{ bench_say "skip name=rawnet why=no-stress-ng"; return 0; }
	bench_rate stress-rawudp ops/s stressng_rate rawudp || return 1
	if [ -e /proc/net/packet ]; then
		bench_rate stress-rawpkt ops/s stressng_rate rawpkt
	else
		bench_say "skip name=stress-rawpkt why=no-af-packet"
	fi
}

# profile_one NAME COMMAND...: COMMAND slqbtest.sysreps times under perf's
# system-wide cpu-clock sampling; of the samples neither idle (pid 0) nor
# perf's own, how many fell in the allocator's functions (ALLOC_SYMS).
ALLOC_SYMS=/lib/slqbtest/alloc-syms
profile_one() {
	b_name=$1
	shift
	b_reps=$(param sysreps 1)
	valid_reps "profile-$b_name" "$b_reps" || return 1
	rm -f /tmp/prof.data
	perf record -q -a -e cpu-clock -F 4000 -o /tmp/prof.data > /tmp/prof.out 2>&1 &
	b_perf=$!
	sleep 1
	b_n=0
	b_rc=0
	while [ $b_n -lt "$b_reps" ] && [ $b_rc -eq 0 ]; do
		"$@" > /tmp/bench.out 2>&1
		b_rc=$?
		b_n=$((b_n + 1))
	done
	kill -INT $b_perf
	wait $b_perf
	if [ $b_rc -ne 0 ]; then
		bench_say "error name=profile-$b_name rc=$b_rc"
		tail -5 /tmp/bench.out
		return 1
	fi
	perf script -i /tmp/prof.data -F pid,ip,sym 2> /dev/null | prof_count "$b_name" $b_perf
}

# prof_count NAME PID: the prof line of `perf script -F pid,ip,sym` on stdin,
# PID being perf's own, with the allocator's five busiest functions; an
# error line if there is no sample at all
prof_count() {
	awk -v name="$1" -v perf="$2" '
		NR == FNR { alloc[$1] = 1; next }
		{ n++ }
		$1 == 0 || $1 == perf { skip++; next }
		$NF in alloc { a++; per[$NF]++ }
		END {
			top = ""
			for (k = 0; k < 5; k++) {
				best = ""
				for (f in per)
					if (best == "" || per[f] > per[best])
						best = f
				if (best == "")
					break
				top = top (top == "" ? "" : ",") best ":" per[best]
				delete per[best]
			}
			if (n) printf "SLQB-BENCH prof name=%s samples=%d busy=%d" \
				" alloc=%d top=%s\n", name, n, n - skip, a, top == "" ? "-" : top
			else printf "SLQB-BENCH error name=profile-%s rc=no-samples\n", name
		}' "$ALLOC_SYMS" -
}

bench_profile() {	# the timed workloads again, under perf: the allocator's share
	command -v perf > /dev/null || { bench_say "skip name=profile why=no-perf"; return 0; }
	[ -r "$ALLOC_SYMS" ] || { bench_say "skip name=profile why=no-$ALLOC_SYMS"; return 0; }
	echo 0 > /proc/sys/kernel/kptr_restrict
	echo -1 > /proc/sys/kernel/perf_event_paranoid
	set -- $(param hackbench 4:50 | tr ':' ' ')
	for b_v in "hackbench-proc-sock:hackbench" "hackbench-proc-pipe:hackbench -p" \
		   "hackbench-thread-sock:hackbench -T" "hackbench-thread-pipe:hackbench -T -p" \
		   "perf-messaging-proc:perf bench sched messaging" \
		   "perf-messaging-thread:perf bench sched messaging -t"; do
		profile_one "${b_v%%:*}" ${b_v#*:} -g "$1" -l "$2" || return 1
	done
	profile_one churn churn_loop "$(param churn 200)" || return 1
	[ -x $SYSBENCH ] || return 0
	profile_one tcp-rr-1x $SYSBENCH rr tcp "$(nproc)" "$(param iperf 3)" || return 1
	profile_one loop-threadspawn $SYSBENCH loop threadspawn "$(nproc)" 1
}

# slqbtest.bench=micro,hackbench,perf,churn,iperf,net,loops,tbench,rawnet
# [,stats,trim,profile],
# in order
bench_mode() {
	check_shape
	bench_say "begin alloc=$(param alloc ?) kernel=$(uname -r)"
	bench_mem boot
	b_status=0
	for b_item in $(param bench micro,hackbench,perf,churn,iperf | tr ',' ' '); do
		case "$b_item" in
		micro|hackbench|perf|churn|iperf|net|loops|tbench|rawnet|stats|trim|profile)
			"bench_$b_item" || b_status=1 ;;
		*) bench_say "error name=$b_item rc=unknown"; b_status=1 ;;
		esac
		bench_mem "after-$b_item"
	done
	sync
	echo 3 > /proc/sys/vm/drop_caches
	bench_mem dropped
	bench_say "end rc=$b_status"
	return $b_status
}

fake_report() {
	case "$(param fake "")" in
	BUG) echo "BUG: slqbtest fake report (slqbtest.fake=BUG, harness self-test)" > /dev/kmsg ;;
	WARNING) echo "WARNING: slqbtest fake report" \
		"(slqbtest.fake=WARNING, harness self-test)" > /dev/kmsg ;;
	esac
}

finish() {
	if [ -z "$FAILED" ]; then
		say "PASS"
	else
		say "FAIL$FAILED"
	fi
	sync
	reboot -f
	sleep 60
}

load_modules() {	# slqbtest.load=a,b: insmod /lib/slqbtest-extra/a.ko, b.ko
	mods=$(param load "")
	[ -n "$mods" ] || { echo "none asked for"; return 1; }
	for mod in $(echo "$mods" | tr ',' ' '); do
		echo "loading $mod"
		insmod "/lib/slqbtest-extra/$mod.ko" || return 1
	done
}

debug_checks() {	# validate and list the callers of the slqb_dbg_* caches
	[ "$(param debugcheck 0)" = 1 ] || { echo "not asked for"; return 0; }
	for dir in /sys/kernel/slab/slqb_dbg_*; do
		[ -e "$dir/validate" ] || { echo "no debugged slqb_dbg_* caches"; return 1; }
		echo 1 > "$dir/validate" || return 1
		echo "alloc_calls of ${dir##*/}:"
		cat "$dir/alloc_calls"
		echo "free_calls of ${dir##*/}:"
		cat "$dir/free_calls"
	done
	# What the first pass found and repaired must be gone now.
	echo "validate again:"
	for dir in /sys/kernel/slab/slqb_dbg_*; do
		echo 1 > "$dir/validate" || return 1
	done
	sleep 1	# let the console catch up with the kernel's lines
}

mount_all
mode=$(param mode boot)
say "init: mode $mode, kernel $(uname -r), allocator $(param alloc ?)"
fake_report

case "$mode" in
shell)
	check_shape
	echo "SLQB harness shell: busybox tools, hackbench, stress-ng, slqbinfo if built."
	echo "Leave with 'exit' (or Ctrl-D); the VM then powers off."
	setsid cttyhack sh
	reboot -f
	;;
hang)
	say "hanging on purpose (slqbtest.mode=hang)"
	while :; do sleep 3600; done
	;;
quick)
	step shape check_shape
	step slabinfo show_slabs
	;;
modules)
	step shape check_shape
	step load-modules load_modules
	step debug-checks debug_checks
	;;
bench)
	step bench bench_mode
	;;
*)
	step shape check_shape
	step selftests run_selftests
	record_mem before
	step hackbench run_hackbench
	step churn run_churn
	step cpu-hotplug cpu_hotplug
	step memcg run_in_memcg
	if faults_on; then
		record_mem before-faults
		MEM_FAULTS=$slab
		step faults-setup faults_setup
	fi
	step stress stress_all
	if faults_on; then
		step faults-slqb faults_slqb
	fi
	if memhp_on; then
		step memhp-online memhp_online_result
		step memhp-churn memhp_stop_churn
		step memhp-local memhp_check_local
	fi
	record_mem after
	step shrink shrink_caches
	record_mem shrunk kept
	step slab-memory-returned mem_returned
	if [ "$(param kmemleak 0)" = 1 ]; then
		step kmemleak kmemleak_scan
	fi
	if faults_on; then
		step faults-slab-memory mem_returned "$MEM_FAULTS" "before the faults"
	fi
	if memhp_on; then
		step memhp-remove memhp_remove
		record_mem removed
		step memhp-slab-memory mem_returned
		step memhp-slabs memhp_slabs
	fi
	step tunables check_tunables
	step slabinfo show_slabs
	;;
esac
finish
