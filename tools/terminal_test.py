#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of what the terminal shows of a run's results (pan_kunit.results.terminal):
# the table at the terminal's width, and a stable one off a terminal.

import dataclasses
import functools
import io
import os
import unittest
from typing import Dict, List, Tuple
from unittest import mock

from pan_kunit.host.printer import Printer
from pan_kunit.kunit_tool import ktap, ktap_lines
from pan_kunit.results import config_result, terminal
from pan_kunit.results.config_result import Status
from pan_kunit.trees import tree
import testlib
from testlib import COMMIT, kunit_tool_of, read, setUpModule, tearDownModule, test_data_path

# The matrix: a 7.3 console without PAN and one with a failure, on PAN.
MATRIX = (('arm64_nopan', 'cortex-a57', '7.3_nopan_skips', Status.PASS),
	  ('arm64_pan', 'max,pauth-impdef=on', '7.3_pan_one_failure', Status.FAIL),
	  ('arm64_pan_sw_ttbr0', 'max,pauth-impdef=on', '7.3_pan_one_failure', Status.FAIL),
	  ('arm64_ttbr0_pan', 'cortex-a57', '7.3_nopan_skips', Status.PASS))

@functools.lru_cache(maxsize=None)
def _parsed(console: str) -> Tuple[Tuple[ktap.Case, ...], Dict[str, str], Dict[str, int]]:
	"""The cases, skip reasons and skipped parameters of the console
	@console: kunit_parser runs once per console for the whole file, not
	once per config of each matrix() (a tenth of a second each time)."""
	text = read(test_data_path('console', console + '.log'))
	return (tuple(ktap.parse(text, kunit_tool_of('7.3'))[0]), ktap_lines.skip_reasons(text),
		ktap_lines.param_skips(text))

def matrix(package: str='linux-source-7.3') -> List[config_result.ConfigResult]:
	found = []
	for name, cpu, console, status in MATRIX:
		cases, reasons, param_skips = _parsed(console)
		found.append(config_result.ConfigResult(
			name=name, cpu=cpu, qemu_config='', build_dir='', status=status, elapsed=41.5,
			skip_reasons=dict(reasons), kunit=None, console_log='/t/test.log',
			exec_log='', kernel=tree.Kernel('7.3.1', package, '7.3.1-1', COMMIT, 'pan-kunit'),
			cases=[dataclasses.replace(c, path=list(c.path), log=list(c.log)) for c in cases],
			param_skips=dict(param_skips)))
	return found

