# SPDX-License-Identifier: GPL-2.0
#
# Checks that need a kernel tree of their own (worktree.py): `bisect` (a
# series, one patch at a time) and `mutants` (each known regression, one
# at a time).

import os
import re
import shutil
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set

from pan_kunit import Error, progress, results, runner, tree, worktree
from pan_kunit.configs import QemuConfig, group_by_kconfig
from pan_kunit.series import Patch
from pan_kunit.sources import Sources, TREE_KUNITCONFIG

# What kunit.py's --kunitconfig gets at each step: the step's own
# .kunitconfig, less the symbols its Kconfig does not define yet.
STEP_KUNITCONFIG = 'kunitconfig'
# Leaf statuses that count as a failure of the case.
FAILED = ('FAIL', 'ERROR')
# Config statuses that say nothing about single cases.
BROKEN = (results.BUILD_ERROR, results.CRASH, results.TIMEOUT)
# How many failing cases a report line names.
MAX_CASES = 5

_SYMBOL = re.compile(r'^(?:# )?CONFIG_([A-Za-z0-9_]+)(?:=| is not set)')

def step_kunitconfig(worktree: str, fallback: Optional[bytes]=None) -> List[str]:
	"""Writes the kunitconfig of this step and returns the symbols it left
	out: those of the step's .kunitconfig (else @fallback) that no Kconfig
	of the step defines."""
	try:
		with open(os.path.join(worktree, TREE_KUNITCONFIG)) as f:
			lines = f.read().splitlines()
	except FileNotFoundError:
		if fallback is None:
			raise Error(f'no {TREE_KUNITCONFIG} in {worktree}')
		lines = fallback.decode().splitlines()
	except OSError as e:
		raise Error(f'cannot read {TREE_KUNITCONFIG} in {worktree}: {e.strerror}')
	wanted = {m.group(1) for m in map(_SYMBOL.match, lines) if m}
	defined: Set[str] = set()
	if wanted:
		pattern = (r'^[[:space:]]*(menu)?config[[:space:]]+(' + '|'.join(sorted(wanted)) +
			   r')[[:space:]]*$')
		found = tree.git(worktree, 'grep', '-h', '-E', pattern, '--', '*Kconfig*', check=False)
		defined = {line.split()[1] for line in found.stdout.splitlines()}
	def _kept(line: str) -> bool:
		match = _SYMBOL.match(line)
		return match is None or match.group(1) in defined
	kept = [line for line in lines if _kept(line)]
	path = runner.state(worktree, STEP_KUNITCONFIG)
	os.makedirs(os.path.dirname(path), exist_ok=True)
	with open(path, 'w') as f:
		f.write(''.join(line + '\n' for line in kept))
	return sorted(wanted - defined)

def regressions(before: List[results.ConfigResult],
		after: List[results.ConfigResult]) -> List[str]:
	"""What passed in @before and does not in @after, config by config."""
	found = []
	for old, new in zip(before, after):
		old_leaves = results.leaf_statuses(old.kunit)
		passed = sorted(c for c, s in old_leaves.items() if s == 'PASS')
		if new.status in BROKEN and old.status not in BROKEN:
			found.append(f'{new.name}: {new.status}')
			continue
		new_leaves = results.leaf_statuses(new.kunit)
		found.extend(f'{new.name}: {case} {new_leaves[case]}' for case in passed
			     if new_leaves.get(case) in FAILED)
	return found

def failed_cases(result: results.ConfigResult) -> List[str]:
	return sorted(c for c, s in results.leaf_statuses(result.kunit).items() if s in FAILED)

def _table(header: List[str], rows: List[List[str]]) -> List[str]:
	return results.align([header] + rows)

def _abbreviate(items: List[str]) -> str:
	more = f', and {len(items) - MAX_CASES} more' if len(items) > MAX_CASES else ''
	return ', '.join(items[:MAX_CASES]) + more

def _suite_cells(result_list: List[results.ConfigResult], suites: List[str]) -> List[str]:
	per_config = [result.suites() for result in result_list]
	cells = []
	for suite in suites:
		counts = results.Counts()
		for config_suites in per_config:
			counts.merge(config_suites.get(suite, results.Counts()))
		seen = any(suite in config_suites for config_suites in per_config)
		cells.append(counts.cell() if seen else '-')
	return cells


# ---------------------------------------------------------------- bisect

