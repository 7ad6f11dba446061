# SPDX-License-Identifier: GPL-2.0
#
# `pan-kunit bisect`: a series checked one patch at a time in the
# worktree, each step built and booted on the whole matrix.  A step is bad
# when a config does not build, or when a case that passed at the step
# before fails (or the kernel crashes or hangs where it booted); the
# first bad step names the patch to look at.

import dataclasses
import os
import shlex
import statistics
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from pan_kunit import Error
from pan_kunit.commands import sharding, steps
from pan_kunit.commands.boot_request import ReportRequest, write_reports
from pan_kunit.commands.session import Session
from pan_kunit.commands.steps import BROKEN, FAILED, MAX_CASES, Checker, Step, suite_cells
from pan_kunit.host import progress, summary
from pan_kunit.host.files import JsonObj
from pan_kunit.host.printer import Printer
from pan_kunit.kunit_tool import kunit_py
from pan_kunit.kunit_tool.ktap import CaseStatus
from pan_kunit.results import config_result, junit, kunit_json, terminal
from pan_kunit.results.config_result import Status
from pan_kunit.trees import series, sources, tree, usertree, worktree
from pan_kunit.trees.series import Patch
from pan_kunit.trees.sources import Sources
from pan_kunit.trees.targets import Target
from pan_kunit.trees.tree import state_dir

@dataclass
class BisectRequest(ReportRequest):
	"""What `bisect` is asked."""
	series: Optional[str]  # SERIES as given; None: patches/ on the Debian base
	step: Optional[int]    # check this step alone

def step_logs(wt: str, number: int) -> str:
	return state_dir(wt, 'bisect', f'step-{number:02d}')

def regressions(before: List[config_result.ConfigResult],
		after: List[config_result.ConfigResult]) -> List[str]:
	"""What passed in @before and does not in @after, config by config."""
	found = []
	for old, new in zip(before, after):
		old_leaves = kunit_json.statuses(old.kunit)
		passed = sorted(c for c, s in old_leaves.items() if s == CaseStatus.PASS)
		if new.status in BROKEN and old.status not in BROKEN:
			found.append(f'{new.name}: {new.status}')
			continue
		if new.status == Status.NO_TESTS and passed:
			found.append(f'{new.name}: {new.status}')
			continue
		new_leaves = kunit_json.statuses(new.kunit)
		found.extend(f'{new.name}: {case} {new_leaves[case]}' for case in passed
			     if new_leaves.get(case) in FAILED)
	return found

def broken(step: Step) -> List[str]:
	"""The configs of @step that did not build, crashed or hung."""
	return [f'{r.name}: {r.status}' for r in step.configs if r.status in BROKEN]

def passed_any(step: Step) -> bool:
	return any(s == CaseStatus.PASS for r in step.configs
		   for s in kunit_json.statuses(r.kunit).values())

def print_step(printer: Printer, step: Step, total: int, left: str='') -> None:
	name = step.patch.name if step.patch else 'start'
	printer.print(f'step {step.number}/{total} {name}: {step.verdict()} ({step.elapsed:.1f} s; '
		      f'logs: {step.logs})' + (f'; {left}' if left else ''))
	if step.left_out:
		printer.print(f'    not in this step\'s Kconfig, left out: {", ".join(step.left_out)}')
	for line in step.regressions[:MAX_CASES * 4]:
		printer.print(f'    regressed: {line}')
	if len(step.regressions) > MAX_CASES * 4:
		printer.print(f'    ... and {len(step.regressions) - MAX_CASES * 4} more')

def table(steps: List[Step]) -> List[str]:
	suites = sorted(set().union(*[set(r.suites()) for s in steps for r in s.configs]))
	rows = []
	for step in steps:
		name = step.patch.name if step.patch else 'start'
		rows.append([str(step.number), name] + suite_cells(step.configs, suites) +
			    [step.verdict()])
	return terminal.align([['step', 'patch (suites: passed/failed/skipped, all configs)'] +
			      suites + ['result']] + rows)

