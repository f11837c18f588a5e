# SPDX-License-Identifier: GPL-2.0
"""`slqb bench`: SLQB against SLAB, SLUB and SLOB, side by side in one run.

The package: this module (the kernels, the boots, the run and the
command), report.py (the console parser, the maths and the tables),
initramfs.py (what a bench guest gets beyond the plain initramfs),
group.py (the check group bench of `slqb test`) and test_slqb_bench.py
(their unit tests). The micro-benchmark module's source is a kbuild
folder of its own, tools/testing/slqb/bench/.

Builds one kernel per allocator (or per --kernel variant) from the same
tree and config, debugging and statistics off, builds the micro-benchmark
module (bench/slqb_bench.c) against each, and boots them in turn, in the
same QEMU shape, alternating the order from run to run:

- a multi-threaded TCG boot (2 vCPUs by default) runs every micro case and
  the system workloads (hackbench, perf bench sched messaging, fork/exec
  and file churn, iperf3 over loopback, slqb-sysbench's RR, stream and
  per-syscall loops, tbench, stress-ng's rawudp and rawpkt) and reads
  slab memory;
- a 1-vCPU boot with -icount shift=0,sleep=off runs the single-CPU micro
  cases, where get_cycles() counts guest instructions exactly;
- an arm64 boot of the same allocator (64 KiB pages) with 2 vCPUs under
  -icount on one TCG thread runs the micro cases again with remote and
  allcpu added, the two CPUs taking turns (the module's serial=1), so
  that the remote free path is counted in instructions too (the
  icount-arm64 rows; --no-icount-arm64 leaves them out, and with them the
  arm64 builds).

With --base-config FILE every kernel is built from that x86_64 .config
(a distribution's) with only the allocator switched, and without the
bench's debug-off lines (BENCH_EXTRAS) or the arm64 boots.

With --model (the default) the x86_64 icount boots also run the
slqb-cache QEMU plugin, a data cache and TLB model, for the model rows
(model.py).

Results go to <cache>/bench/<run id>/ (the run id is the time the run
began, YYYYmmdd-HHMMSS): summary.txt (the headline table), table.txt
(every row), summary.csv, table.csv, samples.csv, plot.png, and
result.rst, the summary with the command, date, tree and kernels, in the
format of tools/testing/slqb/results/ (slqb_results.py), where a run is
recorded by copying that file. With --profile, the multi-threaded boots then run the timed
workloads once more under perf record -a (cpu-clock) and count the
samples that fell in functions of the allocator's own files (nm on its
objects), as a share of those neither idle nor perf's own: the prof
rows, which say how much of a workload the allocator can account for,
and profile.txt, which of its functions took the most. The icount boot
then also has the cache model attribute every instruction and miss to
the function that made it (the plugin's pcs=on, resolved with the
kernel's System.map): the own and hooks rows, each micro case's
instructions per operation in the allocator's own code and in the hooks
that 6.1 runs around any allocator, and in profile.txt each case's split
and busiest functions.
`slqb bench --counters` instead runs each micro case alone on
the statistics-enabled SLQB kernel of `slqb boot` and shows what SLQB's
counters did, then the system workloads, and shows the periodic trim's
worst pass of each cache; the same on a SLUB kernel with
CONFIG_SLUB_STATS gives both allocators' page-allocator round trips, per
micro case and over the workloads.
"""

import argparse
import dataclasses
import os
import re
import shlex
import shutil
import sys
import textwrap
import time
from typing import Dict, List, Optional, Sequence, Tuple

from slqb_arch import DEFAULT_ARCH, arch_of
from slqb_boot import BootRequest, Prepared, boot_kernel, prepare_kernel
from slqb_build import (ALLOCATORS, SWITCH_CHANGES, KernelSpec, base_spec,
			config_value, make_module, parse_kconfig_option)
from slqb_guest import bench_params
from slqb_host import BuildLock, ensure_packages
from slqb_initramfs import build_initramfs
from slqb_qemu import MAX_CPUS, Shape
from slqb_results import RESULTS_DIR, BenchResult, result_text, summary_lines
from slqb_util import (HARNESS_DIR, REPO_ROOT, Paths, SlqbError,
		       fmt_duration, log, quote_lines, read_text, run, warn,
		       write_text)

from . import model
from .initramfs import BENCH_MODULE, BenchFiles, allocator_symbols
from .report import (TCG_NOTE, Pairing, Parsed, Sample, aggregate,
		     behind_best, collect, control_lines, csv_text, format_table,
		     parse_console, profile_text, samples_csv, table_rows,
		     write_plot)

# Debugging and statistics off, the same for every kernel of a run. Their
# order is part of each build directory's name: append, never reorder.
BENCH_EXTRAS: Tuple[str, ...] = (
	'CONFIG_PROVE_LOCKING=n',
	'CONFIG_DEBUG_ATOMIC_SLEEP=n',
	'CONFIG_DEBUG_VM=n',
	'CONFIG_SCHED_DEBUG=n',
	'CONFIG_KUNIT=n',
	'CONFIG_SLUB_DEBUG=n',
	'CONFIG_SLQB_STATS=n',
	'CONFIG_SLQB_KUNIT_TEST=n',
	'CONFIG_KFENCE=n',
	'CONFIG_SLQB_DEBUG=n',
	'CONFIG_TEST_SLQB_DEBUG=n',
	'CONFIG_PAGE_OWNER=n',
	# Off as in the tables before the guests had a seeded RNG (see
	# BENCH_KERNEL_PARAMS); measure it with a variant:
	# --kernel NAME=ALLOC:CONFIG_SLAB_FREELIST_RANDOM=y
	'CONFIG_SLAB_FREELIST_RANDOM=n',
	# base.config's fault injection (FAILSLAB and FAIL_PAGE_ALLOC depend
	# on it; each is named so that none is reported as not taken)
	'CONFIG_FAULT_INJECTION=n',
	'CONFIG_FAILSLAB=n',
	'CONFIG_FAIL_PAGE_ALLOC=n',
	'CONFIG_FAULT_INJECTION_DEBUG_FS=n',
)
# Seed the guest's RNG from RDRAND/RDSEED (QEMU's -cpu max has them under
# TCG), as Debian's kernels do with CONFIG_RANDOM_TRUST_CPU: an unseeded
# RNG makes each get_random_u32() cost thousands of instructions, which a
# randomised new slab calls, whatever the allocator.
BENCH_KERNEL_PARAMS = 'random.trust_cpu=on'
BENCH_SRC = os.path.join(HARNESS_DIR, 'bench')
BENCH_PACKAGES = ['iperf3', 'linux-perf', 'gnuplot-nox', 'dbench']
DEFAULT_KERNELS = ('slqb', 'slub', 'slab', 'slob')
BASELINE_ALLOCS = ('slub', 'slab', 'slob')
NAME_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.+-]{0,31}$')
ICOUNT_CASES = 'pair,batch,bulk,rcu'
# The arm64 icount boots: the same, remote, whose two CPUs take turns there
# (serial=1), and allcpu, whose CPUs take turns too (their waits yield the
# one TCG thread): exact per-CPU counts with both CPUs' queues in use, but
# no contention, since nothing runs at once.
ARM64 = 'arm64'
ARM64_ICOUNT_CASES = 'pair,batch,bulk,rcu,remote,allcpu'
ARM64_ICOUNT_SHAPE = Shape(2, 1)
STAT_CASES = 'pair,batch,bulk,allcpu,remote,node,rcu'
# --accel auto tries KVM with a short bench boot of the first kernel, in
# the shape of the wall-clock boots (a device that opens is not enough:
# where nested virtualisation is missing, /dev/kvm can exist and a boot
# with the host's CPU model abort or hang).
ACCELS = ('auto', 'tcg', 'kvm')
# A sys-icount boot runs every workload on one vCPU, each second of guest
# time a billion instructions on one TCG thread: several times a micro boot.
SYS_ICOUNT_TIMEOUT_FACTOR = 3
KVM_DEVICE = '/dev/kvm'
KVM_PROBE_TIMEOUT_S = 240
PROFILE_HEAD = ('--profile: per workload and kernel, over all runs, the busy '
		'cpu-clock samples (neither idle nor perf\'s), the allocator\'s '
		'share of them, and its busiest functions\' shares')