@dataclass
class Step:
	number: int
	patch: Optional[Patch]   # None for the starting point
	commit: str = ''
	left_out: List[str] = field(default_factory=list)
	configs: List[results.ConfigResult] = field(default_factory=list)
	regressions: List[str] = field(default_factory=list)
	elapsed: float = 0.0
	logs: str = ''           # its builds' logs and its boots' files (runner.Outputs)

	def build_failed(self) -> List[str]:
		return [r.name for r in self.configs if r.status == results.BUILD_ERROR]

	def failed(self) -> bool:
		"""A config failed, crashed or hung, whatever the step before did."""
		return any(r.status in BROKEN + (results.FAIL,) for r in self.configs)

	def bad(self) -> bool:
		return bool(self.build_failed() or self.regressions)

	def verdict(self) -> str:
		if self.build_failed():
			return 'BUILD FAILED: ' + ', '.join(self.build_failed())
		if self.regressions:
			return f'REGRESSED: {len(self.regressions)}'
		statuses = sorted({r.status for r in self.configs} - {results.PASS})
		return 'ok' + (f' ({", ".join(statuses)})' if statuses else '')

	def to_json(self) -> results.JsonObj:
		return {'step': self.number,
			'patch': self.patch.path if self.patch else None,
			'subject': self.patch.subject if self.patch else None,
			'commit': self.commit, 'bad': self.bad(), 'verdict': self.verdict(),
			'kunitconfig_left_out': self.left_out,
			'regressions': self.regressions, 'elapsed': round(self.elapsed, 1),
			'logs': self.logs, 'configs': [r.to_json() for r in self.configs]}

@dataclass
class Bisect:
	tree: str
	matrix: List[QemuConfig]
	timeout: int
	jobs: int
	# The kunitconfig of a step that has no .kunitconfig of its own.
	kunitconfig: Optional[bytes] = None
	options: runner.KunitOptions = field(default_factory=runner.KunitOptions)
	# Kconfig files merged into every step's kunitconfig.
	fragments: Sequence[str] = ()

	def run_step(self, worktree: str, step: Step, logs: str,
		     configs: Optional[List[QemuConfig]]=None, fresh: bool=True) -> None:
		"""Builds and boots @configs (default: the matrix) of the worktree
		as it is, with its logs and boots in @logs, which holds nothing of
		an earlier step or check (unless not @fresh: of an earlier group
		of the same step)."""
		start = time.monotonic()
		step.commit = tree.head(worktree)
		step.left_out = step_kunitconfig(worktree, self.kunitconfig)
		if fresh:
			shutil.rmtree(logs, ignore_errors=True)
		step.logs = logs
		step.configs = runner.run(worktree, tree.kunit_dir(worktree),
					  configs or self.matrix, self.timeout, self.jobs,
					  kunitconfig=runner.state(worktree, STEP_KUNITCONFIG), quiet=True,
					  options=self.options, fragments=self.fragments,
					  outputs=runner.Outputs(logs))
		step.elapsed = time.monotonic() - start

	def groups(self) -> List[List[QemuConfig]]:
		"""The matrix by kconfig group, the group with most configs first
		(matrix order among groups of the same size)."""
		groups = list(group_by_kconfig(self.matrix).values())
		return sorted(groups, key=lambda group: -len(group))

def step_logs(worktree: str, number: int) -> str:
	return runner.state(worktree, 'bisect', f'step-{number:02d}')

def baseline_logs(worktree: str) -> str:
	return runner.state(worktree, 'baseline')

def mutant_logs(worktree: str, mutant: 'Mutant') -> str:
	return runner.state(worktree, 'mutants', mutant.name)

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

def bisect_table(steps: List[Step]) -> List[str]:
	suites = sorted(set().union(*[set(r.suites()) for s in steps for r in s.configs]))
	rows = []
	for step in steps:
		name = step.patch.name if step.patch else 'start'
		rows.append([str(step.number), name] + _suite_cells(step.configs, suites) +
			    [step.verdict()])
	return _table(['step', 'patch (suites: passed/failed/skipped, all configs)'] +
			    suites + ['result'], rows)

