#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the kselftest boots (pan_kunit.matrix.kselftests,
# kselftest_build, pan_kunit.results.kselftest_rows): on a recorded console
# of a real kselftest boot (test_data/console/kselftest_7.3_cortex-a57.log:
# the 7.3 KUnit kernel on cortex-a57 with guest/ksft_init.c), the rows per
# collection, the known failures counted as skips with their reason, and
# the same counts in the table, the closing tally, the JSON record and
# JUnit; the command line of a boot, the cache key of a build, the cpio.

import copy
import functools
import json
import os
import signal
import time
import re
import tempfile
import unittest
from typing import Dict, List, Tuple

from pan_kunit.commands import cli, mutants, run
from pan_kunit.kunit_tool import ktap, ktap_lines
from pan_kunit.kunit_tool.ktap import Case, CaseStatus
from pan_kunit.kunit_tool.kunit_py import KunitOptions
from pan_kunit.host import guard, proc
from pan_kunit.matrix import kselftest_build, kselftests
from pan_kunit.results import config_result, junit, kselftest_rows, terminal
from pan_kunit.results.config_result import Exit, Status
from pan_kunit.results.record import config_record, config_result_of
from pan_kunit.trees import worktree
from pan_kunit.trees import kernels
from pan_kunit.trees.targets import Target
from pan_kunit.trees.tree import state_dir
from testlib import (REPO, end_to_end, kunit_tool_of, process_running, qemu_config, read,
		     test_data_path, write)

CONSOLE = test_data_path('console', 'kselftest_7.3_cortex-a57.log')
# The boot's own count per collection (passed/failed/skipped leaves, by
# 7.3's kunit_parser: /work/research/kselftest-arm64.md), with abi's two
# seccomp failures (no CONFIG_NET) counted as known failures.
EXPECTED = {'abi': (112, 0, 160), 'signal': (18, 0, 20), 'tags': (1, 0, 0),
	    'pauth': (0, 0, 7), 'bti': (36, 0, 0), 'mte': (2, 0, 14), 'fp': (7, 0, 25),
	    'gcs': (0, 0, 6)}

@functools.lru_cache(maxsize=None)
def _rows_of(console: str) -> List[Case]:
	return kselftests.read_rows(console, kunit_tool_of('7.3'), Exit(0, False, 30.0), 600)

def rows_of(console: str) -> List[Case]:
	"""The rows of @console: parsed once for the tests of this file (the
	recorded boot, by kunit_parser, was most of their time), a copy of
	its own for each."""
	return copy.deepcopy(_rows_of(console))

def result_with(found: List[Case], status: Status=Status.PASS) -> config_result.ConfigResult:
	result = config_result.ConfigResult(
		name='arm64_nopan', cpu='cortex-a57', qemu_config='', build_dir='', status=status,
		elapsed=1.0, skip_reasons={}, kunit={'name': '', 'sub_groups': [], 'test_cases': []},
		console_log='', exec_log='')
	result.add_kselftests(found, CONSOLE)
	return result

def counts(found: List[Case]) -> Dict[str, Tuple[int, int, int]]:
	per: Dict[str, List[int]] = {}
	for leaf in found:
		cell = per.setdefault(leaf.suite[len(kselftest_rows.PREFIX):], [0, 0, 0])
		cell[0 if leaf.status == CaseStatus.PASS else 2 if leaf.status == CaseStatus.SKIP
		     else 1] += 1
	return {k: (v[0], v[1], v[2]) for k, v in per.items()}

