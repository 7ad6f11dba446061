# SPDX-License-Identifier: GPL-2.0
#
# The end-to-end PAN proof, in boots of their own: KUnit never provokes a
# PAN fault, LKDTM does. The kernels are those of `run`: every pan-kunit
# build merges KCONFIG (LKDTM, debugfs, initramfs) into the kunitconfig,
# with the same fragments as `run` (targets.fragments()).
# Booted with KUnit disabled, a kernel runs an initramfs whose init
# (guest/lkdtm_init.c) writes one crash type to provoke-crash/DIRECT, and the
# console says how the kernel took it.

import os
import shlex
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from pan_kunit import Error, StrEnum
from pan_kunit.commands import sharding
from pan_kunit.commands.boot_request import BootRequest
from pan_kunit.commands.session import Session
from pan_kunit.host import files, summary
from pan_kunit.host.files import JsonObj
from pan_kunit.host.printer import Printer
from pan_kunit.host.progress import Progress
from pan_kunit.kunit_tool import configs, kunit_py
from pan_kunit.kunit_tool.configs import QemuConfig
from pan_kunit.kunit_tool.toolchains import BuildSettings
from pan_kunit.matrix import boots, builds, initramfs, jobs
from pan_kunit.matrix.plan import Build, MatrixPlan
from pan_kunit.results import config_result
from pan_kunit.trees import targets
from pan_kunit.trees.targets import Target
from pan_kunit.trees.tree import state_dir

KCONFIG = targets.LKDTM_KCONFIG
INIT_SOURCE = initramfs.LKDTM_INIT
# ACCESS_USERSPACE: PAN stops a read of a user page; EXEC_USERSPACE: user
# pages are PXN; ACCESS_NULL: a read of address 0 goes down the fault
# path of an unmapped address (__do_kernel_fault()) unless SW TTBR0 PAN
# takes it for a PAN fault.
CRASH_TYPES = ['ACCESS_USERSPACE', 'EXEC_USERSPACE', 'ACCESS_NULL']

# Whether QEMU 7.2's CPU models implement FEAT_PAN (ID_AA64MMFR1_EL1.PAN
# non-zero); what the boot must show is decided from this and from the
# config's kconfig (SW_PAN_KCONFIG), not from what the kernel under test
# says it detected.
CPU_HAS_PAN = {
	'max': True, 'cortex-a76': True, 'neoverse-n1': True,
	'cortex-a53': False, 'cortex-a57': False, 'cortex-a72': False,
}

# The kernel's own lines: arch/arm64/mm/fault.c and drivers/misc/lkdtm.
PAN_CAUGHT = 'Unable to handle kernel access to user memory outside uaccess routines'
PXN_CAUGHT = 'Unable to handle kernel execution of user memory'
# die_kernel_fault()'s line for a read of address 0 that is no PAN fault:
# the address it prints is __do_kernel_fault()'s, so arguments gone wrong
# print another (e.g. "paging request at virtual address 0000000096000006").
NULL_CAUGHT = ('Unable to handle kernel NULL pointer dereference at virtual address '
	       '0000000000000000')
SURVIVED_READ = 'lkdtm: FAIL: survived bad read'
# LKDTM's printk as it starts the crash type it was given.
LKDTM_PROVOKED = 'lkdtm: Performing direct entry '
# And our init's.
INIT_PROVOKING = 'pan-kunit init: provoking '
INIT_SURVIVED = 'pan-kunit init: survived '
# How much of a console a failed verdict shows.
LOG_LINES = 25

@dataclass
class BootVerdict:
	ok: bool
	summary: str        # what happened, with the kernel's line quoted
	log: Optional[str]  # the console, for a verdict that is not ok

# PAN without FEAT_PAN: the kernel keeps TTBR0_EL1 on an empty table
# outside uaccess windows, and a stray access to user memory faults too.
SW_PAN_KCONFIG = 'CONFIG_ARM64_SW_TTBR0_PAN=y'

class PanSource(StrEnum):
	"""Who provides PAN, as the report says it."""
	CPU = 'CPU'              # the QEMU model implements FEAT_PAN, which the kernel prefers
	SW_TTBR0 = 'SW TTBR0'    # the config's kconfig emulates it