ATTRIBUTION_HEAD = ('--profile: where each micro case\'s instructions and '
		    'misses go, per operation, from the x86_64 icount boot '
		    'with the cache model attributing them to functions '
		    '(exact): the allocator\'s own code (its files and '
		    'mm/slab_common.c), the hooks of 6.1 (mm/slab.h\'s, memcg, KASAN, '
		    'KFENCE, KMSAN, kmemleak, fault injection, memset), the '
		    'page allocator, the bench module and the rest')


@dataclasses.dataclass(frozen=True)
class Variant:
	"""A kernel of the comparison: its name in the tables and its spec."""
	name: str
	spec: KernelSpec
	asked: Tuple[str, ...] = ()	# the user's own config lines
	params: Tuple[str, ...] = ()	# kernel parameters of its boots


@dataclasses.dataclass(frozen=True)
class Plan:
	"""How much to run: the full run or --quick."""
	sizes: str
	rounds: int
	loops: int
	objs: int
	rcu_objs: int
	hackbench: str		# groups:loops
	churn: int
	iperf_s: int
	workloads: str
	sys_reps: int		# runs of each timed workload per boot

	def module_params(self, cases: Optional[str] = None,
			  serial: bool = False, model: bool = False) -> str:
		"""The bench module's parameters joined by ':' (the value of
		slqbtest.benchmod, see slqb_guest.bench_params)."""
		params = [f'sizes={self.sizes}', f'rounds={self.rounds}',
			  f'loops={self.loops}', f'objs={self.objs}',
			  f'rcu_objs={self.rcu_objs}']
		if cases:
			params.append(f'cases={cases}')
		if serial:
			params.append('serial=1')
		if model:
			params.append('model=1')
		return ':'.join(params)


FULL = Plan(sizes='8,16,32,64,128,256,512,1024,2048,4096,8192', rounds=5,
	    loops=20000, objs=2048, rcu_objs=10000, hackbench='4:50',
	    churn=200, iperf_s=3,
	    workloads='micro,hackbench,perf,churn,iperf,net,loops,tbench,rawnet',
	    sys_reps=5)
QUICK = Plan(sizes='8,64,512,4096', rounds=3, loops=10000, objs=1024,
	     rcu_objs=5000, hackbench='2:30', churn=80, iperf_s=2,
	     workloads='micro,hackbench,perf,churn,iperf,net,loops,tbench,rawnet',
	     sys_reps=3)


# ---------------------------------------------------------------- arguments

# A kernel parameter of one kernel's boots: '+name' or '+name=value'.
PARAM_RE = re.compile(r'\+([A-Za-z0-9_.-]+(?:=[^\s,"\']+)?)')


def parse_variant(text: str) -> Variant:
	"""'NAME=ALLOC[:CONFIG_X=V,...,+PARAM=V,...]' -> Variant; refuses
	anything else. A +PARAM item is a kernel parameter that only this
	kernel's boots get: the same build, booted another way."""
	name, eq, rest = text.partition('=')
	if not eq or not NAME_RE.match(name):
		raise SlqbError(f'--kernel {text!r}: expected NAME=ALLOC[:CONFIG_X=V,...] '
				'with NAME letters, digits, _ . + - (up to 32)',
				exit_code=2)
	alloc, _, configs = rest.partition(':')
	if alloc not in ALLOCATORS:
		raise SlqbError(f'--kernel {text!r}: unknown allocator {alloc!r}; '
				f'one of {", ".join(ALLOCATORS)}', exit_code=2)
	asked, params = [], []
	for item in filter(None, configs.split(',')):
		if item.startswith('+'):
			m = PARAM_RE.fullmatch(item)
			if not m:
				raise SlqbError(f'--kernel {text!r}: {item!r} is not '
						'+PARAM or +PARAM=VALUE (no spaces or '
						'quotes)', exit_code=2)
			params.append(m.group(1))
			continue
		try:
			asked.append('='.join(parse_kconfig_option(item)))
		except SlqbError:
			raise SlqbError(f'--kernel {text!r}: {item!r} is not CONFIG_X=V '
					'(V: y, n, m, a number or a "string")',
					exit_code=2) from None
	if configs and not asked and not params:
		raise SlqbError(f'--kernel {text!r}: no CONFIG_X=V or +PARAM '
				'after ":"', exit_code=2)
	return Variant(name, KernelSpec(alloc, BENCH_EXTRAS + tuple(asked)),
		       tuple(asked), tuple(params))


def parse_variants(texts: Sequence[str]) -> List[Variant]:
	"""The --kernel list, or the four allocators; names must be unique."""
	if not texts:
		return [Variant(a, KernelSpec(a, BENCH_EXTRAS)) for a in DEFAULT_KERNELS]
	variants = [parse_variant(t) for t in texts]
	names = [v.name for v in variants]
	dups = sorted({n for n in names if names.count(n) > 1})
	if dups:
		raise SlqbError(f'--kernel: name(s) used twice: {", ".join(dups)}',
				exit_code=2)
	return variants


def on_base_config(variants: Sequence[Variant], path: str) -> List[Variant]:
	"""The variants built from the config at path (--base-config) instead
	of the harness's: only the allocator switched, and the variant's own
	config lines; none of BENCH_EXTRAS, so that the kernels are the
	distribution's as far as the allocator allows."""
	return [dataclasses.replace(v, spec=base_spec(v.spec.alloc, v.asked, path))
		for v in variants]


def pairing_for(variants: Sequence[Variant],
		baseline: Optional[Sequence[str]]) -> Pairing:
	"""Subjects and baselines: --baseline names against the rest; else
	the SLQB kernels against the SLUB, SLAB and SLOB ones (in that order);
	else the first kernel against the others."""
	names = [v.name for v in variants]
	if baseline:
		unknown = [b for b in baseline if b not in names]
		if unknown:
			raise SlqbError(f'--baseline {", ".join(unknown)}: not a kernel '
					f'of this run ({", ".join(names)})', exit_code=2)
		bases = [n for n in names if n in baseline]
	else:
		rank = {a: i for i, a in enumerate(BASELINE_ALLOCS)}
		bases = [v.name for v in sorted(variants, key=lambda v: rank.get(v.spec.alloc, 9))
			 if v.spec.alloc in rank]
		if not bases or len(bases) == len(names):
			bases = names[1:]
	subjects = [n for n in names if n not in bases]
	if not subjects:
		raise SlqbError('--baseline names every kernel: nothing left to '
				'compare', exit_code=2)
	return Pairing(kernels=names, subjects=subjects, baselines=bases)


