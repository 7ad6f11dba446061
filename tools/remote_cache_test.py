#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of what a command reads of ccache and its remote storage
# (pan_kunit.matrix.remote_cache): the counters of its builds, the store
# without credentials, and the line and sum merge prints of them.

import os
import unittest
from typing import Any, List
from unittest import mock

from pan_kunit.host import proc
from pan_kunit.matrix import builds, initramfs, remote_cache
from testlib import FakeKunitTestCase, setUpModule, tearDownModule

# `ccache --print-stats` of 4.7, as much as the counters need.
STATS = ('cache_miss\t{miss}\nlocal_storage_hit\t{local}\nremote_storage_hit\t{remote}\n'
	 'remote_storage_error\t0\nremote_storage_timeout\t1\nstats_updated_timestamp\t1796554105\n')

def ccache(outputs: List[str]) -> Any:
	"""proc.run of ccache, answering each call with the next of @outputs."""
	answers = iter(outputs)
	return mock.patch.object(proc, 'run', side_effect=lambda cmd, **_: proc.Result(
		list(cmd), 0, next(answers), ''))

class RemoteCacheTest(unittest.TestCase):

	def test_what_a_commands_builds_took_from_each_cache(self) -> None:
		with mock.patch('shutil.which', return_value='/usr/bin/ccache'), \
		     ccache([STATS.format(miss=10, local=5, remote=0),
			     STATS.format(miss=12, local=9, remote=30),
			     'redis://user:secret@cache.example.org:6379|connect-timeout=50\n']):
			before = remote_cache.counters()
			used = remote_cache.used(before)
		self.assertEqual(used, {'local_hits': 4, 'remote_hits': 30, 'misses': 2,
					'remote_errors': 0, 'remote_timeouts': 0,
					'remote_storage': 'redis://cache.example.org:6379|connect-timeout=50'})
		self.assertEqual(remote_cache.line(used),
				 'ccache: 2 compiled, 4 local hits, 30 remote hits (83% of 36 from '
				 'redis://cache.example.org:6379|connect-timeout=50)')

	def test_without_ccache_nothing_is_known(self) -> None:
		with mock.patch('shutil.which', return_value=None):
			self.assertIsNone(remote_cache.counters())
			self.assertIsNone(remote_cache.used(None))
			self.assertEqual(remote_cache.remote_storage(), '')
		self.assertEqual(remote_cache.line(None), 'ccache: not known')

	def test_the_shards_summed(self) -> None:
		one = {'local_hits': 1, 'remote_hits': 2, 'misses': 3, 'remote_errors': 0,
		       'remote_timeouts': 1, 'remote_storage': 'redis://localhost'}
		two = dict(one, remote_storage='')
		self.assertEqual(remote_cache.total([one, two]), {
			'local_hits': 2, 'remote_hits': 4, 'misses': 6, 'remote_errors': 0,
			'remote_timeouts': 2, 'remote_storage': 'redis://localhost'})
		self.assertIsNone(remote_cache.total([one, None]))
		self.assertIn(', 2 remote errors or timeouts', remote_cache.line(remote_cache.total(
			[one, two])))

class RemoteStorageTest(FakeKunitTestCase):

	def test_the_builds_see_the_remote_storage_they_are_given(self) -> None:
		# ccache reads CCACHE_REMOTE_STORAGE from the environment of make,
		# which kunit.py's builds inherit: pan-kunit must keep it there.
		store = 'redis://localhost:6379|connect-timeout=100'
		env = {'CCACHE_REMOTE_STORAGE': store,
		       'FAKE_KUNIT_TRACE_ENV': 'CCACHE_REMOTE_STORAGE,CCACHE_BASEDIR'}
		cpio = os.path.join(self.tmp, 'initramfs.cpio')
		with mock.patch.dict(os.environ, env), \
		     mock.patch.object(initramfs, 'pack', return_value=cpio), \
		     mock.patch.object(builds, 'ccache', return_value='/usr/bin/ccache'):
			status, output = self.cli_main('--tree', self.tree, 'run', '--config', 'pass_pan')
		self.assertEqual(status, 0, output)
		self.assertEqual(self.traced('env'), [['env', f'CCACHE_REMOTE_STORAGE={store}'],
						      ['env', f'CCACHE_BASEDIR={os.path.realpath(self.tree)}']])

if __name__ == '__main__':
	unittest.main()
