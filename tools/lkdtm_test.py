#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of tools/pan-kunit lkdtm: end to end with the fake kunit_tool, and
# its verdicts from console fixtures (pan_kunit.commands.lkdtm).

import contextlib
import io
import os
import sys
import unittest
from typing import Any, List, Tuple
from unittest import mock

from pan_kunit import Error
from pan_kunit.commands import cli, coverage, lkdtm
from pan_kunit.host import proc, summary
from pan_kunit.kunit_tool import configs, kunit_py
from pan_kunit.matrix import initramfs
from pan_kunit.results import config_result
from pan_kunit.results.config_result import Exit
from pan_kunit.trees import targets
from testlib import (REPO, test_data_path, read, write, FakeKunitTestCase, setUpModule,
		     tearDownModule, plain_printer, plain_progress, build_settings, matrix_plan, slow)

class LkdtmRunTest(FakeKunitTestCase):
	"""tools/pan-kunit lkdtm, end to end, with the fake kunit_tool."""

	def run_cli(self, *argv: str) -> Tuple[int, str]:
		out = io.StringIO()
		cpio = os.path.join(self.tmp, 'initramfs.cpio')
		with mock.patch.object(initramfs, 'pack', return_value=cpio), \
		     contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
			status = cli.main(['--tree', self.tree] + list(argv), repo=self.repo)
		return status, out.getvalue()

	@slow  # a run, then lkdtm, each a build and boots
	def test_boots_the_kernels_run_built_with_kunit_off(self) -> None:
		status, output = self.run_cli('run', '--config', 'pass_pan', '--config', 'skip_nopan')
		self.assertEqual(status, 0, output)
		(run_build,) = self.traced('build')
		def kunitconfigs(argv: List[str]) -> List[str]:
			return [argv[i + 1] for i, word in enumerate(argv) if word == '--kunitconfig']
		(argv,) = self.traced('argv build')
		self.assertEqual(kunitconfigs(argv)[1:], [os.path.join(self.repo, lkdtm.KCONFIG),
							  os.path.join(self.repo, targets.LEAN_KCONFIG)])
		status, output = self.run_cli('lkdtm', '--config', 'pass_pan', '--config', 'skip_nopan')
		self.assertEqual(status, 0, output)
		# The same kunitconfig and fragments as run's: kunit.py finds the
		# build configured, and does not configure it again.
		self.assertEqual([kunitconfigs(a) for a in self.traced('argv build')],
				 [kunitconfigs(argv)] * 2)
		self.assertTrue(output.endswith('lkdtm: 6 passed, 0 failed\n'), output)
		self.assertEqual(output.count('lkdtm: 6 passed'), 1, output)  # the closing line, once
		self.assertIn('pass_pan (max,pauth-impdef=on, PAN by CPU):\n'
			      '    ACCESS_USERSPACE   ok   caught: "Unable to handle kernel access', output)
		self.assertIn('skip_nopan (cortex-a57, no PAN):\n'
			      '    ACCESS_USERSPACE   ok   survived, as without PAN', output)
		for config in ('pass_pan', 'skip_nopan'):
			self.assertRegex(output, rf'\n{config} \([^)]*\):\n(    .*\n){{2}}'
					 f'    ACCESS_NULL        ok   caught: "{lkdtm.NULL_CAUGHT}"\n')
		# One build, into the directory run built, with LKDTM's kconfig merged in.
		self.assertEqual([b[2] for b in self.traced('build')], [run_build[2]] * 2)
		self.assertIn('CONFIG_LKDTM=y', read(os.path.join(run_build[2], '.kunitconfig')))
		boots = sorted(line[2:] for line in self.traced('qemu_args'))
		cpio = os.path.join(self.tmp, 'initramfs.cpio')
		# The config's own command line, KUnit off and the crash type, in an
		# -append that replaces kunit.py's (and its kunit_shutdown=reboot).
		self.assertEqual(boots, [['-initrd', cpio, '-append',
					  f'console=ttyAMA0 panic=-1 kunit.enable=0 pankunit_crash={crash}']
					 for crash in ('ACCESS_NULL', 'ACCESS_NULL',
						       'ACCESS_USERSPACE', 'ACCESS_USERSPACE',
						       'EXEC_USERSPACE', 'EXEC_USERSPACE')])
		# A line per boot, as run prints its boots.
		for config in ('pass_pan', 'skip_nopan'):
			for crash in lkdtm.CRASH_TYPES:
				self.assertRegex(output, rf'\nboot {config} {crash}: ok \([0-9.]+ s\)\n')

	def test_initramfs_failure_is_an_error_before_any_build(self) -> None:
		real_run = proc.run
		def _run(argv: List[str], **kwargs: Any) -> Any:
			if argv[0] == kunit_py.CROSS_COMPILE + 'gcc':
				return proc.Result(argv, 1, 'init.c:1: error: oops')
			return real_run(argv, **kwargs)
		out = io.StringIO()
		with mock.patch.object(proc, 'run', side_effect=_run), \
		     contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
			status = cli.main(['--tree', self.tree, 'lkdtm', '--config', 'pass_pan'],
					  repo=self.repo)
		self.assertEqual(status, 2, out.getvalue())
		self.assertIn('failed:\ninit.c:1: error: oops', out.getvalue())
		self.assertEqual(self.traced('build'), [])

	def test_fragments_without_lkdtm_are_refused_before_any_work(self) -> None:
		with mock.patch.object(initramfs, 'pack') as pack, \
		     self.assertRaisesRegex(Error, 'built without kconfig/lkdtm.config'):
			lkdtm.run(matrix_plan(self.tree, [], 10, 1,
					      fragments=[os.path.join(self.repo, targets.LEAN_KCONFIG)]),
				  self.repo, plain_progress(), build_settings())
		pack.assert_not_called()
		self.assertEqual(self.traced('build'), [])

	def test_initramfs_has_init_and_a_console(self) -> None:
		calls: List[List[str]] = []
		listings: List[str] = []
		def _run(argv: List[str], **kwargs: Any) -> Any:
			calls.append(argv)
			if len(argv) == 2:  # gen_init_cpio LISTING
				listings.append(read(argv[1]))
			return proc.Result(argv, 0)
		with mock.patch.object(proc, 'run', side_effect=_run):
			cpio = initramfs.pack(self.tree, os.path.join(self.repo, lkdtm.INIT_SOURCE),
					      'lkdtm')
		work = os.path.join(self.tree, '.pan-kunit', 'lkdtm')
		self.assertEqual(cpio, os.path.join(work, 'initramfs.cpio'))
		self.assertEqual([argv[0] for argv in calls],
				 ['aarch64-linux-gnu-gcc', 'gcc', os.path.join(work, 'gen_init_cpio')])
		self.assertIn(os.path.join(self.repo, lkdtm.INIT_SOURCE), calls[0])
		# guest/sys.h, beside the init, is on the include path.
		self.assertEqual(calls[0][calls[0].index('-I') + 1],
				 os.path.join(self.repo, initramfs.GUEST_DIR))
		self.assertIn(os.path.join(self.tree, 'usr', 'gen_init_cpio.c'), calls[1])
		self.assertEqual(listings, ['dir /dev 0755 0 0\n'
					    'nod /dev/console 0600 0 0 c 5 1\n'
					    'nod /dev/kmsg 0600 0 0 c 1 11\n'
					    f'file /init {os.path.join(work, "init")} 0755 0 0\n'])

	def test_a_boot_never_reads_an_earlier_boots_console(self) -> None:
		for crash in lkdtm.CRASH_TYPES:  # consoles that would pass
			write(os.path.join(self.tree, '.pan-kunit', 'exec', f'lkdtm-pass_pan-{crash}',
					   'test.log'),
			      read(test_data_path('lkdtm', 'access_caught.log')) +
			      read(test_data_path('lkdtm', 'exec_caught.log')))
		write(os.path.join(self.repo, 'kunit', 'fake_mode'), 'noboot\n')  # no console
		tally = os.path.join(self.tmp, 'summary')
		with mock.patch.dict(os.environ, {summary.ENV: tally}):
			status, output = self.run_cli('lkdtm', '--config', 'pass_pan')
		self.assertEqual(status, 1, output)
		self.assertIn('    ACCESS_USERSPACE   FAIL init never provoked', output)
		self.assertTrue(output.endswith('lkdtm: 0 passed, 3 failed\n'), output)
		self.assertEqual(read(tally), 'lkdtm: 0 passed, 3 failed\n')

	def test_build_failure_fails(self) -> None:
		status, output = self.run_cli('lkdtm', '--config', 'builderror_pan', '--config', 'pass_pan')
		self.assertEqual(status, 1, output)
		self.assertIn('builderror_pan (max,pauth-impdef=on, PAN by CPU):\n'
			      '    ACCESS_USERSPACE   FAIL build failed\n'
			      '    EXEC_USERSPACE     FAIL build failed\n'
			      '    ACCESS_NULL        FAIL build failed\n', output)
		self.assertTrue(output.endswith('lkdtm: 3 passed, 3 failed\n'), output)

	def test_access_null_is_a_pan_fault_where_pan_is_sw_ttbr0s(self) -> None:
		status, output = self.run_cli('lkdtm', '--config', 'pass_ttbr0')
		self.assertEqual(status, 0, output)
		self.assertIn('pass_ttbr0 (cortex-a57, PAN by SW TTBR0):\n'
			      '    ACCESS_USERSPACE   ok   caught: "Unable to handle kernel access', output)
		self.assertIn(f'    ACCESS_NULL        ok   caught: "{lkdtm.PAN_CAUGHT} at virtual '
			      'address 0000000000000000"\n', output)

	def test_timeout_fails_whatever_the_console_says(self) -> None:
		exec_dir = os.path.join(self.tmp, 'exec')
		# Read from config_result.CONSOLE, whatever its name.
		with mock.patch.object(config_result, 'CONSOLE', 'console.txt'):
			write(os.path.join(exec_dir, 'console.txt'),
			      read(test_data_path('lkdtm', 'access_caught.log')))
			ok = lkdtm._verdict(exec_dir, 'ACCESS_USERSPACE', lkdtm.PanSource.CPU,
					    Exit(1, False, 3.0), 60)
			late = lkdtm._verdict(exec_dir, 'ACCESS_USERSPACE', lkdtm.PanSource.CPU,
					      Exit(1, True, 120.0), 60)
		self.assertTrue(ok.ok, ok.summary)
		self.assertFalse(late.ok)
		self.assertTrue(late.summary.startswith('timed out: caught'), late.summary)
		self.assertIsNotNone(late.log)