class RowsTest(unittest.TestCase):

	def test_a_row_per_collection_with_the_boots_counts(self) -> None:
		found = rows_of(read(CONSOLE))
		self.assertEqual(counts(found), EXPECTED)
		self.assertEqual(list(counts(found)), list(EXPECTED), 'in the order they ran')

	def test_known_failures_are_skips_with_their_reason(self) -> None:
		found = rows_of(read(CONSOLE))
		known = [leaf for leaf in found if leaf.reason.startswith(kselftest_rows.KNOWN)]
		self.assertEqual([leaf.path[1] for leaf in known],
				 ['abi/seccomp_ptrace_x0_bypass', 'abi/seccomp_ret_trace_x0_bypass'])
		self.assertTrue(all('SECCOMP_FILTER depends on NET' in leaf.reason for leaf in known))
		self.assertTrue(all(leaf.status == CaseStatus.SKIP for leaf in known))

	def test_without_the_list_they_fail(self) -> None:
		cases, _ = ktap.parse(read(CONSOLE), kunit_tool_of('7.3'))
		found = kselftest_rows.rows(cases, ktap_lines.skip_reasons(read(CONSOLE)), known=())
		self.assertEqual(counts(found)['abi'], (112, 2, 158))

	def test_a_time_limit_is_known_only_when_the_log_or_the_init_says_so(self) -> None:
		suite = kselftest_rows.PREFIX + 'fp'
		ptrace = [suite, 'fp/fp-ptrace', 'No writes, SVE 256->256']
		stress = [suite, 'fp/fp-stress']
		# Every signal test's alarm() says "-- Timeout !" (test_signals_utils.c's
		# default_handler()); a wrong frame or a stray signal says otherwise.
		fpmr = [kselftest_rows.PREFIX + 'signal', 'signal/fpmr_siginfo']
		console = '    not ok 3 fp/fp-stress # timeout after 300 s\n'
		# The case, what the init killed, and a word of the known failure's
		# reason ('': not known, a failure).
		for leaf, killed, why in (
				(Case(ptrace, CaseStatus.FAIL, ['# Timed out waiting for child']), '',
				 'traced child'),
				(Case(ptrace, CaseStatus.FAIL, ['# Mismatch in ZA']), '', ''),
				(Case(stress, CaseStatus.FAIL, ['# ksft: fp/fp-stress took 303.93 s']),
				 console, 'per-binary limit'),
				(Case(stress, CaseStatus.FAIL, ['# Mismatch']), '', ''),
				(Case(fpmr, CaseStatus.FAIL, ['# Registered handlers for all signals.',
							      '# -- Timeout !']), '', 'its own alarm'),
				(Case(fpmr, CaseStatus.FAIL, ['# FPMR in frame is 1, was 0']), '', ''),
				(Case(fpmr, CaseStatus.FAIL,
				      ['# -- RX UNEXPECTED SIGNAL: 4 code 1 address 0x4005d0']), '', ''),
				(Case(fpmr, CaseStatus.FAIL, []), '', '')):
			with self.subTest(log=leaf.log, killed=killed):
				(found,) = kselftest_rows.rows([leaf], {},
							       killed=kselftest_rows.timed_out(killed))
				self.assertEqual(found.status, CaseStatus.SKIP if why else CaseStatus.FAIL)
				self.assertEqual(found.reason.startswith(kselftest_rows.KNOWN), bool(why))
				self.assertIn(why, found.reason)

	def test_a_failure_not_on_the_list_stays_a_failure(self) -> None:
		console = read(CONSOLE).replace('        ok 1 Syscall successful with tagged address',
						'        not ok 1 Syscall successful with tagged address')
		self.assertTrue(console != read(CONSOLE))
		found = rows_of(console)
		self.assertEqual(counts(found)['tags'], (0, 1, 0))
		self.assertEqual(result_with(found).status, Status.FAIL)

	def test_every_skip_has_a_reason(self) -> None:
		found = rows_of(read(CONSOLE))
		skips = [leaf for leaf in found if leaf.status == CaseStatus.SKIP]
		self.assertEqual(len(skips), sum(c[2] for c in EXPECTED.values()))
		self.assertEqual([leaf.key() for leaf in skips if not leaf.reason], [])
		reasons = {leaf.reason for leaf in skips}
		self.assertIn('SVE not supported', reasons)
		for binary in ('abi/hwcap', 'abi/tpidr2', 'mte/check_prctl', 'signal/sve_regs'):
			with self.subTest(binary=binary):
				said = {leaf.reason for leaf in skips if leaf.path[1] == binary}
				self.assertEqual(said, {kselftest_rows.unsaid(binary)})

	def test_a_boot_without_results_fails_and_says_why(self) -> None:
		for console, outcome, why in (
				('Booting Linux\nKernel panic\n', Exit(0, False, 3.0), 'no kselftest result'),
				(None, None, 'no kselftest result'),
				(read(CONSOLE), Exit(-9, True, 601.0), 'timed out after 600 s')):
			with self.subTest(why=why):
				found = kselftests.read_rows(console, kunit_tool_of('7.3'), outcome, 600)
				self.assertEqual(found[-1].suite, kselftest_rows.BOOT)
				self.assertIn(why, found[-1].path[-1])
				self.assertTrue(found[-1].failed())

	def test_a_suites_console_gives_no_rows(self) -> None:
		cases, _ = ktap.parse(read(test_data_path('console', '7.3_nopan_skips.log')),
				      kunit_tool_of('7.3'))
		self.assertEqual(kselftest_rows.rows(cases, {}), [])

	def test_kernel_lines_amid_the_document_are_left_out(self) -> None:
		# A real boot of the pan collection alone on max: "Run /init as
		# init process" came out between its subtest's "KTAP version 1"
		# and "# Subtest:", and each CPU hotplug's lines amid hotplug's.
		console = read(test_data_path('console', 'kselftest_7.3_max_pan_only.log'))
		self.assertIn('    KTAP version 1\nRun /init as init process\n', console)
		found = rows_of(console)
		self.assertEqual({leaf.suite for leaf in found}, {kselftest_rows.PREFIX + 'pan'})
		self.assertEqual(counts(found), {'pan': (245, 0, 29)})
		self.assertEqual(kselftest_rows.init_lines('boot\nKTAP version 1\n1..1\n    KTAP x\n'
							   'psci: CPU1 killed\nok 1 k\n# done\n'),
				 'boot\nKTAP version 1\n1..1\n    KTAP x\nok 1 k\n# done\n')

	def test_suite_of_a_case_name(self) -> None:
		self.assertEqual(kselftest_rows.suite_of('kselftest.arm64.pan.pan/faults.x'),
				 'kselftest.arm64.pan')
		self.assertEqual(kselftest_rows.suite_of('arm64_pan_uaccess.case.param'),
				 'arm64_pan_uaccess')

