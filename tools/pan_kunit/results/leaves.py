# SPDX-License-Identifier: GPL-2.0
#
# The one model of a boot's results: its leaf cases (ktap.Case), each with
# its status and, when skipped, its reason.  The terminal's table and skip
# lines, the JSON record, the JUnit file and the closing tally are all
# counted from it (config_result.ConfigResult.leaves()), so that they agree
# on every kernel.
#
# The leaves are those kunit_parser parsed, with what the console says
# beside its KTAP result lines (ktap_lines.py): the reason of each skip
# (skip_reasons()) and, for 6.1, the parameters that skipped
# (param_skips()).  6.1 prints a
# skipped parameter as a plain "ok N NAME", which kunit_parser and
# kunit_tool's JSON take as passed; only its case's tally line
#     # CASE: pass:N fail:N skip:N total:N
# counts it.  6.1 names neither which parameters skipped nor why (unless
# every one did: then the case's own line carries SKIP and the reason of
# the last), so such a case's leaves that are passed or skipped become
# leaves named after what is known: "(passed 1 of 2)", "(skipped 1 of 2)".

import re
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Tuple

from pan_kunit.kunit_tool.ktap import Case, CaseStatus

# The reason of a skip that 6.1 counts and does not explain.
UNSAID = '6.1 says neither which parameters skipped nor why (its tally counts them)'
# The reason of a parameter of a case that skipped every one on 6.1, but
# the last, whose reason the case's line carries.
UNSAID_BUT_LAST = '6.1 prints the reason of the last skipped parameter only'

def _said(group: List[Case], skipped: int, case_reason: Optional[str]) -> List[Case]:
	"""@group, the leaves of one parameterised case, with the @skipped
	parameters its 6.1 tally counts beyond those marked SKIP."""
	unsure = [leaf for leaf in group if leaf.status == CaseStatus.PASS]
	if skipped == len(unsure):
		# Every one skipped: their names are known, the last one's reason too.
		last = group[-1]
		return [Case(leaf.path, CaseStatus.SKIP, leaf.log,
			     case_reason if leaf is last and case_reason else
			     UNSAID_BUT_LAST if case_reason else UNSAID)
			if leaf in unsure else leaf for leaf in group]
	prefix = group[0].path[:-1]
	passed = len(unsure) - skipped
	return ([leaf for leaf in group if leaf not in unsure] +
		[Case(prefix + [f'(passed {i} of {passed})'], CaseStatus.PASS, [])
		 for i in range(1, passed + 1)] +
		[Case(prefix + [f'(skipped {i} of {skipped})'], CaseStatus.SKIP, [], UNSAID)
		 for i in range(1, skipped + 1)])

def resolve(cases: List[Case], tallies: Dict[str, int], reasons: Dict[str, str]) -> List[Case]:
	"""@cases, the leaves kunit_parser parsed, with the reason of each
	skip (@reasons: skip_reasons()) and the skipped parameters of the 6.1
	tallies (@tallies: param_skips())."""
	found: List[Case] = []
	i = 0
	while i < len(cases):
		leaf = cases[i]
		group = [leaf]
		skipped = 0
		if len(leaf.path) == 3:
			case = leaf.path[:-1]
			while i + len(group) < len(cases) and cases[i + len(group)].path[:-1] == case:
				group.append(cases[i + len(group)])
			key = '.'.join(case)
			# Counted only for a case with a tally (6.1's): the others'
			# leaves are most of a boot's.
			tally = tallies.get(key, 0)
			if tally > 0:
				marked = sum(c.status == CaseStatus.SKIP for c in group)
				unsure = sum(c.status == CaseStatus.PASS for c in group)
				skipped = max(0, min(tally - marked, unsure))
		i += len(group)
		if skipped:
			found += _said(group, skipped, reasons.get(key))
			continue
		for c in group:
			reason = reasons.get(c.key(), '') if c.status == CaseStatus.SKIP else ''
			found.append(Case(c.path, c.status, c.log, reason))
	return found

@dataclass
class Counts:
	"""Leaf test cases, counted as kunit.py's summary counts them."""
	passed: int = 0
	failed: int = 0   # FAIL
	errors: int = 0   # ERROR: the test crashed; reported as failed
	skipped: int = 0

	def add(self, status: str) -> None:
		if status == CaseStatus.PASS:
			self.passed += 1
		elif status == CaseStatus.SKIP:
			self.skipped += 1
		elif status == CaseStatus.ERROR:
			self.errors += 1
		else:
			self.failed += 1

	def merge(self, other: 'Counts') -> None:
		self.passed += other.passed
		self.failed += other.failed
		self.errors += other.errors
		self.skipped += other.skipped

	def total(self) -> int:
		return self.passed + self.failed + self.errors + self.skipped

	def cell(self) -> str:
		return f'{self.passed}/{self.failed + self.errors}/{self.skipped}'

def suite_counts(found: List[Case]) -> Dict[str, Counts]:
	"""The counts of @found per suite, in the order the suites came."""
	suites: Dict[str, Counts] = {}
	for leaf in found:
		suites.setdefault(leaf.suite, Counts()).add(leaf.status)
	return suites