def check_args(args: argparse.Namespace) -> None:
	"""Refuses bad numbers before anything is built."""
	if args.runs is not None and not 1 <= args.runs <= 50:
		raise SlqbError(f'--runs {args.runs}: must be 1..50', exit_code=2)
	if args.timeout is not None and args.timeout <= 0:
		raise SlqbError('--timeout must be more than 0 seconds', exit_code=2)
	Shape(args.cpus, args.nodes).validate(MAX_CPUS)
	if args.cpus < 2:
		raise SlqbError('--cpus: the multi-CPU cases need 2 or more CPUs '
				'(the icount boots always use 1)', exit_code=2)
	if args.profile and args.counters:
		raise SlqbError('--profile adds a step to the comparison\'s boots; '
				'--counters runs boots of its own', exit_code=2)
	if args.counters and args.icount_sys:
		raise SlqbError('--icount-sys adds boots to the comparison; '
				'--counters runs boots of its own', exit_code=2)
	if args.counters and args.accel != 'auto':
		raise SlqbError('--counters boots under TCG; it does not go with '
				'--accel', exit_code=2)
	if args.accel == 'kvm' and kvm_device_problem():
		raise SlqbError(f'--accel kvm: {kvm_device_problem()}', exit_code=2)
	if args.base_config is not None:
		if args.counters:
			raise SlqbError('--counters uses the kernels of `slqb boot`; '
					'it does not go with --base-config',
					exit_code=2)
		if args.icount_arm64:
			raise SlqbError('--base-config is an x86_64 config: the '
					'icount-arm64 boots cannot use it (leave out '
					'--icount-arm64)', exit_code=2)
	elif args.icount_arm64 is None:
		args.icount_arm64 = True


# ---------------------------------------------------------------- building

def build_module(paths: Paths, spec: KernelSpec) -> str:
	"""Copies bench/ into <build>/slqb-bench and builds slqb_bench.ko there
	against the kernel (W=1). Returns the .ko path."""
	build = spec.build_dir(paths)
	mod_dir = os.path.join(build, os.path.dirname(BENCH_MODULE))
	os.makedirs(mod_dir, exist_ok=True)
	for name in ('slqb_bench.c', 'Kbuild', 'Makefile'):
		src = os.path.join(BENCH_SRC, name)
		dst = os.path.join(mod_dir, name)
		if not os.path.exists(dst) or open(src, 'rb').read() != open(dst, 'rb').read():
			shutil.copyfile(src, dst)
	make_module(paths, spec, mod_dir, 'bench')
	return os.path.join(build, BENCH_MODULE)


def check_asked_config(paths: Paths, variant: Variant) -> None:
	"""A --kernel CONFIG line that did not stick would make two kernels
	the same: refuse it."""
	for line in variant.asked:
		name, value = parse_kconfig_option(line)
		have = config_value(paths, variant.spec, name) or 'n'
		if have != value:
			raise SlqbError(f'--kernel {variant.name}: {name}={value} came out '
					f'as {have} (a Kconfig dependency, or no such option '
					'in this tree)', exit_code=1)


def arm64_variant(variant: Variant) -> Variant:
	"""The same kernel built for arm64, for the icount-arm64 boots."""
	return dataclasses.replace(variant, spec=dataclasses.replace(
		variant.spec, arch=ARM64))


def prepare_variant(paths: Paths, variant: Variant) -> Prepared:
	"""Kernel, bench module and bench initramfs of one variant."""
	log(f'kernel {variant.name}: {variant.spec.alloc}, build {variant.spec.name}')
	prepared = prepare_kernel(paths, variant.spec)
	check_asked_config(paths, variant)
	with BuildLock(paths):
		build_module(paths, variant.spec)
		initrd = build_initramfs(paths, variant.spec, extra=BenchFiles())
	return dataclasses.replace(prepared, initrd=initrd)


# ---------------------------------------------------------------- booting

def kvm_device_problem(device: str = KVM_DEVICE) -> Optional[str]:
	"""Why KVM is out of the question without a boot (no device, or one
	that cannot be opened for reading and writing), else None."""
	try:
		fd = os.open(device, os.O_RDWR | os.O_CLOEXEC)
	except OSError as e:
		return f'{device}: {e.strerror}'
	os.close(fd)
	return None


def probe_kvm(paths: Paths, prepared: Prepared, name: str, plan: Plan,
	      shape: Shape) -> Optional[str]:
	"""None if a bench boot of prepared under KVM, in the shape of the
	wall-clock boots, runs one micro case to the bench's end line; else
	why not, with the console log of the attempt."""
	problem = kvm_device_problem()
	if problem:
		return problem
	probe = dataclasses.replace(plan, sizes='64', rounds=1, loops=1000)
	req = BootRequest(shape=shape, mode='bench', stress=0,
			  append=bench_append(probe, 'micro', 'pair'),
			  timeout=KVM_PROBE_TIMEOUT_S, console='markers', kvm=True)
	log(f'bench: probing KVM with a short boot of {name}')
	outcome = boot_kernel(paths, prepared, req, name=name,
			      log_name=f'bench-{name}-kvm-probe')
	parsed = parse_console(outcome.run.lines, name, 0, 'tcg')
	if not outcome.errors and parsed.ended and parsed.samples:
		return None
	what = outcome.errors[0].splitlines()[0] if outcome.errors else \
		'the guest did not finish the micro case'
	return f'a KVM boot failed: {what} (log: {outcome.log_path})'


def choose_accel(accel: str, probe) -> Tuple[bool, str]:
	"""(use KVM, how the report says it) for --accel: tcg never probes,
	auto falls back to TCG with the probe's reason, kvm refuses to."""
	if accel == 'tcg':
		return False, 'TCG (--accel tcg)'
	reason = probe()
	if reason is None:
		return True, 'KVM (-accel kvm -cpu host; a probe boot ran)'
	if accel == 'kvm':
		raise SlqbError(f'--accel kvm: {reason}', exit_code=1)
	return False, f'TCG, since KVM is unusable here ({reason})'


@dataclasses.dataclass
class BootResult:
	"""One bench boot: its parsed console and the problems found."""
	kernel: str
	run: int
	group: str
	parsed: Parsed
	errors: List[str]
	log_path: str
	elapsed: float


def bench_append(plan: Plan, workloads: str, cases: Optional[str],
		 serial: bool = False, model: bool = False) -> str:
	"""The kernel and guest parameters of a bench boot."""
	return BENCH_KERNEL_PARAMS + ' ' + \
		bench_params(workloads, plan.module_params(cases, serial, model),
			     plan.hackbench, plan.churn, plan.iperf_s, STAT_CASES,
			     plan.sys_reps)


def sys_icount_workloads(plan: Plan) -> str:
	"""The workloads of a sys-icount boot: the plan's, without the micro
	cases (the icount boot has them) and the profile (perf's samples would
	count instructions too)."""
	return ','.join(w for w in plan.workloads.split(',')
			if w not in ('micro', 'profile'))


def boot_group(icount: bool, arch: str) -> str:
	"""The group of a boot's micro rows: 'icount', 'icount-arm64' (an
	icount boot of another architecture) or 'tcg'."""
	if not icount:
		return 'tcg'
	return 'icount' if arch == DEFAULT_ARCH else f'icount-{arch}'


