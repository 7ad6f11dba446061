# SPDX-License-Identifier: GPL-2.0
#
# A step of a check in the worktree (worktree.py): the matrix built and
# booted on the worktree as it is, with the step's own kunitconfig, and
# its logs and boots in a directory of its own.  `bisect` runs one per
# patch of a series, `mutants` one for the baseline and one per kconfig
# group of each mutant; both report the failed cases of their steps, and
# their suites' counts in tables.

import os
import re
import shutil
import time
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Set

from pan_kunit import Error
from pan_kunit.commands.boot_request import BootRequest
from pan_kunit.commands.session import Session
from pan_kunit.host import files
from pan_kunit.host.progress import Progress
from pan_kunit.kunit_tool import configs, kunit_py
from pan_kunit.kunit_tool.configs import QemuConfig, group_by_kconfig
from pan_kunit.kunit_tool.ktap import CaseStatus
from pan_kunit.kunit_tool.toolchains import BuildSettings
from pan_kunit.matrix import initramfs, pipeline
from pan_kunit.matrix.plan import MatrixPlan, Outputs
from pan_kunit.results import config_result, kunit_json, leaves, record
from pan_kunit.results.config_result import Status
from pan_kunit.trees import targets, tree
from pan_kunit.trees.series import Patch
from pan_kunit.trees.sources import TREE_KUNITCONFIG
from pan_kunit.trees.targets import Target
from pan_kunit.trees.tree import state_dir

# What kunit.py's --kunitconfig gets at each step: the step's own
# .kunitconfig, less the symbols its Kconfig does not define yet.
STEP_KUNITCONFIG = 'kunitconfig'
# Leaf statuses that count as a failure of the case.
FAILED = (CaseStatus.FAIL, CaseStatus.ERROR)
# Config statuses that say nothing about single cases.
BROKEN = (Status.BUILD_ERROR, Status.CRASH, Status.TIMEOUT)
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
	path = state_dir(worktree, STEP_KUNITCONFIG)
	os.makedirs(os.path.dirname(path), exist_ok=True)
	files.write_text(path, ''.join(line + '\n' for line in kept))
	return sorted(wanted - defined)

def failed_cases(result: config_result.ConfigResult) -> List[str]:
	"""The failed cases of @result's KUnit boot (by kunit_tool's JSON)
	and of its kselftest boot, by name."""
	return sorted([c for c, s in kunit_json.statuses(result.kunit).items() if s in FAILED] +
		      [case.key() for case in result.kselftests if case.failed()])

def abbreviate(items: List[str]) -> str:
	more = f', and {len(items) - MAX_CASES} more' if len(items) > MAX_CASES else ''
	return ', '.join(items[:MAX_CASES]) + more

def suite_cells(result_list: List[config_result.ConfigResult], suites: List[str]) -> List[str]:
	per_config = [result.suites() for result in result_list]
	cells = []
	for suite in suites:
		counts = leaves.Counts()
		for config_suites in per_config:
			counts.merge(config_suites.get(suite, leaves.Counts()))
		seen = any(suite in config_suites for config_suites in per_config)
		cells.append(counts.cell() if seen else '-')
	return cells

@dataclass
class Step:
	"""One build and boot of the matrix, or of a kconfig group of it."""
	number: int
	patch: Optional[Patch]   # None for the starting point
	commit: str = ''
	left_out: List[str] = field(default_factory=list)
	configs: List[config_result.ConfigResult] = field(default_factory=list)
	regressions: List[str] = field(default_factory=list)  # since the step before
	elapsed: float = 0.0
	logs: str = ''           # its builds' logs and its boots' files (Outputs)

	def build_failed(self) -> List[str]:
		return [r.name for r in self.configs if r.status == Status.BUILD_ERROR]

	def failed(self) -> bool:
		"""A config failed, crashed or hung, whatever the step before did."""
		return any(r.status in BROKEN + (Status.FAIL,) for r in self.configs)

	def bad(self) -> bool:
		return bool(self.build_failed() or self.regressions)

	def verdict(self) -> str:
		if self.build_failed():
			return 'BUILD FAILED: ' + ', '.join(self.build_failed())
		if self.regressions:
			return f'REGRESSED: {len(self.regressions)}'
		statuses = sorted({r.status for r in self.configs} - {Status.PASS})
		return 'ok' + (f' ({", ".join(statuses)})' if statuses else '')

	def to_json(self) -> files.JsonObj:
		return {'step': self.number,
			'patch': self.patch.path if self.patch else None,
			'name': self.patch.name if self.patch else None,
			'subject': self.patch.subject if self.patch else None,
			'commit': self.commit, 'bad': self.bad(), 'verdict': self.verdict(),
			'kunitconfig_left_out': self.left_out,
			'regressions': self.regressions, 'elapsed': round(self.elapsed, 1),
			'logs': self.logs, 'configs': [record.config_record(r) for r in self.configs]}

