# SPDX-License-Identifier: GPL-2.0
#
# Line and branch coverage of the code under test, measured in the booted
# kernel: a build of each kconfig group with CONFIG_GCOV_KERNEL and
# profiling limited to PROFILED, booted once per QEMU config with the
# suites running as in `run` and then an init (guest/coverage_init.c) that
# writes the gcov data files to the console; the files are read back
# from the console next to the build's .gcno files, and Debian's lcov
# merges the configs and writes the HTML report.
#
# The boot itself and that init run code under test too: the init's own
# page faults are user faults in do_page_fault(), for one.  So each config
# is also booted once with no suite (BASELINE_GLOB), and a line counts as
# reached by the suites only where the suites' boot ran it more often than
# the baseline did (the same counts for branches).  The HTML report shows
# the whole counts of the boots with the suites, as lcov reads them; the
# report printed and the lines `mutants --generate` draws from are the
# suites' alone, read from the tracefiles of the last run (CONFIG.info and
# CONFIG.baseline.info in the tree's .pan-kunit/coverage), which each run
# clears first.

import dataclasses
import glob
import os
import re
import shlex
import shutil
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from pan_kunit import Error
from pan_kunit.commands import lcov
from pan_kunit.commands.boot_request import BootRequest
from pan_kunit.commands.session import Session
from pan_kunit.host import files, packages, summary
from pan_kunit.host.printer import Printer
from pan_kunit.host.progress import Progress
from pan_kunit.kunit_tool import configs, kunit_py
from pan_kunit.kunit_tool.configs import QemuConfig
from pan_kunit.kunit_tool.ktap import CaseStatus
from pan_kunit.kunit_tool.toolchains import BuildSettings
from pan_kunit.matrix import boots, builds, initramfs, jobs
from pan_kunit.matrix.plan import MatrixPlan
from pan_kunit.results import config_result, kunit_json
from pan_kunit.trees import targets
from pan_kunit.trees.targets import Target
from pan_kunit.trees.tree import state_dir

# The directory of the coverage boots' files, in the tree's .pan-kunit/.
COVERAGE_DIR = 'coverage'
INIT_SOURCE = os.path.join(initramfs.GUEST_DIR, 'coverage_init.c')
KCONFIG_ADD = ['CONFIG_GCOV_KERNEL=y']
# What `coverage` needs beyond what every command does: Debian's lcov,
# and the cross gcov (gcc-aarch64-linux-gnu), which lcov runs.
PACKAGES = ['lcov']
TOOLS = ['lcov', 'genhtml', lcov.GCOV]
# A filter_glob that matches no suite: the baseline boot.
BASELINE_GLOB = 'pan-kunit-baseline-no-suite'
SUITES_INFO = 'coverage.info'

# The objects built with profiling, by the source they come from.  Make
# takes GCOV_PROFILE_<name>.o=y from its command line in every directory,
# so an object of the same name elsewhere in the kernel is profiled too;
# only the files of FUNCTIONS are reported.
PROFILED = [
	'arch/arm64/kernel/cpufeature.c',   # and the three suites included at its end
	'arch/arm64/kernel/alternative.c',
	'arch/arm64/kernel/tests/alternative_kunit.c',       # alternative_has_cap_*() inlined
	'arch/arm64/kernel/tests/cpufeature_field_kunit.c',  # the extractors, inlined
	'arch/arm64/mm/fault.c',            # and arm64_pan_fault
	# The uaccess helpers, inlined in the suites that open windows.
	'arch/arm64/mm/tests/pan_uaccess_kunit.c',
	'arch/arm64/mm/tests/pan_uaccess_fault_kunit.c',
	'arch/arm64/mm/tests/pan_saved_ttbr0_kunit.c',
	'arch/arm64/mm/context.c',
]

@dataclass(frozen=True)
class Function:
	"""A function under test: its name and the source that defines it."""
	name: str
	source: str
	area: str                       # what the README's list calls it
	kernels: Tuple[str, ...] = ()   # only these kernels have it (none: every one)

