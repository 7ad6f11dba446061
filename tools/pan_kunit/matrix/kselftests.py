# SPDX-License-Identifier: GPL-2.0
#
# The kselftest boots of a run of the matrix: each config that built boots
# its kernel once more, with KUnit disabled, with the initramfs of the
# tree's arm64 kselftests (kselftest_build.py), whose init
# (guest/ksft_init.c) runs them and prints one KTAP document.  The tree's
# kunit_parser parses it (ktap.py); its leaves become the config's rows
# kselftest.arm64.COLLECTION (kselftest_rows.py), in the same result.
#
# A boot of their own, not the suites': the whole set takes 30 s to 2 min
# a config under TCG, which the edit loop cannot afford (`run` leaves
# them out without --kselftests), and a kernel that crashes in one leaves the other's
# results whole.

import os
import shlex
from typing import Dict, List, Optional, Sequence, Tuple

from pan_kunit import Error
from pan_kunit.host import files
from pan_kunit.host.progress import Progress
from pan_kunit.kunit_tool import ktap, ktap_lines, kunit_py
from pan_kunit.kunit_tool.configs import QemuConfig
from pan_kunit.matrix import boots, jobs, kselftest_build
from pan_kunit.matrix.plan import MatrixPlan
from pan_kunit.results import config_result, kselftest_rows, record
from pan_kunit.results.config_result import CONSOLE

# kunit.py exec's --timeout of a kselftest boot: the whole list, with
# asid.c's rollover (up to its 300 s budget), on a loaded host.
BOOT_TIMEOUT = 2400
# Whether a QEMU CPU model implements FEAT_PAN3 (EPAN), for pan/execonly's
# expectation (ARM64_PAN_EPAN): from QEMU 10's models, which pan-kunit
# requires (packages.QEMU), never from what the kernel under test detects.
# A model not listed gets no expectation: execonly then checks only that
# EL0 and the kernel agree.
CPU_HAS_EPAN = {'max': True, 'neoverse-n1': False, 'cortex-a76': False,
		'cortex-a57': False, 'cortex-a53': False, 'cortex-a72': False}
# How much of a console stands for a boot that printed no result.
LOG_LINES = 25

# The least cap on a binary's timeout: the slowest binary that passes,
# pauth/pac, takes 31 s on an idle host (fp/fp-stress 23 s), so four
# times that.
LEAST_CAP = 120
# What tells pan/asid's across_rollover how long it may take (asid.c): in
# a boot whose binaries are capped, a third of the cap and never more than
# its default, so that it skips, or gives up at twice that, before the cap
# cuts it off as a failure.
ASID_BUDGET = 'ARM64_PAN_ASID_BUDGET'
ASID_DEFAULT_BUDGET = 60

def binary_cap(timeout: int) -> int:
	"""The cap on every binary's timeout in a boot whose kunit.py exec
	--timeout is @timeout: a --timeout below the init's default
	per-binary timeout is the user's bound on a stalled test, so a
	mutant that hangs a binary costs that (never less than LEAST_CAP),
	not 300 s a binary; 0 (no cap) otherwise, so that asid.c keeps its
	default budget."""
	if 0 < timeout < kselftest_build.DEFAULT_TIMEOUT:
		return max(timeout, LEAST_CAP)
	return 0

def cmdline(config: QemuConfig, only: Sequence[str]=(), cap: int=0) -> str:
	"""The whole kernel command line of a config's kselftest boot: the
	config's own, KUnit disabled, the init's per-binary timeout and its
	@cap (0: none), the collections to run (@only; none: all), and what
	the pan tests are told of the CPU and, under a cap, of their time
	(unknown parameters reach init's environment, and every test's)."""
	words = [config.cmdline, 'kunit.enable=0',
		 f'ksft_timeout={kselftest_build.DEFAULT_TIMEOUT}']
	if cap:
		words += [f'ksft_timeout_max={cap}',
			  f'{ASID_BUDGET}={min(cap // 3, ASID_DEFAULT_BUDGET)}']
	if only:
		words.append('ksft_only=' + ','.join(only))
	epan = CPU_HAS_EPAN.get(config.cpu.split(',')[0])
	if epan is not None:
		words.append(f'ARM64_PAN_EPAN={"yes" if epan else "no"}')
	return ' '.join(w for w in words if w)

def exec_dir(plan: MatrixPlan, config: QemuConfig) -> str:
	return os.path.join(plan.outputs.root, 'exec', f'kselftest-{config.name}')

def exec_log(plan: MatrixPlan, config: QemuConfig) -> str:
	return os.path.join(plan.outputs.root, 'logs', f'exec-kselftest-{config.name}.log')

