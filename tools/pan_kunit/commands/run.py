# SPDX-License-Identifier: GPL-2.0
#
# `pan-kunit run`: builds and boots the matrix of every kernel, the newest
# first, and reports each kernel as soon as its boots end; on a cold start
# one config is built and booted first, for a verdict after one build.

import dataclasses
import functools
import os
from dataclasses import dataclass
from typing import List, Optional

from pan_kunit.commands import sharding
from pan_kunit.commands.boot_request import ReportRequest
from pan_kunit.commands.session import Session
from pan_kunit.host import files, summary
from pan_kunit.host.files import JsonObj
from pan_kunit.host.printer import Printer
from pan_kunit.kunit_tool import configs, ktap_lines, kunit_py
from pan_kunit.matrix import cost, kselftest_build, pipeline
from pan_kunit.matrix.plan import MatrixPlan
from pan_kunit.results import config_result, junit, record, terminal
from pan_kunit.trees import kernels, suites, targets, tree
from pan_kunit.trees.targets import Target

@dataclass
class RunRequest(ReportRequest):
	"""What `run` is asked (kunit.py's KunitRequest)."""
	raw_output: Optional[str]  # print every boot's console too: 'all' or 'kunit' (KTAP on)
	shown: terminal.Shown = terminal.Shown.ALL  # --summary, --failed
	# --kselftests: boot each config once more with the arm64 kselftests.
	# Off by default: their boots cost an edit loop several times its time.
	kselftests: bool = False

# The config run builds and boots alone first on a cold start: the
# newest kernel's, on a CPU with PAN.
FIRST_CONFIG = 'arm64_pan'

def _print_console(printer: Printer, result: config_result.ConfigResult, what: str='all') -> None:
	"""--raw_output: the console of @result's boot, as it came (@what
	'all'), or from its KTAP header on ('kunit')."""
	if result.elapsed is None:
		printer.print(f'--- {result.name}: not booted ({result.status})')
		return
	console = files.read_text(result.console_log)
	printer.print(f'--- {result.name}: console ({result.console_log})' if console is not None else
		      f'--- {result.name}: no console ({result.console_log} is missing)')
	if console and what == 'kunit':
		lines = console.splitlines(keepends=True)
		start = next((i for i, line in enumerate(lines)
			      if ktap_lines.KTAP_HEADER.search(line)), len(lines))
		console = ''.join(lines[start:])
	if console:
		printer.print(console, end='' if console.endswith('\n') else '\n')

def _plan(request: RunRequest, target: Target, repo: str,
	  matrix: List[configs.QemuConfig]) -> MatrixPlan:
	"""The run of @matrix in @target's tree that @request asks for."""
	init = os.path.join(repo, kselftest_build.KSFT_INIT) if request.kselftests else None
	return MatrixPlan.of_tree(target.tree, matrix, request.timeout, request.jobs,
				  request.options, targets.fragments(repo, target.kernel),
				  kselftest_init=init)

def _first_alone(printer: Printer, request: RunRequest,
		 plan: MatrixPlan) -> List[configs.QemuConfig]:
	"""On a cold start (no kernel built yet for it) of the whole matrix,
	FIRST_CONFIG, which is then built and booted before the others, so
	that a first verdict comes after one build, not all of them; else
	none.  With --config the configs named are the matrix."""
	first = [c for c in plan.configs if c.name == FIRST_CONFIG]
	if request.configs or not first or len(plan.configs) < 2:
		return []
	((build_dir, image),) = dataclasses.replace(plan, configs=first).images()
	if os.path.exists(os.path.join(build_dir, image)):
		return []
	printer.print(f'cold start: {FIRST_CONFIG} first, built and booted alone; then the others')
	return first

def _print_first(printer: Printer, first: List[config_result.ConfigResult]) -> None:
	"""The verdict of the config booted first: its failures and its
	column, before the other configs build (the kernel's table, after
	them, has it again, and its total counts it once)."""
	for result in first:
		printer.print(f'=== first verdict: {result.kernel.package or result.kernel.version} '
			      f'{result.name}: {result.status}')
		terminal.print_failed(printer, result)
	for line in terminal.table(first, terminal.width(printer)):
		printer.print(line)

