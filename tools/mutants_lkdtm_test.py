#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of LKDTM's boots as a judge of tools/pan-kunit mutants
# (pan_kunit.commands.mutants_lkdtm, mutants.judge_by_groups()): with
# pipeline.build_and_boot and jobs.run_jobs as stand-ins, and end to end
# with the fake kunit_tool.

import contextlib
import io
import json
import os
import shutil
import unittest
from typing import Any, Callable, Dict, List, Optional, Set, Tuple
from unittest import mock

from pan_kunit import Error
from pan_kunit.commands import lkdtm, mutants, mutants_lkdtm, steps
from pan_kunit.host.printer import Printer
from pan_kunit.host.progress import Progress
from pan_kunit.kunit_tool import configs
from pan_kunit.matrix import initramfs, jobs, pipeline, plan
from pan_kunit.results import config_result
from pan_kunit.results.config_result import Status, Exit
from pan_kunit.trees import tree
from testlib import (test_data_path, read, write, TempDirTestCase, CheckTestCase, synthetic_config,
		     setUpModule, tearDownModule, plain_progress, build_settings)

FAULT_C = 'arch/arm64/mm/fault.c'
ACCESS, EXEC, NULL = lkdtm.CRASH_TYPES

def qemu_config(name: str, cpu: str) -> configs.QemuConfig:
	return configs.QemuConfig(name=name, path=f'/r/qemu_configs/{name}.py', kconfig='',
				  kernel_path='Image', cpu=cpu)

# What a kernel as it should be prints for each crash type, with PAN
# (config "pan") and without it (config "nopan").
GOOD = {('pan', ACCESS): 'access_caught.log', ('pan', EXEC): 'exec_caught.log',
	('pan', NULL): 'null_caught.log',
	('nopan', ACCESS): 'access_survived.log', ('nopan', EXEC): 'exec_caught.log',
	('nopan', NULL): 'null_caught.log'}

