# SPDX-License-Identifier: GPL-2.0
#
# What `mutants` reports of each kernel (KernelReport): the baseline and
# the verdict of every mutant checked, as their table, the closing line
# with the time and the counts, the tally, the --json record and JUnit,
# which can be read back (of_json()).  And the check of a kernel's
# mutants that makes one (run_mutants()).

import dataclasses
import os
import statistics
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import List, Optional

from pan_kunit.commands import mutants, sharding, steps
from pan_kunit.commands.boot_request import ReportRequest, write_reports
from pan_kunit.commands.mutants import Mutant, MutantsRequest, MutantVerdict
from pan_kunit.commands.session import Session
from pan_kunit.commands.steps import Step
from pan_kunit.host import summary
from pan_kunit.host.files import JsonObj
from pan_kunit.host.printer import Printer
from pan_kunit.matrix import kselftest_build
from pan_kunit.results import junit, terminal
from pan_kunit.trees import tree, worktree
from pan_kunit.trees.targets import Target

def table(found: List[Mutant]) -> List[str]:
	return terminal.align([['mutant', 'must fail', 'verdict', 'detail']] +
			     [[m.name, ', '.join(m.must_fail), m.verdict or '', m.detail]
			      for m in found])

def junit_check(mutant: Mutant) -> junit.Check:
	"""A mutant as JUnit shows it: a killed one passes, a pending one is
	skipped, any other fails."""
	outcome = (junit.CheckStatus.PASS if mutant.verdict == MutantVerdict.KILLED else
		   junit.CheckStatus.SKIPPED if mutant.verdict in (MutantVerdict.PENDING,
							       MutantVerdict.NOT_APPLICABLE) else
		   junit.CheckStatus.FAILURE)
	return junit.Check(mutant.name, outcome, f'{mutant.verdict}: {mutant.detail}')

@dataclass
class KernelReport:
	"""The mutants checked on one kernel, and its baseline."""
	kernel: str
	tree: str
	worktree: str
	baseline: Step
	mutants: List[Mutant]
	elapsed: float
	source: JsonObj = dataclasses.field(default_factory=dict)

	def to_json(self) -> JsonObj:
		return {'tree': self.tree, 'worktree': self.worktree, 'baseline': self.baseline.to_json(),
			'mutants': [m.to_json() for m in self.mutants], 'kernel': self.kernel,
			'source': self.source, 'elapsed': round(self.elapsed, 1)}

	@classmethod
	def of_json(cls, data: JsonObj) -> 'KernelReport':
		return cls(data['kernel'], data['tree'], data['worktree'],
			   steps.step_of_json(data['baseline']),
			   [Mutant.of_json(m) for m in data['mutants']], data['elapsed'], data['source'])

	def junit_suites(self, several: bool) -> List[ET.Element]:
		"""Its testsuites: mutants' (mutants/KERNEL of @several kernels),
		a testcase per mutant, and the baseline's."""
		return [junit.checks_suite(f'mutants/{self.kernel}' if several else 'mutants',
					   [junit_check(m) for m in self.mutants])] + [
			suite for result in self.baseline.configs
			for suite in junit.config_suites(result, 'baseline')]

def close(printer: Printer, report: KernelReport) -> int:
	"""A kernel's table of mutants, the closing line and the tally;
	its exit status."""
	found = report.mutants
	printer.print()
	for line in table(found):
		printer.print(line)
	timed = sorted(m.elapsed for m in found if m.verdict != MutantVerdict.PENDING) or [0.0]
	counts = {v: sum(m.verdict == v for m in found) for v in MutantVerdict}
	printer.print(f'mutants took {report.elapsed:.0f} s for {len(found)} mutants (baseline '
		      f'{report.baseline.elapsed:.0f} s, median mutant {statistics.median(timed):.1f} s): ' +
		      ', '.join(f'{n} {v}' for v, n in counts.items() if n))
	summary.report(printer, summary.Tally('mutants', counts[MutantVerdict.KILLED],
					      sum(not m.ok() for m in found)))
	return 0 if all(m.ok() for m in found) else 1

def write_files(request: ReportRequest, reports: List[KernelReport], record: JsonObj) -> None:
	"""The --json and --junit files of @reports, of a run or of a merge."""
	write_reports(request, 'pan-kunit mutants', reports, record)

def run_mutants(session: Session, request: MutantsRequest, target: Target, repo: str,
		found: List[Mutant], reports: Optional[List[KernelReport]]=None) -> int:
	"""Prepares @target's tree and checks the mutants @found there, the
	baseline first; its report into @reports."""
	printer = session.printer
	if not found:
		printer.print(f'mutants: none to check on {target.kernel.package}')
		return 0
	session.prepare(target, repo, 'mutants')
	with worktree.locked(session.printer, target.tree):
		checker = steps.checker(session, request, target, repo)
		# Each step boots the kselftest collections the mutants name, no other.
		checker.kselftest_only = mutants.kselftest_collections(found)
		if checker.kselftest_only:
			checker.kselftest_init = os.path.join(repo, kselftest_build.KSFT_INIT)
		start = time.monotonic()
		baseline = mutants.run(checker, found, own_tree=target.user is not None)
		report = KernelReport(target.kernel.name, target.tree, worktree.location(target.tree),
				      baseline, found, time.monotonic() - start,
				      sharding.source(target.tree, tree.PREPARED_REF))
	if reports is not None:
		reports.append(report)
	return close(printer, report)
