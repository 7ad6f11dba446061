#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of tools/pan-kunit coverage: the gcov data out of the guest's console
# and what lcov made of it (pan_kunit.commands.coverage, pan_kunit.commands.lcov).

import contextlib
import fnmatch
import io
import os
import shutil
import tempfile
import unittest
from typing import Dict, List
from unittest import mock

from pan_kunit import Error
from pan_kunit.commands import coverage, lcov
from pan_kunit.kunit_tool import configs, kunit_py
from pan_kunit.matrix import boots, builds, initramfs
from pan_kunit.results import config_result
from pan_kunit.results.config_result import Exit
from pan_kunit.trees import kernels, tree
from testlib import (FakeJobs, test_data_path, read, read_bytes, write, setUpModule,
		     tearDownModule, plain_printer, plain_progress, build_settings, matrix_plan)

class CoverageTest(unittest.TestCase):
	"""The gcov data out of the guest's console, and what lcov made of it."""

	def setUp(self) -> None:
		self.tmp = tempfile.mkdtemp(prefix='pan-kunit-test-')
		self.addCleanup(shutil.rmtree, self.tmp)

	def test_read_dump_reads_every_file_between_kernel_lines(self) -> None:
		files = coverage.read_dump(read(test_data_path('coverage', 'dump.log')))
		self.assertEqual(files, {'/build/k/arch/arm64/kernel/cpufeature.gcda': bytes(range(100)),
					 '/build/k/arch/arm64/mm/fault.gcda': b'gcda\x00\x01'})

	def test_read_dump_refuses_a_line_a_kernel_message_broke(self) -> None:
		with self.assertRaises(Error) as e:
			coverage.read_dump(read(test_data_path('coverage', 'dump_broken.log')))
		self.assertIn("gcov dump: a broken line after 0 bytes of "
			      "/build/k/arch/arm64/kernel/cpufeature.gcda: 'pan-kunit gcda+ 0 "
			      "000102030405060708090a[    3.5] random: crng init done'", str(e.exception))

	def test_read_dump_refuses_a_dump_cut_short(self) -> None:
		with self.assertRaises(Error) as e:
			coverage.read_dump(read(test_data_path('coverage', 'dump_cut.log')))
		self.assertIn('no end line (pan-kunit gcov: N files): the boot ended before the '
			      'init was done, after 0 files', str(e.exception))

	def test_read_dump_refuses_a_dump_of_no_files(self) -> None:
		with self.assertRaises(Error) as e:
			coverage.read_dump('pan-kunit init: cannot open /debug/gcov\n'
					   'pan-kunit gcov: 0 files\n')
		self.assertIn('gcov dump: no gcov data files', str(e.exception))

	def test_place_dump_puts_each_file_beside_its_objects_gcno(self) -> None:
		build = os.path.join(self.tmp, 'build')
		out = os.path.join(self.tmp, 'gcda')
		name = os.path.join(os.path.realpath(build), 'arch/arm64/mm/fault.gcda')
		placed = coverage.place_dump({name: b'data'}, build, out)
		self.assertEqual(placed, ['arch/arm64/mm/fault.o'])
		self.assertEqual(read_bytes(os.path.join(out, 'arch/arm64/mm/fault.gcda')), b'data')
		self.assertEqual(os.readlink(os.path.join(out, 'arch/arm64/mm/fault.gcno')),
				 os.path.join(os.path.realpath(build), 'arch/arm64/mm/fault.gcno'))
		with self.assertRaises(Error) as e:
			coverage.place_dump({'/elsewhere/fault.gcda': b''}, build, out)
		self.assertIn('/elsewhere/fault.gcda is not of the build in', str(e.exception))

	def functions_in_tree(self, *names: str) -> List[coverage.Function]:
		"""The fixture's functions.c as arch/arm64/kernel/functions.c of a
		tree at self.tmp, and the functions of it called @names."""
		source = os.path.join(self.tmp, 'arch/arm64/kernel/functions.c')
		os.makedirs(os.path.dirname(source))
		shutil.copy(test_data_path('coverage', 'functions.c'), source)
		return [coverage.Function(name, 'arch/arm64/kernel/functions.c', 'area')
			for name in names]

	def tracefile(self, tree: str) -> Dict[str, lcov.SourceData]:
		text = read(test_data_path('coverage', 'functions.info')).replace('TREE', tree)
		return lcov.read_tracefile(text, tree)

	def test_read_tracefile_adds_up_the_records_of_one_source(self) -> None:
		data = self.tracefile('/tree')
		self.assertEqual(list(data), ['arch/arm64/kernel/functions.c'])  # not outside.h
		source = data['arch/arm64/kernel/functions.c']
		self.assertEqual(source.lines, {8: 3, 9: 2, 10: 2, 30: 1, 31: 0})
		self.assertEqual(source.branches, {(8, '0', '0'): 1, (8, '0', '1'): 2,
						   (30, '0', '0'): 4, (30, '0', '1'): 1,
						   (31, '0', '0'): 0})

	def test_suites_only_subtracts_the_boot_without_them(self) -> None:
		# The baseline boot ran line 8 once, 9 twice, 30 once, and line
		# 30's first branch 4 times: only the suites' own runs are left.
		work = os.path.join(self.tmp, 'coverage')
		os.makedirs(work)
		for name, fixture in ((coverage.SUITES_INFO, 'functions.info'),
				      ('arm64_pan.info', 'functions.info'),
				      ('arm64_pan.baseline.info', 'functions.baseline.info')):
			write(os.path.join(work, name),
			      read(test_data_path('coverage', fixture)).replace('TREE', self.tmp))
		data = coverage.read_suites_only(work, self.tmp)
		assert data is not None
		source = data['arch/arm64/kernel/functions.c']
		self.assertEqual(source.lines, {8: 2, 9: 0, 10: 2, 30: 0, 31: 0})
		self.assertEqual(source.branches, {(8, '0', '0'): 0, (8, '0', '1'): 2,
						   (30, '0', '0'): 0, (30, '0', '1'): 1,
						   (31, '0', '0'): 0})
		self.assertEqual(lcov.reached_lines(data),
				 {'arch/arm64/kernel/functions.c': {8, 10}})

	def test_suites_only_config_by_config_past_the_noise(self) -> None:
		# The init's own user faults vary by one between boots: 17 against
		# 16 is noise, 19 against 16 is the suites'; a line the boot without
		# the suites never ran counts at once.  Each config has its own
		# baseline, and the results add up.
		work = os.path.join(self.tmp, 'coverage')
		os.makedirs(work)
		def info(counts: Dict[int, int]) -> str:
			return (f'SF:{self.tmp}/arch/arm64/mm/fault.c\n' +
				''.join(f'DA:{n},{c}\n' for n, c in counts.items()) + 'end_of_record\n')
		write(os.path.join(work, coverage.SUITES_INFO), info({600: 34, 554: 53, 700: 1}))
		write(os.path.join(work, 'a.info'), info({600: 17, 554: 31, 700: 1}))
		write(os.path.join(work, 'a.baseline.info'), info({600: 16, 554: 22, 700: 0}))
		write(os.path.join(work, 'b.info'), info({600: 17, 554: 22, 700: 0}))
		write(os.path.join(work, 'b.baseline.info'), info({600: 16, 554: 22, 700: 0}))
		data = coverage.read_suites_only(work, self.tmp)
		assert data is not None
		self.assertEqual(data['arch/arm64/mm/fault.c'].lines, {600: 0, 554: 9, 700: 1})
		self.assertEqual(lcov.reached_lines(data), {'arch/arm64/mm/fault.c': {554, 700}})

	def test_suites_only_without_a_baseline_is_the_whole_boot(self) -> None:
		work = os.path.join(self.tmp, 'coverage')
		self.assertIsNone(coverage.read_suites_only(work, self.tmp))
		os.makedirs(work)
		write(os.path.join(work, coverage.SUITES_INFO),
		      read(test_data_path('coverage', 'functions.info')).replace('TREE', self.tmp))
		data = coverage.read_suites_only(work, self.tmp)
		assert data is not None
		self.assertEqual(lcov.reached_lines(data),
				 {'arch/arm64/kernel/functions.c': {8, 9, 10, 30}})

	def test_function_ranges_finds_each_definition(self) -> None:
		text = read(test_data_path('coverage', 'functions.c'))
		ranges = {name: lcov.function_ranges(text, name)
			  for name in ('helper', 'twice', 'twice_stub', 'caller', 'missing')}
		self.assertEqual(ranges, {'helper': [(6, 11)], 'twice': [(14, 17), (19, 19)],
					  'twice_stub': [(22, 25)], 'caller': [(27, 32)],
					  'missing': []})

	def test_measure_counts_lines_and_branches_in_each_function(self) -> None:
		functions = self.functions_in_tree('helper', 'caller', 'twice')
		got = coverage.measure(functions, self.tracefile(self.tmp), self.tmp)
		self.assertEqual([(c.function.name, c.lines, c.branches, c.missed_lines,
				   c.missed_branches, c.found, c.defined) for c in got],
				 [('helper', (3, 3), (2, 2), [], [], True, True),
				  ('caller', (1, 2), (2, 3), [31], [31], True, True),
				  ('twice', (0, 0), (0, 0), [], [], False, True)])
		self.assertEqual((got[0].ratio(got[0].lines), got[1].ratio(got[1].branches),
				  got[2].ratio(got[2].lines)), ('3/3 100%', '2/3 66%', '-'))

	def test_a_function_no_longer_defined_fails_the_report(self) -> None:
		functions = self.functions_in_tree('helper', 'twice', 'renamed')
		covered = coverage.measure(functions, self.tracefile(self.tmp), self.tmp)
		config = mock.Mock()
		config.name = 'arm64_pan'
		report = coverage.Report([coverage.Boot(config, True, '1 passed')], covered, self.tmp)
		out = io.StringIO()
		with contextlib.redirect_stdout(out):
			self.assertFalse(coverage.print_report(plain_printer(), 'linux-source-6.12', report))
		self.assertIn('twice    not instrumented: inlined whole into its callers', out.getvalue())
		self.assertIn('renamed  FAIL: not defined in arch/arm64/kernel/functions.c', out.getvalue())
		with contextlib.redirect_stdout(io.StringIO()):
			self.assertTrue(coverage.print_report(plain_printer(), 'linux-source-6.12', coverage.Report(
				report.boots, covered[:2], self.tmp)))

	def test_every_function_under_test_is_defined_where_its_entry_says(self) -> None:
		# In the suites' own kernels the names are checked by a coverage run; here,
		# that each source is one of the profiled objects' or a header.
		for function in coverage.FUNCTIONS:
			self.assertTrue(function.source in coverage.PROFILED or
					function.source.endswith('.h'), function)
			self.assertTrue(set(function.kernels) <= {k.name for k in kernels.KNOWN},
					function)

	def test_make_options_profile_each_object_and_no_other(self) -> None:
		self.assertEqual(coverage.make_options()[:2], ['GCOV_PROFILE_cpufeature.o=y',
							      'GCOV_PROFILE_alternative.o=y'])
		self.assertEqual(len(coverage.make_options()), len(coverage.PROFILED))

	def test_boot_cmdline_has_no_kunit_shutdown(self) -> None:
		config = mock.Mock(cmdline='console=ttyAMA0 panic=-1')
		self.assertEqual(coverage.boot_cmdline(config), 'console=ttyAMA0 panic=-1')
		self.assertEqual(coverage.boot_cmdline(config, kunit_py.KunitOptions('arm64_pan.*')),
				 'console=ttyAMA0 panic=-1 kunit.filter_glob=arm64_pan.*')

	def test_a_run_counts_none_of_an_earlier_runs_tracefiles(self) -> None:
		# An earlier run booted arm64_nopan too; this one boots arm64_pan
		# alone, whose baseline boot ran each of its lines as often.
		tree_dir = os.path.join(self.tmp, 'tree')
		work = tree.state_dir(tree_dir, coverage.COVERAGE_DIR)
		os.makedirs(work)
		def info(counts: Dict[int, int]) -> str:
			return (f'SF:{tree_dir}/arch/arm64/mm/fault.c\n' +
				''.join(f'DA:{n},{c}\n' for n, c in counts.items()) + 'end_of_record\n')
		for name, counts in (('arm64_nopan', {554: 9}), ('arm64_nopan.baseline', {554: 0}),
				     ('arm64_pan', {554: 9}), ('arm64_pan.baseline', {554: 0}),
				     ('baseline', {554: 0}), ('coverage', {554: 9})):
			write(os.path.join(work, name + '.info'), info(counts))
		config = configs.QemuConfig('arm64_pan', '/r/qemu_configs/arm64_pan.py', '',
					    'arch/arm64/boot/Image', 'max')
		def read_boot(config: configs.QemuConfig, exec_dir: str, build_dir: str, work: str,
			      outcome: Exit, timeout: int, baseline: bool=False) -> coverage.Boot:
			name = config.name + ('.baseline' if baseline else '')
			tracefile = os.path.join(work, name + '.info')
			write(tracefile, info({554: 5}))
			return coverage.Boot(config, True, 'ok', tracefile)
		def merge(traces: List[str], tree: str, out: str) -> None:
			write(out, ''.join(read(t) for t in traces))
		with mock.patch.object(initramfs, 'pack', return_value='/cpio'), \
		     mock.patch.object(builds, 'build_all',
				       side_effect=lambda plan, *_a: {b.key: True for b in plan.builds()}), \
		     mock.patch.object(boots, 'link_kernel'), \
		     FakeJobs().patch(), \
		     mock.patch.object(coverage, '_read_boot', side_effect=read_boot), \
		     mock.patch.object(lcov, 'merge', side_effect=merge), \
		     mock.patch.object(lcov, 'html'), \
		     contextlib.redirect_stdout(io.StringIO()):
			report = coverage.run(matrix_plan(tree_dir, [config], 60, 1), '7.3', 't', '/repo',
					      plain_progress(), build_settings())
		self.assertEqual([b.ok for b in report.boots], [True])
		self.assertEqual(sorted(os.listdir(work)),
				 ['arm64_pan.baseline.info', 'arm64_pan.info', 'coverage.info'])
		# arm64_pan's boots ran line 554 as often: the suites never
		# reached it, whatever the earlier run's arm64_nopan said.
		data = coverage.read_suites_only(work, tree_dir)
		assert data is not None
		self.assertEqual(data['arch/arm64/mm/fault.c'].lines, {554: 0})

	def boot(self, console: str, outcome: Exit,
		 baseline: bool=False) -> coverage.Boot:
		build = os.path.join(self.tmp, 'build')
		exec_dir = os.path.join(self.tmp, 'exec')
		os.makedirs(exec_dir)
		text = read(test_data_path('coverage', console)).replace('/build/k', os.path.realpath(build))
		write(os.path.join(exec_dir, config_result.CONSOLE), text)
		shutil.copy(test_data_path('kunit_json', 'skips.json'),
			    os.path.join(exec_dir, config_result.KUNIT_JSON))
		config = mock.Mock()
		config.name = 'arm64_pan'
		with mock.patch.object(lcov, 'capture') as capture:
			boot = coverage._read_boot(config, exec_dir, build, self.tmp, outcome, 300,
						   baseline)
		self.captured = capture.call_args_list
		return boot

	def test_a_boot_gives_its_tally_and_its_tracefile(self) -> None:
		boot = self.boot('dump.log', Exit(0, False, 2.0))
		self.assertTrue(boot.ok, boot)
		self.assertRegex(boot.summary, r'^[0-9]+ passed, 0 failed, [1-9][0-9]* skipped$')
		gcda_dir = os.path.join(self.tmp, 'gcda', 'arm64_pan')
		self.assertEqual(self.captured, [mock.call(gcda_dir, boot.tracefile)])
		self.assertTrue(os.path.isfile(os.path.join(gcda_dir, 'arch/arm64/mm/fault.gcda')))

	def test_a_baseline_boot_keeps_its_counters_apart(self) -> None:
		boot = self.boot('dump.log', Exit(0, False, 2.0), baseline=True)
		self.assertEqual((boot.ok, boot.summary), (True, 'no suite'))
		gcda_dir = os.path.join(self.tmp, 'gcda', 'arm64_pan.baseline')
		self.assertEqual(self.captured, [mock.call(gcda_dir, boot.tracefile)])
		self.assertEqual(boot.tracefile, os.path.join(self.tmp, 'arm64_pan.baseline.info'))

	def test_the_baseline_boot_runs_no_suite(self) -> None:
		config = mock.Mock(cmdline='console=ttyAMA0')
		line = coverage.boot_cmdline(config, kunit_py.KunitOptions(coverage.BASELINE_GLOB))
		self.assertEqual(line, 'console=ttyAMA0 kunit.filter_glob=' + coverage.BASELINE_GLOB)
		self.assertFalse(any(fnmatch.fnmatch(f'{suite}.x', coverage.BASELINE_GLOB)
				     for suite in ('arm64_pan', 'arm64_cpucap_table', 'arm64_alternative')))

	def test_a_boot_without_its_whole_dump_fails_with_the_reason(self) -> None:
		boot = self.boot('dump_cut.log', Exit(0, False, 2.0))
		self.assertFalse(boot.ok)
		self.assertIn('; gcov dump: no end line', boot.summary)
		self.assertIsNone(boot.tracefile)
		self.assertEqual(self.captured, [])

	def test_a_boot_that_timed_out_fails(self) -> None:
		boot = self.boot('dump.log', Exit(-9, True, 360.0))
		self.assertEqual((boot.ok, boot.summary), (False, 'timed out after 300 s'))


if __name__ == '__main__':
	unittest.main()