class LkdtmJudgeTest(TempDirTestCase):
	"""mutants.judge_by_groups() of a mutant that survives the KUnit boots
	(pipeline.build_and_boot a stand-in), then LKDTM's (jobs.run_jobs a stand-in that
	writes each boot's console)."""

	def setUp(self) -> None:
		super().setUp()
		self.matrix = [qemu_config('pan', 'max'), qemu_config('nopan', 'cortex-a57')]
		self.wt = os.path.join(self.tmp, 'wt')
		self.booted: List[Tuple[str, str]] = []
		# (config, crash) -> the console fixture the boot writes.
		self.consoles = dict(GOOD)

	def fake_run_jobs(self, progress: Progress, job_list: List[jobs.Job],
			  watchdog: Optional[float],
			  ended: Optional[Callable[[jobs.Job], None]]=None) -> None:
		for job in job_list:
			name, crash = job.label.split()
			self.booted.append((name, crash))
			exec_dir = job.cmd[job.cmd.index('--build_dir') + 1]
			write(os.path.join(exec_dir, config_result.CONSOLE),
			      read(test_data_path('lkdtm', self.consoles[name, crash])))
			job.outcome = Exit(1, False, 1.0)
			assert ended is not None
			ended(job)

	def judge(self, files: List[str], ok: Set[Tuple[str, str]],
		  kunit: Status=Status.PASS,
		  must_fail: Optional[List[str]]=None) -> mutants.Mutant:
		"""A mutant of @files judged on one kconfig group, whose KUnit
		boots end in @kunit, against a baseline whose LKDTM boots @ok were ok."""
		def fake_run(run: plan.MatrixPlan, *args: Any) -> List[config_result.ConfigResult]:
			found = []
			for config in run.configs:
				found.append(synthetic_config(kunit, {
					'a': 'FAIL' if kunit == Status.FAIL else 'PASS'}))
				found[-1].name = config.name
			return found
		checker = steps.Checker(plain_progress(), build_settings(), self.tree, self.matrix,
					timeout=60, jobs=1)
		mutant = mutants.Mutant(path='m.patch', name='m', subject='s',
					must_fail=must_fail or ['arm64_s'], files=files)
		base = mutants_lkdtm.Baseline('/b/initramfs.cpio', ok, 0.0)
		with mock.patch.object(steps.Checker, 'groups', return_value=[self.matrix]), \
		     mock.patch.object(pipeline, 'build_and_boot', fake_run), \
		     mock.patch.object(jobs, 'run_jobs', self.fake_run_jobs), \
		     mock.patch.object(tree, 'head', return_value='c0ffee'), \
		     mock.patch.object(steps, 'step_kunitconfig', return_value=[]):
			mutants.judge_by_groups(checker, self.wt, mutant, 1, {'arm64_s'}, lkdtm=base)
		return mutant

	def test_a_surviving_fault_mutant_is_killed_by_a_boot_gone_wrong(self) -> None:
		# do_page_fault() no longer dies on a PAN fault: the read survives.
		self.consoles['pan', ACCESS] = 'access_survived.log'
		mutant = self.judge([FAULT_C], set(GOOD))
		self.assertEqual(sorted(self.booted), sorted(GOOD))
		self.assertEqual(mutant.verdict, mutants.MutantVerdict.KILLED)
		self.assertEqual(mutant.detail, 'LKDTM: pan ACCESS_USERSPACE: survived; expected '
				 f'"{lkdtm.PAN_CAUGHT}" (KUnit: no case of arm64_s failed)')
		self.assertEqual(mutant.lkdtm, 'survived KUnit; LKDTM: killed on pan ACCESS_USERSPACE')
		# The boots' files are the mutant's, beside its KUnit boots'.
		assert mutant.logs is not None
		boot = os.path.join(mutant.logs, 'lkdtm', 'pan-ACCESS_USERSPACE')
		self.assertIn(lkdtm.SURVIVED_READ, read(os.path.join(boot, config_result.CONSOLE)))
		# The kernel the KUnit step built in the worktree.
		self.assertTrue(os.readlink(os.path.join(boot, 'Image')).startswith(
			os.path.join(self.wt, '.pan-kunit', 'build') + os.sep))

	def test_swapped_arguments_of_do_kernel_fault_are_killed_by_access_null(self) -> None:
		# do_page_fault() calls __do_kernel_fault(esr, addr, regs): a read
		# of address 0 dies as a paging request at the ESR's value.
		self.consoles['pan', NULL] = 'null_args_swapped.log'
		self.consoles['nopan', NULL] = 'null_args_swapped.log'
		mutant = self.judge([FAULT_C], set(GOOD))
		self.assertEqual(mutant.verdict, mutants.MutantVerdict.KILLED)
		self.assertEqual(mutant.detail, 'LKDTM: nopan ACCESS_NULL: expected '
				 f'"{lkdtm.NULL_CAUGHT}", not found; pan ACCESS_NULL: expected '
				 f'"{lkdtm.NULL_CAUGHT}", not found (KUnit: no case of arm64_s failed)')
		self.assertEqual(mutant.lkdtm, 'survived KUnit; LKDTM: killed on nopan ACCESS_NULL, '
				 'pan ACCESS_NULL')

	def test_a_sw_ttbr0_config_takes_access_null_for_a_pan_fault(self) -> None:
		self.matrix = [configs.QemuConfig(name='ttbr0', path='/r/qemu_configs/ttbr0.py',
						  kconfig='CONFIG_ARM64_SW_TTBR0_PAN=y',
						  kernel_path='Image', cpu='cortex-a57')]
		self.consoles = {('ttbr0', ACCESS): 'access_caught.log',
				 ('ttbr0', EXEC): 'exec_caught.log',
				 ('ttbr0', NULL): 'null_pan_caught.log'}
		mutant = self.judge([FAULT_C], set(self.consoles))
		self.assertEqual(mutant.verdict, mutants.MutantVerdict.SURVIVED)
		self.assertEqual(mutant.lkdtm, 'LKDTM: 3 boots ok')
		# A NULL dereference there is not what SW TTBR0 PAN makes of it.
		self.consoles['ttbr0', NULL] = 'null_caught.log'
		mutant = self.judge([FAULT_C], set(self.consoles))
		self.assertEqual(mutant.verdict, mutants.MutantVerdict.KILLED)
		self.assertEqual(mutant.lkdtm, 'survived KUnit; LKDTM: killed on ttbr0 ACCESS_NULL')

	def test_a_generated_mutant_is_judged_too(self) -> None:
		self.consoles['nopan', EXEC] = 'no_debugfs.log'
		mutant = self.judge(['arch/arm64/kernel/entry-common.c'], set(GOOD),
				    must_fail=[mutants.ANY_SUITE])
		self.assertEqual(mutant.verdict, mutants.MutantVerdict.KILLED)
		self.assertTrue(mutant.detail.startswith('LKDTM: nopan EXEC_USERSPACE: '), mutant.detail)

	def test_all_boots_ok_it_survives(self) -> None:
		mutant = self.judge(['arch/arm64/kernel/entry.S'], set(GOOD))
		self.assertEqual(len(self.booted), 6)
		self.assertEqual(mutant.verdict, mutants.MutantVerdict.SURVIVED)
		self.assertEqual(mutant.detail, 'no case of arm64_s failed; LKDTM: 6 boots ok')
		self.assertEqual(mutant.lkdtm, 'LKDTM: 6 boots ok')

	def test_a_mutant_of_another_file_gets_no_boot(self) -> None:
		self.consoles['pan', ACCESS] = 'access_survived.log'
		mutant = self.judge(['arch/arm64/kernel/cpufeature.c'], set(GOOD))
		self.assertEqual(self.booted, [])
		self.assertEqual((mutant.verdict, mutant.lkdtm), (mutants.MutantVerdict.SURVIVED, ''))

	def test_a_mutant_killed_by_kunit_gets_no_boot(self) -> None:
		mutant = self.judge([FAULT_C], set(GOOD), kunit=Status.FAIL)
		self.assertEqual(self.booted, [])
		self.assertEqual(mutant.verdict, mutants.MutantVerdict.KILLED)

	def test_a_boot_not_ok_on_the_baseline_judges_nothing(self) -> None:
		self.consoles['pan', ACCESS] = 'access_survived.log'
		mutant = self.judge([FAULT_C], set(GOOD) - {('pan', ACCESS)})
		self.assertEqual(mutant.verdict, mutants.MutantVerdict.SURVIVED)
		self.assertEqual(mutant.detail, 'no case of arm64_s failed; LKDTM: 5 boots ok')