def _functions(area: str, source: str, names: str,
	       kernels: Tuple[str, ...]=()) -> List[Function]:
	return [Function(name, source, area, kernels) for name in names.split()]

CPUFEATURE_H = 'arch/arm64/include/asm/cpufeature.h'
CPUFEATURE_C = 'arch/arm64/kernel/cpufeature.c'
UACCESS_H = 'arch/arm64/include/asm/uaccess.h'
FAULT_C = 'arch/arm64/mm/fault.c'

# What issue 12 names as the code under test, by area.  Macros
# (__ALTERNATIVE_CFG), assembler (the entry code's SW TTBR0 PAN, the
# uaccess routines) and noinstr functions (patch_alternative()) are not
# compiled with profiling: the README says how the suites reach them.
FUNCTIONS = (
	_functions('field extraction', CPUFEATURE_H,
		   'cpuid_feature_extract_signed_field_width '
		   'cpuid_feature_extract_signed_field '
		   'cpuid_feature_extract_unsigned_field_width '
		   'cpuid_feature_extract_unsigned_field '
		   'cpuid_feature_extract_field_width cpuid_feature_extract_field '
		   'arm64_ftr_value') +
	_functions('matching', CPUFEATURE_C, 'feature_matches has_cpuid_feature') +
	_functions('capability passes', CPUFEATURE_C,
		   'update_cpu_capabilities __update_cpu_capabilities '
		   'enable_cpu_capabilities __enable_cpu_capabilities '
		   'verify_local_cpu_caps __verify_local_cpu_caps') +
	_functions('ID register sanitisation', CPUFEATURE_C,
		   'init_cpu_ftr_reg update_cpu_ftr_reg check_update_ftr_reg '
		   'arm64_ftr_safe_value arm64_ftr_set_value read_sanitised_ftr_reg '
		   'get_arm64_ftr_reg get_arm64_ftr_reg_nowarn') +
	_functions('alternatives', 'arch/arm64/kernel/alternative.c',
		   '__apply_alternatives get_alt_insn') +
	_functions('alternatives', 'arch/arm64/include/asm/alternative-macros.h',
		   'alternative_has_cap_likely alternative_has_cap_unlikely', ('6.12',)) +
	_functions('PAN enable', CPUFEATURE_C, 'cpu_enable_pan') +
	_functions('uaccess', UACCESS_H,
		   '__uaccess_ttbr0_enable __uaccess_ttbr0_disable uaccess_ttbr0_enable '
		   'uaccess_ttbr0_disable __uaccess_enable_hw_pan __uaccess_disable_hw_pan '
		   'uaccess_enable_privileged uaccess_disable_privileged') +
	_functions('uaccess', 'arch/arm64/mm/context.c', 'cpu_do_switch_mm') +
	_functions('fault classification', FAULT_C,
		   'is_el1_permission_fault is_el1_data_abort is_el1_instruction_abort '
		   '__do_kernel_fault do_page_fault') +
	_functions('fault classification', 'arch/arm64/include/asm/esr.h',
		   'esr_fsc_is_translation_fault esr_fsc_is_permission_fault', ('6.12',)))

def make_options() -> List[str]:
	"""make's GCOV_PROFILE_<object>=y for each of PROFILED."""
	return [f'GCOV_PROFILE_{os.path.basename(source)[:-2]}.o=y' for source in PROFILED]

# The init's lines; see guest/coverage_init.c.
FILE_LINE = re.compile(r'pan-kunit gcda: (\S+) (\d+)$')
DATA_LINE = re.compile(r'pan-kunit gcda\+ (\d+) ([0-9a-f]*)$')
END_LINE = re.compile(r'pan-kunit gcov: (\d+) files$')