def pan_source(config: QemuConfig) -> Optional[PanSource]:
	"""Who provides PAN in this config, if anyone."""
	model = config.cpu.split(',')[0]
	if model not in CPU_HAS_PAN:
		raise Error(f'{config.path}: no known PAN level for QEMU CPU {model!r}; '
			    f'add it to CPU_HAS_PAN in {__file__}')
	if CPU_HAS_PAN[model]:
		return PanSource.CPU
	if SW_PAN_KCONFIG in config.kconfig.splitlines():
		return PanSource.SW_TTBR0
	return None

def has_pan(config: QemuConfig) -> bool:
	return pan_source(config) is not None

def expected(crash: str, pan: Optional[PanSource]) -> str:
	"""The console line that shows the right outcome, where @pan (None:
	no PAN) provides PAN."""
	if crash == 'EXEC_USERSPACE':
		return PXN_CAUGHT  # user pages are PXN, with or without PAN
	if crash == 'ACCESS_NULL':
		# Address 0 is a user address, never mapped: a translation fault,
		# which is a PAN fault only when TTBR0 holds the reserved tables
		# and the emulated PSTATE.PAN is set.
		return PAN_CAUGHT if pan == PanSource.SW_TTBR0 else NULL_CAUGHT
	return PAN_CAUGHT if pan is not None else SURVIVED_READ

def _find(lines: List[str], text: str) -> Optional[str]:
	for line in lines:
		if text in line:
			return line[line.index(text):].strip()
	return None

def judge(console: Optional[str], crash: str, pan: Optional[PanSource]) -> BootVerdict:
	lines = (console or '').splitlines()
	want = expected(crash, pan)
	caught = want != SURVIVED_READ
	# init's lines and LKDTM's are both printks (init writes /dev/kmsg):
	# each whole, in the order they were made.
	if not _find(lines, INIT_PROVOKING + crash) and not _find(lines, LKDTM_PROVOKED + crash):
		return BootVerdict(False, f'init never provoked {crash}', console)
	found = _find(lines, want)
	survived = _find(lines, INIT_SURVIVED + crash)
	other = _find(lines, 'Unable to handle kernel') if not caught else None
	if caught and survived:
		return BootVerdict(False, f'survived; expected "{want}"', console)
	# A read of address 0 that survived, then a write that died, prints
	# the line of a read that died.
	if crash == 'ACCESS_NULL' and _find(lines, SURVIVED_READ):
		return BootVerdict(False, f'survived the read; expected "{want}"', console)
	if found and caught:
		return BootVerdict(True, f'caught: "{found}"', None)
	if found and survived and not other:
		return BootVerdict(True, f'survived, as without PAN: "{found}"', None)
	return BootVerdict(False, f'expected "{want}", not found', console)

def boot_cmdline(config: QemuConfig, crash: str) -> str:
	"""The whole kernel command line of an LKDTM boot: the config's own,
	KUnit disabled (no suite runs), and the crash type for init.  It is
	given to QEMU as an -append of its own after kunit.py's, which QEMU
	takes instead: kunit.py's ends with kunit_shutdown=reboot, which would
	end the boot as soon as KUnit is done, before init runs."""
	return f'{config.cmdline} kunit.enable=0 pankunit_crash={crash}'.strip()

def run(plan: MatrixPlan, repo: str, progress: Progress,
	settings: BuildSettings) -> Dict[Tuple[str, str], BootVerdict]:
	"""Builds the initramfs (first: it takes seconds, the kernels minutes),
	the kernels of @plan, with its kconfig fragments (KCONFIG must be among
	them), then boots each built config once per crash type, with a line
	per boot as `run` prints them."""
	tree = plan.tree
	for config in plan.configs:
		pan_source(config)  # a CPU of no known PAN level fails before any work
	if os.path.join(repo, KCONFIG) not in plan.fragments:
		raise Error(f'lkdtm: the kernels would be built without {KCONFIG}')
	cpio = initramfs.pack(tree, os.path.join(repo, INIT_SOURCE), 'lkdtm')
	built: List[Tuple[QemuConfig, Build]] = []
	verdicts: Dict[Tuple[str, str], BootVerdict] = {}
	ok = builds.build_all(plan, progress, settings)
	for build in plan.builds():
		if ok[build.key]:
			built.extend((c, build) for c in build.group)
		else:
			for config in build.group:
				for crash in CRASH_TYPES:
					verdicts[config.name, crash] = BootVerdict(False, 'build failed', None)
	verdicts.update(boot(progress, tree, plan.kunit_dir, built, cpio, plan.timeout,
			     BootDirs(state_dir(tree, 'exec'), state_dir(tree, 'logs'), 'lkdtm-')))
	return verdicts