def boot_bench(paths: Paths, prepared: Prepared, name: str, run_no: int,
	       shape: Shape, append: str, icount: bool, timeout: float,
	       verbose: bool, kvm: bool = False,
	       plugin: Optional[str] = None, pcs: bool = False,
	       group: Optional[str] = None) -> BootResult:
	"""Boots prepared in bench mode (the boot path of every boot, with the
	bench's parameters) and parses its console; kvm: under KVM; plugin:
	with the cache model (see model.py), whose rows join the boot's;
	group: the boot's group if not boot_group()'s ('sys-icount')."""
	model_log = paths.new_log(f'bench-{name}-model') if plugin else ''
	req = BootRequest(shape=shape, mode='bench', stress=0, append=append,
			  timeout=timeout, console='stream' if verbose else 'markers',
			  icount=icount, kvm=kvm,
			  qemu_extra=model.qemu_args(plugin, model_log, pcs) if plugin else ())
	group = group or boot_group(icount, prepared.spec.arch)
	log(f'bench: {name} run {run_no + 1}, {group}')
	outcome = boot_kernel(paths, prepared, req, name=name,
			      log_name=f'bench-{name}-{shape.label()}-{group}')
	guest, log_path = outcome.run, outcome.log_path
	parsed = parse_console(guest.lines, name, run_no, group)
	errors = list(outcome.errors)
	if plugin:
		plugin_lines = read_text(model_log, '').splitlines()
		rows = model.model_samples(guest.lines, plugin_lines, name, run_no)
		if not rows:
			errors.append(f'{name}: the cache model gave no rows; plugin '
				      f'log: {model_log}')
		parsed.samples += rows
		if pcs:
			errors += attribute(paths, prepared, parsed, guest.lines,
					    plugin_lines, name, run_no)
	errors += [f'{name}: guest reported: {e}' for e in parsed.errors]
	if not parsed.ended:
		errors.append(f'{name}: the bench did not finish; log: {log_path}')
	log(f'boot: {name} {group} done in {fmt_duration(guest.elapsed)}: '
	    f'{len(parsed.samples)} numbers, {len(errors)} problems')
	return BootResult(name, run_no, group, parsed, errors, log_path,
			  guest.elapsed)


def attribute(paths: Paths, prepared: Prepared, parsed: Parsed,
	      console: Sequence[str], plugin_lines: Sequence[str], name: str,
	      run_no: int) -> List[str]:
	"""The cache model's attribution to functions (pcs=on) into parsed:
	its own and hooks rows and what profile.txt shows. Returns the
	problems."""
	build = prepared.spec.build_dir(paths)
	system_map = read_text(os.path.join(build, 'System.map'), '')
	if not system_map:
		return [f'{name}: no System.map in {build} for the attribution']
	att = model.attribution(console, plugin_lines, model.Symbols(system_map))
	if not att:
		return [f'{name}: the cache model attributed nothing to functions']
	parsed.kinds = model.function_kinds(build, allocator_symbols(build))
	parsed.attribution = att
	parsed.samples += model.attribution_samples(att, parsed.kinds, name, run_no)
	return []


def boot_order(names: Sequence[str], run_no: int) -> List[str]:
	"""The kernels rotated by run_no, so that no kernel always boots first."""
	k = run_no % len(names)
	return list(names[k:]) + list(names[:k])


# ---------------------------------------------------------------- reporting

def host_description() -> str:
	"""'2 x Intel(R) Xeon(R) Processor, 24 GiB, QEMU emulator version 7.2.22'."""
	model = '?'
	for line in read_text('/proc/cpuinfo', '').splitlines():
		if line.startswith('model name'):
			model = line.split(':', 1)[1].strip()
			break
	mem = 0
	for line in read_text('/proc/meminfo', '').splitlines():
		if line.startswith('MemTotal:'):
			mem = int(line.split()[1]) // (1024 * 1024)
	qemu = run(['qemu-system-x86_64', '--version'], timeout=60,
		   check=False).stdout.splitlines()
	return (f'host: {os.cpu_count()} x {model}, {mem} GiB, '
		f'{qemu[0] if qemu else "qemu ?"}')


def report_date() -> str:
	"""'2026-12-06 02:29 UTC': when a report was made."""
	return time.strftime('%Y-%m-%d %H:%M %Z')


def kernels_line(variants: Sequence[Variant], base_config: str) -> str:
	"""How the kernels' configs were made."""
	if not base_config:
		return f'kernels (debug and statistics off: {" ".join(BENCH_EXTRAS)}):'
	digest = variants[0].spec.base_digest[:12] if variants else '?'
	return (f'kernels (--base-config {base_config}, sha1 {digest}..., built '
		'as it is but for the allocator switch; what the switch changed '
		f'is in each build\'s {SWITCH_CHANGES}; its modules are not '
		'built):')


KVM_NOTE = ('The tcg and tcg-min rows of this run are wall-clock times '
	    'under KVM, not TCG; they keep their names. Absolute times in a '
	    'virtual machine mean little: only ratios between kernels '
	    'measured in the same run count.')


def wall_clock_note(accel: str) -> str:
	"""What the report says about its wall-clock rows, by accelerator."""
	return f'{KVM_NOTE} {TCG_NOTE}' if accel.startswith('KVM') else TCG_NOTE


def header_lines(variants: Sequence[Variant], shape: Shape, runs: int,
		 plan: Plan, quick: bool, base: str,
		 arm64: bool = False, date: str = '',
		 base_config: str = '', accel: str = 'TCG',
		 cache_model: bool = False,
		 icount_sys: bool = False) -> List[str]:
	"""What the run was, for the top of the report."""
	lines = [f'slqb bench{" --quick" if quick else ""}: {date or report_date()}, '
		 f'{base}, {runs} run(s), tcg shape {shape.describe()}; '
		 'icount boots: 1 vCPU' + (
			 ', with the slqb-cache plugin (the model rows: L1D 32 KiB '
			 '8-way, L2 1 MiB 16-way, dTLB 64 entries 4-way of 4 KiB '
			 'pages, LRU, by virtual address)' if cache_model else '') + (
			 f'; icount-arm64 boots: {ARM64_ICOUNT_SHAPE.cpus} vCPUs on one '
			 'TCG thread, 64 KiB pages, remote with serial=1'
			 if arm64 else ''), host_description(),
		 f'wall-clock boots (the tcg rows, sys, mem): {accel}; the icount '
		 'boots always run under TCG',
		 kernels_line(variants, base_config)]
	for v in variants:
		extra = f' + {" ".join(v.asked)}' if v.asked else ''
		boot = f', booted with {" ".join(v.params)}' if v.params else ''
		lines.append(f'  {v.name}: {v.spec.alloc}{extra} ({v.spec.name}'
			     f'{boot})')
	lines.append(f'micro: sizes {plan.sizes} + cache-200, {plan.rounds} rounds '
		     f'(median), pair x{plan.loops}, N={plan.objs}, rcu x{plan.rcu_objs}')
	lines += textwrap.wrap(wall_clock_note(accel), 76)
	if icount_sys:
		lines += textwrap.wrap(
			'sys-icount rows: the workloads alone in a 1-vCPU boot '
			'under -icount, where a guest second is 10^9 guest '
			'instructions (an idle vCPU skips ahead): work per '
			'instruction, exact, with neither MTTCG modes nor misses '
			'in it; the second CPU\'s remote frees are not in it '
			'either.', 76)
	lines += textwrap.wrap(
		"Cells: median ±spread ((max-min)/median over runs). Ratios: "
		"subject/baseline of the medians; '~': the same-run ratios fall "
		"on both sides of 1 (the spread is larger than the difference); "
		"'?': one run, spread unknown (icount rows are exact). better: "
		"which way is better for the row; for 'lower' rows a ratio above "
		"1 means the subject is worse. Micro rows here are geometric "
		"means over the sizes.", 76)
	return lines