class LkdtmBaselineTest(TempDirTestCase):
	"""mutants_lkdtm.baseline(): whether, and how, the baseline is booted."""

	def baseline(self, files: List[List[str]], verdicts: Dict[Tuple[str, str], bool],
		     pack_error: bool=False) -> Tuple[Optional[mutants_lkdtm.Baseline], str, Any]:
		out = io.StringIO()
		checker = steps.Checker(Progress(Printer(out)), build_settings(), self.tree,
					[qemu_config('pan', 'max')], timeout=1, jobs=1,
					lkdtm_init='/repo/lkdtm/init.c')
		found = {key: lkdtm.BootVerdict(ok, 'caught' if ok else 'hung', None)
			 for key, ok in verdicts.items()}
		with mock.patch.object(initramfs, 'pack', return_value='/x/initramfs.cpio',
				       side_effect=Error('gcc failed') if pack_error else None) as pack, \
		     mock.patch.object(lkdtm, 'boot', return_value=found) as boot:
			base = mutants_lkdtm.baseline(checker, os.path.join(self.tmp, 'wt'),
						      os.path.join(self.tmp, 'logs'), files)
		if boot.called:
			self.assertEqual(boot.call_args[0][4], '/x/initramfs.cpio')
			pack.assert_called_once_with(os.path.join(self.tmp, 'wt'), '/repo/lkdtm/init.c',
						     'lkdtm')
		return base, out.getvalue(), boot

	def test_booted_only_when_a_mutant_touches_the_fault_path(self) -> None:
		base, output, boot = self.baseline([['arch/arm64/kernel/cpufeature.c']], {})
		self.assertIsNone(base)
		self.assertEqual(output, '')
		boot.assert_not_called()

	def test_the_boots_ok_are_remembered(self) -> None:
		base, output, boot = self.baseline([['x.c'], [FAULT_C]],
						   {('pan', ACCESS): True, ('pan', EXEC): False})
		assert base is not None
		self.assertEqual(base.ok, {('pan', ACCESS)})
		self.assertRegex(output, r'^baseline LKDTM: 1 boots ok, 1 not, which judge no mutant '
				 r'\(pan EXEC_USERSPACE: hung\) \([0-9.]+ s; logs: .*/logs/lkdtm\)\n$')

	def test_no_boot_ok_judges_without_lkdtm(self) -> None:
		base, output, _ = self.baseline([[FAULT_C]], {('pan', ACCESS): False})
		self.assertIsNone(base)
		self.assertIn('baseline LKDTM: no boot was ok; mutants are judged without LKDTM', output)

	def test_an_init_that_does_not_build_judges_without_lkdtm(self) -> None:
		base, output, boot = self.baseline([[FAULT_C]], {}, pack_error=True)
		self.assertIsNone(base)
		boot.assert_not_called()
		self.assertIn('mutants are judged without LKDTM: gcc failed', output)

