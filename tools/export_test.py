#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of tools/pan-kunit export (pan_kunit.commands.export): its messages, end to
# end with the fake kunit_tool, and the kernels it exports for.

import contextlib
import io
import os
import shutil
import subprocess
import tempfile
import time
import unittest
from typing import List, Optional
from unittest import mock

from pan_kunit import Error
from pan_kunit.commands import (checkpatch, cli, export, export_check, export_kselftests,
				 series_bisect)
from pan_kunit.host import gitcmd, packages
from pan_kunit.results.config_result import Status
from pan_kunit.trees import sources, suites, tree
from testlib import (REPO, KERNEL, test_data_path, read, write, edit_file, from_scratch,
		     CheckTestCase, fake_steps, mailinfo, setUpModule, tearDownModule)

ZOE = 'Zoë Ångström'
ZOE_EMAIL = 'zoe@example.org'

# How git format-patch writes ZOE in a From: header (RFC 2047).
ZOE_FROM = 'From: =?UTF-8?q?Zo=C3=AB=20=C3=85ngstr=C3=B6m?= <zoe@example.org>'

def read_utf8(path: str) -> str:
	with open(path, encoding='utf-8') as f:
		return f.read()

def write_gitconfig(path: str, name: Optional[str], email: Optional[str]) -> None:
	"""A global git configuration with the user's identity, or without."""
	lines = ['[user]'] + ([f'\tname = {name}'] if name else []) + \
		([f'\temail = {email}'] if email else [])
	with open(path, 'w', encoding='utf-8') as f:
		f.write('\n'.join(lines) + '\n')

