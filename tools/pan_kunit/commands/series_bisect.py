# SPDX-License-Identifier: GPL-2.0
#
# `pan-kunit bisect`: a series checked one patch at a time in the
# worktree, each step built and booted on the whole matrix.  A step is bad
# when a config does not build, or when a case that passed at the step
# before fails (or the kernel crashes or hangs where it booted); the
# first bad step names the patch to look at.

import os
import shlex
import statistics
import tempfile
import time
from dataclasses import dataclass
from typing import Dict, List, Optional

from pan_kunit import Error
from pan_kunit.commands import steps
from pan_kunit.commands.boot_request import ReportRequest
from pan_kunit.commands.session import Session
from pan_kunit.commands.steps import BROKEN, FAILED, MAX_CASES, Checker, Step, suite_cells
from pan_kunit.host import files, progress, summary
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
	only: Optional[int]=None, start: str=tree.PREPARED_REF, kernel: str='the tree') -> List[Step]:
	"""Checks the starting point, then each patch on top of the previous
	ones: @start (the prepared tree) plus @patches, or, with @sources, the
	base plus the suites' files plus @patches (a check of patches/ itself).
	With @only, applies the patches up to that step and checks it alone.
	Stops after the start when it is broken (see broken()): no patch can
	be judged against it.  Raises Error for a patch that does not apply,
	after printing the steps checked so far, and for the start of a
	given series (not @sources) where no case passed: a series whose
	start tests nothing would be all good."""
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
			if sources is None and not passed_any(step):
				shown.task('')
				raise Error('no case passed at the start (step 0, ' + step.verdict() +
					    '): every patch would look good; check --filter_glob, '
					    '--config and the kunitconfig')
	shown.task('')
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

def run_bisect(session: Session, request: BisectRequest, target: Target, repo: str) -> int:
	"""Prepares @target's tree (of the range's base, for a range of a
	tree of the user's) and bisects the series there."""
	user_range = session.user_ranges.get(target.tree)
	session.prepare(target, repo, 'bisect', at=user_range.base if user_range else None)
	tallies: List[summary.Tally] = []
	with worktree.locked(session.printer, target.tree):
		status = _bisect(session, request, target, repo, tallies)
	for tally in tallies:  # the closing line, after the verdict
		summary.report(session.printer, tally)
	return status

def _bisect(session: Session, request: BisectRequest, target: Target, repo: str,
	    tallies: List[summary.Tally]) -> int:
	tree_dir, kernel = target.tree, target.kernel
	printer = session.printer
	checker = steps.checker(session, request, target, repo)
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
	printer.print()
	for line in table(checked):
		printer.print(line)
	bad = first_bad(checked) if request.step is None else None
	elapsed = time.monotonic() - start
	timed = sorted(s.elapsed for s in checked[1:]) or [0.0]
	printer.print(f'bisect took {elapsed:.0f} s for {len(checked)} steps '
		      f'(median step {statistics.median(timed):.1f} s)')
	bad_steps = sum(s.bad() for s in checked)
	tallies.append(summary.Tally('bisect', len(checked) - bad_steps, bad_steps))
	if request.json:
		files.write_json(request.json, {
			'tree': tree_dir, 'worktree': worktree.location(tree_dir),
			'series': _series(request.series) if request.series else
			os.path.join(repo, kernel.series()),
			'first_bad': bad.number if bad else None,
			'steps': [s.to_json() for s in checked]}, '--json')
	if request.junit:
		checks = [junit.Check(f'step {s.number} {s.patch.name if s.patch else "start"}',
				      junit.CheckStatus.FAILURE if s.bad() else junit.CheckStatus.PASS,
				      s.verdict()) for s in checked]
		junit.write(request.junit, junit.document('pan-kunit bisect', [
			junit.checks_suite('bisect', checks)] + [
			suite for s in checked for result in s.configs
			for suite in junit.config_suites(result, f'step-{s.number:02d}',
							 # patches/ hooks no suite in at step 0
							 no_tests_expected=wanted is not None and
							 s.number == 0)]))
	if request.step is not None:
		no_tests = any(r.status == config_result.Status.NO_TESTS for r in checked[-1].configs)
		# Step 0 of patches/ hooks no suite in yet: it runs no test.
		no_tests = no_tests and not (wanted is not None and request.step == 0)
		return 1 if checked[-1].bad() or checked[-1].failed() or no_tests else 0
	if broken(checked[0]):
		printer.print('bisect: the start (step 0) is broken, no patch can be judged against '
			      'it: ' + ', '.join(broken(checked[0])))
		return 1
	if bad is None and not any(passed_any(s) for s in checked):
		raise Error('no step passed any case: every patch would look good; check '
			    '--filter_glob, --config and the kunitconfig')
	if bad is None:
		printer.print(f'bisect: all {len(patches)} patches good: every step built, and no case '
			      'that passed stopped passing')
		return 0
	assert bad.patch is not None
	printer.print(f'bisect: first bad patch: {bad.number} {bad.patch.name}: {bad.patch.subject}')
	printer.print(f'    {bad.verdict()}')
	for line in bad.regressions:
		printer.print(f'    {line}')
	again = reproduce(request, tree_dir, bad.number, session.user_ranges.get(tree_dir))
	printer.print(f'reproduce that step: {again}')
	return 1