# A mutant of the fault path that no suite sees but LKDTM does: in the
# fake kunit.py's skip mode the KUnit boots pass with skips, and the
# ACCESS_USERSPACE boot survives, which is wrong on a CPU with PAN.
PAN_FAULT_GONE = '''Subject: do_page_fault() no longer dies on a PAN fault
Must-Fail: arm64_cpufeature_match
Origin: mutants_lkdtm_test.py fixture

A stand-in for a regression: the fake kunit.py reads fake_mode.
---
diff --git a/fake_mode b/fake_mode
new file mode 100644
--- /dev/null
+++ b/fake_mode
@@ -0,0 +1 @@
+skip
diff --git a/arch/arm64/mm/fault.c b/arch/arm64/mm/fault.c
new file mode 100644
--- /dev/null
+++ b/arch/arm64/mm/fault.c
@@ -0,0 +1 @@
+/* the PAN die path, gone */
'''

class LkdtmMutantsTest(CheckTestCase):
	"""tools/pan-kunit mutants with LKDTM, end to end, with the fake kunit_tool."""

	def setUp(self) -> None:
		super().setUp()
		shutil.copytree(test_data_path('mutants'), os.path.join(self.repo, 'mutants', '6.1'))
		write(os.path.join(self.repo, 'mutants', '6.1', 'pan-fault-gone.patch'), PAN_FAULT_GONE)
		self.cpio = os.path.join(self.tmp, 'initramfs.cpio')
		patcher = mock.patch.object(initramfs, 'pack', return_value=self.cpio)
		self.pack = patcher.start()
		self.addCleanup(patcher.stop)

	def test_a_mutant_of_the_fault_path_is_killed_by_lkdtm(self) -> None:
		report = os.path.join(self.tmp, 'mutants.json')
		status, output = self.run_cli('mutants', '--only', 'pan-fault-gone', '--only', 'killed',
					      '--json', report)
		self.assertEqual(status, 0, output)
		self.assertRegex(output, r'\nbaseline LKDTM: 6 boots ok \([0-9.]+ s; logs: [^)]*\)\n')
		self.assertRegex(output, r'\nmutant 2/2 pan-fault-gone: killed; survived KUnit; LKDTM: '
				 r'killed on pass_pan ACCESS_USERSPACE \([0-9.]+ s; logs: ')
		verdicts = {m['name']: m for m in json.loads(read(report))['mutants']}
		self.assertTrue(verdicts['pan-fault-gone']['detail'].startswith(
			'LKDTM: pass_pan ACCESS_USERSPACE: survived; expected'))
		# Packed once for the run; the baseline's 6 boots and the
		# surviving mutant's 6, none for the one KUnit killed.
		self.pack.assert_called_once()
		self.assertEqual(self.pack.call_args[0][1], os.path.join(self.repo, lkdtm.INIT_SOURCE))
		self.assertEqual(len(self.traced('qemu_args')), 12)
		# The kernels the KUnit steps built (one group: the baseline's and
		# each mutant's), no build of their own.
		self.assertEqual(len(self.traced('build')), 3)
		wt = self.worktree()
		self.assertIn(lkdtm.SURVIVED_READ, read(os.path.join(
			wt, '.pan-kunit', 'mutants', 'pan-fault-gone', 'lkdtm', 'pass_pan-ACCESS_USERSPACE',
			config_result.CONSOLE)))

	def test_no_lkdtm_boot_when_no_mutant_touches_the_fault_path(self) -> None:
		status, output = self.run_cli('mutants', '--only', 'survived', '--only', 'killed')
		self.assertEqual(status, 1, output)
		self.assertNotIn('LKDTM', output)
		self.assertEqual(self.traced('qemu_args'), [])
		self.pack.assert_not_called()


if __name__ == '__main__':
	unittest.main()