@dataclass
class BootDirs:
	"""Where the LKDTM boot of a config and crash type keeps its files:
	EXEC_ROOT/PREFIXCONFIG-CRASH, kunit.py exec's --build_dir, and its
	log LOG_ROOT/PREFIXCONFIG-CRASH.log."""
	exec_root: str
	log_root: str
	prefix: str = ''

	def exec_dir(self, config: str, crash: str) -> str:
		return os.path.join(self.exec_root, f'{self.prefix}{config}-{crash}')

	def log(self, config: str, crash: str) -> str:
		return os.path.join(self.log_root, f'{self.prefix}{config}-{crash}.log')

def boot(progress: Progress, tree: str, kunit_dir: str, built: Sequence[Tuple[QemuConfig, Build]],
	 cpio: str, timeout: int, dirs: BootDirs,
	 quiet: bool=False) -> Dict[Tuple[str, str], BootVerdict]:
	"""Boots each config of @built, a kernel already built in its build's
	directory, once per crash type with the initramfs @cpio, all at once;
	the verdicts, by (config, crash).  A line per boot unless @quiet (a
	mutant, which has a line of its own)."""
	pans = {config.name: pan_source(config) for config, _ in built}
	verdicts: Dict[Tuple[str, str], BootVerdict] = {}
	jobs_by_boot: Dict[Tuple[str, str], Tuple[jobs.Job, str]] = {}
	for config, build in built:
		for crash in CRASH_TYPES:
			exec_dir = dirs.exec_dir(config.name, crash)
			boots.link_kernel(exec_dir, build.build_dir(tree), config)
			cmd = kunit_py.kunit_cmd(kunit_dir, 'exec', exec_dir, build.kunitconfig,
						   config.path) + [
				'--qemu_args', shlex.join(['-initrd', cpio,
							   '-append', boot_cmdline(config, crash)]),
				'--raw_output=all', '--timeout', str(timeout)]
			log = dirs.log(config.name, crash)
			jobs_by_boot[config.name, crash] = (jobs.Job(f'{config.name} {crash}', cmd, log),
							    exec_dir)
	boot_of = {job.label: (key, exec_dir) for key, (job, exec_dir) in jobs_by_boot.items()}
	def ended(job: jobs.Job) -> None:
		# In the job's waiting thread: each boot has its own key.
		(name, crash), exec_dir = boot_of[job.label]
		assert job.outcome is not None
		verdict = _verdict(exec_dir, crash, pans[name], job.outcome, timeout)
		verdicts[name, crash] = verdict
		progress.boot_ended(job.label, 'ok' if verdict.ok else 'FAIL', job.outcome.elapsed,
				    quiet)
	if jobs_by_boot:
		if not quiet:
			progress.line(f'booting {len(jobs_by_boot)} LKDTM kernels (timeout {timeout} s) '
				      '...')
		progress.boots_started(list(boot_of))
		try:
			jobs.run_jobs(progress, [job for job, _ in jobs_by_boot.values()],
				      timeout + jobs.WATCHDOG_MARGIN, ended)
		finally:
			progress.boots_ended()
	return verdicts

def _verdict(exec_dir: str, crash: str, pan: Optional[PanSource], outcome: config_result.Exit,
	     timeout: int) -> BootVerdict:
	"""The verdict of a boot that ended, from the console it wrote."""
	console = files.read_text(os.path.join(exec_dir, config_result.CONSOLE))
	verdict = judge(console, crash, pan)
	if outcome.hit_timeout(timeout):
		verdict = BootVerdict(False, 'timed out: ' + verdict.summary, console)
	return verdict