def check_applies(wt: str, patches: List[Patch], kernel: str) -> None:
	"""Applies @patches in order on the worktree's HEAD and goes back to
	it: a patch that does not apply to @kernel (the tree's package) is
	refused before any build."""
	start = tree.head(wt)
	try:
		for number, patch in enumerate(patches, 1):
			why = worktree.apply(wt, patch.path)
			if why is not None:
				raise Error(f'patch {number}, {patch.path}, does not apply to {kernel} '
					    f'(on step {number - 1}):\n{why}\nnothing was built; is the '
					    'series written for another kernel? (--kernel)')
	finally:
		worktree.reset(wt, start)

def run(checker: Checker, patches: List[Patch], sources: Optional[Sources],
	only: Optional[int]=None, start: str=tree.PREPARED_REF, kernel: str='the tree',
	adds_suites: bool=False) -> List[Step]:
	"""Checks the starting point, then each patch on top of the previous
	ones: @start (the prepared tree) plus @patches, or, with @sources, the
	base plus the suites' files plus @patches (a check of patches/ itself).
	With @only, applies the patches up to that step and checks it alone.
	Stops after the start when it is broken (see broken()): no patch can
	be judged against it.  Raises Error for a patch that does not apply,
	after printing the steps checked so far, and for the start of a
	given series (not @sources) where no case passed: a series whose
	start tests nothing would be all good.  A series that @adds_suites
	(export's, on the bare base) starts with none: there the whole
	series must pass a case instead."""
	shown = checker.progress
	wt = worktree.checkout(shown.printer, checker.tree, start)
	if sources is not None:
		worktree.start_with_suites(wt, tree.BASE_REF, sources)
	last = len(patches) if only is None else only
	check_applies(wt, patches[:last], kernel)
	steps: List[Step] = []
	eta = progress.Eta(last + 1 if only is None else 1)
	for number in range(last + 1):
		patch = patches[number - 1] if number else None
		if patch:
			why = worktree.apply(wt, patch.path)
			if why is not None:
				if steps:
					shown.printer.print('\n'.join(table(steps)))
				raise Error(f'patch {number}, {patch.path}, does not apply on step '
					    f'{number - 1}:\n{why}\nthe check stops here; the worktree '
					    f'{wt} is at step {number - 1}')
		if only is not None and number < only:
			continue
		step = Step(number, patch)
		shown.task(f'step {number}/{len(patches)} {patch.name if patch else "start"}', eta.text())
		checker.run_step(wt, step, step_logs(wt, number))
		eta.done(step.elapsed)
		if steps:
			step.regressions = regressions(steps[-1].configs, step.configs)
		steps.append(step)
		print_step(shown.printer, step, len(patches), eta.text())
		if number == 0 and only is None:
			if broken(step):
				break
			if sources is None and not adds_suites and not passed_any(step):
				shown.task('')
				raise Error('no case passed at the start (step 0, ' + step.verdict() +
					    '): every patch would look good; check --filter_glob, '
					    '--config and the kunitconfig')
	shown.task('')
	if adds_suites and only is None and len(steps) == last + 1 and not passed_any(steps[-1]):
		shown.printer.print('\n'.join(table(steps)))
		raise Error(f'no case passed after the whole series (step {last}, '
			    f'{steps[-1].verdict()}): it adds suites that run nothing; check '
			    '--config and its .kunitconfig')
	return steps

def first_bad(steps: List[Step]) -> Optional[Step]:
	return next((s for s in steps if s.bad()), None)

def _series(spec: str) -> str:
	"""SERIES as bisect's report names it: a file or directory by its
	absolute path."""
	return os.path.abspath(spec) if os.path.exists(spec) else spec

def reproduce(request: BisectRequest, tree_dir: str, step: int,
	      user: Optional[usertree.UserRange]=None) -> str:
	"""The command that checks @step alone; in a tree of the user's (a
	git range of it: @user), of their tree and range as they gave them."""
	words = ['tools/pan-kunit', '--tree', user.user if user else tree_dir, 'bisect']
	words += [user.given] if user else [_series(request.series)] if request.series else []
	options = request.options
	words += [f'--config={c}' for c in request.configs]
	words += [f'--filter_glob={options.filter_glob}'] if options.filter_glob else []
	words += kunit_py.exec_options(options)
	words += [f'--run_isolated={options.run_isolated}'] if options.run_isolated else []
	words += kunit_py.build_options(options) + [f'--step={step}']
	return ' '.join(shlex.quote(w) for w in words)

