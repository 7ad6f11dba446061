#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The fault-injection layer (faultlib.py): a disk that fills, at each stage
# of a run that writes (the extraction of a new tree, a build, a boot's
# logs, the result files).  Each time the command exits 2, naming the path
# and what was being written, with no traceback; nothing it wrote is left
# as if complete; and the next run, with space, passes without a clean-up.
# The full disk is simulated where the stage writes: a tar or kunit.py
# (make, QEMU) that says so, or an OSError(ENOSPC) from an open() or a
# write of pan-kunit's own.

import errno
import os
import unittest
from typing import Any, Dict
from unittest import mock

from faultlib import FaultTestCase
from pan_kunit.host.files import DISK_FULL_HINT
from testlib import from_scratch, write, setUpModule, tearDownModule

ENOSPC = os.strerror(errno.ENOSPC)

def full_open(full: str) -> Any:
	"""An open() for the module whose open() it replaces: a file whose
	path starts with @full is on a full disk: opened for writing, it
	raises ENOSPC (as the kernel does when there is no block left for a
	new file's directory entry)."""
	def opened(path: Any, mode: str='r', *args: Any, **kwargs: Any) -> Any:
		if str(path).startswith(full) and ('w' in mode or 'a' in mode):
			raise OSError(errno.ENOSPC, ENOSPC, str(path))
		return open(path, mode, *args, **kwargs)
	return opened

class DiskFullTest(FaultTestCase):

	def full(self, patch: Any=None, env: Dict[str, str]={}) -> str:
		"""Runs the command on a full disk (@patch, @env): its output, once
		it is checked; then checks that the next run, with space, passes."""
		with mock.patch.dict(os.environ, env):
			if patch is not None:
				with patch:
					status, output = self.cli_main(*self.argv())
			else:
				status, output = self.cli_main(*self.argv())
		self.assertEqual(status, 2, output)
		self.assertNotIn('Traceback', output.replace('Traceback (most recent call last):\n'
							    '  File "kunit.py"', ''))
		self.assertIn(DISK_FULL_HINT, output)
		self.assert_whole_or_absent()
		status, again = self.cli_main(*self.argv())
		self.assertEqual(status, 0, output + '\n---- the next run:\n' + again)
		self.check_next(again)
		self.assertEqual([n for n in os.listdir(os.path.dirname(self.json))
				  if n.endswith('.tmp')], [])
		return output

	@from_scratch
	def test_full_while_it_extracts_the_tree(self) -> None:
		# tar, on a full disk, as GNU tar says it.
		bin_dir = os.path.join(self.tmp, 'bin')
		write(os.path.join(bin_dir, 'tar'), '#!/bin/sh\n'
		      'echo "tar: linux-source-6.1/Makefile: Cannot write: No space left on device" >&2\n'
		      'echo "tar: Exiting with failure status due to previous errors" >&2\n'
		      'exit 2\n')
		os.chmod(os.path.join(bin_dir, 'tar'), 0o755)
		output = self.full(env={'PATH': bin_dir + os.pathsep + os.environ['PATH']})
		self.assertIn(f'cannot extract {self.tarball} into {self.tree}: tar: '
			      f'linux-source-6.1/Makefile: Cannot write: {ENOSPC}\n{DISK_FULL_HINT}',
			      output)
		self.assertEqual([n for n in os.listdir(os.path.dirname(self.tree))
				  if '.partial-' in n], [])

	def test_full_while_it_builds(self) -> None:
		output = self.full(env={'FAKE_KUNIT_FULL': 'build'})
		self.assertRegex(output, r'pan-kunit run: error: build 6\.1 pass_pan failed: \S+/\.pan-kunit/'
				 r'build/\S+/arch/arm64/kernel/cpufeature\.o: Fatal error: can\'t write '
				 f'4096 bytes to section .text: \'{ENOSPC}\'\n{DISK_FULL_HINT} '
				 r'\(the log: \S+\.log\)\n')

	def test_full_while_it_boots(self) -> None:
		output = self.full(env={'FAKE_KUNIT_FULL': 'exec'})
		self.assertRegex(output, r'pan-kunit run: error: pass_pan failed: OSError: \[Errno 28\] '
				 f'{ENOSPC}: \'\\S+/test\\.log\'\n{DISK_FULL_HINT} ' r'\(the log: \S+\)\n')

	def exec_log(self) -> str:
		return os.path.join(self.tree, '.pan-kunit', 'logs', 'exec-pass_pan.log')

	def test_full_when_it_opens_a_boots_log(self) -> None:
		output = self.full(mock.patch('pan_kunit.matrix.jobs.open', create=True,
					      side_effect=full_open(self.exec_log())))
		self.assertIn(f'pan-kunit run: error: cannot write the log of pass_pan {self.exec_log()}: '
			      f'{ENOSPC}; {DISK_FULL_HINT}\n', output)

	def test_full_while_it_writes_a_boots_record(self) -> None:
		record = os.path.join(self.tree, '.pan-kunit', 'exec', 'pass_pan', 'results.json')
		output = self.full(mock.patch('pan_kunit.host.files.open', create=True,
					      side_effect=full_open(os.path.join(
						      os.path.dirname(record), '.results.json.'))))
		self.assertIn(f'pan-kunit run: error: cannot write the record of boot pass_pan {record}: '
			      f'{ENOSPC}; {DISK_FULL_HINT}\n', output)

	def test_full_while_it_writes_the_result_files(self) -> None:
		for option, name in (('--json', '.results.json'), ('--junit', '.results.xml')):
			with self.subTest(file=option):
				path = self.json if option == '--json' else self.junit
				output = self.full(mock.patch('pan_kunit.host.files.open', create=True,
							      side_effect=full_open(os.path.join(
								      os.path.dirname(path), name))))
				self.assertIn(f'pan-kunit run: error: cannot write {option} {path}: {ENOSPC}; '
					      f'{DISK_FULL_HINT}\n', output)


if __name__ == '__main__':
	unittest.main()
