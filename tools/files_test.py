#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the files pan-kunit writes (pan_kunit.host.files): whole or not
# at all, whatever ends the write.

import errno
import json
import os
import signal
import tempfile
import time
import unittest
from typing import IO, List
from unittest import mock

from pan_kunit import Error
from pan_kunit.host import files, proc, summary
from testlib import read, write, end_to_end, setUpModule, tearDownModule

class WriteTest(unittest.TestCase):

	def setUp(self) -> None:
		tmp = tempfile.TemporaryDirectory()
		self.addCleanup(tmp.cleanup)
		self.tmp = tmp.name
		self.path = os.path.join(self.tmp, 'report.json')

	def test_a_write_cut_short_leaves_the_file_as_it_was(self) -> None:
		write(self.path, '{"the": "last run"}\n')
		for cut, raised in ((KeyboardInterrupt(), KeyboardInterrupt),
				    (OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), Error)):
			def half(f: IO[bytes]) -> None:
				f.write(b'{"half": ')
				raise cut
			with self.assertRaises(raised) as e:
				files.write_with(self.path, half, '--json')
			self.assertEqual(read(self.path), '{"the": "last run"}\n')
			self.assertEqual(os.listdir(self.tmp), ['report.json'])
		self.assertEqual(str(e.exception), f'cannot write --json {self.path}: No space left on '
				 'device; the disk is full: free space on it, then run again')
		files.write_json(self.path, {'a': 1}, '--json')
		self.assertEqual(json.loads(read(self.path)), {'a': 1})

	def test_what_a_dead_pan_kunit_left_is_removed_and_a_live_ones_kept(self) -> None:
		dead = os.path.join(self.tmp, '.report.json.pan-kunit-999999999.tmp')
		live = os.path.join(self.tmp, f'.report.json.pan-kunit-{os.getppid()}.tmp')
		write(dead, '{"half": ')
		write(live, '{"half": ')
		files.write_text(self.path, 'x\n')
		self.assertEqual(sorted(os.listdir(self.tmp)), sorted([os.path.basename(live),
									 'report.json']))

	def test_a_summary_line_is_one_write(self) -> None:
		path = os.path.join(self.tmp, 'summary')
		real_write = os.write
		writes: List[bytes] = []
		def counted(fd: int, data: bytes) -> int:
			writes.append(data)
			return real_write(fd, data)
		with mock.patch.object(os, 'write', counted):
			summary.record(summary.Tally('run', 3, 1, 2), path)
		self.assertEqual(writes, [b'run: 3 passed, 1 failed, 2 skipped\n'])
		self.assertEqual(read(path), 'run: 3 passed, 1 failed, 2 skipped\n')

	def test_a_full_disk_names_the_summary(self) -> None:
		path = os.path.join(self.tmp, 'summary')
		full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
		with mock.patch.object(os, 'write', side_effect=full), self.assertRaises(Error) as e:
			summary.record(summary.Tally('run', 3, 1), path)
		self.assertEqual(str(e.exception), f'cannot write the tally (PAN_KUNIT_SUMMARY) {path}: '
				 'No space left on device; the disk is full: free space on it, then run '
				 'again')
		# Another error is not a full disk's.
		with mock.patch.object(os, 'write', side_effect=OSError(errno.EIO, 'I/O error')), \
		     self.assertRaises(OSError):
			summary.record(summary.Tally('run', 3, 1), path)

	@end_to_end
	def test_a_pan_kunit_killed_while_it_writes_leaves_no_half_file(self) -> None:
		written = os.path.join(self.tmp, 'written')
		def call() -> int:
			def half(f: IO[bytes]) -> None:
				f.write(b'{"half": ')
				f.flush()
				write(written, 'half\n')
				time.sleep(60)
			files.write_with(self.path, half, '--json')
			return 0
		fork = proc.Fork(call, os.path.join(self.tmp, 'log'))
		deadline = time.monotonic() + 20
		while not os.path.exists(written):
			self.assertLess(time.monotonic(), deadline)
			time.sleep(0.01)
		os.kill(fork.pid, signal.SIGKILL)
		fork.wait()
		self.assertFalse(os.path.exists(self.path))
		files.write_json(self.path, {'whole': True})
		self.assertEqual(sorted(os.listdir(self.tmp)), ['log', 'report.json', 'written'])


if __name__ == '__main__':
	unittest.main()