class CountsAgreeTest(unittest.TestCase):

	def test_table_tally_json_and_junit_count_them_once(self) -> None:
		found = rows_of(read(CONSOLE))
		result = result_with(found)
		expected = tuple(sum(c[i] for c in EXPECTED.values()) for i in range(3))
		self.assertEqual(result.status, Status.PASS)
		rows = [line for line in terminal.table([result]) if line.startswith('kselftest.arm64.')]
		self.assertEqual(sorted(row.split()[0] for row in rows),
				 sorted(kselftest_rows.PREFIX + c for c in EXPECTED))
		cells = [tuple(int(n) for n in row.split()[1].split('/')) for row in rows]
		self.assertEqual(tuple(sum(c[i] for c in cells) for i in range(3)), expected)
		self.assertEqual(config_result.totals([result]), expected)
		record = config_record(result)
		self.assertEqual((record['counts']['passed'], record['counts']['failed'],
				  record['counts']['skipped']), expected)
		self.assertEqual(len(record['skip_reasons']), expected[2])
		self.assertEqual([g['name'] for g in record['sub_groups']],
				 [kselftest_rows.PREFIX + c for c in EXPECTED])
		xml = junit.document('run', junit.config_suites(result)).getroot()
		tests, failures, skipped = (int(xml.get(a, '')) for a in ('tests', 'failures', 'skipped'))
		self.assertEqual((tests - failures - skipped, failures, skipped), expected)

	def test_a_record_read_back_keeps_them_apart(self) -> None:
		# merge reads a shard's records: the kselftest rows come back as
		# the config's kselftests, once, beside the suites' leaves.
		found = rows_of(read(CONSOLE))
		result = result_with(found)
		result.cases = [Case(['arm64_x', 'a_case'], CaseStatus.PASS, [])]
		result.kunit = {'name': '', 'test_cases': [], 'sub_groups': [
			{'name': 'arm64_x', 'sub_groups': [],
			 'test_cases': [{'name': 'a_case', 'status': 'PASS'}]}]}
		back = config_result_of(json.loads(json.dumps(config_record(result))))
		self.assertEqual([c.path for c in back.cases], [['arm64_x', 'a_case']])
		self.assertEqual([(c.path, c.status, c.reason) for c in back.kselftests],
				 [(c.path, c.status, c.reason) for c in found])
		self.assertEqual(config_result.totals([back]), config_result.totals([result]))
		self.assertEqual(config_record(back)['sub_groups'], config_record(result)['sub_groups'])