def _check_step(request: BisectRequest, patches: int) -> None:
	if request.step is not None and not 0 <= request.step <= patches:
		raise Error(f'--step {request.step}: the series has steps 0 to {patches}')

def _check_user_range(session: Session, request: BisectRequest, target: Target) -> None:
	"""A git range SERIES of a tree of the user's is read there (its branch
	names are not in the clone) and given to the clone as commits."""
	assert target.user is not None and request.series is not None
	base, tip = usertree.resolve_range(target.user, request.series)
	session.printer.print(f'bisect of {request.series} of {target.user}: from {base[:12]}, '
			      'without your uncommitted edits, to ' + tip[:12])
	session.user_ranges[target.tree] = usertree.UserRange(target.user, request.series, base)
	request.series = f'{base}..{tip}'
	if request.step is not None:
		_check_step(request, len(usertree.range_commits(target.user, request.series)))

def check(session: Session, request: BisectRequest, target: Target, repo: str) -> None:
	"""Loads SERIES, and checks --step against it, before setup; a git
	range needs the tree: it is refused at once without one, else read
	now (and loaded after setup, which may update the tree's refs).  A
	git range of a tree of the user's is read in that tree."""
	if (target.user and request.series and
			series.kind(request.series) == series.Kind.GIT_RANGE):
		_check_user_range(session, request, target)
		return
	tree_dir = target.tree
	if request.series is None:
		patches = len(sources.load(repo, target.kernel).patches)
	elif series.kind(request.series) == series.Kind.GIT_RANGE:
		if not os.path.isdir(os.path.join(tree_dir, '.git')):
			raise Error(f'SERIES {request.series} is a git range, and there is no tree '
				    f'{tree_dir} yet to read it in: run tools/pan-kunit setup first, '
				    'or give a directory or an mbox')
		series.range_commits(tree_dir, request.series)
		return
	else:
		with tempfile.TemporaryDirectory(prefix='pan-kunit-series-') as scratch:
			patches = len(series.load(request.series, '', scratch))
	_check_step(request, patches)

@dataclass
class KernelReport:
	"""What bisect found on one kernel, as it reports it and writes it in
	its --json (of a run, or read back from a shard's: of_json())."""
	kernel: str
	tree: str
	worktree: str
	series: str            # SERIES, or the repo's patches/VERSION/series
	of_repo: bool          # patches/ on the Debian base: step 0 hooks no suite in
	patches: int           # the series' patches
	only: Optional[int]    # --step
	steps: List[Step]
	elapsed: float
	reproduce: str = ''    # the command that checks a step, but its --step
	source: JsonObj = dataclasses.field(default_factory=dict)

	def to_json(self) -> JsonObj:
		bad = first_bad(self.steps) if self.only is None else None
		return {'tree': self.tree, 'worktree': self.worktree, 'series': self.series,
			'first_bad': bad.number if bad else None,
			'steps': [s.to_json() for s in self.steps], 'kernel': self.kernel,
			'source': self.source, 'of_repo': self.of_repo, 'patches': self.patches,
			'only': self.only, 'elapsed': round(self.elapsed, 1), 'reproduce': self.reproduce}

	@classmethod
	def of_json(cls, data: JsonObj) -> 'KernelReport':
		return cls(data['kernel'], data['tree'], data['worktree'], data['series'],
			   data['of_repo'], data['patches'], data['only'],
			   [steps.step_of_json(s) for s in data['steps']], data['elapsed'],
			   data['reproduce'], data['source'])

	def junit_suites(self, several: bool) -> List[ET.Element]:
		"""Its testsuites: bisect's (bisect/KERNEL of @several kernels),
		a testcase per step, and each step's configs'."""
		checks = [junit.Check(f'step {s.number} {s.patch.name if s.patch else "start"}',
				      junit.CheckStatus.FAILURE if s.bad() else junit.CheckStatus.PASS,
				      s.verdict()) for s in self.steps]
		return [junit.checks_suite(f'bisect/{self.kernel}' if several else 'bisect', checks)] + [
			suite for s in self.steps for result in s.configs
			for suite in junit.config_suites(result, f'step-{s.number:02d}',
							 # patches/ hooks no suite in at step 0
							 no_tests_expected=self.of_repo and s.number == 0)]