@dataclass
class Row:
	"""A config as the report names it: its CPU, and who provides PAN."""
	name: str
	cpu: str
	pan: Optional[PanSource]

def rows(configs: Sequence[QemuConfig]) -> List[Row]:
	return [Row(c.name, c.cpu, pan_source(c)) for c in configs]

def print_report(printer: Printer, configs: Sequence[Row],
		 verdicts: Dict[Tuple[str, str], BootVerdict]) -> bool:
	for (name, crash), verdict in sorted(verdicts.items()):
		if not verdict.ok:
			printer.print(f'--- {name} {crash}: {verdict.summary}; last {LOG_LINES} console '
				      'lines:')
			for line in (verdict.log or '').splitlines()[-LOG_LINES:]:
				printer.print('    ' + line)
	printer.print()
	for config in configs:
		pan = 'no PAN' if config.pan is None else f'PAN by {config.pan}'
		printer.print(f'{config.name} ({config.cpu}, {pan}):')
		for crash in CRASH_TYPES:
			verdict = verdicts[config.name, crash]
			printer.print(f'    {crash:<18} {"ok  " if verdict.ok else "FAIL"} '
				      f'{verdict.summary}')
	return all(v.ok for v in verdicts.values())

def kernel_report(target: Target, configs: Sequence[Row],
		  verdicts: Dict[Tuple[str, str], BootVerdict]) -> JsonObj:
	"""The --json record of a kernel's boots: each config's and crash
	type's verdict, with the console's last lines of one that is not ok."""
	return {'kernel': target.kernel.name, 'package': target.kernel.package, 'tree': target.tree,
		'source': sharding.source(target.tree),
		'configs': [{'name': c.name, 'cpu': c.cpu, 'pan': c.pan, 'boots': [
			{'crash': crash, 'ok': verdicts[c.name, crash].ok,
			 'summary': verdicts[c.name, crash].summary,
			 'log': None if verdicts[c.name, crash].ok else
			 (verdicts[c.name, crash].log or '').splitlines()[-LOG_LINES:]}
			for crash in CRASH_TYPES]} for c in configs]}

def read_report(report: JsonObj) -> Tuple[List[Row], Dict[Tuple[str, str], BootVerdict]]:
	"""The rows and verdicts of a kernel's --json record (kernel_report())."""
	found = [Row(c['name'], c['cpu'], PanSource(c['pan']) if c.get('pan') else None)
		 for c in report['configs']]
	verdicts = {(c['name'], b['crash']): BootVerdict(b['ok'], b['summary'],
							  None if b['log'] is None else '\n'.join(b['log']))
		    for c in report['configs'] for b in c['boots']}
	return found, verdicts

def close(printer: Printer, configs: Sequence[Row],
	  verdicts: Dict[Tuple[str, str], BootVerdict]) -> int:
	"""A kernel's report and tally (of a run, or of a merge of its
	shards); its exit status."""
	passed = sum(v.ok for v in verdicts.values())
	ok = print_report(printer, configs, verdicts)
	summary.report(printer, summary.Tally('lkdtm', passed, len(verdicts) - passed))
	return 0 if ok else 1

def run_lkdtm(session: Session, request: BootRequest, target: Target, repo: str,
	      reports: Optional[List[JsonObj]]=None) -> int:
	"""Prepares @target's tree and boots LKDTM on each config of the
	request (of the command's shard); its --json record into @reports."""
	tree_dir = target.tree
	session.prepare(target, repo, 'lkdtm')
	kunit_dir = kunit_py.directory(tree_dir)
	names = session.sharding.configs_for(target.kernel.name, request.configs)
	matrix = configs.matrix(repo, names, kunit_dir)
	plan = MatrixPlan.of_tree(tree_dir, matrix, request.timeout, request.jobs,
				  fragments=targets.fragments(repo, target.kernel))
	verdicts = run(plan, repo, session.progress, session.builds)
	if reports is not None:
		reports.append(kernel_report(target, rows(matrix), verdicts))
	return close(session.printer, rows(matrix), verdicts)
