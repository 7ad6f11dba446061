#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the fixture test_data/fake_kunit/kunit.py itself: the end-to-end
# tests start it a few hundred times, so it parses its arguments without
# argparse when it can (fast_parse()) and quotes its trace without shlex;
# both must agree with what they stand in for.

import contextlib
import importlib.util
import io
import shlex
import sys
import unittest
from typing import Any, List

from testlib import test_data_path, setUpModule, tearDownModule

def _load() -> Any:
	"""The fake kunit.py as a module, with no __pycache__ written into
	test_data (which the fake source tarball is packed from)."""
	spec = importlib.util.spec_from_file_location('fake_kunit',
						      test_data_path('fake_kunit', 'kunit.py'))
	assert spec is not None and spec.loader is not None
	module = importlib.util.module_from_spec(spec)
	dont_write_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True
	try:
		spec.loader.exec_module(module)
	finally:
		sys.dont_write_bytecode = dont_write_bytecode
	return module

FAKE = _load()
COMMON = ['--build_dir', '/b', '--kunitconfig', '/t/.kunitconfig', '--arch', 'arm64',
	  '--cross_compile', 'aarch64-linux-gnu-', '--qemu_config', '/r/qemu_configs/pass_pan.py']
# As pan-kunit passes them (kunit_py.kunit_cmd(), kunit_py.parse()).
PLAIN: List[List[str]] = [
	['build'] + COMMON + ['--kunitconfig', '/r/kconfig/lean.config', '--jobs', '2',
			      '--make_options', 'KBUILD_IMAGE=arch/arm64/boot/Image'],
	['build'] + COMMON + ['--kconfig_add', 'CONFIG_GCOV_KERNEL=y', '--make_options=W=1'],
	['exec'] + COMMON + ['--timeout', '300', '--json=/e/kunit.json'],
	['exec'] + COMMON + ['--timeout', '30', '--json=/e/kunit.json', '--raw_output=all',
			     '--filter', 'speed!=slow', '--filter_action', 'skip', 'arm64_pan*'],
	['exec'] + COMMON + ['--json=/e/kunit.json', '--list_tests', '--run_isolated', 'suite',
			     '--kernel_args', 'kunit.enable=1', 'arm64_*.*'],
	['parse', '--json=/p/kunit.json', '/p/test.log'],
	['exec'] + COMMON + ['--qemu_args=-smp', '--json=/j'],
]
# What argparse alone decides: values that start with '-', bare options
# that take an optional value, abbreviations, errors of every kind.
OTHERS: List[List[str]] = [
	['exec'] + COMMON + ['--qemu_args', '-initrd /c -append x', '--json=/j'],
	['exec'] + COMMON + ['--qemu_args', '-smp'],
	['exec'] + COMMON + ['--json', '/j'],
	['exec'] + COMMON + ['--raw_output'],
	['exec'] + COMMON + ['--raw_output=bad'],
	['exec'] + COMMON + ['--run_isolated', 'case'],
	['exec'] + COMMON + ['--timeout', 'x'],
	['exec'] + COMMON + ['--timeout', '-5'],
	['exec'] + COMMON + ['--timeout'],
	['exec'] + COMMON + ['--list_tests=1'],
	['exec'] + COMMON + ['a*', 'b*'],
	['exec'] + COMMON + ['--', 'a*'],
	['exec'] + COMMON + ['--time', '30'],
	['exec'] + COMMON[2:],
	['build'] + COMMON + ['--jobs', '2', 'glob'],
	['build', '--help'],
	['parse', '/a', '/b'],
	['nosuch'],
	[],
]

class FakeKunitTest(unittest.TestCase):

	def argparse(self, argv: List[str]) -> Any:
		try:
			with contextlib.redirect_stdout(io.StringIO()), \
			     contextlib.redirect_stderr(io.StringIO()):
				return FAKE.argparse_parse(argv)
		except SystemExit as e:
			return f'exit {e.code}'

	def test_plain_arguments_are_parsed_without_argparse_as_argparse_would(self) -> None:
		for argv in PLAIN:
			with self.subTest(argv=argv):
				parsed = FAKE.fast_parse(argv)
				self.assertIsNotNone(parsed)
				self.assertEqual(parsed, self.argparse(argv))

	def test_any_other_arguments_are_left_to_argparse(self) -> None:
		for argv in OTHERS:
			with self.subTest(argv=argv):
				self.assertIsNone(FAKE.fast_parse(argv))
		# Among them what argparse refuses, and what it takes.
		self.assertEqual(self.argparse(OTHERS[1]), 'exit 2')
		self.assertEqual(self.argparse(OTHERS[0]).qemu_args, ['-initrd /c -append x'])

	def test_the_trace_quotes_as_shlex_does(self) -> None:
		for word in ('', 'plain', 'a b', "it's", '-initrd /c', 'k=v,w:x/y.z@%+-', 'é', '$x',
			     'x\ny', '*'):
			self.assertEqual(FAKE.quote(word), shlex.quote(word), word)


if __name__ == '__main__':
	unittest.main()