def run_bisect(session: Session, request: BisectRequest, target: Target, repo: str,
	       reports: Optional[List[KernelReport]]=None) -> int:
	"""Prepares @target's tree (of the range's base, for a range of a
	tree of the user's) and bisects the series there (on the kconfig
	groups of the command's shard); its report into @reports."""
	user_range = session.user_ranges.get(target.tree)
	session.prepare(target, repo, 'bisect', at=user_range.base if user_range else None)
	with worktree.locked(session.printer, target.tree):
		report = _bisect(session, request, target, repo)
	if reports is not None:
		reports.append(report)
	status, tally = conclude(session.printer, report)
	summary.report(session.printer, tally)  # the closing line, after the verdict
	return status

def _bisect(session: Session, request: BisectRequest, target: Target,
	    repo: str) -> KernelReport:
	tree_dir, kernel = target.tree, target.kernel
	names = session.sharding.configs_for(kernel.name, request.configs)
	checker = steps.checker(session, dataclasses.replace(request, configs=names), target, repo)
	work = state_dir(tree_dir, 'check')
	if request.series:
		patches = series.load(_series(request.series), tree_dir, work)
		wanted = None
	else:
		wanted = sources.load(repo, kernel)
		patches = [series.patch(p) for p in wanted.patches]
	_check_step(request, len(patches))
	start = time.monotonic()
	checked = run(checker, patches, wanted, request.step, kernel=kernel.package)
	again = reproduce(request, tree_dir, 0, session.user_ranges.get(tree_dir))
	return KernelReport(
		kernel.name, tree_dir, worktree.location(tree_dir),
		_series(request.series) if request.series else os.path.join(repo, kernel.series()),
		wanted is not None, len(patches), request.step, checked, time.monotonic() - start,
		again[:-len(' --step=0')], sharding.source(tree_dir))

def conclude(printer: Printer, report: KernelReport) -> Tuple[int, summary.Tally]:
	"""The report of a kernel's steps: their table, the time and the
	verdict; its exit status and its tally, the closing line after the
	verdict."""
	checked = report.steps
	printer.print()
	for line in table(checked):
		printer.print(line)
	bad = first_bad(checked) if report.only is None else None
	timed = sorted(s.elapsed for s in checked[1:]) or [0.0]
	printer.print(f'bisect took {report.elapsed:.0f} s for {len(checked)} steps '
		      f'(median step {statistics.median(timed):.1f} s)')
	bad_steps = sum(s.bad() for s in checked)
	tally = summary.Tally('bisect', len(checked) - bad_steps, bad_steps)
	if report.only is not None:
		no_tests = any(r.status == config_result.Status.NO_TESTS for r in checked[-1].configs)
		# Step 0 of patches/ hooks no suite in yet: it runs no test.
		no_tests = no_tests and not (report.of_repo and report.only == 0)
		return (1 if checked[-1].bad() or checked[-1].failed() or no_tests else 0), tally
	if broken(checked[0]):
		printer.print('bisect: the start (step 0) is broken, no patch can be judged against '
			      'it: ' + ', '.join(broken(checked[0])))
		return 1, tally
	if bad is None and not any(passed_any(s) for s in checked):
		raise Error('no step passed any case: every patch would look good; check '
			    '--filter_glob, --config and the kunitconfig')
	if bad is None:
		printer.print(f'bisect: all {report.patches} patches good: every step built, and no '
			      'case that passed stopped passing')
		return 0, tally
	assert bad.patch is not None
	printer.print(f'bisect: first bad patch: {bad.number} {bad.patch.name}: {bad.patch.subject}')
	printer.print(f'    {bad.verdict()}')
	for line in bad.regressions:
		printer.print(f'    {line}')
	printer.print(f'reproduce that step: {report.reproduce} --step={bad.number}')
	return 1, tally

def write_files(request: ReportRequest, reports: List[KernelReport], record: JsonObj) -> None:
	"""The --json and --junit files of @reports, of a run or of a merge."""
	write_reports(request, 'pan-kunit bisect', reports, record)
