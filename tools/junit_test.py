#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# pan-kunit's JUnit (pan_kunit.results.junit) against the one 7.3's kunit.py
# writes (`kunit.py parse --junit`, kunit_junit.py), of the same consoles
# of real 7.3 boots (test_data/console/7.3_*.log): pan-kunit keeps its own
# writer on every kernel, one shape everywhere (a testsuite per kernel,
# config and suite, a parameter as CASE.PARAM), so the two are compared
# where both describe the same thing: each leaf case, what it holds
# (failure, skipped with its reason, error or nothing), and each suite's
# counts.

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from typing import Dict, Optional, Tuple

from pan_kunit.host import files
from pan_kunit.kunit_tool import ktap, ktap_lines
from pan_kunit.results import config_result, junit
from pan_kunit.results.config_result import Status
from testlib import end_to_end

TEST_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'test_data')
KUNIT_DIR = os.path.join(TEST_DATA, 'kunit_tool', '7.3')
CONSOLES = ('7.3_pan_one_failure.log', '7.3_nopan_skips.log')
OUTCOMES = ('failure', 'skipped', 'error')
COUNTS = ('tests', 'failures', 'skipped', 'errors')

# A leaf: SUITE/CASE or SUITE/CASE.PARAM -> (outcome or '', skip reason).
Leaves = Dict[str, Tuple[str, str]]

def _outcome(testcase: ET.Element) -> Tuple[str, str]:
	for tag in OUTCOMES:
		found = testcase.find(tag)
		if found is not None:
			reason = (found.get('message') or found.text or '') if tag == 'skipped' else ''
			return tag, reason
	return '', ''

@functools.lru_cache(maxsize=None)
def kunit_py_junit(console: str) -> Tuple[Leaves, Dict[str, Dict[str, str]], Optional[files.JsonObj]]:
	"""The leaves and per-suite counts of 7.3's kunit.py parse --junit,
	and its JSON: once per process for each console, which both tests
	read (a kunit.py parse is 0.1-0.2 s of CPU)."""
	with tempfile.TemporaryDirectory(prefix='pan-kunit-junit-') as scratch:
		xml, json_path = os.path.join(scratch, 'kunit.xml'), os.path.join(scratch, 'kunit.json')
		# kunit.py finds its tree from its path: it must be TREE/tools/testing/kunit.
		kunit_dir = os.path.join(scratch, 'tools', 'testing', 'kunit')
		shutil.copytree(KUNIT_DIR, kunit_dir)
		subprocess.run([sys.executable, os.path.join(kunit_dir, 'kunit.py'), 'parse',
				'--junit=' + xml, '--json=' + json_path, console],
			       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=False,
			       env=dict(os.environ, PYTHONDONTWRITEBYTECODE='1'))
		top = ET.parse(xml).getroot()
		kunit = files.read_json(json_path)
	leaves: Leaves = {}
	counts = {}
	for suite in top.findall('testsuite'):
		name = suite.get('name', '')
		counts[name] = {key: suite.get(key, '') for key in COUNTS}
		for testcase in suite.findall('testcase'):
			leaves[f'{name}/{testcase.get("name")}'] = _outcome(testcase)
		for case in suite.findall('testsuite'):  # a parameterised case
			for testcase in case.findall('testcase'):
				leaves[f'{name}/{case.get("name")}.{testcase.get("name")}'] = _outcome(testcase)
	return leaves, counts, kunit

def pan_kunit_junit(console: str, kunit: files.JsonObj) -> Tuple[Leaves, Dict[str, Dict[str, str]]]:
	"""The same of pan-kunit's testsuites of the console as one config."""
	with open(console) as f:
		text = f.read()
	cases, _ = ktap.parse(text, KUNIT_DIR)
	result = config_result.ConfigResult(
		name='arm64_pan', cpu='max', qemu_config='', build_dir='', status=Status.PASS,
		elapsed=None, skip_reasons=ktap_lines.skip_reasons(text), kunit=kunit,
		console_log=console, exec_log='', cases=cases, param_skips=ktap_lines.param_skips(text))
	leaves: Leaves = {}
	counts = {}
	for suite in junit.config_suites(result):
		name = suite.get('name', '').rsplit('/', 1)[-1]
		counts[name] = {key: suite.get(key, '') for key in COUNTS}
		for testcase in suite.findall('testcase'):
			leaves[f'{name}/{testcase.get("name")}'] = _outcome(testcase)
	return leaves, counts

@end_to_end
class KunitJunitAgreementTest(unittest.TestCase):

	def test_same_leaves_outcomes_reasons_and_counts(self) -> None:
		for name in CONSOLES:
			console = os.path.join(TEST_DATA, 'console', name)
			with self.subTest(console=name):
				theirs, their_counts, kunit = kunit_py_junit(console)
				self.assertIsNotNone(kunit)
				assert kunit is not None
				ours, our_counts = pan_kunit_junit(console, kunit)
				self.assertGreater(len(theirs), 300)
				self.assertEqual(sorted(ours), sorted(theirs))
				for leaf, (outcome, reason) in theirs.items():
					self.assertEqual(ours[leaf][0], outcome, leaf)
					if outcome == 'skipped' and reason:
						self.assertEqual(ours[leaf][1], reason, leaf)
				self.assertEqual(our_counts, their_counts)

	def test_the_consoles_have_every_outcome_to_compare(self) -> None:
		found = set()
		for name in CONSOLES:
			leaves, _, _ = kunit_py_junit(os.path.join(TEST_DATA, 'console', name))
			found |= {outcome for outcome, _ in leaves.values()}
			found |= {'skipped with a reason' for outcome, reason in leaves.values() if reason}
			found |= {'parameter' for leaf in leaves if '.' in leaf.split('/', 1)[1]}
		self.assertEqual(found, {'', 'failure', 'skipped', 'skipped with a reason', 'parameter'})

if __name__ == '__main__':
	unittest.main()