def step_of_json(data: files.JsonObj) -> Step:
	"""The step of its record (Step.to_json()), on any machine."""
	patch = Patch(data['patch'], data.get('name') or os.path.basename(data['patch']),
		      data.get('subject') or '') if data.get('patch') else None
	return Step(data['step'], patch, data.get('commit') or '',
		    list(data.get('kunitconfig_left_out') or []),
		    [record.config_result_of(c) for c in data.get('configs') or []],
		    list(data.get('regressions') or []), data.get('elapsed') or 0.0,
		    data.get('logs') or '')

@dataclass
class Checker:
	"""Runs the steps of a check: the matrix, built and booted in the
	worktree as it is, with the step's kunitconfig."""
	progress: Progress
	settings: BuildSettings
	tree: str
	matrix: List[QemuConfig]
	timeout: int
	jobs: int
	# The kunitconfig of a step that has no .kunitconfig of its own.
	kunitconfig: Optional[bytes] = None
	options: kunit_py.KunitOptions = field(default_factory=kunit_py.KunitOptions)
	# Kconfig files merged into every step's kunitconfig.
	fragments: Sequence[str] = ()
	# The source of the LKDTM boots' init (initramfs.LKDTM_INIT in the repo),
	# for `mutants` to boot a mutant of the PAN fault path under LKDTM;
	# None: no LKDTM boot.
	lkdtm_init: Optional[str] = None
	# The init of the kselftest boots (kselftest_build.KSFT_INIT in the
	# repo), for every step to boot the kselftests too; None: no kselftests.
	kselftest_init: Optional[str] = None
	kselftest_only: Sequence[str] = ()  # their collections to boot; none: all

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
		step.configs = pipeline.build_and_boot(self.plan(worktree, configs or self.matrix, logs),
						       self.progress, self.settings)
		step.elapsed = time.monotonic() - start

	def plan(self, worktree: str, configs: List[QemuConfig], logs: str) -> MatrixPlan:
		"""The run of @configs a step makes in @worktree, with the step's
		kunitconfig, its logs and boots in @logs."""
		return MatrixPlan.of_tree(worktree, configs, self.timeout, self.jobs, self.options,
					  self.fragments, state_dir(worktree, STEP_KUNITCONFIG),
					  Outputs(logs), quiet=True, kselftest_init=self.kselftest_init,
					  kselftest_only=self.kselftest_only)

	def build_dirs(self, worktree: str, configs: List[QemuConfig]) -> List[str]:
		"""The build directories run_step() builds @configs in."""
		return [b.build_dir(worktree) for b in self.plan(worktree, configs, '').builds()]

	def groups(self) -> List[List[QemuConfig]]:
		"""The matrix by kconfig group, the group with most configs first
		(matrix order among groups of the same size)."""
		groups = list(group_by_kconfig(self.matrix).values())
		return sorted(groups, key=lambda group: -len(group))

def checker(session: Session, request: BootRequest, target: Target, repo: str,
	    kunitconfig: Optional[bytes]=None) -> Checker:
	"""What checks a step of @target's tree (bisect, mutants, export), in
	the command's @session."""
	loaded = configs.matrix(repo, request.configs, kunit_py.directory(target.tree))
	return Checker(session.progress, session.builds, target.tree, loaded, request.timeout,
		       request.jobs, kunitconfig=kunitconfig, options=request.options,
		       fragments=targets.fragments(repo, target.kernel),
		       lkdtm_init=os.path.join(repo, initramfs.LKDTM_INIT))