class ExportMessageTest(unittest.TestCase):

	def test_export_without_git_is_an_error(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			out = io.StringIO()
			with mock.patch.dict(os.environ, {'PATH': tmp}), \
			     contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
				status = cli.main(['--tree', os.path.join(tmp, 'linux'), 'export',
						   os.path.join(tmp, 'out'), '--kernel', '6.1'], repo=REPO)
		self.assertEqual(status, 2, out.getvalue())
		self.assertIn(gitcmd.NO_GIT, out.getvalue())

	def test_subject_prefixes(self) -> None:
		found = suites.grouped(sources.load(REPO, KERNEL))
		self.assertEqual({s.name: export.area(s) for s in found}, {
			'arm64_alternative': 'alternative', 'arm64_alternative_apply': 'alternative',
			'arm64_cpucap_hwcaps': 'cpucap', 'arm64_cpucap_passes': 'cpucap',
			'arm64_cpucap_table': 'cpucap',
			'arm64_cpufeature_field': 'cpufeature', 'arm64_cpufeature_match': 'cpufeature',
			'arm64_cpufeature_sanitise': 'cpufeature', 'arm64_cpufeature_ftr_bits': 'cpufeature',
			'arm64_cpufeature_override': 'cpufeature', 'arm64_pan_detect': 'mm',
			'arm64_pan_enable': 'mm', 'arm64_pan_hotplug': 'mm', 'arm64_pan_resume': 'mm',
			'arm64_pan_uaccess': 'mm',
			'arm64_pan_uaccess_fault': 'mm', 'arm64_pan_exec_only': 'mm',
			'arm64_pan_saved_ttbr0': 'mm', 'arm64_pan_fault': 'mm'})
		pan = [s for s in found if s.name == 'arm64_pan_detect'][0]
		# pan_helpers.h and pan_uaccess_helpers.h are no suite's own: each
		# goes with each suite that includes it, and the first patch that
		# adds one of them adds it.
		helpers = 'arch/arm64/mm/tests/pan_helpers.h'
		uaccess = 'arch/arm64/mm/tests/pan_uaccess_helpers.h'
		self.assertEqual([(s.name, s.shared) for s in found if s.shared], [
			('arm64_pan_detect', [helpers]), ('arm64_pan_enable', [helpers]),
			('arm64_pan_exec_only', [helpers, uaccess]), ('arm64_pan_fault', [helpers]),
			('arm64_pan_hotplug', [helpers]), ('arm64_pan_resume', [helpers, uaccess]),
			('arm64_pan_saved_ttbr0', [helpers, uaccess]),
			('arm64_pan_uaccess_fault', [helpers, uaccess]),
			('arm64_pan_uaccess', [helpers, uaccess])])
		self.assertEqual(export.suite_message(pan, ['ARM64_PAN_DETECT_KUNIT_TEST'], ['Why.'],
						      'Signed-off-by: Z <z@example.org>',
						      pan.shared),
				 'arm64: mm: Add the arm64_pan_detect KUnit suite\n\n'
				 'KUnit tests of the detection of Privileged Access Never (PAN): the\n'
				 'ARM64_HAS_PAN and ARM64_HAS_EPAN capabilities, and which of the CPU\'s\n'
				 'PAN and SW TTBR0 PAN the kernel uses, against the ID register.\n\n'
				 'The suite is arm64_pan_detect, in tests/pan_helpers.h and\n'
				 'tests/pan_detect_kunit.c; CONFIG_ARM64_PAN_DETECT_KUNIT_TEST builds it.\n'
				 '\nWhy.\n\n'
				 'Signed-off-by: Z <z@example.org>\n')
		alternative = [s for s in found if s.name == 'arm64_alternative'][0]
		self.assertTrue(export.suite_message(alternative, [], [], '').startswith(
			'arm64: alternative: Add the arm64_alternative KUnit suite\n'))
		self.assertIn('The suite is arm64_alternative, in tests/alternative_kunit.c,\n'
			      'tests/alternative_kunit.h and tests/alternative_kunit_asm.S.\n',
			      export.suite_message(alternative, [], [], ''))

	def test_mailinfo_unfolds_the_subject_and_splits_off_the_trailers(self) -> None:
		mail = export.mailinfo(os.path.join(
			REPO, 'patches', '6.1', '0002-arm64-cpufeature-add-KUnit-hooks-for-ID-field-and-ca.patch'))
		self.assertEqual(mail.subject, 'arm64: cpufeature: add KUnit hooks for ID field and '
				 'capability matching tests')
		self.assertEqual(mail.trailers, ['Signed-off-by: Seed dcc55037 maintainers '
						 '<maintainers@users.noreply.a-seed-dcc55037.example>'])
		self.assertTrue(mail.paragraphs[0].startswith('The ID register field extractors'))
		self.assertTrue(mail.paragraphs[-1].endswith('A kernel built\n'
							      'without them is unchanged.'),
				mail.paragraphs[-1])

	def test_identity_is_the_users_git_config(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			config = os.path.join(tmp, 'gitconfig')
			env = {'HOME': tmp, 'GIT_CONFIG_GLOBAL': config, 'GIT_CONFIG_NOSYSTEM': '1'}
			with mock.patch.dict(os.environ, env):
				write_gitconfig(config, ZOE, ZOE_EMAIL)
				self.assertEqual(export.identity(tmp), export.Identity(ZOE, ZOE_EMAIL))
				write_gitconfig(config, None, ZOE_EMAIL)
				with self.assertRaisesRegex(Error, r'git has no user.name; set it with:\n'
							    '  git config --global user.name "Your Name"\n'
							    '  git config --global user.email you@example.org'):
					export.identity(tmp)

class ExportTest(CheckTestCase):

	def setUp(self) -> None:
		super().setUp()
		self.gitconfig = os.path.join(self.tmp, 'gitconfig')
		write_gitconfig(self.gitconfig, ZOE, ZOE_EMAIL)
		patcher = mock.patch.dict(os.environ, {'HOME': os.path.join(self.tmp, 'home'),
						       'GIT_CONFIG_GLOBAL': self.gitconfig,
						       'GIT_CONFIG_NOSYSTEM': '1'})
		patcher.start()
		self.addCleanup(patcher.stop)
		self.out = os.path.join(self.tmp, 'out')

	def exported(self) -> List[str]:
		return sorted(os.listdir(self.out))

	def assert_from_zoe(self, name: str) -> None:
		path = os.path.join(self.out, name)
		self.assertIn('\n' + ZOE_FROM + '\n', read_utf8(path), name)
		self.assertEqual((mailinfo(path)['Author'], mailinfo(path)['Email']), (ZOE, ZOE_EMAIL))

	def signed_off(self, name: str) -> List[str]:
		return [line for line in read_utf8(os.path.join(self.out, name)).splitlines()
			if line.startswith('Signed-off-by:')]

	def test_a_patch_per_suite_with_its_hooks_from_your_identity(self) -> None:
		status, output = self.run_cli('export', self.out)
		self.assertEqual(status, 0, output)
		names = self.exported()
		self.assertEqual(names, [
			'0000-cover-letter.patch',
			'0001-arm64-cpufeature-let-KUnit-suites-call-has_cpuid_fea.patch',
			'0002-arm64-cpufeature-Add-the-arm64_cpufeature_fake-KUnit.patch',
			'0003-arm64-kernel-Add-a-.kunitconfig-for-the-arm64-KUnit-.patch'])
		for name in names:
			self.assert_from_zoe(name)
		for name in names[1:]:
			self.assertEqual(self.signed_off(name), [f'Signed-off-by: {ZOE} <{ZOE_EMAIL}>'], name)
		cover = read_utf8(os.path.join(self.out, names[0]))
		self.assertIn('Subject: [PATCH 0/3] Subject line here', cover)
		self.assertIn('Body of the fake cover letter, against v6.1.192.', cover)
		# The patch that hooks in no suite, as it is, with its message.
		refactor = read(os.path.join(self.out, names[1]))
		self.assertIn('\nThe suites check the matcher against the Arm ARM\'s rules, so it must '
			      'not\nbe static when CONFIG_KUNIT is enabled.\n', refactor)
		self.assertIn(' arch/arm64/kernel/cpufeature.c | 3 ++-\n 1 file changed', refactor)
		# The suite, with the lines that build it, and the hook's message.
		suite = read_utf8(os.path.join(self.out, names[2]))
		for line in ('+config ARM64_CPUFEATURE_FAKE_KUNIT_TEST\n',
			     '+obj-$(CONFIG_ARM64_CPUFEATURE_FAKE_KUNIT_TEST)\t+= cpufeature_fake_test.o\n',
			     ' create mode 100644 arch/arm64/kernel/cpufeature_fake.h\n',
			     ' create mode 100644 arch/arm64/kernel/cpufeature_fake_test.c\n',
			     ' create mode 100644 arch/arm64/kernel/cpufeature_fake_test.h\n',
			     'fake tree as arch/arm64/kernel/cpufeature_fake_test.c.\n\n'
			     'The suite is arm64_cpufeature_fake, in cpufeature_fake_test.c and\n'
			     'cpufeature_fake_test.h; CONFIG_ARM64_CPUFEATURE_FAKE_KUNIT_TEST builds\nit.\n'
			     '\nHook cpufeature_fake_test.c into the build behind its own Kconfig'):
			self.assertIn(line, suite)
		self.assertIn('+CONFIG_ARM64_CPUFEATURE_FAKE_KUNIT_TEST=y',
			      read(os.path.join(self.out, names[3])))
		self.assertEqual(output.count('checkpatch --strict: clean'), 3)
		# Every prefix, from the bare base, was built and booted.
		self.assertIn('step 3/3 0003-arm64-kernel-Add-a-.kunitconfig-for-the-arm64-KUnit-.patch: '
			      'ok', output)
		self.assertIn('step 2/3 0002-arm64-cpufeature-Add-the-arm64_cpufeature_fake-KUnit.patch: '
			      'ok', output)
		self.assertIn('step 0/3 start: ok', output)

	def test_the_bare_base_runs_no_case_the_whole_series_must(self) -> None:
		no, ok = Status.NO_TESTS, Status.PASS
		# The base has none of the suites: its step passes nothing and
		# is no reason to stop, as it would be for bisect.
		with fake_steps(no, ok, ok, ok):
			status, output = self.run_cli('export', self.out)
		self.assertEqual(status, 0, output)
		self.assertIn('step 0/3 start: ok (no_tests)', output)
		self.assertIn('step 3/3 0003-', output)
		# A series whose suites run nothing is refused after its last step.
		with fake_steps(no, no, no, no):
			status, output = self.run_cli('export', os.path.join(self.tmp, 'out2'))
		self.assertEqual(status, 2, output)
		self.assertIn('no case passed after the whole series (step 3, ok (no_tests))', output)

	def test_recipients_base_stable_and_results(self) -> None:
		fix = os.path.join(self.repo, 'patches', '6.1',
				   '0001-arm64-cpufeature-let-KUnit-suites-call-has_cpuid_fea.patch')
		write(fix, read(fix).replace('Signed-off-by: Ada',
					     'Fixes: 0123456789ab ("arm64: the fake bug")\nSigned-off-by: Ada'))
		status, output = self.run_cli('export', self.out)
		self.assertEqual(status, 0, output)
		names = self.exported()
		for name in names:
			text = read_utf8(os.path.join(self.out, name))
			# To: the maintainers get_maintainer.pl names, Cc: the rest,
			# then KUnit's people and lists, for a series of KUnit suites.
			self.assertIn('\nTo: Ann Maintainer <ann@example.org>\n', text, name)
			self.assertIn('\nCc: Rob Reviewer <rob@example.org>,\n'
				      '    arm-list@example.org,\n'
				      '    Kay Kunit <kay@example.org>,\n'
				      '    Roy Reviewer <roy@example.org>,\n'
				      '    test-list@example.org,\n'
				      '    kunit-list@example.org\n', text, name)
		cover = read_utf8(os.path.join(self.out, names[0]))
		self.assertRegex(cover, r'\nbase-commit: [0-9a-f]{40}\n')
		self.assertIn('against v6.1.', cover)
		self.assertNotIn('@RESULTS@', cover)
		self.assertRegex(cover, r'Results of the whole series under QEMU[ 0-9.]* \(TCG\), '
				 r'leaf cases\npassed/failed/skipped:\n\n  pass_pan  +\S* +\d+/0/\d+\n')
		# The fix, and only the fix, goes to the stable list of MAINTAINERS.
		self.assertIn('\nFixes: 0123456789ab ("arm64: the fake bug")\nCc: stable@example.org\n'
			      f'Signed-off-by: {ZOE} <{ZOE_EMAIL}>\n',
			      read_utf8(os.path.join(self.out, names[1])))
		for name in names[2:]:
			self.assertNotIn('stable@example.org', read_utf8(os.path.join(self.out, name)))
		# The fixture's tree, like Debian's, has no history to look the fix's commit up in.
		self.assertIn(f'    {names[1]}: checkpatch --strict: clean\n        commit 0123456789ab '
			      'not looked up: the tree has no history before its base; look up its '
			      'id and subject in upstream\'s\n', output)

	def test_no_build_says_where_the_results_come_from(self) -> None:
		status, output = self.run_cli('export', self.out, '--no-build')
		self.assertEqual(status, 0, output)
		cover = read_utf8(os.path.join(self.out, self.exported()[0]))
		self.assertIn('Not built here (export --no-build)', cover)

	def test_only_the_newest_kernel_is_exported(self) -> None:
		# Upstream takes the suites as written for the newest kernel; an
		# older one's compat/ patches are no part of the series.
		write(os.path.join(self.repo, 'patches', '7.3', 'series'), '')
		status, output = self.run_cli('export', self.out, '--kernel', '6.1', '--no-build')
		self.assertEqual(status, 2, output)
		self.assertIn('export writes the series for the newest kernel, 7.3, as upstream '
			      'would take it; 6.1', output)
		self.assertFalse(os.path.exists(self.out))

	def test_a_patch_that_hooks_in_two_suites_is_cut_in_two(self) -> None:
		shutil.copytree(test_data_path('export_two_suites'), self.repo, dirs_exist_ok=True)
		status, output = self.run_cli('export', self.out, '--no-build')
		self.assertEqual(status, 0, output)
		names = self.exported()
		self.assertEqual(names[2:], [
			'0002-arm64-cpufeature-Add-the-arm64_cpufeature_fake-KUnit.patch',
			'0003-arm64-cpucap-Add-the-arm64_cpucap_fake-KUnit-suite.patch',
			'0004-arm64-kernel-Add-a-.kunitconfig-for-the-arm64-KUnit-.patch'])
		fake, cpucap = (read(os.path.join(self.out, n)) for n in names[2:4])
		self.assertNotIn('CPUCAP', fake)
		self.assertIn('\n\nARM64_CPUFEATURE_FAKE_KUNIT_TEST builds cpufeature_fake_test.c, which\n'
			      'calls has_cpuid_feature() through cpufeature_fake.h.\n\nSigned-off-by', fake)
		self.assertIn(' create mode 100644 arch/arm64/kernel/cpufeature_fake.h\n', fake)
		for line in ('+config ARM64_CPUCAP_FAKE_KUNIT_TEST\n',
			     '+#include "cpucap_fake_test.c"\n',
			     ' create mode 100644 arch/arm64/kernel/cpucap_fake_test.c\n',
			     '\n\nARM64_CPUCAP_FAKE_KUNIT_TEST includes cpucap_fake_test.c at the end of\n'
			     'cpufeature.c, so that it can call the static cpu_enable_pan().\n\nSigned'):
			self.assertIn(line, cpucap)
		self.assertNotIn('cpufeature_fake_test', cpucap.split('\n---\n', 1)[1])
		# The first cut: the Kconfig entry of its suite alone, and the
		# base's cpufeature.c; the last ends at the prepared tree.
		wt = self.worktree()
		kconfig = subprocess.run(['git', '-C', wt, 'show', 'HEAD~2:arch/arm64/Kconfig'], check=True,
					 stdout=subprocess.PIPE, text=True).stdout
		self.assertTrue(kconfig.endswith('memory directly.\n\nconfig ARM64_CPUFEATURE_FAKE_KUNIT_TEST\n'
						 '\tbool "KUnit tests for the arm64 cpufeature matcher" if '
						 '!KUNIT_ALL_TESTS\n\tdepends on KUNIT=y\n'
						 '\tdefault KUNIT_ALL_TESTS\n'), kconfig)
		self.assertEqual(subprocess.run(['git', '-C', wt, 'diff', 'HEAD~2', 'HEAD~3', '--',
						 'arch/arm64/kernel/cpufeature.c'], check=True,
						stdout=subprocess.PIPE, text=True).stdout, '')
		self.assertEqual(subprocess.run(['git', '-C', wt, 'diff', 'HEAD', tree.PREPARED_REF],
						check=True, stdout=subprocess.PIPE, text=True).stdout, '')
		self.assertEqual(output.count('checkpatch --strict: clean'), 4)

	def test_a_patch_of_hooks_and_suites_is_refused(self) -> None:
		# The two suites' patch, with a line of cpufeature.c's own code
		# beside the #include: hooks go in a patch of their own.
		shutil.copytree(test_data_path('export_two_suites'), self.repo, dirs_exist_ok=True)
		patch = os.path.join(self.repo, 'patches', '6.1',
				     '0002-arm64-kernel-build-the-two-fake-KUnit-suites.patch')
		edit_file(patch, '@@ -27,3 +27,7 @@ static void cpu_enable_pan',
			  '@@ -27,3 +27,8 @@ static void cpu_enable_pan')
		edit_file(patch, ' #endif /* CONFIG_ARM64_PAN */\n+\n',
			  ' #endif /* CONFIG_ARM64_PAN */\n+\n+static int cpucap_fake_hook;\n')
		status, output = self.run_cli('export', self.out, '--no-build')
		self.assertEqual(status, 2, output)
		self.assertIn('pan-kunit export: error: 0002-arm64-kernel-build-the-two-fake-KUnit-'
			      'suites.patch both hooks into the code under test and adds the build of '
			      'arm64_cpufeature_fake and arm64_cpucap_fake; upstream takes hooks in a '
			      'patch of their own, before the patch that adds the tests that use them: '
			      'split it there. Its hooks:\n'
			      '    arch/arm64/kernel/cpufeature.c: static int cpucap_fake_hook;\n', output)
		self.assertNotIn('Traceback', output)
		self.assertEqual(os.listdir(self.out) if os.path.isdir(self.out) else [], [])

	def test_kselftests_in_a_patch_of_their_own_with_their_subtarget(self) -> None:
		shutil.copytree(test_data_path('export_kselftests'), self.repo, dirs_exist_ok=True)
		status, output = self.run_cli('export', self.out, '--no-build')
		self.assertEqual(status, 0, output)
		names = self.exported()
		self.assertEqual(names[2:], [
			'0002-arm64-cpufeature-Add-the-arm64_cpufeature_fake-KUnit.patch',
			'0003-kselftest-arm64-Add-the-pan-tests.patch',
			'0004-arm64-kernel-Add-a-.kunitconfig-for-the-arm64-KUnit-.patch'])
		patch = read(os.path.join(self.out, names[3]))
		for line in ('Subject: [PATCH 3/4] kselftest/arm64: Add the pan tests\n',
			     '\nA fake of kunit/\'s pan kselftests (export_test.py fixture): what user\n'
			     'space sees of the fake capability.\n\nThe tests are in '
			     'tools/testing/selftests/arm64/pan/; "make -C\n',
			     '-ARM64_SUBTARGETS ?= tags signal pauth fp mte bti abi\n'
			     '+ARM64_SUBTARGETS ?= tags signal pauth fp mte bti abi pan\n',
			     ' create mode 100644 tools/testing/selftests/arm64/pan/Makefile\n',
			     ' create mode 100644 tools/testing/selftests/arm64/pan/fake.c\n'):
			self.assertIn(line, patch)
		self.assertNotIn('selftests', read(os.path.join(self.out, names[2])))
		# The series ends at the prepared tree but for ARM64_SUBTARGETS,
		# which pan-kunit's kselftest build names on make's command line.
		wt = self.worktree()
		self.assertEqual(subprocess.run(['git', '-C', wt, 'diff', '--name-only', 'HEAD',
						 tree.PREPARED_REF], check=True, stdout=subprocess.PIPE,
						text=True).stdout, export_kselftests.MAKEFILE + '\n')
		self.assertEqual(output.count('checkpatch --strict: clean'), 4)

	@from_scratch
	def test_no_git_identity_is_refused_before_setup(self) -> None:
		write_gitconfig(self.gitconfig, None, None)
		start = time.monotonic()
		status, output = self.run_cli('export', self.out)
		self.assertLess(time.monotonic() - start, 5)
		self.assertEqual(status, 2, output)
		self.assertIn('pan-kunit export: error: export writes the series as yours, from your git '
			      'identity, and git has no user.name and no user.email; set it with:\n'
			      '  git config --global user.name "Your Name"\n'
			      '  git config --global user.email you@example.org\n', output)
		self.assertFalse(os.path.exists(self.tree))

	def test_a_suite_no_patch_hooks_in_is_refused(self) -> None:
		write(os.path.join(self.repo, 'kunit', 'arch/arm64/kernel/orphan_test.c'),
		      '/* An orphan. */\nstatic struct kunit_suite s = { .name = "arm64_orphan" };\n')
		status, output = self.run_cli('export', self.out, '--no-build')
		self.assertEqual(status, 2, output)
		self.assertIn('hooks in arm64_orphan (no added line names orphan_test.c); export adds '
			      'each suite with the patch that builds it', output)

	def test_checkpatch_problem_and_non_empty_dir(self) -> None:
		suite = os.path.join(self.repo, 'kunit/arch/arm64/kernel/cpufeature_fake_test.h')
		write(suite, read(suite) + '/* FAKE-CHECKPATCH-ERROR */\n')
		status, output = self.run_cli('export', self.out, '--no-build')
		self.assertEqual(status, 1, output)
		self.assertIn('checkpatch --strict: FAILED', output)
		self.assertIn('ERROR:FAKE: the fixture\'s error', output)
		self.assertIn('export: 1 patches are not checkpatch clean', output)
		self.assertNotIn('step 0/', output)
		# Without builds, export needs no cross compiler and no QEMU; it
		# needs what checkpatch's SPDX check imports, as it runs with the tree.
		self.assertEqual(self.require.call_args.args[0], packages.SETUP_TOOLS)
		self.assertEqual(list(self.ensure.call_args.args[2]),
				 ['perl', 'python3-ply', 'python3-git'])
		self.assertNotIn('FAKE_NO_TREE', output)
		self.assertNotIn('FAKE_NOT_TOP', output)
		self.assertNotIn('FAKE_PYTHON', output)
		status, output = self.run_cli('export', self.out, '--no-build')
		self.assertEqual(status, 2, output)
		self.assertIn(f'{self.out} exists and is not an empty directory', output)

	def test_a_stopped_export_leaves_dir_as_it_was_for_the_next(self) -> None:
		os.mkdir(self.out)
		dead = subprocess.Popen(['true'])
		dead.wait()
		left = export.partial_dir(self.out, dead.pid)  # of one that was SIGKILLed
		write(os.path.join(left, '0000-cover-letter.patch'), 'half')
		with mock.patch.object(series_bisect, 'run', side_effect=KeyboardInterrupt):
			status, output = self.run_cli('export', self.out)
		self.assertEqual(status, 130, output)
		self.assertIn(f'removing {left}, left by an export that was stopped\n', output)
		self.assertEqual(sorted(os.listdir(self.tmp)), sorted(set(os.listdir(self.tmp)) - {
			os.path.basename(export.partial_dir(self.out, os.getpid()))}))
		self.assertEqual(self.exported(), [])
		status, output = self.run_cli('export', self.out)
		self.assertEqual(status, 0, output)
		self.assertEqual(len(self.exported()), 4)
		self.assertEqual([n for n in os.listdir(self.tmp) if '.pan-kunit-' in n], [])

class ExportKselftestsTest(unittest.TestCase):

	def test_subtargets_gain_the_directories_they_lack(self) -> None:
		makefile = ('ifneq (,$(filter $(ARCH),aarch64 arm64))\n'
			    'ARM64_SUBTARGETS ?= tags signal pauth fp mte bti abi gcs  \n'
			    'else\nARM64_SUBTARGETS :=\nendif\n')
		added = export_kselftests.with_subtargets(makefile, ['pan'])
		self.assertEqual(added, makefile.replace('abi gcs  \n', 'abi gcs pan  \n'))
		self.assertEqual(export_kselftests.with_subtargets(added, ['pan', 'tags']), added)
		with self.assertRaisesRegex(Error, r'tools/testing/selftests/arm64/Makefile has no '
					    r'"ARM64_SUBTARGETS \?=" line'):
			export_kselftests.with_subtargets('ARM64_SUBTARGETS := tags\n', ['pan'])

	def test_the_directories_and_the_message(self) -> None:
		self.assertEqual(export_kselftests.directories([
			'tools/testing/selftests/arm64/pan/Makefile', 'tools/testing/selftests/arm64/pan/a.c',
			'tools/testing/selftests/arm64/Makefile', 'kernel/x.c']), ['pan'])
		self.assertEqual(export_kselftests.message(['pan'], ['What user space sees.'], 'S-o-b: z'),
				 'kselftest/arm64: Add the pan tests\n\nWhat user space sees.\n\n'
				 'The tests are in tools/testing/selftests/arm64/pan/; "make -C\n'
				 'tools/testing/selftests TARGETS=arm64" builds and runs them with the\n'
				 'other arm64 kselftests, which ARM64_SUBTARGETS lists.\n\nS-o-b: z\n')

	def test_a_patch_of_kselftests_alone_is_checked_as_user_space(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			patch = os.path.join(tmp, 'p.patch')
			diff = ('diff --git a/tools/testing/selftests/arm64/Makefile '
				'b/tools/testing/selftests/arm64/Makefile\n'
				'diff --git a/tools/testing/selftests/arm64/pan/a.c '
				'b/tools/testing/selftests/arm64/pan/a.c\n')
			write(patch, 'Subject: x\n\n' + diff)
			self.assertEqual(checkpatch.ignored(patch),
					 checkpatch.CHECKPATCH_IGNORE + ',' + checkpatch.KSELFTEST_IGNORE)
			write(patch, 'Subject: x\n\n' + diff + 'diff --git a/arch/arm64/mm/fault.c '
			      'b/arch/arm64/mm/fault.c\n')
			self.assertEqual(checkpatch.ignored(patch), checkpatch.CHECKPATCH_IGNORE)

class CheckpatchTest(unittest.TestCase):

	def test_the_commits_a_message_names_and_a_tree_without_history(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			patch = os.path.join(tmp, 'p.patch')
			write(patch, 'Subject: x\n\nAs commit 0123456789ab ("a: b") did.\n\n'
			      'Fixes: 7209c868600b ("arm64: mm: Set PSTATE.PAN")\nSigned-off-by: a\n'
			      '---\n+Fixes: fedcba987654 ("not the message")\n')
			self.assertEqual(checkpatch.commit_refs(patch), ['0123456789ab', '7209c868600b'])
			# Without history every id is unknown: the lookup is left out there only.
			self.assertEqual(checkpatch.ignored(patch, history=False),
					 checkpatch.CHECKPATCH_IGNORE + ',' + checkpatch.NO_HISTORY_IGNORE)
			self.assertNotIn(checkpatch.NO_HISTORY_IGNORE, checkpatch.ignored(patch))

class ExportCheckTest(unittest.TestCase):
	"""The parts of export --check that need no tree (export_check.py)."""

	def test_diagnostics_of_gcc_sparse_and_kernel_doc_relative_to_the_tree(self) -> None:
		tree_dir, out = '/t/plain', '/t/plain-out/w1'
		text = '\n'.join([
			# gcc under O=: relative to the build directory
			'../../plain/arch/arm64/kernel/cpufeature.c:120:5: warning: no previous '
			'prototype for \'f\' [-Wmissing-prototypes]',
			# sparse, with the tree's absolute path
			'/t/plain/arch/arm64/mm/fault.c:99:23: warning: incorrect type in assignment',
			# kernel-doc of a W=1 build
			'Warning: ../../plain/arch/arm64/kernel/tests/x_kunit.c:12 function parameter '
			'\'test\' not described in \'f\'',
			'../../plain/arch/arm64/kernel/cpufeature.c:121:5: note: declared here',
			'  CC      arch/arm64/kernel/cpufeature.o',
		])
		self.assertEqual(export_check.diagnostics(text, tree_dir, out), {
			('arch/arm64/kernel/cpufeature.c',
			 "no previous prototype for 'f' [-Wmissing-prototypes]"),
			('arch/arm64/mm/fault.c', 'incorrect type in assignment'),
			('arch/arm64/kernel/tests/x_kunit.c',
			 "function parameter 'test' not described in 'f'")})

	def test_a_warning_that_moved_is_the_base_s(self) -> None:
		base = export_check.diagnostics('/t/a.c:10:1: warning: w', '/t', '/o')
		moved = export_check.diagnostics('/t/a.c:42:1: warning: w\n/t/a.c:43:1: warning: new',
						 '/t', '/o')
		self.assertEqual(moved - base, {('a.c', 'new')})

	def test_dirs_and_objects_of_the_series(self) -> None:
		paths = ['arch/arm64/Kconfig.debug', 'arch/arm64/kernel/cpufeature.c',
			 'arch/arm64/kernel/entry.S', 'arch/arm64/kernel/tests/Makefile',
			 'arch/arm64/kernel/tests/field_kunit.c', 'arch/arm64/mm/fault.c',
			 'arch/arm64/mm/tests/pan.h',
			 # user space, which kbuild does not build
			 'tools/testing/selftests/arm64/pan/pan_el0.c']
		self.assertEqual(export_check._dirs(paths), [
			'arch/arm64/kernel/', 'arch/arm64/kernel/tests/', 'arch/arm64/mm/'])
		with tempfile.TemporaryDirectory() as top:
			for path in paths:
				os.makedirs(os.path.dirname(os.path.join(top, path)), exist_ok=True)
				open(os.path.join(top, path), 'w').close()
			# make is given the directories the checkout has, with a Makefile.
			self.assertEqual(export_check._present(top, export_check._dirs(paths)), [
				'arch/arm64/kernel/tests/'])
			# Tests are not compared: they are not built without KUnit.
			self.assertEqual(export_check._objects(top, paths), [
				'arch/arm64/kernel/cpufeature.o', 'arch/arm64/kernel/entry.o',
				'arch/arm64/mm/fault.o'])

	def test_the_functions_whose_code_changed(self) -> None:
		base = ['0000000000000000 <a>:', '   0:\td503201f \tnop', '',
			'0000000000000004 <b>:', '   4:\t14000001 \tb\t8 <b+0x4>',
			'0000000000000008 <c>:', '   8:\td65f03c0 \tret']
		# a grows by an instruction: b and c move, but only a changed;
		# c's return becomes a branch; d is new.
		series = ['0000000000000000 <a>:', '   0:\td503201f \tnop', '   4:\td503201f \tnop',
			  '0000000000000008 <b>:', '   8:\t14000001 \tb\tc <b+0x4>',
			  '000000000000000c <c>:', '   c:\t14000000 \tb\tc <c>',
			  '0000000000000010 <d>:', '  10:\td65f03c0 \tret']
		self.assertEqual(export_check.functions(base)['b'], ['14000001 \tb\t<b+0x4>'])
		self.assertEqual(export_check.changed_functions(base, series), ['a', 'c', 'd'])
		self.assertEqual(export_check.changed_functions(base, base), [])

	def test_objects_are_built_again_after_the_patches_that_may_change_them(self) -> None:
		touched = [['arch/arm64/kernel/entry.S'],                      # a source
			   ['arch/arm64/Kconfig.debug', 'arch/arm64/kernel/tests/x_kunit.c'],
			   ['arch/arm64/include/asm/cpufeature.h'],            # a header
			   ['arch/arm64/mm/tests/pan.h',                       # a test's header
			    'tools/testing/selftests/arm64/pan/pan_util.h'],   # user space's
			   ['arch/arm64/kernel/.kunitconfig']]
		sources = ['arch/arm64/kernel/entry.S', 'arch/arm64/mm/fault.c']
		# The last, whatever it touches, gives the series' objects.
		self.assertEqual(export_check.object_steps(touched, sources), [0, 2, 4])
		self.assertEqual(export_check.object_steps(touched[:3], sources), [0, 2])
		self.assertEqual(export_check.object_steps([], sources), [])

	def test_an_object_is_changed_by_the_steps_after_which_it_differs(self) -> None:
		built = [('base', {'a.o': ['x'], 'b.o': ['y']}),
			 ('0001', {'a.o': ['x'], 'b.o': ['y']}),
			 ('0002', {'a.o': ['x2'], 'b.o': ['y']}),
			 ('0003', {'a.o': ['x2'], 'b.o': ['y']}),
			 ('0004', {'a.o': ['x'], 'b.o': ['y'], 'c.o': ['z']})]
		self.assertEqual(export_check.changed_by(built, 'a.o'), ['0002', '0004'])
		self.assertEqual(export_check.changed_by(built, 'b.o'), [])
		self.assertEqual(export_check.changed_by(built, 'c.o'), ['0004'])

	def test_sparse_that_the_kernel_turned_off_is_named(self) -> None:
		log = ('$ make W=1 C=1 CHECK=sparse arch/arm64/kernel/\n'
		       '/t/plain/Makefile:1311: C=1 specified, but no-such-sparse is not available '
		       'or not up to date\n  CC      arch/arm64/kernel/sys.o\n')
		self.assertEqual(export_check.sparse_off(log),
				 'the kernel\'s Makefile turned C=1 off: scripts/checker-valid.sh found '
				 'no-such-sparse missing or too old for this kernel')
		self.assertEqual(export_check.sparse_off('  CHECK   arch/arm64/kernel/sys.c\n'), '')

	def test_verdicts(self) -> None:
		self.assertEqual(export_check.PatchCheck('p', applies=False).verdict(), 'does not apply')
		clean = export_check.PatchCheck('p', applies=True)
		self.assertTrue(clean.ok())
		self.assertEqual(clean.verdict(), 'clean')
		found = export_check.PatchCheck('p', applies=True, warnings=['a', 'b'], kerneldoc=['c'])
		self.assertFalse(found.ok())
		self.assertEqual(found.verdict(), '2 new W=1/sparse warnings, 1 kernel-doc warnings')
		series = export_check.SeriesCheck([clean], kunit_run=True)
		self.assertTrue(series.ok())
		series.stray = ['?? .pan-kunit/']
		self.assertFalse(series.ok())
		self.assertFalse(export_check.SeriesCheck([clean], kunit_run=False).ok())

if __name__ == '__main__':
	unittest.main()