def behind_lines(stats, pairing: Pairing) -> List[str]:
	"""Where each subject is furthest behind the best of SLAB/SLUB
	(the baselines but SLOB)."""
	lines = []
	others = [b for b in pairing.baselines if 'slob' not in b] or pairing.baselines
	for subj in pairing.subjects:
		worst = behind_best(stats, subj, others)
		if not worst:
			continue
		lines.append(f'{subj}: furthest behind the best of {", ".join(others)} '
			     '(every row, ranked by its run most favourable to '
			     f'{subj}):')
		for metric, times, who, r in worst:
			lines.append(f'  {metric.label} ({metric.unit}, {metric.better} is '
				     f'better): {r.value:.2f}x {who} (same-run range '
				     f'{r.low:.2f}-{r.high:.2f}, {r.n} run(s))')
	return lines


def command_line(argv: Sequence[str]) -> str:
	"""The command as it was run, from the top of the repository."""
	return ' '.join(['tools/testing/slqb/slqb.py'] +
			[shlex.quote(a) for a in argv[1:]])


def tree_description(repo: str = REPO_ROOT) -> str:
	"""`git describe --always --dirty` of the repository, or 'unknown'."""
	proc = run(['git', '-C', repo, 'describe', '--always', '--dirty'],
		   timeout=60, check=False)
	return proc.stdout.strip() if proc.returncode == 0 and proc.stdout.strip() \
		else 'unknown (not a git repository)'


def kernels_field(variants: Sequence[Variant]) -> str:
	"""The kernels as --kernel takes them: 'slqb=slqb, rnd=slqb:CONFIG_X=y'."""
	def items(v: Variant) -> List[str]:
		return list(v.asked) + [f'+{p}' for p in v.params]
	return ', '.join(f'{v.name}={v.spec.alloc}' +
			 (f':{",".join(items(v))}' if items(v) else '')
			 for v in variants)


def write_result(out_dir: str, run_id: str, command: str, date: str,
		 tree: str, variants: Sequence[Variant], duration: str,
		 summary: str) -> str:
	"""Writes <out_dir>/result.rst, the run as tools/testing/slqb/results/
	keeps it; returns its path."""
	result = BenchResult(run_id=run_id, command=command, date=date, tree=tree,
			     kernels=kernels_field(variants),
			     summary=summary_lines(summary), duration=duration)
	path = os.path.join(out_dir, 'result.rst')
	write_text(path, result_text(result))
	return path


def record_hint(path: str, run_id: str) -> str:
	"""How to record a run in tools/testing/slqb/results/."""
	target = os.path.join(os.path.relpath(RESULTS_DIR, REPO_ROOT), f'{run_id}.rst')
	return (f'to record this run: cp {path} {target} (from the top of the '
		'repository), say in a paragraph under "What it showed" what it '
		'showed, and commit it; `slqb series` puts the newest one into the '
		'cover letter')


def write_report(out_dir: str, head: List[str], samples: List[Sample],
		 pairing: Pairing, problems: List[str]) -> str:
	"""Writes the tables, CSVs and plot; returns the summary text."""
	full = collect(samples)
	summary_stats = collect(aggregate(samples))
	full_rows = table_rows(full, pairing)
	summary_rows = table_rows(summary_stats, pairing)
	behind = behind_lines(full, pairing)
	control = control_lines(full, pairing)
	parts = head + ['', format_table(summary_rows), ''] + behind + \
		([''] + control if control else [])
	if problems:
		parts += ['', f'{len(problems)} problem(s):'] + \
			 [quote_lines(p.splitlines()) for p in problems]
	summary = '\n'.join(parts) + '\n'
	write_text(os.path.join(out_dir, 'summary.txt'), summary)
	write_text(os.path.join(out_dir, 'table.txt'),
		   '\n'.join(head + ['', format_table(full_rows)]) + '\n')
	write_text(os.path.join(out_dir, 'summary.csv'), csv_text(summary_rows))
	write_text(os.path.join(out_dir, 'table.csv'), csv_text(full_rows))
	write_text(os.path.join(out_dir, 'samples.csv'), samples_csv(samples))
	try:
		png = write_plot(full, pairing.kernels, out_dir)
	except (RuntimeError, OSError) as e:
		png = None
		warn(f'no plot: {e}')
	if png:
		log(f'plot: {png}')
	return summary


# ---------------------------------------------------------------- commands

def out_directory(paths: Paths, given: Optional[str], run_id: str) -> str:
	"""--out, else <cache>/bench/<run id>."""
	out = given or os.path.join(paths.cache, 'bench', run_id)
	os.makedirs(out, exist_ok=True)
	return out


def icount_fixed(paths: Paths, prepared: Prepared) -> str:
	"""What an icount boot of prepared adds to its kernel parameters so
	that it runs at the same addresses every time: ' nokaslr' if the
	kernel randomises them (a distribution config does), else nothing
	(a kernel without KASLR would pass the word on to init). The cache
	model indexes by address, and its attribution reads System.map."""
	if config_value(paths, prepared.spec, 'CONFIG_RANDOMIZE_BASE') == 'y':
		return ' nokaslr'
	return ''


def run_boots(paths: Paths, prepared: Dict[str, Prepared], names: List[str],
	      args: argparse.Namespace, plan: Plan, runs: int,
	      arm64: Optional[Dict[str, Prepared]] = None,
	      params: Optional[Dict[str, str]] = None,
	      kvm: bool = False) -> List[BootResult]:
	"""Every boot of the comparison, in alternating order; @params: the
	kernel parameters of each kernel's own boots, by name; kvm: the
	wall-clock boots under KVM."""
	shape = Shape(args.cpus, args.nodes, prealloc=args.prealloc)
	results = []
	plugin = getattr(args, 'plugin', None)
	icount_append = bench_append(plan, 'micro', ICOUNT_CASES, model=bool(plugin))
	sys_icount_append = bench_append(plan, sys_icount_workloads(plan), None)
	arm64_append = bench_append(plan, 'micro', ARM64_ICOUNT_CASES, serial=True)
	tcg_append = bench_append(plan, plan.workloads, None)
	for run_no in range(runs):
		for name in boot_order(names, run_no):
			own = f' {params[name]}' if params and params.get(name) else ''
			if run_no < args.icount_runs:
				fixed = icount_fixed(paths, prepared[name])
				results.append(boot_bench(paths, prepared[name], name, run_no,
							  Shape(1, 1),
							  icount_append + fixed + own,
							  True, args.timeout, args.verbose,
							  plugin=plugin,
							  pcs=getattr(args, 'profile', False)))
				if arm64:
					results.append(boot_bench(
						paths, arm64[name], name, run_no,
						ARM64_ICOUNT_SHAPE, arm64_append + own, True,
						args.timeout, args.verbose))
				if args.icount_sys:
					results.append(boot_bench(
						paths, prepared[name], name, run_no, Shape(1, 1),
						sys_icount_append + fixed + own, True,
						args.timeout * SYS_ICOUNT_TIMEOUT_FACTOR,
						args.verbose, group='sys-icount'))
			results.append(boot_bench(paths, prepared[name], name, run_no,
						  shape, tcg_append + own, False,
						  args.timeout, args.verbose, kvm))
	return results


