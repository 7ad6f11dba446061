#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the one result model (pan_kunit.results.leaves): on a real console of
# each kernel (test_data/console/VERSION_*.log, with the JSON its kunit.py
# wrote), the terminal's table, the closing tally, the JSON record and the
# JUnit file give the counts the kernel itself printed ("# Totals:" of each
# suite), and every skip has its reason in each of them.

import copy
import functools
import re
import unittest
from typing import Dict, List, Tuple

from pan_kunit.host import files
from pan_kunit.kunit_tool import ktap, ktap_lines
from pan_kunit.kunit_tool.ktap import CaseStatus
from pan_kunit.results import config_result, junit, leaves, terminal
from pan_kunit.results.config_result import Status
from pan_kunit.results.record import config_record as record_of
from pan_kunit.trees import tree
from testlib import COMMIT, kunit_tool_of, read, test_data_path

# (kernel, fixture): the consoles of real boots, with their skips.
FIXTURES = (('6.1', '6.1_nopan_skips'), ('6.1', '6.1_pan_param_skip'),
	    ('6.12', '6.12_nopan_skips'), ('7.3', '7.3_nopan_skips'))
SUITE_TOTALS = re.compile(r'^# Totals: pass:([0-9]+) fail:([0-9]+) skip:([0-9]+) total:[0-9]+$')

def read_result(kernel: str, name: str) -> config_result.ConfigResult:
	"""The fixture as boots.py reads a boot: read once for the tests of
	this file (kunit_parser's parse was most of their time), a copy of its
	own for each."""
	return copy.deepcopy(_read_result(kernel, name))

@functools.lru_cache(maxsize=None)
def _read_result(kernel: str, name: str) -> config_result.ConfigResult:
	console = read(test_data_path('console', name + '.log'))
	return config_result.ConfigResult(
		name='arm64_nopan', cpu='cortex-a57', qemu_config='', build_dir='',
		status=Status.PASS, elapsed=1.0, skip_reasons=ktap_lines.skip_reasons(console),
		kunit=files.read_json(test_data_path('kunit_json', name + '.json')),
		console_log='', exec_log='',
		kernel=tree.Kernel(kernel, f'linux-source-{kernel}', kernel, COMMIT, None),
		cases=ktap.parse(console, kunit_tool_of(kernel))[0],
		param_skips=ktap_lines.param_skips(console))

def kernels_own(name: str) -> Tuple[int, int, int]:
	"""Passed, failed, skipped, as the kernel counted them: the sum of the
	suites' "# Totals:" lines, and the case of a suite of one case, which
	prints none."""
	counts = [0, 0, 0]
	suite: List[str] = []
	for line in read(test_data_path('console', name + '.log')).splitlines():
		suite.append(line)
		if not re.match(r'^(not )?ok [0-9]+ ', line):
			continue
		totals = [SUITE_TOTALS.match(l) for l in suite]
		found = [t for t in totals if t]
		if found:
			for i in range(3):
				counts[i] += int(found[0].group(i + 1))
		else:
			(case,) = [l for l in suite if re.match(r'^    (not )?ok [0-9]+ ', l)]
			counts[2 if '# SKIP' in case else 1 if case.startswith('    not') else 0] += 1
		suite = []
	return counts[0], counts[1], counts[2]

def json_leaves(group: files.JsonObj, found: List[str]) -> List[str]:
	found += [case['status'] for case in group.get('test_cases', [])]
	for sub in group.get('sub_groups', []):
		json_leaves(sub, found)
	return found

def table_sums(lines: List[str]) -> Tuple[int, int, int]:
	cells = [line.split()[1] for line in lines if re.match(r'^\S+\s+[0-9]+/[0-9]+/[0-9]+$', line)]
	return tuple(sum(int(c.split('/')[i]) for c in cells) for i in range(3))  # type: ignore[return-value]