CPU, SW_TTBR0 = lkdtm.PanSource.CPU, lkdtm.PanSource.SW_TTBR0

class LkdtmTest(unittest.TestCase):
	"""The verdicts of `pan-kunit lkdtm`, from console fixtures."""

	def console(self, name: str) -> str:
		return read(test_data_path('lkdtm', name))

	def config(self, cpu: str, kconfig: str = '') -> configs.QemuConfig:
		return configs.QemuConfig(name='c', path='/r/qemu_configs/c.py',
					  kconfig=configs.normalise_kconfig(kconfig),
					  kernel_path='Image', cpu=cpu)

	def test_every_init_is_in_the_repos_guest_beside_sys_h(self) -> None:
		# initramfs.pack() puts the source's own directory on the include path.
		for source in (lkdtm.INIT_SOURCE, coverage.INIT_SOURCE):
			self.assertEqual(os.path.dirname(source), initramfs.GUEST_DIR)
			self.assertTrue(os.path.isfile(os.path.join(REPO, source)), source)
		self.assertTrue(os.path.isfile(os.path.join(REPO, initramfs.GUEST_DIR, 'sys.h')))

	def test_pan_from_the_cpu_model_not_the_kernel(self) -> None:
		self.assertTrue(lkdtm.has_pan(self.config('max,pauth-impdef=on')))
		self.assertFalse(lkdtm.has_pan(self.config('cortex-a57')))
		with self.assertRaisesRegex(Error, "no known PAN level for QEMU CPU 'a64fx'"):
			lkdtm.has_pan(self.config('a64fx'))

	def test_pan_by_software_from_the_kconfig(self) -> None:
		sw = 'CONFIG_SERIAL_AMBA_PL011=y\n  CONFIG_ARM64_SW_TTBR0_PAN=y\n'
		self.assertTrue(lkdtm.has_pan(self.config('cortex-a57', sw)))
		self.assertEqual(lkdtm.pan_source(self.config('cortex-a57', sw)), 'SW TTBR0')
		self.assertEqual(lkdtm.pan_source(self.config('max', sw)), 'CPU')
		self.assertIsNone(lkdtm.pan_source(self.config('cortex-a57')))
		for off in ('# CONFIG_ARM64_SW_TTBR0_PAN is not set', 'CONFIG_ARM64_SW_TTBR0_PAN=n',
			    'CONFIG_ARM64_SW_TTBR0_PAN_X=y'):
			self.assertFalse(lkdtm.has_pan(self.config('cortex-a57', off)), off)
		with self.assertRaisesRegex(Error, "no known PAN level for QEMU CPU 'a64fx'"):
			lkdtm.has_pan(self.config('a64fx', sw))

	def test_access_userspace_caught_with_pan(self) -> None:
		verdict = lkdtm.judge(self.console('access_caught.log'), 'ACCESS_USERSPACE', CPU)
		self.assertTrue(verdict.ok)
		self.assertEqual(verdict.summary, 'caught: "Unable to handle kernel access to user '
				 'memory outside uaccess routines at virtual address 0000ffff9c4f0000"')
		# Whoever provides PAN.
		self.assertTrue(lkdtm.judge(self.console('access_caught.log'), 'ACCESS_USERSPACE',
					    SW_TTBR0).ok)
		self.assertEqual(lkdtm.expected('ACCESS_USERSPACE', SW_TTBR0), lkdtm.PAN_CAUGHT)

	def test_init_tells_whole_lines_to_the_kernels_log(self) -> None:
		# A line written to the console's tty in pieces was cut by LKDTM's
		# printks ("pan-kunit init: survived lkdtm: FAIL: survived bad
		# read"): each of init's lines is one write to /dev/kmsg.
		source = read(os.path.join(REPO, lkdtm.INIT_SOURCE))
		self.assertNotIn('say(', source)
		self.assertEqual(source.count('tell("pan-kunit init: '), 5)
		sys_h = read(os.path.join(REPO, initramfs.GUEST_DIR, 'sys.h'))
		self.assertIn('"/dev/kmsg"', sys_h)

	def test_init_line_cut_off_by_the_panic(self) -> None:
		# init's line never left the tty's buffer; LKDTM's printk says it ran.
		verdict = lkdtm.judge(self.console('access_caught_unflushed.log'), 'ACCESS_USERSPACE',
				      CPU)
		self.assertTrue(verdict.ok, verdict.summary)
		self.assertIn('caught: "Unable to handle kernel access to user memory', verdict.summary)
		verdict = lkdtm.judge(self.console('access_caught_unflushed.log'), 'EXEC_USERSPACE',
				      CPU)
		self.assertEqual(verdict.summary, 'init never provoked EXEC_USERSPACE')

	def test_access_userspace_survives_without_pan(self) -> None:
		verdict = lkdtm.judge(self.console('access_survived.log'), 'ACCESS_USERSPACE', None)
		self.assertTrue(verdict.ok)
		self.assertIn('"lkdtm: FAIL: survived bad read"', verdict.summary)

	def test_access_userspace_surviving_with_pan_fails(self) -> None:
		verdict = lkdtm.judge(self.console('access_survived.log'), 'ACCESS_USERSPACE', CPU)
		self.assertFalse(verdict.ok)
		self.assertIn('survived; expected "Unable to handle kernel access to user memory',
			      verdict.summary)
		self.assertIn('FAIL: survived bad write', verdict.log or '')

	def test_access_userspace_caught_without_pan_fails(self) -> None:
		verdict = lkdtm.judge(self.console('access_caught.log'), 'ACCESS_USERSPACE', None)
		self.assertFalse(verdict.ok)

	def test_exec_userspace_caught_either_way(self) -> None:
		for pan in (CPU, SW_TTBR0, None):
			verdict = lkdtm.judge(self.console('exec_caught.log'), 'EXEC_USERSPACE', pan)
			self.assertTrue(verdict.ok, verdict.summary)
			self.assertIn('execution of user memory', verdict.summary)

	def test_access_null_is_a_null_dereference_on_cpu_pan_and_without_pan(self) -> None:
		for pan in (CPU, None):
			verdict = lkdtm.judge(self.console('null_caught.log'), 'ACCESS_NULL', pan)
			self.assertTrue(verdict.ok, verdict.summary)
			self.assertEqual(verdict.summary, 'caught: "Unable to handle kernel NULL pointer '
					 'dereference at virtual address 0000000000000000"')
			# Not the PAN fault SW TTBR0 PAN takes it for.
			self.assertFalse(lkdtm.judge(self.console('null_pan_caught.log'), 'ACCESS_NULL',
						     pan).ok)

	def test_access_null_is_a_pan_fault_with_sw_ttbr0_pan(self) -> None:
		verdict = lkdtm.judge(self.console('null_pan_caught.log'), 'ACCESS_NULL', SW_TTBR0)
		self.assertTrue(verdict.ok, verdict.summary)
		self.assertEqual(verdict.summary, f'caught: "{lkdtm.PAN_CAUGHT} at virtual address '
				 '0000000000000000"')
		verdict = lkdtm.judge(self.console('null_caught.log'), 'ACCESS_NULL', SW_TTBR0)
		self.assertFalse(verdict.ok)
		self.assertEqual(verdict.summary, f'expected "{lkdtm.PAN_CAUGHT}", not found')
		# Where the CPU provides PAN, address 0 is no PAN fault: TTBR0 holds
		# the task's tables, where it is not mapped.
		verdict = lkdtm.judge(self.console('null_pan_caught.log'), 'ACCESS_NULL', CPU)
		self.assertFalse(verdict.ok)
		self.assertEqual(lkdtm.expected('ACCESS_NULL', CPU), lkdtm.NULL_CAUGHT)

	def test_access_null_at_another_address_fails(self) -> None:
		# __do_kernel_fault(esr, addr, regs): the ESR printed as the address.
		for pan in (CPU, None):
			verdict = lkdtm.judge(self.console('null_args_swapped.log'), 'ACCESS_NULL', pan)
			self.assertFalse(verdict.ok)
			self.assertEqual(verdict.summary, f'expected "{lkdtm.NULL_CAUGHT}", not found')
			self.assertIn('paging request at virtual address 0000000096000006',
				      verdict.log or '')

	def test_access_null_surviving_fails(self) -> None:
		for pan in (CPU, SW_TTBR0, None):
			verdict = lkdtm.judge(self.console('null_survived.log'), 'ACCESS_NULL', pan)
			self.assertFalse(verdict.ok)
			self.assertTrue(verdict.summary.startswith('survived; expected "Unable to handle'),
					verdict.summary)
		# The read survived, the write did not: the same line, yet not caught.
		for pan in (CPU, None):
			verdict = lkdtm.judge(self.console('null_read_survived.log'), 'ACCESS_NULL', pan)
			self.assertFalse(verdict.ok)
			self.assertEqual(verdict.summary,
					 f'survived the read; expected "{lkdtm.NULL_CAUGHT}"')

	def test_wrong_crash_type_or_nothing_provoked_fails(self) -> None:
		verdict = lkdtm.judge(self.console('exec_caught.log'), 'ACCESS_USERSPACE', CPU)
		self.assertEqual(verdict.summary, 'init never provoked ACCESS_USERSPACE')
		verdict = lkdtm.judge(self.console('no_debugfs.log'), 'EXEC_USERSPACE', CPU)
		self.assertFalse(verdict.ok)
		self.assertFalse(lkdtm.judge(None, 'EXEC_USERSPACE', CPU).ok)

	def test_report_lines_and_total(self) -> None:
		cfg = self.config('cortex-a57')
		verdicts = {('c', 'ACCESS_USERSPACE'): lkdtm.BootVerdict(True, 'survived', None),
			    ('c', 'EXEC_USERSPACE'): lkdtm.BootVerdict(False, 'timed out', 'x\ny'),
			    ('c', 'ACCESS_NULL'): lkdtm.BootVerdict(True, 'caught', None)}
		out = io.StringIO()
		with contextlib.redirect_stdout(out):
			self.assertFalse(lkdtm.print_report(plain_printer(), lkdtm.rows([cfg]), verdicts))
		lines = out.getvalue().splitlines()
		self.assertIn('--- c EXEC_USERSPACE: timed out; last 25 console lines:', lines)
		self.assertIn('    y', lines)
		self.assertIn('c (cortex-a57, no PAN):', lines)
		self.assertEqual(lines[-2:], ['    EXEC_USERSPACE     FAIL timed out',
					      '    ACCESS_NULL        ok   caught'])
		out = io.StringIO()
		with contextlib.redirect_stdout(out):
			lkdtm.print_report(plain_printer(), lkdtm.rows(
				[self.config('cortex-a57', 'CONFIG_ARM64_SW_TTBR0_PAN=y'),
				 self.config('max')]), verdicts)
		self.assertIn('c (cortex-a57, PAN by SW TTBR0):', out.getvalue().splitlines())
		self.assertIn('c (max, PAN by CPU):', out.getvalue().splitlines())


if __name__ == '__main__':
	unittest.main()