class BootTest(unittest.TestCase):

	def test_command_line_tells_the_pan_tests_the_cpus_epan(self) -> None:
		config = qemu_config()
		for cpu, word in (('max,pauth-impdef=on', 'ARM64_PAN_EPAN=yes'),
				  ('neoverse-n1', 'ARM64_PAN_EPAN=no'), ('cortex-a57', 'ARM64_PAN_EPAN=no'),
				  ('a64fx', None)):
			with self.subTest(cpu=cpu):
				config.cpu = cpu
				line = kselftests.cmdline(config)
				self.assertIn('kunit.enable=0', line)
				if word:
					self.assertIn(word, line.split())
				else:
					self.assertNotIn('ARM64_PAN_EPAN', line)
				self.assertNotIn('ksft_only', line)
		self.assertIn('ksft_only=pan,abi', kselftests.cmdline(config, ['pan', 'abi']).split())

	def test_a_short_timeout_caps_every_binarys(self) -> None:
		# mutants --timeout 60: a mutant that stalled pan/hotplug and
		# pan/tagged cost CI 2 x 300 s; now 2 x 120 s.
		config = qemu_config()
		self.assertEqual(kselftests.binary_cap(60), kselftests.LEAST_CAP)
		self.assertEqual(kselftests.binary_cap(200), 200)
		self.assertEqual(kselftests.binary_cap(kselftest_build.DEFAULT_TIMEOUT), 0)
		self.assertEqual(kselftests.binary_cap(900), 0)
		self.assertIn('ksft_timeout_max=120', kselftests.cmdline(config, (), 120).split())
		self.assertNotIn('ksft_timeout_max', kselftests.cmdline(config))
		# asid.c's rollover runs up to twice its budget (default 60 s):
		# under a cap, a budget that ends it before the cap does, else
		# an idle host's rollover (165 s on max) is cut off as a failure,
		# and never more than its default.
		for cap, most in ((120, 59), (299, 60)):
			budget = [w for w in kselftests.cmdline(config, (), cap).split()
				  if w.startswith('ARM64_PAN_ASID_BUDGET=')]
			self.assertEqual(len(budget), 1)
			self.assertLess(2 * int(budget[0].split('=')[1]), cap)
			self.assertLessEqual(int(budget[0].split('=')[1]), most)
		self.assertNotIn('ARM64_PAN_ASID_BUDGET', kselftests.cmdline(config))

	def test_run_boots_them_only_when_asked(self) -> None:
		# An edit loop (run, with or without a glob) leaves them out; a
		# run with --kselftests plans their boot after the suites'.
		for argv, wanted in ((['run'], False), (['run', 'arm64_pan*'], False),
				     (['run', '--kselftests'], True),
				     (['run', '--kselftests', 'arm64_pan*'], True)):
			with self.subTest(argv=argv):
				request = cli.run_request(cli._parser().parse_args(argv))
				self.assertEqual(request.kselftests, wanted)
				with tempfile.TemporaryDirectory() as tree:
					target = Target(kernels.KNOWN[-1], tree, False)
					plan = run._plan(request, target, '/repo', [qemu_config()])
				self.assertEqual(plan.kselftest_init,
						 '/repo/' + kselftest_build.KSFT_INIT if wanted else None)