class CountsAgreeTest(unittest.TestCase):

	def test_every_rendering_gives_the_kernels_own_counts(self) -> None:
		for kernel, name in FIXTURES:
			with self.subTest(fixture=name):
				result = read_result(kernel, name)
				expected = kernels_own(name)
				self.assertGreater(expected[2], 0)
				self.assertEqual(table_sums(terminal.table([result])), expected, 'table')
				self.assertEqual(config_result.totals([result]), expected, 'closing tally')
				record = record_of(result)
				statuses = json_leaves(record, [])
				self.assertEqual((statuses.count('PASS'), statuses.count('FAIL'),
						  statuses.count('SKIP')), expected, 'JSON leaves')
				self.assertEqual(record['counts'], {'passed': expected[0], 'failed': 0,
								    'errors': 0, 'skipped': expected[2]})
				xml = junit.document('run', junit.config_suites(result)).getroot()
				tests, failures, skipped = (int(xml.get(a, '')) for a in
							    ('tests', 'failures', 'skipped'))
				self.assertEqual((tests - failures - skipped, failures, skipped), expected,
						 'JUnit')

	def test_every_skip_has_its_reason_everywhere(self) -> None:
		for kernel, name in FIXTURES:
			with self.subTest(fixture=name):
				result = read_result(kernel, name)
				skipped = kernels_own(name)[2]
				reasons = record_of(result)['skip_reasons']
				self.assertEqual(len(reasons), skipped)
				self.assertTrue(all(reasons.values()), reasons)
				xml = junit.document('run', junit.config_suites(result)).getroot()
				messages = [s.get('message') for s in xml.iter('skipped')]
				self.assertEqual(len(messages), skipped)
				self.assertTrue(all(messages), messages)
				lines = terminal.skip_lines([result], width=1000)
				counted = sum(int(line.split()[0]) for line in lines[2:]
					      if not line.startswith('        '))
				self.assertEqual(counted, skipped, lines)
				self.assertNotIn(terminal.NO_REASON, '\n'.join(lines))

	def test_6_1_parameter_skips_named_only_when_known(self) -> None:
		cases = [ktap.Case(['s', 'c', p], CaseStatus.PASS, []) for p in ('a', 'b', 'c')]
		some = leaves.resolve(cases, {'s.c': 2}, {})
		self.assertEqual([(c.name(), c.status, c.reason) for c in some], [
			('s.c[(passed 1 of 1)]', CaseStatus.PASS, ''),
			('s.c[(skipped 1 of 2)]', CaseStatus.SKIP, leaves.UNSAID),
			('s.c[(skipped 2 of 2)]', CaseStatus.SKIP, leaves.UNSAID)])
		# Every one skipped: 6.1's case line has the last one's reason.
		every = leaves.resolve(cases, {'s.c': 3}, {'s.c': 'CPU lacks X'})
		self.assertEqual([(c.name(), c.status, c.reason) for c in every], [
			('s.c[a]', CaseStatus.SKIP, leaves.UNSAID_BUT_LAST),
			('s.c[b]', CaseStatus.SKIP, leaves.UNSAID_BUT_LAST),
			('s.c[c]', CaseStatus.SKIP, 'CPU lacks X')])
		# 6.12 and later mark them: nothing to resolve.
		marked = [ktap.Case(['s', 'c', 'a'], CaseStatus.SKIP, []), cases[1]]
		self.assertEqual([(c.name(), c.status, c.reason) for c in leaves.resolve(
			marked, {'s.c': 1}, {'s.c.a': 'why'})], [('s.c[a]', CaseStatus.SKIP, 'why'),
								 ('s.c[b]', CaseStatus.PASS, '')])

	def test_skip_lines_name_the_unnamed_once(self) -> None:
		result = read_result('6.1', '6.1_pan_param_skip')
		lines = terminal.skip_lines([result], width=1000)
		self.assertIn('        arm64_nopan: arm64_cpufeature_match.'
			      'has_cpuid_feature_kernel_rows_second_cpu_below[1 unnamed]', lines)

if __name__ == '__main__':
	unittest.main()