class TableTest(unittest.TestCase):

	def test_fits_120_as_it_is(self) -> None:
		lines = terminal.table(matrix(), 120)
		self.assertLessEqual(max(map(len, lines)), 120)
		self.assertEqual(lines[0].split(), ['suite', '(passed/failed/skipped)', 'arm64_nopan',
						    'arm64_pan', 'arm64_pan_sw_ttbr0', 'arm64_ttbr0_pan'])
		self.assertIn('arm64_pan_hotplug              0/0/1        0/1/0                0/1/0'
			      '                0/0/1', lines)

	def test_fits_80_without_the_prefix_and_a_legend(self) -> None:
		lines = terminal.table(matrix(), 80)
		self.assertLessEqual(max(map(len, lines)), 80, '\n'.join(lines))
		self.assertEqual(lines[:3], [
			'passed/failed/skipped, names without arm64_:',
			'suite             nopan    pan      pan_sw_ttbr0  ttbr0_pan',
			'alternative       18/0/0   18/0/0   18/0/0        18/0/0'])
		self.assertIn('pan_hotplug       0/0/1    0/1/0    0/1/0         0/0/1', lines)
		self.assertEqual(lines[-4:], [
			'  nopan         cpu cortex-a57, 41.5 s',
			'  pan           cpu max,pauth-impdef=on, 41.5 s',
			'  pan_sw_ttbr0  cpu max,pauth-impdef=on, 41.5 s',
			'  ttbr0_pan     cpu cortex-a57, 41.5 s'])

	def test_narrower_still_cut_into_tables(self) -> None:
		lines = terminal.table(matrix(), 50)
		self.assertLessEqual(max(map(len, lines)), 50)
		heads = [line for line in lines if line.startswith('suite ')]
		self.assertEqual(heads, ['suite             nopan    pan      pan_sw_ttbr0',
					 'suite             ttbr0_pan'])
		# Each table has every suite and the status.
		self.assertEqual(sum(line.startswith('status ') for line in lines), 2)
		self.assertEqual(sum(line.startswith('pan_uaccess ') for line in lines), 2)

	def test_width_off_a_terminal_is_stable(self) -> None:
		with mock.patch.dict(os.environ, {'COLUMNS': ''}):
			self.assertEqual(terminal.width(Printer(io.StringIO())), terminal.WIDTH)
		with mock.patch.dict(os.environ, {'COLUMNS': '80'}):
			self.assertEqual(terminal.width(Printer(io.StringIO())), 80)

	def test_tests_keep_to_the_width_off_a_terminal(self) -> None:
		# A test file's reports are those of a log, whatever the
		# terminal of whoever runs selftest: each test that renders at
		# another width sets COLUMNS itself.
		with mock.patch.dict(os.environ, {'COLUMNS': '80', 'LINES': '24'}):
			testlib.setUpModule()
			try:
				self.assertEqual(terminal.width(Printer(io.StringIO())), terminal.WIDTH)
			finally:
				testlib.tearDownModule()
			self.assertEqual(os.environ['COLUMNS'], '80')

	def test_a_log_cut_short_names_the_file_with_the_rest(self) -> None:
		# parse has no parsed log of a boot (parsed_log ''): the console.
		result = matrix()[1]
		out = io.StringIO()
		terminal.print_report(Printer(out), [result], totals=False)
		self.assertRegex(out.getvalue(), r'\n        \.\.\. [0-9]+ more lines in /t/test\.log\n')

	def crashed(self, console: str) -> str:
		"""What print_report() says of a boot that crashed with @console."""
		result = dataclasses.replace(matrix()[1], status=Status.CRASH,
					     console_log=test_data_path('console', console))
		out = io.StringIO()
		terminal.print_report(Printer(out), [result], totals=False)
		return out.getvalue()

	def test_a_crash_before_the_console_quotes_the_panic_and_backtrace(self) -> None:
		output = self.crashed('7.3_early_panic.log')
		self.assertIn("\n    the kernel's last words:\n"
			      '        Kernel panic - not syncing: Failed to allocate memmap for section 8\n'
			      '        Call trace:\n'
			      '         show_stack+0x18/0x24 (C)\n', output)
		self.assertIn('         start_kernel+0x6c/0x7e0\n'
			      '         __primary_switched+0x88/0x90\n'
			      '        ---[ end Kernel panic - not syncing: Failed to allocate memmap '
			      'for section 8 ]---\n', output)
		# The boot's lines before it are not its last words.
		self.assertNotIn('        Zone ranges', output)

	def test_an_oops_in_a_case_quotes_it_without_timestamps(self) -> None:
		output = self.crashed('panic.log')
		self.assertIn("    the kernel's last words:\n"
			      '        Unable to handle kernel paging request at virtual address '
			      '0000ffff8c6a1000\n'
			      '        Internal error: Oops: 0000000096000004 [#1] PREEMPT SMP\n'
			      '        pc : has_cpuid_feature_pan_every_cpu+0x5c/0x1a0\n'
			      '        lr : kunit_try_run_case+0x4c/0xa0\n'
			      '        Kernel panic - not syncing: Oops: Fatal exception\n'
			      '        ---[ end Kernel panic', output)

	def test_a_crash_without_an_oops_says_so(self) -> None:
		output = self.crashed('no_tests.log')
		self.assertIn('    the console holds no oops or panic of the kernel: see its last lines\n',
			      output)

	def test_fold_keeps_to_the_width_and_loses_nothing(self) -> None:
		line = ('    6.12 (linux-source-6.12): series patches/6.12/series; Debian package, '
			'6.12.118-1~deb12u1 installed; /usr/src/linux-source-6.12.tar.xz (present)')
		self.assertEqual(terminal.fold(line, 200), [line])
		folded = terminal.fold(line, 80)
		self.assertEqual(folded, [
			'    6.12 (linux-source-6.12): series patches/6.12/series;',
			'        Debian package, 6.12.118-1~deb12u1 installed;',
			'        /usr/src/linux-source-6.12.tar.xz (present)'])
		for width in (40, 60, 100):
			folded = terminal.fold(line, width)
			self.assertLessEqual(max(map(len, folded)), width)
			self.assertEqual(' '.join(' '.join(folded).split()), ' '.join(line.split()))

	def test_a_saved_console_has_no_cpu_time_or_json(self) -> None:
		# parse's report: no boot, so no CPU or time, and no --json of
		# its own to point at; in a narrow terminal the case a reason
		# has alone is whole, on a line of its own.
		result = dataclasses.replace(matrix()[0], cpu='-', elapsed=None)
		skipped = [leaf.key() for leaf in result.leaves() if leaf.status == ktap.CaseStatus.SKIP]
		for columns in (80, 120):
			out = io.StringIO()
			with mock.patch.dict(os.environ, {'COLUMNS': str(columns)}):
				terminal.print_report(Printer(out), [result], totals=False, booted=False)
			lines = out.getvalue().splitlines()
			self.assertEqual([line for line in lines if line.split()[:1] in (['cpu'], ['elapsed'])
					  or ' cpu ' in line], [], columns)
			self.assertIn('skipped, by reason:', lines)
			self.assertNotIn('--json', out.getvalue())
			alone = [line.strip() for line in lines if line.startswith('          ')]
			self.assertTrue(alone or columns == 120, lines)
			for case in alone:
				self.assertTrue(case in skipped or case.startswith('... ') and
						any(k.endswith(case[4:]) for k in skipped), case)
			self.assertLessEqual(max(map(len, lines)), columns)
			self.assertFalse([line for line in lines if line.endswith(' ...') and
					  line.startswith('        ') and ', ' not in line], lines)

	def test_report_keeps_to_the_width(self) -> None:
		for columns in (80, 120):
			out = io.StringIO()
			with mock.patch.dict(os.environ, {'COLUMNS': str(columns)}):
				terminal.print_report(Printer(out), matrix())
			lines = out.getvalue().splitlines()
			start = next(i for i, line in enumerate(lines) if line.startswith(('suite', 'passed')))
			end = lines.index('did not pass (4):')
			self.assertLessEqual(max(map(len, lines[start:end])), columns, columns)
			# The failed cases: the case first, where it failed under it.
			self.assertEqual(lines[end + 1:end + 3], [
				'    arm64_pan: [FAILED] arm64_cpucap_table.cpu_enable_pan_sets_pstate_pan',
				'        at arch/arm64/kernel/tests/cpucap_table_kunit.c:498'])

if __name__ == '__main__':
	unittest.main()