def first_run(session: Session, request: RunRequest, target_list: List[Target],
	      repo: str) -> str:
	"""What the builds from scratch of the run will cost (cost.py), or ''."""
	def matrix(target: Target) -> List[configs.QemuConfig]:
		names = session.sharding.configs_for(target.kernel.name, request.configs)
		return configs.matrix(repo, names, None)
	found = [cost.KernelBuilds(t.kernel.name, t.tree, _plan(request, t, repo, matrix(t)).images())
		 for t in reversed(target_list)]
	return cost.first_run_line(found, [t.tree for t in target_list] +
				   [k.default_tree() for k in kernels.KNOWN])

def run_tests(session: Session, request: RunRequest, target_list: List[Target],
	      repo: str) -> int:
	"""Builds and boots the matrix of every kernel, the newest first, and
	reports each as soon as its boots end: its failures, skips, a table
	with a column per config and its total; then a total per kernel."""
	printer = session.printer
	per_kernel: List[List[config_result.ConfigResult]] = []
	reports = []
	said = first_run(session, request, target_list, repo)
	if said:
		printer.print(said)
	for target in reversed(target_list):  # targets.resolve() lists them oldest first
		tree_dir = target.tree
		session.prepare(target, repo, 'run')
		names = session.sharding.configs_for(target.kernel.name, request.configs)
		plan = _plan(request, target, repo, configs.matrix(repo, names,
								  kunit_py.directory(tree_dir)))
		first = _first_alone(printer, request, plan) if not per_kernel else []
		# One description of the kernel for the one or two runs of the matrix:
		# a git status of a kernel tree takes 0.2-0.3 s.
		describe = functools.lru_cache(maxsize=None)(session.describe(target))
		kernel_results = []
		for configs_now in ([first, [c for c in plan.configs if c not in first]] if first else
				    [plan.configs]):
			# The edits are noted while the kernels build: git status of a
			# kernel tree takes 0.2-0.3 s, once per run.
			kernel_results += pipeline.build_and_boot(
				dataclasses.replace(plan, configs=configs_now), session.progress,
				session.builds, describe)
			if first and configs_now is first:
				_print_first(printer, kernel_results)
		order = [c.name for c in plan.configs]
		kernel_results.sort(key=lambda r: order.index(r.name))
		per_kernel.append(kernel_results)
		# HEAD's commit is the source's: no git of its own.
		source = sharding.source(tree_dir)
		reports.append(dict(record.kernel_record(tree_dir, source['head'] or tree.head(tree_dir),
							 kernel_results, suites.known(repo)),
				    kernel=target.kernel.name, source=source))
		if request.raw_output:
			for result in kernel_results:
				_print_console(printer, result, request.raw_output)
		terminal.print_report(printer, kernel_results, headed=len(target_list) > 1,
				    shown=request.shown, totals=False, known=suites.known(repo))
		if tree_dir in session.prepared:
			prepared = session.prepared[tree_dir]
			carried = ' (it held the suites: taken as it is)' if prepared.carried else ''
			printer.print(f'tested your tree {prepared.state.path}: '
				      f'{prepared.state.describe()}{carried}')
	# The files and the totals list the kernels oldest first, as --kernel does.
	reports.reverse()
	result_list = [result for kernel_results in reversed(per_kernel) for result in kernel_results]
	# One shape, whatever ran: what ran it, and a report per kernel.
	document = dict(session.sharding.record(repo), kernels=reports)
	return finish(printer, request, result_list, len(target_list) > 1, document)

def finish(printer: Printer, request: ReportRequest, result_list: List[config_result.ConfigResult],
	   several: bool, document: JsonObj) -> int:
	"""What closes `run` (and a merge of its shards), after each kernel's
	report: the kernels' totals if @several, the tally, the JSON
	(@document) and JUnit files, and the exit status."""
	if several:
		for line in terminal.total_lines(result_list):
			printer.print(line)
	passed, failed, skipped = config_result.totals(result_list)
	summary.report(printer, summary.Tally('run', passed, failed, skipped))
	if request.json:
		files.write_json(request.json, document, '--json')
	if request.junit:
		junit.write(request.junit, junit.document('pan-kunit run', [
			suite for result in result_list for suite in junit.config_suites(result)],
			time=sum(r.elapsed or 0.0 for r in result_list)))
	return 0 if all(r.status == config_result.Status.PASS for r in result_list) else 1