def read_dump(console: str) -> Dict[str, bytes]:
	"""The gcov data files the init wrote to @console, by their path
	under /sys/kernel/debug/gcov.  An Error when the dump is cut short or
	a line of it was broken (a kernel message printed into it)."""
	files: Dict[str, bytes] = {}
	name: Optional[str] = None
	size = 0
	data = bytearray()

	def close() -> None:
		if name is not None:
			if len(data) != size:
				raise Error(f'gcov dump: {name}: {len(data)} of {size} bytes read')
			files[name] = bytes(data)
	for line in console.splitlines():
		line = line.rstrip('\r')
		start = line.find('pan-kunit g')
		if start < 0:
			continue
		line = line[start:]
		if (match := FILE_LINE.match(line)):
			close()
			name, size, data = match.group(1), int(match.group(2)), bytearray()
		elif (match := DATA_LINE.match(line)):
			if name is None or int(match.group(1)) != len(data) or len(match.group(2)) % 2:
				raise Error(f'gcov dump: a broken line after {len(data)} bytes of '
					    f'{name}: {line!r}')
			data += bytes.fromhex(match.group(2))
		elif (match := END_LINE.match(line)):
			close()
			if not files:
				raise Error('gcov dump: no gcov data files (is CONFIG_GCOV_KERNEL set, and '
					    'an object profiled?); the init\'s lines above the end say why')
			if int(match.group(1)) != len(files):
				raise Error(f'gcov dump: {len(files)} files read, the init wrote '
					    f'{match.group(1)}')
			return files
		elif line.startswith('pan-kunit gcda'):
			raise Error(f'gcov dump: a broken line after {len(data)} bytes of {name}: '
				    f'{line!r}')
	raise Error('gcov dump: no end line (pan-kunit gcov: N files): the boot ended '
		    f'before the init was done, after {len(files)} files')

def place_dump(files: Dict[str, bytes], build_dir: str, out_dir: str) -> List[str]:
	"""Writes each data file of @files under @out_dir at the path of its
	object in @build_dir, next to a link to the object's .gcno; returns
	the objects' paths, relative to @build_dir."""
	real = os.path.realpath(build_dir)
	placed = []
	for name, data in sorted(files.items()):
		path = '/' + name.lstrip('/')
		if not path.startswith(real + '/'):
			raise Error(f'gcov dump: {path} is not of the build in {real}')
		rel = path[len(real) + 1:]
		gcda = os.path.join(out_dir, rel)
		os.makedirs(os.path.dirname(gcda), exist_ok=True)
		with open(gcda, 'wb') as f:
			f.write(data)
		gcno = gcda[:-len('.gcda')] + '.gcno'
		if os.path.lexists(gcno):
			os.unlink(gcno)
		os.symlink(os.path.join(real, rel[:-len('.gcda')] + '.gcno'), gcno)
		placed.append(rel[:-len('.gcda')] + '.o')
	return placed

def read_suites_only(work: str, tree: str) -> Optional[Dict[str, lcov.SourceData]]:
	"""What the suites ran in the last coverage run whose results are in
	@work, config by config (each boot less its own config's boot without
	the suites), added up; None without a run.  A run from before the
	baseline boots (no CONFIG.baseline.info) gives the whole boot's
	counts."""
	text = files.read_text(os.path.join(work, SUITES_INFO))
	if text is None:
		return None
	pairs = []
	for base_path in sorted(glob.glob(os.path.join(work, '*.baseline.info'))):
		config_path = base_path[:-len('.baseline.info')] + '.info'
		config_text = files.read_text(config_path)
		base_text = files.read_text(base_path)
		if config_text is not None and base_text is not None:
			pairs.append((config_text, base_text))
	if not pairs:
		return lcov.suites_only(lcov.read_tracefile(text, tree), None)
	total: Dict[str, lcov.SourceData] = {}
	for config_text, base_text in pairs:
		lcov.add(total, lcov.suites_only(lcov.read_tracefile(config_text, tree),
						 lcov.read_tracefile(base_text, tree)))
	return total