def write_profile(out_dir: str, head: List[str],
		  results: Sequence[BootResult]) -> bool:
	"""profile.txt, after head: perf's profiles of the workloads and the
	cache model's attribution to functions, whichever the boots have.
	Returns whether there was anything to write."""
	profiles = [p for r in results for p in r.parsed.profiles]
	where = {r.kernel: (r.parsed.attribution, r.parsed.kinds)
		 for r in results if r.parsed.attribution}
	if not profiles and not where:
		return False
	text = list(head)
	if profiles:
		text += ['', PROFILE_HEAD, profile_text(profiles)]
	if where:
		text += ['', ATTRIBUTION_HEAD, model.attribution_text(where)]
	write_text(os.path.join(out_dir, 'profile.txt'), '\n'.join(text) + '\n')
	return True


def cmd_bench(args: argparse.Namespace) -> int:
	"""slqb bench: build, boot, measure, report."""
	variants = parse_variants(args.kernel)
	pairing = pairing_for(variants, args.baseline)
	check_args(args)
	if args.base_config is not None:
		variants = on_base_config(variants, args.base_config)
	if args.counters:
		return cmd_counters(args)
	plan = QUICK if args.quick else FULL
	if args.profile:
		plan = dataclasses.replace(plan, workloads=plan.workloads + ',profile')
	runs = args.runs or (2 if args.quick else 3)
	if args.timeout is None:
		args.timeout = 900 if not args.quick else 600
	ensure_packages()
	ensure_packages(BENCH_PACKAGES)
	if args.icount_arm64:
		ensure_packages(list(arch_of(ARM64).packages))
	paths = Paths.from_env()
	start = time.monotonic()
	args.plugin = model.build_plugin(os.path.join(paths.cache, 'plugin')) \
		if args.model else None
	tree = tree_description()	# what the kernels are built from
	prepared = {v.name: prepare_variant(paths, v) for v in variants}
	arm64 = {v.name: prepare_variant(paths, arm64_variant(v))
		 for v in variants} if args.icount_arm64 else None
	shape = Shape(args.cpus, args.nodes, prealloc=args.prealloc)
	first = variants[0].name
	kvm, accel = choose_accel(args.accel, lambda: probe_kvm(
		paths, prepared[first], first, plan, shape))
	log(f'bench: wall-clock boots under {accel}')
	run_id = time.strftime('%Y%m%d-%H%M%S')
	out_dir = out_directory(paths, args.out, run_id)
	log(f'bench: {len(variants)} kernels, {runs} run(s); run {run_id}, '
	    f'results in {out_dir}')
	log(wall_clock_note(accel))
	results = run_boots(paths, prepared, [v.name for v in variants], args,
			    plan, runs, arm64,
			    {v.name: ' '.join(v.params) for v in variants}, kvm)
	samples = [s for r in results for s in r.parsed.samples]
	problems = [e for r in results for e in r.errors]
	base = next(iter(prepared.values())).base
	date = report_date()
	head = header_lines(variants, shape, runs, plan, args.quick, base,
			    bool(arm64), date, args.base_config or '', accel,
			    bool(args.plugin), args.icount_sys)
	head.append(f'console logs: {", ".join(os.path.basename(r.log_path) for r in results)} '
		    f'(in {paths.logs})')
	summary = write_report(out_dir, head, samples, pairing, problems)
	profiled = write_profile(out_dir, head[:1], results)
	took = fmt_duration(time.monotonic() - start)
	result = write_result(out_dir, run_id, command_line(sys.argv), date,
			      tree, variants, took, summary)
	print(summary, flush=True)
	log(f'results: {out_dir} (summary.txt, table.txt, *.csv, plot.png, '
	    f'result.rst{", profile.txt" if profiled else ""}); total {took}')
	log(record_hint(result, run_id))
	return 1 if problems or not samples else 0


# ---------------------------------------------------------------- counters

COUNTER_COLUMNS = ('alloc', 'free', 'alloc_slab_fill', 'alloc_slab_new',
		   'free_remote', 'flush_free_list', 'flush_free_list_objects',
		   'flush_free_list_remote', 'flush_slab_partial',
		   'flush_slab_free', 'flush_rfree_list',
		   'flush_rfree_list_objects', 'claim_remote_list',
		   'claim_remote_list_objects', 'remote_cap_hit', 'trim_runs',
		   'trim_objects')


# CONFIG_SLUB_STATS counters of the SLUB side of the page-allocator table
SLUB_COUNTER_COLUMNS = ('alloc_fastpath', 'alloc_slowpath', 'alloc_slab',
			'free_slab')


def counter_deltas(stats: List[Dict[str, str]],
		   columns: Sequence[str] = COUNTER_COLUMNS,
		   min_first: int = 1000) -> List[List[str]]:
	"""Rows (case, cache, delta per counter) from before/after dumps,
	for caches whose first counter moved by min_first or more."""
	before = {(s['case'], s['cache']): s for s in stats if s.get('phase') == 'before'}
	rows = [['case', 'cache'] + list(columns)]
	for s in stats:
		if s.get('phase') != 'after':
			continue
		b = before.get((s['case'], s['cache']))
		if not b:
			continue
		delta = []
		for c in columns:
			try:
				delta.append(int(s.get(c, 0)) - int(b.get(c, 0)))
			except ValueError:
				delta.append(0)
		if delta[0] >= min_first:
			rows.append([s['case'], s['cache']] + [str(d) for d in delta])
	return rows


def per_1000(count: int, allocs: int) -> str:
	"""count per 1000 allocations, one decimal ('-' without allocations)."""
	return f'{1000.0 * count / allocs:.1f}' if allocs else '-'


def page_trips_view(slqb: List[List[str]],
		    slub: List[List[str]]) -> Tuple[str, List[List[str]]]:
	"""Page-allocator round trips (slabs allocated plus slabs freed) of
	SLQB and SLUB per micro case and cache, per 1000 allocations as SLQB
	counted them (SLUB's own alloc counters skip its bulk fast path; both
	kernels ran the same module with the same parameters). Returns a
	summary line and the rows."""
	theirs = {(r[0], r[1]): dict(zip(slub[0], r)) for r in slub[1:]}
	rows = [['case', 'cache', 'allocs', 'slqb_new', 'slqb_freed',
		 'slub_new', 'slub_freed', 'slqb/1k', 'slub/1k', 'slqb/slub']]
	worse = []
	for row in slqb[1:]:
		ours = dict(zip(slqb[0], row))
		other = theirs.get((ours['case'], ours['cache']))
		if not other:
			continue
		allocs = int(ours['alloc'])
		mine = int(ours['alloc_slab_new']) + int(ours['flush_slab_free'])
		their = int(other['alloc_slab']) + int(other['free_slab'])
		if their:
			ratio = f'{mine / their:.2f}'
		else:
			ratio = '-' if not mine else 'inf'
		if mine > their:
			worse.append((f'{ours["case"]}/{ours["cache"]}',
				      mine > 1.1 * their and
				      (mine - their) * 1000 >= allocs))
		rows.append([ours['case'], ours['cache'], str(allocs),
			     ours['alloc_slab_new'], ours['flush_slab_free'],
			     other['alloc_slab'], other['free_slab'],
			     per_1000(mine, allocs), per_1000(their, allocs), ratio])
	clear = [w for w, by_much in worse if by_much]
	line = (f'{len(rows) - 1} case/cache rows; SLQB makes more round trips '
		f'than SLUB in {len(worse)}, more than 1.1x and by at least one '
		f'per 1000 allocations in {len(clear)}' +
		(f': {", ".join(clear)}' if clear else ''))
	return line, rows


