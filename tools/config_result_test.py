#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the results of a run (pan_kunit.results) and the consoles parsed
# with each kernel's kunit_parser (pan_kunit.kunit_tool.ktap).

import contextlib
import io
import json
import os
import shutil
import socket
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from typing import Any, Dict, List, Optional, Tuple
from unittest import mock

from pan_kunit import Error
from pan_kunit.host import files
from pan_kunit.host.printer import Printer
from pan_kunit.kunit_tool import ktap, ktap_lines
from pan_kunit.results import config_result, junit, leaves, terminal
from pan_kunit.results.config_result import Status, Exit
from pan_kunit.results.record import config_record, config_result_of, kernel_record
from pan_kunit.trees import tree
from testlib import (FIELD_PARAM_FAILED, MATCH_CASE_FAILED, MATCH_CASE_LOG, FAILED_BLOCK_6_1,
		     COMMIT, test_data_path, kunit_tool_of, read, setUpModule, tearDownModule)

class ResultsTest(unittest.TestCase):

	def kunit(self, name: str) -> files.JsonObj:
		data = files.read_json(test_data_path('kunit_json', name + '.json'))
		assert data is not None
		return data

	def console(self, name: str) -> str:
		return read(test_data_path('console', name + '.log'))

	def test_leaves_are_counted_per_suite(self) -> None:
		cells = {s: c.cell() for s, c in config_result.suite_counts(self.kunit('pass')).items()}
		# The parameterised cases are sub_groups: their parameters are the leaves.
		self.assertEqual(cells, {'arm64_cpufeature_field': '6/0/0',
					 'arm64_cpufeature_match': '3/0/0'})
		cells = {s: c.cell() for s, c in config_result.suite_counts(self.kunit('skips')).items()}
		self.assertEqual(cells, {'arm64_cpufeature_field': '2/0/0',
					 'arm64_cpufeature_match': '3/0/1'})
		counts = config_result.suite_counts(self.kunit('panic'))
		self.assertEqual(counts['arm64_cpufeature_match'],
				 leaves.Counts(passed=1, errors=1))
		self.assertEqual(counts['arm64_cpufeature_match'].cell(), '1/1/0')

	def classify(self, name: Optional[str], console: Optional[str], returncode: int,
		     timed_out: bool=False, elapsed: float=10.0) -> Status:
		return config_result.classify(self.kunit(name) if name else None,
					self.console(console) if console else None,
					Exit(returncode, timed_out, elapsed), 300)

	def test_status_rules(self) -> None:
		self.assertEqual(self.classify('pass', 'pass', 0), Status.PASS)
		self.assertEqual(self.classify('skips', 'skips', 0), Status.PASS)
		self.assertEqual(self.classify('fail', 'fail', 1), Status.FAIL)
		self.assertEqual(self.classify('panic', 'panic', 1), Status.CRASH)
		self.assertEqual(self.classify('no_ktap', 'no_ktap', 1), Status.CRASH)
		self.assertEqual(self.classify('no_tests', 'no_tests', 1), Status.NO_TESTS)
		self.assertEqual(self.classify(None, 'pass', 0), Status.CRASH)
		self.assertEqual(self.classify('pass', None, 0), Status.CRASH)
		self.assertEqual(self.classify('pass', 'pass', 1), Status.CRASH)
		self.assertEqual(self.classify('pass', 'pass', 0, timed_out=True), Status.TIMEOUT)
		self.assertEqual(self.classify('pass', 'pass', 0, elapsed=300.0), Status.TIMEOUT)

	def test_statuses_are_their_values(self) -> None:
		"""Printed, formatted, in JSON and XML, and as dict keys."""
		status = Status.BUILD_ERROR
		self.assertEqual((str(status), f'{status}', f'{status:>12}', '%s' % status),
				 ('build_error', 'build_error', ' build_error', 'build_error'))
		self.assertEqual(json.dumps({status: [Status.PASS]}), '{"build_error": ["pass"]}')
		self.assertEqual(ET.tostring(ET.Element('error', type=status)),
				 b'<error type="build_error" />')
		self.assertEqual({'build_error': 1}[status], 1)
		self.assertIn('ERROR', {ktap.CaseStatus.ERROR})
		self.assertEqual(Status('pass'), Status.PASS)

	def test_crashed_leaf_is_a_crash(self) -> None:
		# Whatever kunit.py's exit status and the other leaves say.
		self.assertEqual(self.classify('panic', 'panic', 0), Status.CRASH)
		kunit = self.kunit('fail')
		kunit['sub_groups'][0]['test_cases'].append({'name': '', 'status': 'ERROR'})
		self.assertEqual(config_result.classify(kunit, self.console('fail'),
						  Exit(1, False, 1.0), 300), Status.CRASH)

	def test_skip_lines_group_by_reason_within_120_columns(self) -> None:
		def result(name: str, reasons: Dict[str, str]) -> config_result.ConfigResult:
			found = mock.Mock(spec=config_result.ConfigResult)
			found.leaves.return_value = [ktap.Case(key.split('.'), ktap.CaseStatus.SKIP, [], reason)
						     for key, reason in reasons.items()]
			found.title.return_value = name
			found.kernel = mock.Mock(package='linux-source-7.3')
			return found
		long_case = 'arm64_pan_uaccess.' + 'x' * 120
		lines = terminal.skip_lines([
			result('arm64_nopan', {'a.one': 'CPU lacks PAN', 'a.two': 'CPU lacks PAN',
					       long_case: 'CPU lacks PAN', 'b.one': 'no EPAN'}),
			result('arm64_pan', {'b.one': 'no EPAN'})])
		self.assertEqual(lines[:3], ['', 'skipped, by reason (each case with its reason: '
					     '--json, --junit):', '   3  CPU lacks PAN'])
		self.assertTrue(lines[3].startswith('        arm64_nopan: a.one, a.two, arm64_pan_uaccess.x'))
		self.assertTrue(lines[3].endswith(' ...'))
		self.assertEqual(lines[4:], ['   2  no EPAN', '        arm64_nopan: b.one',
					     '        arm64_pan: b.one'])
		self.assertTrue(all(len(line) <= 120 for line in lines), lines)
		self.assertEqual(terminal.skip_lines([result('arm64_pan', {})]), [])

	def test_skip_reasons(self) -> None:
		self.assertEqual(ktap_lines.skip_reasons(self.console('skips')), {
			'arm64_cpufeature_match.cpus_have_cap_agrees_with_id_registers':
				'config lacks ARM64_HAS_DCPOP: CONFIG_ARM64_PMEM=n',
			'arm64_cpufeature_match.has_cpuid_feature_pan_every_cpu':
				'CPU lacks PAN: ID_AA64MMFR1_EL1.PAN=0'})
		# printk timestamps, "ok N - name", parameters, and a SKIP with no reason.
		self.assertEqual(ktap_lines.skip_reasons(self.console('skips_nested')), {
			'arm64_cpufeature_match.feature_matches_kernel_rows.ARM64_HAS_EPAN':
				'config lacks ARM64_HAS_EPAN: CONFIG_ARM64_EPAN=n',
			'arm64_cpufeature_match.has_cpuid_feature_pan_every_cpu':
				'CPU lacks PAN: ID_AA64MMFR1_EL1.PAN=0',
			'arm64_cpufeature_field.cpuid_feature_extract_field_width_every_width':
				'no narrow fields'})
		self.assertEqual(ktap_lines.skip_reasons(self.console('pass')), {})

	def result(self, name: str, status: Status, kunit: Optional[str],
		   console: Optional[str]=None, kernel: str='6.1') -> config_result.ConfigResult:
		"""A result as boots.py would read it, its cases parsed from
		console/CONSOLE.log with @kernel's kunit_parser."""
		text = self.console(console) if console else ''
		return config_result.ConfigResult(
			name=name, cpu='cortex-a57', qemu_config=f'/r/qemu_configs/{name}.py',
			build_dir='/t/.pan-kunit/build/0123456789ab', status=status,
			elapsed=None if status == Status.BUILD_ERROR else 12.34,
			skip_reasons=ktap_lines.skip_reasons(text),
			kunit=self.kunit(kunit) if kunit else None,
			console_log='/t/test.log', exec_log='/t/exec.log',
			kernel=tree.Kernel('6.1.192', 'linux-source-6.1', '6.1.192-3', COMMIT, 'pan-kunit'),
			cases=ktap.parse(text, kunit_tool_of(kernel))[0] if console else [])

	def test_table_and_total(self) -> None:
		result_list = [self.result('a_pass', Status.PASS, 'pass'),
			       self.result('b_skips', Status.PASS, 'skips'),
			       self.result('c_panic', Status.CRASH, 'panic'),
			       self.result('d_no_json', Status.CRASH, None),
			       self.result('e_broken', Status.BUILD_ERROR, None),
			       self.result('f_fail', Status.FAIL, 'fail')]
		self.assertEqual(terminal.table(result_list), [
			'suite (passed/failed/skipped)  a_pass      b_skips     c_panic     d_no_json   e_broken     f_fail',
			'arm64_cpufeature_field         6/0/0       2/0/0       1/0/0       -           -            -',
			'arm64_cpufeature_match         3/0/0       3/0/1       1/1/0       -           -            1/1/0',
			'status                         pass        pass        crash       crash       build_error  fail',
			'cpu                            cortex-a57  cortex-a57  cortex-a57  cortex-a57  cortex-a57   cortex-a57',
			'elapsed (s)                    12.3        12.3        12.3        12.3        -            12.3'])
		# A crash with an ERROR leaf counts it; one with no leaves counts 1.
		self.assertEqual(terminal.total_line(result_list),
				 'total: 17 passed, 4 failed, 1 skipped')

	def test_unnamed_top_level_leaf(self) -> None:
		kunit = {'name': 'KUnit Test Group', 'sub_groups': [],
			 'test_cases': [{'name': '', 'status': 'ERROR'}]}
		self.assertEqual(list(config_result.suite_counts(kunit)), [config_result.UNNAMED])

	def test_json_record_is_kunit_tool_json_filled_in(self) -> None:
		result = self.result('a_fail', Status.FAIL, 'fail_two', 'fail_two')
		result.kconfig = 'CONFIG_A=y\nCONFIG_B=y'
		report = json.loads(json.dumps(kernel_record('/t', 'f00', [result])))
		self.assertEqual((report['tree'], report['head']), ('/t', 'f00'))
		(record,) = report['configs']
		kunit = self.kunit('fail_two')
		common = {'arch': 'arm64', 'defconfig': 'a_fail',
			  'build_environment': '/t/.pan-kunit/build/0123456789ab',
			  'lab_name': socket.gethostname(), 'kernel': '6.1.192', 'job': None,
			  'git_branch': 'pan-kunit', 'git_commit': COMMIT}
		# kunit_tool's nesting, with real values on every group.
		def shape(group: files.JsonObj) -> Any:
			return (group['name'], [shape(g) for g in group['sub_groups']],
				group['test_cases'])
		self.assertEqual(shape(record)[1:], shape(kunit)[1:])
		self.assertEqual(record['name'], 'a_fail')
		groups = [record] + record['sub_groups'] + record['sub_groups'][0]['sub_groups']
		self.assertEqual(len(groups), 4)
		for group in groups:
			self.assertEqual({k: group[k] for k in common}, common, group['name'])
		self.assertNotIn('kselftest', json.dumps(record))
		self.assertEqual({k: record[k] for k in ('status', 'cpu', 'qemu_config', 'kconfig',
							 'debian_package', 'debian_version',
							 'elapsed', 'skip_reasons')}, {
			'status': 'fail', 'cpu': 'cortex-a57', 'qemu_config': '/r/qemu_configs/a_fail.py',
			'kconfig': ['CONFIG_A=y', 'CONFIG_B=y'], 'debian_package': 'linux-source-6.1',
			'debian_version': '6.1.192-3', 'elapsed': 12.34, 'skip_reasons': {
				'arm64_cpufeature_match.cpus_have_cap_agrees_with_id_registers':
				'config lacks ARM64_HAS_DCPOP: CONFIG_ARM64_PMEM=n'}})
		self.assertEqual([(f['name'], f['status']) for f in record['failures']], [
			(FIELD_PARAM_FAILED, 'FAIL'), (MATCH_CASE_FAILED, 'FAIL')])
		self.assertEqual(record['failures'][1]['log'], MATCH_CASE_LOG)
		# A config that did not build is a group too, with no tests.
		broken = config_record(self.result('b_broken', Status.BUILD_ERROR, None))
		self.assertEqual((broken['name'], broken['sub_groups'], broken['test_cases'],
				  broken['status'], broken['kernel']),
				 ('b_broken', [], [], 'build_error', '6.1.192'))

	def report(self, result_list: List[config_result.ConfigResult]) -> List[str]:
		out = io.StringIO()
		terminal.print_report(Printer(out), result_list)
		return out.getvalue().splitlines()

	def test_first_failed_cases_in_full_then_one_line_each_by_the_verdict(self) -> None:
		# The failing parameter is in the first suite, not the last.
		lines = self.report([self.result('a_fail', Status.FAIL, 'fail_two', 'fail_two'),
				     self.result('b_fail', Status.FAIL, 'fail_two', 'fail_two_6.12',
						 kernel='6.12'),
				     self.result('c_pass', Status.PASS, 'pass', 'pass')])
		table = [l.startswith('suite (passed/failed/skipped)') for l in lines].index(True)
		start = lines.index('a_fail: fail')
		self.assertEqual(lines[start + 1:start + 1 + len(FAILED_BLOCK_6_1)], FAILED_BLOCK_6_1)
		# Only the first FULL_LOGS (3) cases with their log, then where the others' are.
		start = lines.index('b_fail: fail')
		self.assertLess(start, table)
		got = lines[start + 1:start + 10]
		# 6.12 prints the values in hex too.
		self.assertEqual(got[:5] + got[7:], FAILED_BLOCK_6_1[:5] + FAILED_BLOCK_6_1[7:8] +
				 ['    ... 1 more failed cases, listed after the table; their logs: '
				  '/t/test.log'])
		self.assertEqual(got[5:7], ['            c->mismatches == 1 (0x1)',
					    '            0U == 0 (0x0)'])
		self.assertEqual(sum(l.startswith('    [FAILED] ') for l in lines), terminal.FULL_LOGS)
		self.assertNotIn('c_pass: pass', lines)
		# A failed config's console tail is not needed: its cases say why.
		self.assertFalse([l for l in lines if l.startswith('--- ')], lines)
		# After the table, next to the total: every failed case, a line each.
		listed = lines.index('did not pass (4):')
		self.assertLess(table, listed)
		self.assertEqual(lines[listed + 1:], [
			line for config in ('a_fail', 'b_fail')
			for name, at in ((FIELD_PARAM_FAILED,
					  'arch/arm64/kernel/cpufeature_field_test.c:91'),
					 (MATCH_CASE_FAILED, MATCH_CASE_LOG[0].rsplit(' ', 1)[-1]))
			for line in (f'    {config}: [FAILED] {name}', f'        at {at}')] +
				 # Counted from each console: the 6.12 one skips a parameter more.
				 ['total: 16 passed, 4 failed, 3 skipped'])

	def test_the_edits_built_are_named_by_the_verdict(self) -> None:
		result = self.result('a_fail', Status.FAIL, 'fail_two', 'fail_two')
		result.kernel.dirty, result.kernel.edits = True, tuple(f'f{i}.c' for i in range(12))
		lines = self.report([result])
		self.assertEqual(lines[-2:], [
			'note: linux-source-6.1 was built with your uncommitted edits in f0.c, f1.c, f2.c, '
			'f3.c, f4.c, f5.c, f6.c, f7.c, f8.c, f9.c, 2 more',
			'total: 4 passed, 2 failed, 1 skipped'])

	def test_crashed_case_and_its_files(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			result = self.result('c_panic', Status.CRASH, 'panic', 'panic')
			result.console_log = os.path.join(tmp, 'test.log')
			result.parsed_log = os.path.join(tmp, 'parsed.log')
			result.record = os.path.join(tmp, 'results.json')
			shutil.copy(test_data_path('console', 'panic.log'), result.console_log)
			lines = self.report([result])
		start = lines.index('c_panic: crash')
		self.assertEqual(lines[start + 1:start + 4], [
			# Where it stopped, from the console.
			'    the kernel stopped in arm64_cpufeature_match, case 2 of 2, the last to '
			'begin',
			'    [CRASHED] arm64_cpufeature_match, the case that never reported',
			'        Unable to handle kernel paging request at virtual address 0000ffff8c6a1000'])
		# The kernel's last words, after the cases, before the console.
		words = lines.index("    the kernel's last words:")
		self.assertEqual(lines[words + 1:words + 3], [
			'        Unable to handle kernel paging request at virtual address 0000ffff8c6a1000',
			'        Internal error: Oops: 0000000096000004 [#1] PREEMPT SMP'])
		self.assertLess(words, lines.index(f'--- console: last 40 lines of {result.console_log}'))
		self.assertIn(f'--- console: last 40 lines of {result.console_log}', lines)
		# The files of the boot that exist, named.
		self.assertIn(f'    console: {result.console_log}', lines)
		self.assertIn(f'    record: {result.record}', lines)
		self.assertNotIn(f'    parsed by kunit_parser: {result.parsed_log}', lines)
		self.assertNotIn('    kunit.py exec: /t/exec.log', lines)

	def test_junit(self) -> None:
		fail = self.result('a_fail', Status.FAIL, 'fail_two', 'fail_two_6.12', kernel='6.12')
		(param,) = [c for c in fail.cases if c.name() == FIELD_PARAM_FAILED]
		param.log.append('\x1b[1;31mcoloured\x00')  # XML cannot hold these
		result_list = [fail, self.result('b_skips', Status.PASS, 'skips', 'skips'),
			       self.result('c_panic', Status.CRASH, 'panic', 'panic'),
			       self.result('d_broken', Status.BUILD_ERROR, None),
			       self.result('e_hang', Status.TIMEOUT, None)]
		with tempfile.TemporaryDirectory() as tmp:
			path = os.path.join(tmp, 'junit.xml')
			junit.write(path, junit.document('pan-kunit run', [
				s for r in result_list for s in junit.config_suites(r)]))
			top = ET.parse(path).getroot()
		self.assertEqual(top.tag, 'testsuites')
		suites = {s.get('name'): s for s in top.findall('testsuite')}
		self.assertEqual(sorted(suites), ['linux-6.1.192/' + name for name in (
			'a_fail/arm64_cpufeature_field', 'a_fail/arm64_cpufeature_match',
			'b_skips/arm64_cpufeature_field', 'b_skips/arm64_cpufeature_match',
			'c_panic', 'c_panic/arm64_cpufeature_field', 'c_panic/arm64_cpufeature_match',
			'd_broken', 'e_hang')])
		suites = {(name or '')[len('linux-6.1.192/'):]: suite for name, suite in suites.items()}
		def counts(element: ET.Element) -> Tuple[str, ...]:
			return tuple(element.get(a, '') for a in ('tests', 'failures', 'errors', 'skipped'))
		self.assertEqual(counts(top), ('19', '2', '4', '3'))
		field = suites['a_fail/arm64_cpufeature_field']
		self.assertEqual(counts(field), ('4', '1', '0', '1'))
		properties = {p.get('name'): p.get('value') for p in field.iter('property')}
		self.assertEqual(properties, {
			'kernel': '6.1.192', 'debian_version': '6.1.192-3', 'git_commit': COMMIT,
			'git_branch': 'pan-kunit', 'config': 'a_fail', 'cpu': 'cortex-a57',
			'qemu_config': '/r/qemu_configs/a_fail.py', 'status': 'fail'})
		cases = {c.get('name'): c for c in field.findall('testcase')}
		self.assertEqual({c.get('classname') for c in cases.values()}, {'a_fail.arm64_cpufeature_field'})
		self.assertEqual(sorted(cases), [
			'cpuid_feature_extract_field_width_every_width',
			'cpuid_feature_extract_signed_field_every_position.bits [3:0]',
			'cpuid_feature_extract_signed_field_every_position.bits [63:60]',
			'cpuid_feature_extract_signed_field_every_position.bits [7:4]'])
		failure = cases['cpuid_feature_extract_signed_field_every_position.bits [7:4]'].find('failure')
		assert failure is not None and failure.text is not None
		self.assertEqual(failure.get('message'), FAILED_BLOCK_6_1[1].strip())
		self.assertIn('\n    c->mismatches == 1 (0x1)\n', failure.text)
		self.assertTrue(failure.text.endswith('\ufffd[1;31mcoloured\ufffd'), failure.text)
		skipped = cases['cpuid_feature_extract_signed_field_every_position.bits [63:60]']
		self.assertEqual(skipped.find('skipped').get('message'),  # type: ignore[union-attr]
				 'no field at bits [63:60] in this register')
		skipped = [c for c in suites['b_skips/arm64_cpufeature_match'].findall('testcase')
			   if c.get('name') == 'has_cpuid_feature_pan_every_cpu'][0]
		self.assertEqual(skipped.find('skipped').get('message'),  # type: ignore[union-attr]
				 'CPU lacks PAN: ID_AA64MMFR1_EL1.PAN=0')
		crashed = suites['c_panic/arm64_cpufeature_match'].find("testcase[@name='(unnamed)']")
		assert crashed is not None
		self.assertIn('Kernel panic - not syncing', crashed.find('error').text or '')  # type: ignore[union-attr]
		for name, what, status in (('c_panic', 'boot', 'crash'), ('d_broken', 'build', 'build_error'),
					   ('e_hang', 'boot', 'timeout')):
			(testcase,) = suites[name].findall('testcase')
			self.assertEqual((testcase.get('classname'), testcase.get('name')), (name, what))
			self.assertEqual(testcase.find('error').get('type'), status)  # type: ignore[union-attr]
			self.assertEqual(counts(suites[name]), ('1', '0', '1', '0'))

	def test_a_record_read_back_is_the_result_it_was(self) -> None:
		# What merge reads of a shard's JSON, on another machine: the
		# same leaves, report, tally and JUnit, the boot's files named as
		# they were there.
		with tempfile.TemporaryDirectory() as tmp:
			panic = self.result('c_panic', Status.CRASH, 'panic', 'panic')
			panic.console_log = os.path.join(tmp, 'test.log')
			shutil.copy(test_data_path('console', 'panic.log'), panic.console_log)
			hang = self.result('e_hang', Status.TIMEOUT, None)
			hang.exec_log = os.path.join(tmp, 'exec.log')
			with open(hang.exec_log, 'w') as f:
				f.write('\n'.join(f'line {n}' for n in range(60)) + '\n')
			result_list = [self.result('a_fail', Status.FAIL, 'fail_two', 'fail_two'),
				       self.result('b_skips', Status.PASS, 'skips', 'skips'), panic,
				       self.result('d_broken', Status.BUILD_ERROR, None), hang]
			result_list[0].kernel.dirty, result_list[0].kernel.edits = True, ('f.c',)
			back = [config_result_of(json.loads(json.dumps(config_record(r, {}))))
				for r in result_list]
			self.assertEqual(self.report(back), self.report(result_list))
			def junit_of(found: List[config_result.ConfigResult]) -> bytes:
				return ET.tostring(junit.document('r', [
					s for r in found for s in junit.config_suites(r)]).getroot())
			self.assertEqual(junit_of(back), junit_of(result_list))
			for old, new in zip(result_list, back):
				self.assertEqual([(c.path, c.status, c.log, c.reason) for c in new.leaves()],
						 [(c.path, c.status, c.log, c.reason) for c in old.leaves()])
				self.assertEqual(new.files(), old.files())
		self.assertIn('--- kunit.py exec: last 40 lines of ' + hang.exec_log, self.report(back))
		self.assertEqual(config_result.totals(back), config_result.totals(result_list))

class KtapTest(unittest.TestCase):
	"""Consoles parsed with the kunit_parser of 6.1, 6.12 and 7.3."""

	def parse(self, console: str, kernel: str) -> Tuple[List[ktap.Case], str]:
		return ktap.parse(read(test_data_path('console', console + '.log')), kunit_tool_of(kernel))

	def test_failed_cases_of_every_suite(self) -> None:
		# 6.1 prints "ok N name"; later kernels "ok N - name", with SKIP on
		# a parameter's own line.
		# 7.3's kunit_parser prints through a Printer it is given, not the
		# module's own: parsed here from 6.12's console, which 7.3 prints alike.
		for kernel, console in (('6.1', 'fail_two'), ('6.12', 'fail_two_6.12'),
					('7.3', 'fail_two_6.12')):
			with self.subTest(kernel=kernel):
				cases, printed = self.parse(console, kernel)
				failed = [c for c in cases if c.failed()]
				self.assertEqual([(c.name(), c.status) for c in failed],
						 [(FIELD_PARAM_FAILED, 'FAIL'), (MATCH_CASE_FAILED, 'FAIL')])
				self.assertEqual(failed[0].path, [
					'arm64_cpufeature_field',
					'cpuid_feature_extract_signed_field_every_position', 'bits [7:4]'])
				self.assertEqual(failed[0].log[0], FAILED_BLOCK_6_1[1].strip())
				self.assertEqual(failed[0].log[-1], '1 of 32 extractions were wrong')
				self.assertEqual(failed[1].log, MATCH_CASE_LOG)
				self.assertIn('[FAILED] bits [7:4]', printed)
				self.assertEqual(len(cases), 7)
		statuses = {c.name(): c.status for c in self.parse('fail_two_6.12', '6.12')[0]}
		self.assertEqual(statuses['arm64_cpufeature_field.cpuid_feature_extract_signed_field'
					  '_every_position[bits [63:60]]'], 'SKIP')

	def test_failed_expectations_name_files_of_the_tree(self) -> None:
		# A build with O= prints the file relative to the build directory.
		console = read(test_data_path('console', 'fail_two_6.12.log')).replace(
			'FAILED at arch/', 'FAILED at ../../../arch/')
		self.assertIn('FAILED at ../../../arch/', console)
		cases, _ = ktap.parse(console, kunit_tool_of('6.12'))
		logs = [line for c in cases if c.failed() for line in c.log if 'FAILED at' in line]
		self.assertTrue(logs)
		for line in logs:
			self.assertRegex(line, r'FAILED at arch/arm64/kernel/\S+\.c:\d+$')

	def test_crashed_case_and_no_ktap(self) -> None:
		cases, _ = self.parse('panic', '6.1')
		(crashed,) = [c for c in cases if c.failed()]
		self.assertEqual((crashed.name(), crashed.status),
				 ('arm64_cpufeature_match.(unnamed)', 'ERROR'))
		self.assertEqual(crashed.log[-1],
				 '---[ end Kernel panic - not syncing: Oops: Fatal exception ]---')
		self.assertEqual([(c.name(), c.status, c.log) for c in self.parse('fail', '6.1')[0]], [
			('arm64_cpufeature_match.feature_matches_thresholds', 'PASS', []),
			(MATCH_CASE_FAILED, 'FAIL', [MATCH_CASE_LOG[0].replace(':416', ':393'),
						     MATCH_CASE_LOG[1]])])
		cases, printed = self.parse('no_ktap', '6.1')
		self.assertEqual(cases, [])
		self.assertIn('could not find any KTAP output', printed)

	def test_the_trees_own_parser_is_loaded_and_left_behind(self) -> None:
		stand_in = mock.Mock()
		with mock.patch.dict(sys.modules, {'kunit_parser': stand_in}):
			for kernel in ('6.1', '6.12', '7.3'):
				parser = ktap.load_parser(kunit_tool_of(kernel))
				self.assertEqual(parser.__file__,
						 os.path.join(kunit_tool_of(kernel), 'kunit_parser.py'))
			self.assertIs(sys.modules['kunit_parser'], stand_in)
			self.assertNotIn('kunit_printer', sys.modules)
		self.assertNotIn(kunit_tool_of('6.1'), sys.path)
		for kernel in ('6.1', '6.12', '7.3'):
			self.assertFalse(os.path.exists(os.path.join(kunit_tool_of(kernel), '__pycache__')))
		with tempfile.TemporaryDirectory() as tmp, \
		     self.assertRaisesRegex(Error, f'cannot load kunit_parser from {tmp}: '):
			ktap.load_parser(tmp)


if __name__ == '__main__':
	unittest.main()