@dataclass
class Covered:
	"""The coverage of one function under test."""
	function: Function
	lines: Tuple[int, int]      # covered, instrumented
	branches: Tuple[int, int]   # taken, instrumented
	missed_lines: List[int]
	missed_branches: List[int]  # the lines with a branch never taken, once each
	found: bool                 # defined in the source, and instrumented
	defined: bool = True        # defined in the source at all

	def ratio(self, pair: Tuple[int, int]) -> str:
		done, total = pair
		return f'{done}/{total} {100 * done // total}%' if total else '-'

def measure(functions: Iterable[Function], data: Dict[str, lcov.SourceData],
	    tree: str) -> List[Covered]:
	covered = []
	for function in functions:
		try:
			with open(os.path.join(tree, function.source), errors='replace') as f:
				ranges = lcov.function_ranges(f.read(), function.name)
		except OSError:
			ranges = []
		source = data.get(function.source, lcov.SourceData())
		lines = sorted(n for n in source.lines if any(a <= n <= b for a, b in ranges))
		branches = sorted(at for at in source.branches if any(a <= at[0] <= b for a, b in ranges))
		covered.append(Covered(
			function,
			(sum(1 for n in lines if source.lines[n]), len(lines)),
			(sum(1 for at in branches if source.branches[at]), len(branches)),
			[n for n in lines if not source.lines[n]],
			sorted({at[0] for at in branches if not source.branches[at]}),
			bool(ranges and lines), bool(ranges)))
	return covered

def boot_cmdline(config: QemuConfig, options: Optional[kunit_py.KunitOptions]=None) -> str:
	"""The kernel command line of a coverage boot: the config's own and
	the suites (all, or those of @options' filter_glob, filter and
	filter_action, as kunit.py writes them), given to QEMU as an -append of
	its own after kunit.py's, which QEMU takes instead: kunit.py's ends with
	kunit_shutdown=reboot, which would end the boot before init runs."""
	options = options or kunit_py.KunitOptions()
	words = [config.cmdline] if config.cmdline else []
	words += [f'kunit.filter_glob={options.filter_glob}'] if options.filter_glob else []
	words += [f'kunit.filter="{options.filter}"'] if options.filter else []
	words += [f'kunit.filter_action={options.filter_action}'] if options.filter_action else []
	return ' '.join(words)

@dataclass
class Boot:
	"""One config's coverage boot, as it ended."""
	config: QemuConfig
	ok: bool
	summary: str                 # the suites' tally, or what went wrong
	tracefile: Optional[str] = None

@dataclass
class Report:
	boots: List[Boot]
	covered: List[Covered]
	html_dir: Optional[str]

