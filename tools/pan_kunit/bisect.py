# SPDX-License-Identifier: GPL-2.0
#
# `pan-kunit bisect`: a series checked one patch at a time in the
# worktree, each step built and booted on the whole matrix.  A step is bad
# when a config does not build, or when a case that passed at the step
# before fails (or the kernel crashes or hangs where it booted); the
# first bad step names the patch to look at.

from typing import List, Optional

from pan_kunit import Error, progress, results, runner, tree, worktree
from pan_kunit.ktap import CaseStatus
from pan_kunit.results import Status
from pan_kunit.series import Patch
from pan_kunit.sources import Sources
from pan_kunit.steps import BROKEN, FAILED, MAX_CASES, Checker, Step, suite_cells

def step_logs(wt: str, number: int) -> str:
	return runner.state(wt, 'bisect', f'step-{number:02d}')

def regressions(before: List[results.ConfigResult],
		after: List[results.ConfigResult]) -> List[str]:
	"""What passed in @before and does not in @after, config by config."""
	found = []
	for old, new in zip(before, after):
		old_leaves = results.leaf_statuses(old.kunit)
		passed = sorted(c for c, s in old_leaves.items() if s == CaseStatus.PASS)
		if new.status in BROKEN and old.status not in BROKEN:
			found.append(f'{new.name}: {new.status}')
			continue
		if new.status == Status.NO_TESTS and passed:
			found.append(f'{new.name}: {new.status}')
			continue
		new_leaves = results.leaf_statuses(new.kunit)
		found.extend(f'{new.name}: {case} {new_leaves[case]}' for case in passed
			     if new_leaves.get(case) in FAILED)
	return found

def broken(step: Step) -> List[str]:
	"""The configs of @step that did not build, crashed or hung."""
	return [f'{r.name}: {r.status}' for r in step.configs if r.status in BROKEN]

def passed_any(step: Step) -> bool:
	return any(s == CaseStatus.PASS for r in step.configs
		   for s in results.leaf_statuses(r.kunit).values())

def print_step(step: Step, total: int, left: str='') -> None:
	name = step.patch.name if step.patch else 'start'
	print(f'step {step.number}/{total} {name}: {step.verdict()} ({step.elapsed:.1f} s; '
	      f'logs: {step.logs})' + (f'; {left}' if left else ''))
	if step.left_out:
		print(f'    not in this step\'s Kconfig, left out: {", ".join(step.left_out)}')
	for line in step.regressions[:MAX_CASES * 4]:
		print(f'    regressed: {line}')
	if len(step.regressions) > MAX_CASES * 4:
		print(f'    ... and {len(step.regressions) - MAX_CASES * 4} more')

def table(steps: List[Step]) -> List[str]:
	suites = sorted(set().union(*[set(r.suites()) for s in steps for r in s.configs]))
	rows = []
	for step in steps:
		name = step.patch.name if step.patch else 'start'
		rows.append([str(step.number), name] + suite_cells(step.configs, suites) +
			    [step.verdict()])
	return results.align([['step', 'patch (suites: passed/failed/skipped, all configs)'] +
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
	wt = worktree.checkout(checker.tree, start)
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
					print('\n'.join(table(steps)))
				raise Error(f'patch {number}, {patch.path}, does not apply on step '
					    f'{number - 1}:\n{why}\nthe check stops here; the worktree '
					    f'{wt} is at step {number - 1}')
		if only is not None and number < only:
			continue
		step = Step(number, patch)
		progress.get().task(f'step {number}/{len(patches)} {patch.name if patch else "start"}',
				    eta.text())
		checker.run_step(wt, step, step_logs(wt, number))
		eta.done(step.elapsed)
		if steps:
			step.regressions = regressions(steps[-1].configs, step.configs)
		steps.append(step)
		print_step(step, len(patches), eta.text())
		if number == 0 and only is None:
			if broken(step):
				break
			if sources is None and not passed_any(step):
				progress.get().task('')
				raise Error('no case passed at the start (step 0, ' + step.verdict() +
					    '): every patch would look good; check --filter_glob, '
					    '--config and the kunitconfig')
	progress.get().task('')
	return steps

def first_bad(steps: List[Step]) -> Optional[Step]:
	return next((s for s in steps if s.bad()), None)
