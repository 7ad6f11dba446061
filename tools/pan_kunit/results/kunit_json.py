# SPDX-License-Identifier: GPL-2.0
#
# kunit_tool's JSON (its kunit_json.py): a KernelCI test group whose
# sub_groups are the suites, their test_cases the cases and, nested once
# more, the parameters of a parameterised case.  Read here, once, into the
# leaves of the one result model (ktap.Case, leaves.py): every other reader
# of a boot's JSON (the configs' counts and status, bisect's regressions,
# mutants' failed cases, coverage's tally) takes its leaves from here.
#
# kunit_json.py writes a leaf's status as PASS, SKIP or ERROR, and as FAIL
# for any other of kunit_parser's: a status it never writes (none at all,
# or one of another tool) is read as FAIL too, so that no leaf passes, or
# escapes a check for failures, unseen.

from typing import Any, Dict, List, Optional

from pan_kunit.kunit_tool.ktap import UNNAMED, Case, CaseStatus

# kunit_tool's JSON, and pan-kunit's records built on it.
JsonObj = Dict[str, Any]

def _status(value: object) -> CaseStatus:
	return next((s for s in CaseStatus if s == value), CaseStatus.FAIL)

def _group(group: JsonObj, path: List[str], found: List[Case]) -> None:
	for case in group.get('test_cases') or []:
		found.append(Case(path + [case.get('name') or UNNAMED], _status(case.get('status')), []))
	for sub in group.get('sub_groups') or []:
		_group(sub, path + [sub.get('name') or UNNAMED], found)

def leaves(kunit: Optional[JsonObj]) -> List[Case]:
	"""The leaf cases of kunit_tool's JSON @kunit (none without it), in
	its order, SUITE.CASE or SUITE.CASE.PARAM (a case outside any suite:
	CASE), each with its status; they have no log."""
	found: List[Case] = []
	if kunit:
		_group(kunit, [], found)
	return found

def statuses(kunit: Optional[JsonObj]) -> Dict[str, CaseStatus]:
	"""The status of each leaf of @kunit, by its key (ktap.Case.key())."""
	return {leaf.key(): leaf.status for leaf in leaves(kunit)}