def run(plan: MatrixPlan, kernel: str, title: str, repo: str, progress: Progress,
	settings: BuildSettings) -> Report:
	"""Builds the profiled kernels of @plan, boots each config once and
	measures the functions under test of @kernel (a KernelSpec's name); the
	report's HTML, headed @title, under the tree's .pan-kunit/coverage/html."""
	tree, kunit_dir, timeout, options = plan.tree, plan.kunit_dir, plan.timeout, plan.options
	work = state_dir(tree, COVERAGE_DIR)
	clear_tracefiles(work)
	cpio = initramfs.pack(tree, os.path.join(repo, INIT_SOURCE), COVERAGE_DIR)
	profiled = dataclasses.replace(plan, options=kunit_py.KunitOptions(
		kconfig_add=KCONFIG_ADD + options.kconfig_add,
		make_options=make_options() + options.make_options))
	# The build directories are locked from the builds to the end of the
	# boots, as run's are (pipeline.build_and_boot()): a second command
	# waits for both, and one killed while it boots leaves the lock to its
	# QEMU until its guard stops it.
	kconfig_groups = profiled.builds()
	with builds.build_locks(progress.printer,
				[b.build_dir(tree) for b in kconfig_groups]) as locks:
		ok = builds.build_all(profiled, progress, settings, kconfig_groups, locks)
		found: Dict[str, Boot] = {}
		baselines: Dict[str, Boot] = {}
		boot_jobs: Dict[str, Tuple[jobs.Job, QemuConfig, str, str]] = {}
		no_suite = kunit_py.KunitOptions(BASELINE_GLOB)
		for build in kconfig_groups:
			for config in build.group:
				if not ok[build.key]:
					found[config.name] = Boot(config, False, 'build failed')
					continue
				for label, prefix, boot_options in ((config.name, 'coverage', options),
								    (_baseline(config), 'baseline', no_suite)):
					exec_dir = state_dir(tree, 'exec', f'{prefix}-{config.name}')
					boots.link_kernel(exec_dir, build.build_dir(tree), config)
					cmd = kunit_py.kunit_cmd(kunit_dir, 'exec', exec_dir,
								 build.kunitconfig, config.path) + [
						'--qemu_args', shlex.join(['-initrd', cpio, '-append', boot_cmdline(
							config, boot_options)]),
						'--json=' + os.path.join(exec_dir, config_result.KUNIT_JSON),
						'--timeout', str(timeout)]
					log = state_dir(tree, 'logs', f'{prefix}-{config.name}.log')
					job = jobs.Job(label, cmd, log)
					job.pass_fds = locks  # each kunit.py and its QEMU hold them
					boot_jobs[label] = (job, config, exec_dir, build.build_dir(tree))

		def ended(job: jobs.Job) -> None:
			_, config, exec_dir, build_dir = boot_jobs[job.label]
			assert job.outcome is not None
			baseline = job.label != config.name
			boot = _read_boot(config, exec_dir, build_dir, work, job.outcome, timeout,
					  baseline)
			(baselines if baseline else found)[config.name] = boot
			progress.boot_ended(job.label, 'ok' if boot.ok else 'FAIL', job.outcome.elapsed)
		if boot_jobs:
			progress.line(f'booting {len(boot_jobs)} profiled kernels, each config with its '
				      f'suites and without (timeout {timeout} s) ...')
			progress.boots_started(list(boot_jobs))
			try:
				jobs.run_jobs(progress, [job for job, _, _, _ in boot_jobs.values()],
					      timeout + jobs.WATCHDOG_MARGIN, ended)
			finally:
				progress.boots_ended()
	ordered = [found[c.name] for c in plan.configs]
	for boot in ordered:
		base = baselines.get(boot.config.name)
		if boot.tracefile and (base is None or base.tracefile is None):
			boot.ok = False
			boot.summary += '; the baseline boot (no suite) ' + \
				(base.summary if base else 'did not run')
	traces = [b.tracefile for b in ordered if b.tracefile]
	if not traces:
		return Report(ordered, [], None)
	merged = os.path.join(work, SUITES_INFO)
	lcov.merge(traces, tree, merged)
	html_dir = os.path.join(work, 'html')
	lcov.html(merged, tree, html_dir, f'pan-kunit: {title}')
	data = read_suites_only(work, tree) or {}
	wanted = [fn for fn in FUNCTIONS if not fn.kernels or kernel in fn.kernels]
	return Report(ordered, measure(wanted, data, tree), html_dir)

def clear_tracefiles(work: str) -> None:
	"""Removes the tracefiles of an earlier run from @work:
	read_suites_only() adds up every CONFIG.info it finds with its
	CONFIG.baseline.info, and a config this run does not boot, or whose
	boot fails, must not count with an earlier run's counters."""
	for path in glob.glob(os.path.join(work, '*.info')):
		os.unlink(path)

def _baseline(config: QemuConfig) -> str:
	return f'{config.name} (no suite)'