# (allocations, slabs taken, slabs given back) in each allocator's dump
WORKLOAD_TRIP_FIELDS = {
	'slqb': (('alloc',), 'alloc_slab_new', 'flush_slab_free'),
	'slub': (('alloc_fastpath', 'alloc_slowpath'), 'alloc_slab', 'free_slab'),
}


def workload_trips(stats: List[Dict[str, str]],
		   alloc: str) -> Optional[Tuple[int, int, int]]:
	"""Allocations, slabs taken from and slabs given back to the page
	allocator, summed over every cache of the dump after the workloads
	(counters since boot), for 'slqb' or 'slub'; None without a dump."""
	allocs_keys, new_key, freed_key = WORKLOAD_TRIP_FIELDS[alloc]
	allocs = new = freed = 0
	seen = False
	for s in stats:
		if s.get('phase') != 'after' or s.get('case') != 'workloads':
			continue
		try:
			n = sum(int(s[k]) for k in allocs_keys)
			taken, given = int(s[new_key]), int(s[freed_key])
		except (KeyError, ValueError):
			continue
		seen = True
		allocs += n
		new += taken
		freed += given
	return (allocs, new, freed) if seen else None


def workload_trips_line(name: str,
			trips: Optional[Tuple[int, int, int]]) -> str:
	"""One allocator's page-allocator round trips over the workloads."""
	if trips is None:
		return f'{name}: no counters after the workloads'
	allocs, new, freed = trips
	return (f'{name}: {new} slabs taken and {freed} given back for {allocs} '
		f'allocations, {per_1000(new + freed, allocs)} round trips per '
		f'1000 allocations')


def pct(part: int, whole: int) -> str:
	"""part/whole in percent, one decimal ('-' when whole is 0)."""
	return f'{100.0 * part / whole:.1f}' if whole else '-'


def counter_view(rows: List[List[str]]) -> List[List[str]]:
	"""The deltas as shares of the allocations and frees: how often the
	fast path missed, and where the objects went."""
	head = rows[0]
	view = [['case', 'cache', 'alloc', '%fill', '%newslab', '%free_remote',
		 '%flushed', '%slab_freed', '%rfree_moved', '%claimed',
		 'cap_hits', 'trim_objs']]
	for row in rows[1:]:
		c = dict(zip(head, row))
		n = {k: int(v) for k, v in c.items() if k not in ('case', 'cache')}
		view.append([c['case'], c['cache'], str(n['alloc']),
			     pct(n['alloc_slab_fill'], n['alloc']),
			     pct(n['alloc_slab_new'], n['alloc']),
			     pct(n['free_remote'], n['free']),
			     pct(n['flush_free_list_objects'], n['free']),
			     pct(n['flush_slab_free'], n['free']),
			     pct(n['flush_rfree_list_objects'], n['free']),
			     pct(n['claim_remote_list_objects'], n['alloc']),
			     str(n['remote_cap_hit']), str(n['trim_objects'])])
	return view


COUNTER_LEGEND = """\
Per micro case (each run alone) and kmalloc cache, SLQB's counters moved by:
  %fill        allocations that refilled the LIFO from a partial slab
               (alloc_slab_fill / alloc)
  %newslab     allocations that needed a new slab from the page allocator
               (alloc_slab_new / alloc)
  %free_remote frees of objects whose slab is on another CPU's or node's
               list (free_remote / free)
  %flushed     objects flushed from a LIFO past hiwater (flush_free_list_
               objects / free)
  %slab_freed  frees that ended with an empty slab going back to the page
               allocator (flush_slab_free / free)
  %rfree_moved objects handed over in remote batches (flush_rfree_list_
               objects / free)
  %claimed     allocations served by claiming a remote list (claim_remote_
               list_objects / alloc)
  cap_hits     remote hand-overs over the cap, returned under the lock
  trim_objs    objects trimmed by the periodic trim
"""


# The counters boots: each micro case alone, then the system workloads,
# then every cache's counters (the trim maxima of the whole boot, and both
# allocators' page-allocator round trips).
COUNTER_WORKLOADS = 'stats,hackbench,perf,churn,net,loops,trim'
TRIM_TOP = 12
TRIM_LEGEND = """\
The periodic trim over the whole boot (the micro cases, then hackbench,
perf messaging, the file churn, the RR and stream drivers and the
per-system-call loops): per cache, its passes, the objects
they released, and the longest pass in ns and the most objects one pass
released (trim_worst_ns, trim_worst_objects), the caches with the longest
pass first."""


def trim_view(stats: List[Dict[str, str]]) -> Tuple[str, List[List[str]]]:
	"""The trim maxima of every cache after the workloads (the 'trim'
	dump): a summary line, and the caches whose worst pass took longest."""
	caches = []
	for s in stats:
		if s.get('phase') != 'after' or s.get('case') != 'workloads':
			continue
		try:
			n = {k: int(s[k]) for k in ('trim_runs', 'trim_objects',
						    'trim_worst_ns',
						    'trim_worst_objects',
						    'hiwater', 'freebatch')}
		except (KeyError, ValueError):
			continue
		if n['trim_runs']:
			caches.append((s.get('cache', '?'), n))
	if not caches:
		return 'no cache was trimmed (or the guest printed no trim dump)', []
	caches.sort(key=lambda c: (-c[1]['trim_worst_ns'], c[0]))
	over = [c for c, n in caches if n['trim_worst_objects'] > n['freebatch']]
	worst_ns = max(n['trim_worst_ns'] for _, n in caches)
	worst_objs = max(n['trim_worst_objects'] for _, n in caches)
	line = (f'{len(caches)} caches trimmed; worst pass {worst_ns} ns, most '
		f'objects in one pass {worst_objs}; passes over freebatch in '
		f'{len(over)} of them (an idle LIFO flushed whole, at most hiwater)')
	rows = [['cache', 'runs', 'objects', 'worst_ns', 'worst_objs',
		 'freebatch', 'hiwater']]
	for cache, n in caches[:TRIM_TOP]:
		rows.append([cache, str(n['trim_runs']), str(n['trim_objects']),
			     str(n['trim_worst_ns']), str(n['trim_worst_objects']),
			     str(n['freebatch']), str(n['hiwater'])])
	return line, rows


WORKLOAD_TRIPS_LEGEND = """\
Page-allocator round trips over the workloads, every cache (SLUB's merged
caches each once), counted since boot: SLQB's statistics kernel and the
SLUB kernel with CONFIG_SLUB_STATS=y ran the same workloads."""


PAGE_TRIPS_LEGEND = """\
Page-allocator round trips per micro case and kmalloc cache: slabs taken
from the page allocator (SLQB alloc_slab_new, SLUB alloc_slab) and given
back (SLQB flush_slab_free, SLUB free_slab), SLQB's statistics kernel
against a SLUB kernel of the same config with CONFIG_SLUB_STATS=y, each
case run alone in the same shape; per 1000 allocations as SLQB counted
them."""