class BuildTest(unittest.TestCase):

	def test_key_follows_the_sources_and_uapi_headers_only(self) -> None:
		with tempfile.TemporaryDirectory() as tree:
			for path in ('tools/testing/selftests/arm64/abi/hwcap.c',
				     'tools/testing/selftests/lib.mk', 'include/uapi/linux/futex.h',
				     'arch/arm64/include/uapi/asm/hwcap.h', 'arch/arm64/mm/fault.c',
				     'tools/testing/selftests/x86/a.c', 'init.c'):
				write(os.path.join(tree, path), path)
			init = os.path.join(tree, 'init.c')
			key = kselftest_build.source_key(tree, init)
			self.assertEqual(kselftest_build.source_key(tree, init), key)
			write(os.path.join(tree, 'arch/arm64/mm/fault.c'), 'a mutant')
			write(os.path.join(tree, 'tools/testing/selftests/x86/a.c'), 'not built')
			self.assertEqual(kselftest_build.source_key(tree, init), key)
			for path in ('include/uapi/linux/futex.h', 'tools/testing/selftests/arm64/abi/hwcap.c',
				     'init.c'):
				with self.subTest(path=path):
					write(os.path.join(tree, path), 'changed ' + path)
					self.assertNotEqual(kselftest_build.source_key(tree, init), key)
					key = kselftest_build.source_key(tree, init)

	def test_the_check_worktree_takes_the_trees_build(self) -> None:
		with tempfile.TemporaryDirectory() as tree:
			init = os.path.join(tree, 'init.c')
			write(init, 'int main;')
			wt = worktree.location(tree)
			for path in (tree, wt):
				write(os.path.join(path, 'include/uapi/linux/a.h'), 'same')
			key = kselftest_build.source_key(wt, init)
			done = os.path.join(state_dir(tree, 'kselftest', key))
			write(os.path.join(done, kselftest_build.CPIO), 'cpio')
			write(os.path.join(done, 'list'), 'pan asid 900\n')
			built = kselftest_build.build(wt, init, 1)
			self.assertTrue(built.cached)
			self.assertEqual(built.cpio, os.path.join(done, kselftest_build.CPIO))
			self.assertEqual(built.tests, [('pan', 'asid')])

	def test_cpio_and_list(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			out = os.path.join(tmp, 'a.cpio')
			kselftest_build.cpio_newc([('ksft', 0o40755, b'', 0, 0),
						   ('ksft/list', 0o100644, b'abc\n', 0, 0)], out)
			with open(out, 'rb') as f:
				data = f.read()
			self.assertEqual(len(data) % 4, 0)
			names = re.findall(rb'070701[0-9A-F]{104}([^\0]+)\0', data)
			self.assertEqual(names, [b'ksft', b'ksft/list', b'TRAILER!!!'])
			self.assertIn(b'abc\n', data)
		self.assertEqual(kselftest_build.list_file([('abi', 'hwcap'), ('pan', 'asid')]),
				 f'abi hwcap {kselftest_build.DEFAULT_TIMEOUT}\n'
				 f'pan asid {kselftest_build.DEFAULT_TIMEOUT}\n')

	def test_the_init_gives_the_pan_tests_their_settings_time(self) -> None:
		# Upstream's runner reads the directory's settings file; the
		# init reads none, so its limit must be the same.
		settings = os.path.join(REPO, 'kunit/tools/testing/selftests/arm64/pan/settings')
		with open(settings) as f:
			self.assertEqual(f.read(), f'timeout={kselftest_build.DEFAULT_TIMEOUT}\n')

class MutantJudgeTest(unittest.TestCase):

	def test_a_failed_kselftest_kills_a_mutant_that_names_it(self) -> None:
		failed = [Case(['kselftest.arm64.pan', 'pan/faults', 'kernel_address'],
			       CaseStatus.FAIL, [])]
		result = result_with(failed)
		mutant = mutants.Mutant(name='m', path='m.patch', subject='s', files=[],
					must_fail=['kselftest.arm64.pan'])
		mutants.judge(mutant, [result], {'kselftest.arm64.pan'})
		self.assertEqual(mutant.verdict, mutants.MutantVerdict.KILLED, mutant.detail)
		self.assertIn('pan/faults', mutant.detail)
		mutant = mutants.Mutant(name='m', path='m.patch', subject='s', files=[],
					must_fail=['kselftest.arm64.pan'])
		mutants.judge(mutant, [result_with(rows_of(read(CONSOLE)))], {'kselftest.arm64.pan'})
		self.assertEqual(mutant.verdict, mutants.MutantVerdict.SURVIVED, mutant.detail)

	def test_a_mutant_boots_only_the_collections_it_names(self) -> None:
		# A sample mixing both kinds: the baseline boots the union, a
		# mutant judged by its suites alone boots no kselftest.
		pan = mutants.Mutant(name='a', path='a.patch', subject='s', files=[],
				     must_fail=['kselftest.arm64.pan', 'arm64_pan_fault'])
		suites_only = mutants.Mutant(name='b', path='b.patch', subject='s', files=[],
					     must_fail=['arm64_alternative'])
		self.assertEqual(mutants.kselftest_collections([pan, suites_only]), ['pan'])
		self.assertEqual(mutants.kselftests_of(pan, '/repo/init.c'), ('/repo/init.c', ['pan']))
		self.assertEqual(mutants.kselftests_of(suites_only, '/repo/init.c'), (None, []))

@end_to_end
class BuildStopTest(unittest.TestCase):

	def test_a_stopped_build_leaves_no_make_behind(self) -> None:
		# A make's sub-makes are its children, not pan-kunit's: a
		# SIGTERM of pan-kunit while the kselftests build must end them.
		with tempfile.TemporaryDirectory() as tmp:
			pid_file, log = os.path.join(tmp, 'pid'), os.path.join(tmp, 'log')
			sub_make = f'sh -c "echo \\$\\$ > {pid_file}; exec sleep 60" & wait'
			def call() -> int:
				with proc.stopping_on_signals():
					kselftest_build._run(['sh', '-c', sub_make], log)
				return 0
			fork = proc.Fork(call, os.path.join(tmp, 'out'))
			deadline = time.monotonic() + 20
			while not (os.path.exists(pid_file) and read(pid_file).strip()):
				self.assertLess(time.monotonic(), deadline, 'no sub-make started')
				time.sleep(0.02)
			os.kill(fork.pid, signal.SIGTERM)
			self.assertNotEqual(fork.wait(), 0)  # stopped: Stopped raised in the copy
			grandchild = int(read(pid_file))
			deadline = time.monotonic() + guard.GRACE + 5
			while process_running(grandchild) and time.monotonic() < deadline:
				time.sleep(0.05)
			running = process_running(grandchild)
			if running:
				os.kill(grandchild, signal.SIGKILL)
			self.assertFalse(running, 'the sub-make outlived pan-kunit')

if __name__ == '__main__':
	unittest.main()