def _read_boot(config: QemuConfig, exec_dir: str, build_dir: str, work: str,
	       outcome: config_result.Exit, timeout: int, baseline: bool=False) -> Boot:
	"""The boot's suites' tally and its tracefile, from its console; a
	@baseline boot runs no suite, and only its counters matter."""
	console = files.read_text(os.path.join(exec_dir, config_result.CONSOLE)) or ''
	if outcome.hit_timeout(timeout):
		return Boot(config, False, f'timed out after {timeout} s')
	statuses = list(kunit_json.statuses(
		files.read_json(os.path.join(exec_dir, config_result.KUNIT_JSON))).values())
	counts = {word: statuses.count(status) for word, status in
		  (('passed', CaseStatus.PASS), ('failed', CaseStatus.FAIL),
		   ('skipped', CaseStatus.SKIP), ('crashed', CaseStatus.ERROR))}
	tally = ', '.join(f'{n} {word}' for word, n in counts.items() if n or word != 'crashed')
	suites_ok = bool(statuses) and not counts['failed'] and not counts['crashed']
	if baseline:
		tally, suites_ok = 'no suite', True
	name = config.name + ('.baseline' if baseline else '')
	try:
		dump = read_dump(console)
		gcda_dir = os.path.join(work, 'gcda', name)
		if os.path.isdir(gcda_dir):
			shutil.rmtree(gcda_dir)
		place_dump(dump, build_dir, gcda_dir)
		tracefile = os.path.join(work, f'{name}.info')
		lcov.capture(gcda_dir, tracefile)
	except Error as e:
		return Boot(config, False, f'{tally}; {e}')
	return Boot(config, suites_ok, tally, tracefile)

def print_report(printer: Printer, kernel: str, report: Report) -> bool:
	"""The boots, then a line per function under test; whether every
	boot passed its suites and brought out its counters, and every
	function under test is still defined where FUNCTIONS says (a renamed
	or moved one would be measured as nothing)."""
	for boot in report.boots:
		printer.print(f'{boot.config.name}: {"ok  " if boot.ok else "FAIL"} {boot.summary}')
	if not report.covered:
		return False
	printer.print(f'\ncoverage of {kernel} by the suites, every config merged, a boot without them '
		      f'subtracted (HTML, both boots: '
		      f'{os.path.join(report.html_dir or "", "index.html")}):')
	width = max(len(c.function.name) for c in report.covered)
	area = None
	for c in report.covered:
		if c.function.area != area:
			area = c.function.area
			printer.print(f'  {area}:')
		if not c.defined:
			printer.print(f'    {c.function.name:<{width}}  FAIL: not defined in '
				      f'{c.function.source}; update FUNCTIONS in {__file__}')
			continue
		if not c.found:
			printer.print(f'    {c.function.name:<{width}}  not instrumented: inlined whole '
				      'into its callers')
			continue
		missed = ''
		if c.missed_branches:
			missed = '  branches missed at ' + ', '.join(map(str, c.missed_branches))
		printer.print(f'    {c.function.name:<{width}}  lines {c.ratio(c.lines):<12} '
			      f'branches {c.ratio(c.branches):<12}{missed}')
	return all(b.ok for b in report.boots) and all(c.defined for c in report.covered)

def run_coverage(session: Session, request: BootRequest, target: Target, repo: str) -> int:
	"""Prepares @target's tree, measures and reports its coverage."""
	tree_dir = target.tree
	session.prepare(target, repo, 'coverage')
	packages.require(TOOLS, 'coverage')
	kunit_dir = kunit_py.directory(tree_dir)
	names = session.sharding.configs_for(target.kernel.name, request.configs)
	matrix = configs.matrix(repo, names, kunit_dir)
	kernel = session.describe(target)()
	title = ' '.join(w for w in (kernel.package, kernel.package_version) if w) or kernel.version
	plan = MatrixPlan.of_tree(tree_dir, matrix, request.timeout, request.jobs, request.options,
				  targets.fragments(repo, target.kernel))
	report = run(plan, target.kernel.name, title, repo, session.progress, session.builds)
	ok = print_report(session.printer, title, report)
	passed = sum(b.ok for b in report.boots)
	summary.report(session.printer, summary.Tally('coverage', passed, len(report.boots) - passed))
	return 0 if ok else 1