def run_bisect(check: Bisect, patches: List[Patch], sources: Optional[Sources],
	       only: Optional[int]=None, start: str=tree.PREPARED_REF) -> List[Step]:
	"""Checks the starting point, then each patch on top of the previous
	ones: @start (the prepared tree) plus @patches, or, with @sources, the
	base plus the suites' files plus @patches (a check of patches/ itself).
	With @only, applies the patches up to that step and checks it alone.
	Raises Error for a patch that does not apply, after printing the
	steps checked so far."""
	wt = worktree.checkout(check.tree, start)
	if sources is not None:
		worktree.start_with_suites(wt, tree.BASE_REF, sources)
	steps: List[Step] = []
	last = len(patches) if only is None else only
	eta = progress.Eta(last + 1 if only is None else 1)
	for number in range(last + 1):
		patch = patches[number - 1] if number else None
		if patch:
			why = worktree.apply(wt, patch.path)
			if why is not None:
				if steps:
					print('\n'.join(bisect_table(steps)))
				raise Error(f'patch {number}, {patch.path}, does not apply on step '
					    f'{number - 1}:\n{why}\nthe check stops here; the worktree '
					    f'{wt} is at step {number - 1}')
		if only is not None and number < only:
			continue
		step = Step(number, patch)
		progress.get().task(f'step {number}/{len(patches)} {patch.name if patch else "start"}',
				    eta.text())
		check.run_step(wt, step, step_logs(wt, number))
		eta.done(step.elapsed)
		if steps:
			step.regressions = regressions(steps[-1].configs, step.configs)
		steps.append(step)
		print_step(step, len(patches), eta.text())
	progress.get().task('')
	return steps

def first_bad(steps: List[Step]) -> Optional[Step]:
	return next((s for s in steps if s.bad()), None)

# ---------------------------------------------------------------- mutants

KILLED = 'killed'
SURVIVED = 'survived'
PENDING = 'pending'
DOES_NOT_APPLY = 'does not apply'
BUILD_FAILED = 'build failed'

_HEADER = re.compile(r'^([A-Za-z][A-Za-z-]*):[ \t]*(.*?)\s*$')

@dataclass
class Mutant:
	path: str
	name: str              # the file name without .patch
	subject: str
	must_fail: List[str]   # suites
	verdict: str = ''
	detail: str = ''
	failures: Dict[str, List[str]] = field(default_factory=dict)  # config -> cases
	elapsed: float = 0.0
	logs: Optional[str] = None   # when it was built: as Step.logs

	def ok(self) -> bool:
		return self.verdict in (KILLED, PENDING)

	def to_json(self) -> results.JsonObj:
		return {'name': self.name, 'path': self.path, 'subject': self.subject,
			'must_fail': self.must_fail, 'verdict': self.verdict, 'detail': self.detail,
			'failed_cases': self.failures, 'elapsed': round(self.elapsed, 1),
			'logs': self.logs}

def load_mutant(path: str) -> Mutant:
	headers: Dict[str, str] = {}
	try:
		with open(path, errors='backslashreplace') as f:
			for line in f:
				if line.startswith(('---', 'diff --git')):
					break
				match = _HEADER.match(line)
				if match and not line[0].isspace():
					headers.setdefault(match.group(1).lower(), match.group(2))
	except OSError as e:
		raise Error(f'cannot read {path}: {e.strerror}')
	must_fail = [s.strip() for s in headers.get('must-fail', '').split(',') if s.strip()]
	if not headers.get('subject') or not must_fail:
		raise Error(f'{path}: a mutant needs "Subject:" and "Must-Fail: SUITE[, SUITE]" '
			    'lines above its diff')
	name = os.path.basename(path)
	return Mutant(path=path, name=name[:-len('.patch')] if name.endswith('.patch') else name,
		      subject=headers['subject'], must_fail=must_fail)

def load_mutants(directory: str, only: List[str]) -> List[Mutant]:
	try:
		names = sorted(n for n in os.listdir(directory) if n.endswith('.patch'))
	except OSError as e:
		raise Error(f'cannot list the mutants in {directory}: {e.strerror}')
	mutants = [load_mutant(os.path.join(directory, n)) for n in names]
	unknown = sorted(set(only) - {m.name for m in mutants})
	if unknown:
		raise Error(f'unknown --only {", ".join(unknown)}; the mutants in {directory} are: '
			    f'{", ".join(m.name for m in mutants)}')
	return [m for m in mutants if not only or m.name in only]

def judge_mutant(mutant: Mutant, configs: List[results.ConfigResult],
		 landed: Set[str]) -> None:
	"""Killed when every landed Must-Fail suite has a failing case (on
	some config), or when the kernel crashed or hung."""
	mutant.failures = {r.name: failed_cases(r) for r in configs if failed_cases(r)}
	broken = [f'{r.name}: {r.status}' for r in configs if r.status in BROKEN]
	failed_suites = {c.split('.')[0] for cases in mutant.failures.values() for c in cases}
	wanted = [s for s in mutant.must_fail if s in landed]
	missed = [s for s in wanted if s not in failed_suites]
	if any(r.status == results.BUILD_ERROR for r in configs):
		mutant.verdict, mutant.detail = BUILD_FAILED, '; '.join(broken)
	elif broken:
		mutant.verdict, mutant.detail = KILLED, '; '.join(broken)
	elif not missed:
		mutant.verdict = KILLED
		caught = {config: [c for c in cases if c.split('.')[0] in wanted]
			  for config, cases in mutant.failures.items()}
		mutant.detail = '; '.join(f'{config}: {len(cases)} failed: {_abbreviate(cases)}'
					  for config, cases in sorted(caught.items()) if cases)
	else:
		mutant.verdict = SURVIVED
		others = sorted({c for cases in mutant.failures.values() for c in cases})
		mutant.detail = ('no case of ' + ', '.join(missed) + ' failed' +
				 (f'; failed: {_abbreviate(others)}' if others else ''))
	pending = [s for s in mutant.must_fail if s not in landed]
	if pending:
		mutant.detail += f' (not landed yet: {", ".join(pending)})'