def cmd_counters(args: argparse.Namespace) -> int:
	"""slqb bench --counters: each micro case alone on the SLQB kernel of
	`slqb boot` (CONFIG_SLQB_STATS=y), SLQB's counters before and after,
	then the workloads and the trim maxima of every cache; and the same
	on SLUB with CONFIG_SLUB_STATS=y, for the page-allocator round trips
	of both, per micro case and over the workloads."""
	plan = QUICK if args.quick else FULL
	ensure_packages()
	ensure_packages(BENCH_PACKAGES)
	paths = Paths.from_env()
	variant = Variant('slqb-stats', KernelSpec('slqb'))
	slub = Variant('slub-stats', KernelSpec('slub', ('CONFIG_SLUB_STATS=y',)),
		       ('CONFIG_SLUB_STATS=y',))
	prepared = prepare_variant(paths, variant)
	if config_value(paths, variant.spec, 'CONFIG_SLQB_STATS') != 'y':
		raise SlqbError('the slqb kernel has no CONFIG_SLQB_STATS')
	slub_prepared = prepare_variant(paths, slub)
	out_dir = out_directory(paths, args.out, time.strftime('%Y%m%d-%H%M%S'))
	shape = Shape(args.cpus, args.nodes)
	result = boot_bench(paths, prepared, variant.name, 0, shape,
			    bench_append(plan, COUNTER_WORKLOADS, None), False,
			    args.timeout or 1200, args.verbose)
	slub_result = boot_bench(paths, slub_prepared, slub.name, 0, shape,
				 bench_append(plan, COUNTER_WORKLOADS, None),
				 False, args.timeout or 1200, args.verbose)
	rows = counter_deltas(result.parsed.stats)
	slub_rows = counter_deltas(slub_result.parsed.stats, SLUB_COUNTER_COLUMNS, 0)
	trips_line, trips_rows = page_trips_view(rows, slub_rows)
	trim_line, trim_rows = trim_view(result.parsed.stats)
	workload_lines = '\n'.join((
		workload_trips_line('SLQB', workload_trips(result.parsed.stats,
							   'slqb')),
		workload_trips_line('SLUB', workload_trips(slub_result.parsed.stats,
							   'slub'))))
	text = (f'SLQB counters per micro case (caches with 1000+ allocs), '
		f'{shape.describe()}, kernel {variant.spec.name} (debug config, '
		f'SLQB_STATS=y), log {result.log_path}\n\n{COUNTER_LEGEND}\n'
		f'{format_table(counter_view(rows))}\n\n{PAGE_TRIPS_LEGEND}\n'
		f'SLUB: kernel {slub.spec.name}, log {slub_result.log_path}\n'
		f'{trips_line}\n\n{format_table(trips_rows)}\n\n'
		f'{WORKLOAD_TRIPS_LEGEND}\n{workload_lines}\n\nRaw deltas:\n\n'
		f'{format_table(rows)}\n\n{TRIM_LEGEND}\n{trim_line}\n\n'
		f'{format_table(trim_rows) if trim_rows else ""}\n')
	write_text(os.path.join(out_dir, 'counters.txt'), text)
	write_text(os.path.join(out_dir, 'counters.csv'), csv_text(rows))
	write_text(os.path.join(out_dir, 'page-trips.csv'), csv_text(trips_rows))
	print(text, flush=True)
	errors = result.errors + slub_result.errors
	for e in errors:
		print(f'ERROR: {e}', flush=True)
	log(f'counters: {out_dir}/counters.txt, counters.csv, page-trips.csv')
	return 1 if errors else 0


def add_parser(sub: argparse._SubParsersAction, positive_int) -> None:
	"""The `slqb bench` command line."""
	p = sub.add_parser('bench', help='benchmark SLQB against SLAB, SLUB and SLOB')
	p.add_argument('--quick', action='store_true',
		       help='reduced run: fewer sizes, rounds and runs (under 20 '
		       'minutes with the kernels built)')
	p.add_argument('--runs', type=positive_int, default=None, metavar='R',
		       help='repeats of every boot, alternating kernels (default 3, '
		       '--quick 2)')
	p.add_argument('--icount-runs', type=positive_int, default=1, metavar='R',
		       help='runs that also do the 1-vCPU icount boot (exact, so 1 '
		       'is enough; default 1)')
	p.add_argument('--icount-arm64', action=argparse.BooleanOptionalAction,
		       default=None,
		       help='also build each kernel for arm64 and count the micro '
		       'cases, remote and allcpu with 2 vCPUs under icount '
		       '(default on, but off with --base-config; '
		       'the arm64 builds take about 8 minutes each)')
	p.add_argument('--base-config', metavar='FILE', default=None,
		       help='build every kernel from this x86_64 .config (plain, '
		       '.xz or .gz; Debian\'s linux-config-6.1 has them) with '
		       'only the allocator switched, instead of tinyconfig, the '
		       'harness\'s fragments and the bench\'s debug-off lines; '
		       'the config\'s modules are not built')
	p.add_argument('--kernel', action='append', default=[],
		       metavar='NAME=ALLOC[:CONFIG_X=V,...,+PARAM=V,...]',
		       help='a kernel to compare (repeatable): its allocator, '
		       'config lines, and kernel parameters (+PARAM) that only '
		       'its boots get; default: slqb, slub, slab and slob')
	p.add_argument('--baseline', action='append', default=None, metavar='NAME',
		       help='kernel(s) the others are divided by (default: the '
		       'slub, slab and slob kernels, else the first)')
	p.add_argument('--cpus', type=positive_int, default=2,
		       help='vCPUs of the multi-CPU boots (default 2)')
	p.add_argument('--nodes', type=positive_int, default=1,
		       help='NUMA nodes with memory (default 1; 2 adds kmalloc_node '
		       'to the other node)')
	p.add_argument('--prealloc', action=argparse.BooleanOptionalAction,
		       default=True,
		       help='have QEMU touch the guest RAM of the wall-clock boots '
		       'before they start (memory backends with prealloc=on), '
		       'so that no kernel pays the host\'s page faults of first '
		       'touch (default on)')
	p.add_argument('--model', action=argparse.BooleanOptionalAction,
		       default=True,
		       help='run the x86_64 icount boots with the slqb-cache QEMU '
		       'plugin, a cache and TLB model, for the model rows: misses '
		       'per operation, exact (default on)')
	p.add_argument('--accel', choices=ACCELS, default='auto',
		       help='what runs the wall-clock boots: auto (KVM with the '
		       'host\'s CPU if a short probe boot under it works, else '
		       'TCG, saying why), tcg, or kvm (fail if the probe does); '
		       'the icount boots are always TCG')
	p.add_argument('--timeout', type=float, default=None, metavar='S',
		       help='limit per boot (default 900 s, --quick 600 s)')
	p.add_argument('--out', default=None, metavar='DIR',
		       help='results directory (default <cache>/bench/<timestamp>)')
	p.add_argument('--counters', action='store_true',
		       help='run each micro case alone, then the workloads, on the '
		       'SLQB_STATS kernel of `slqb boot` and show the SLQB '
		       'counters and the trim\'s worst passes; and the same '
		       'on SLUB with SLUB_STATS, for both allocators\' '
		       'page-allocator round trips')
	p.add_argument('--profile', action='store_true',
		       help='after the workloads, run them again under perf\'s '
		       'system-wide cpu-clock sampling and show which share of '
		       'the samples that were not idle fell in the allocator\'s '
		       'functions (the prof rows); and, with --model, attribute '
		       'each micro case\'s instructions and misses to functions '
		       '(the own and hooks rows, and profile.txt)')
	p.add_argument('--icount-sys', action='store_true',
		       help='in the icount runs, also boot each kernel with 1 '
		       'vCPU under -icount for the system workloads alone: '
		       'the sys-icount rows, each workload\'s rate per 10^9 '
		       'guest instructions (exact; no MTTCG mode moves them, '
		       'and they are blind to misses); about 10 minutes a '
		       'kernel with --quick')
	p.add_argument('--verbose', action='store_true',
		       help='stream the guest consoles')
	p.set_defaults(func=cmd_bench)