def read_rows(console: Optional[str], kunit_dir: str, outcome: Optional[config_result.Exit],
	      timeout: int) -> List[ktap.Case]:
	"""The rows of a kselftest boot's @console, parsed with @kunit_dir's
	kunit_parser; a boot that hung, or printed no kselftest result, has
	a failed leaf that says so."""
	found: List[ktap.Case] = []
	if console:
		cases, _ = ktap.parse(kselftest_rows.init_lines(console), kunit_dir)
		found = kselftest_rows.rows(cases, ktap_lines.skip_reasons(console),
					    killed=kselftest_rows.timed_out(console))
	tail = (console or '').splitlines()[-LOG_LINES:]
	if outcome is not None and outcome.hit_timeout(timeout):
		found.append(kselftest_rows.boot_failed(f'timed out after {timeout} s', tail))
	elif not found:
		found.append(kselftest_rows.boot_failed('no kselftest result on the console', tail))
	return found

def boot(plan: MatrixPlan, built: Dict[str, Tuple[QemuConfig, str]], cpio: str,
	 progress: Progress, pass_fds: Sequence[int]=()) -> Dict[str, Tuple[List[ktap.Case], str]]:
	"""Boots each config of @built once with the kselftests of @cpio, all
	at once: each config's rows and the path of its console.  Each boot
	holds @pass_fds, as boots.boot()'s do."""
	boot_jobs: Dict[str, jobs.Job] = {}
	for name, (config, build_dir) in built.items():
		directory = exec_dir(plan, config)
		boots.link_kernel(directory, build_dir, config)
		cmd = kunit_py.kunit_cmd(plan.kunit_dir, 'exec', directory, plan.kunitconfig,
					   config.path) + [
			'--qemu_args', shlex.join(['-initrd', cpio, '-append',
						   cmdline(config, plan.kselftest_only,
								   binary_cap(plan.timeout))]),
			'--raw_output=all', '--timeout', str(BOOT_TIMEOUT)]
		os.makedirs(os.path.dirname(exec_log(plan, config)), exist_ok=True)
		boot_jobs[name] = jobs.Job(f'{name} kselftests', cmd, exec_log(plan, config))
		boot_jobs[name].pass_fds = pass_fds
	names = {job.label: name for name, job in boot_jobs.items()}
	def ended(job: jobs.Job) -> None:
		assert job.outcome is not None
		progress.boot_ended(job.label, 'timeout' if job.outcome.hit_timeout(BOOT_TIMEOUT)
				    else 'ended', job.outcome.elapsed, plan.quiet)
	if boot_jobs:
		if not plan.quiet:
			progress.line(f'booting the kselftests of {", ".join(boot_jobs)} '
				      f'(timeout {BOOT_TIMEOUT} s) ...')
		progress.boots_started(list(names))
		try:
			jobs.run_jobs(progress, list(boot_jobs.values()),
				      BOOT_TIMEOUT + jobs.WATCHDOG_MARGIN, ended)
		finally:
			progress.boots_ended()
	found = {}
	for name, job in boot_jobs.items():
		config = built[name][0]
		console_path = os.path.join(exec_dir(plan, config), CONSOLE)
		console = files.read_text(console_path) if job.outcome else None
		found[name] = (read_rows(console, plan.kunit_dir, job.outcome, BOOT_TIMEOUT),
			       console_path)
	return found

def run(plan: MatrixPlan, init_source: str, built: Dict[str, Tuple[QemuConfig, str]],
	results: Sequence[config_result.ConfigResult], progress: Progress,
	pass_fds: Sequence[int]=()) -> None:
	"""Builds (or finds) the tree's kselftests, boots them on every config
	of @built (each boot holding @pass_fds), and adds their rows to each
	config's result in @results, whose record is written again."""
	if not built:
		return
	try:
		packed = kselftest_build.build(plan.tree, init_source, plan.jobs)
	except Error as e:
		# The suites' results stand; each config fails with the build's error.
		for result in results:
			if result.name in built:
				result.add_kselftests([kselftest_rows.boot_failed('the kselftests did not '
										  'build', [str(e)])], '')
				files.write_json(result.record, record.config_record(result))
		return
	if not plan.quiet:
		progress.line(f'kselftests: {len(packed.tests)} tests, ' +
			      ('packed before (sources unchanged)' if packed.cached else
			       f'built and packed in {packed.elapsed:.0f} s') + f': {packed.cpio}')
	found = boot(plan, built, packed.cpio, progress, pass_fds)
	for result in results:
		if result.name in found:
			rows, console = found[result.name]
			result.add_kselftests(rows, console)
			files.write_json(result.record, record.config_record(result))