def judge_by_groups(check: Bisect, wt: str, mutant: Mutant, number: int,
		    landed: Set[str]) -> float:
	"""Builds and boots one kconfig group after the other, the largest
	first, and stops at the first that kills the mutant: a mutant of a
	widely included header then rebuilds one kernel, not every group's.
	A mutant that survives has been judged on the whole matrix.  Returns
	the seconds the steps took."""
	results_so_far: List[results.ConfigResult] = []
	elapsed = 0.0
	mutant.logs = mutant_logs(wt, mutant)
	for index, group in enumerate(check.groups()):
		step = Step(number, None)
		check.run_step(wt, step, mutant.logs, group, fresh=index == 0)
		elapsed += step.elapsed
		results_so_far.extend(step.configs)
		judge_mutant(mutant, results_so_far, landed)
		if mutant.verdict != SURVIVED:
			break
	booted = {r.name for r in results_so_far}
	unbooted = [c.name for c in check.matrix if c.name not in booted]
	if unbooted:
		mutant.detail += f' ({", ".join(unbooted)}: not needed, not built)'
	return elapsed

def run_mutants(check: Bisect, mutants: List[Mutant]) -> Step:
	"""Checks the prepared tree (the baseline, which must pass), then each
	mutant applied alone on it.  Returns the baseline."""
	wt = worktree.checkout(check.tree, tree.PREPARED_REF)
	baseline = Step(0, None)
	progress.get().task('baseline (the prepared tree)')
	check.run_step(wt, baseline, baseline_logs(wt))
	print(f'baseline (the prepared tree): {baseline.verdict()} ({baseline.elapsed:.1f} s; '
	      f'logs: {baseline.logs})')
	not_passing = [f'{r.name}: {r.status}' for r in baseline.configs if r.status != results.PASS]
	if not_passing:
		results.print_report(baseline.configs)
		raise Error('the baseline does not pass (' + ', '.join(not_passing) + '); a mutant '
			    'is only killed by a suite that passes without it')
	landed = set().union(*[set(r.suites()) for r in baseline.configs])
	# The baseline, and the mutants that are not pending, build and boot.
	eta = progress.Eta(1 + sum(any(s in landed for s in m.must_fail) for m in mutants))
	eta.done(baseline.elapsed)
	for number, mutant in enumerate(mutants, 1):
		start = time.monotonic()
		pending = [s for s in mutant.must_fail if s not in landed]
		if len(pending) == len(mutant.must_fail):
			mutant.verdict = PENDING
			mutant.detail = f'not landed yet: {", ".join(pending)}'
		else:
			worktree.reset(wt, tree.PREPARED_REF)
			result = tree.git(wt, 'apply', mutant.path, check=False)
			if result.returncode != 0:
				mutant.verdict = DOES_NOT_APPLY
				mutant.detail = result.stderr.strip()
				eta.skip()
			else:
				progress.get().task(f'mutant {number}/{len(mutants)} {mutant.name}',
						    eta.text())
				elapsed = judge_by_groups(check, wt, mutant, number, landed)
				eta.done(elapsed)
		mutant.elapsed = time.monotonic() - start
		left = eta.text()
		logs = f'; logs: {mutant.logs}' if mutant.logs else ''
		print(f'mutant {number}/{len(mutants)} {mutant.name}: {mutant.verdict} '
		      f'({mutant.elapsed:.1f} s{logs})' + (f'; {left}' if left else ''))
	progress.get().task('')
	worktree.reset(wt, tree.PREPARED_REF)
	return baseline

def mutants_table(mutants: List[Mutant]) -> List[str]:
	return _table(['mutant', 'must fail', 'verdict', 'detail'],
			    [[m.name, ', '.join(m.must_fail), m.verdict, m.detail] for m in mutants])
