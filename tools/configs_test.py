#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the QEMU configs (pan_kunit.kunit_tool.configs) and the options of their images.

import contextlib
import glob
import io
import os
import shutil
import sys
import tempfile
import time
import unittest
from unittest import mock

from pan_kunit import Error
from pan_kunit.commands import cli, lkdtm
from pan_kunit.kunit_tool import configs
from pan_kunit.matrix import builds
from pan_kunit.trees import targets
from testlib import REPO, test_data_path, read, write, setUpModule, tearDownModule

class ConfigsTest(unittest.TestCase):

	def test_load_like_kunit_tool(self) -> None:
		kunit_dir = test_data_path('fake_kunit')
		pan = configs.load(test_data_path('fake_repo'), 'pass_pan', kunit_dir)
		nopan = configs.load(test_data_path('fake_repo'), 'skip_nopan', kunit_dir)
		broken = configs.load(test_data_path('fake_repo'), 'builderror_pan', kunit_dir)
		self.assertEqual((pan.cpu, nopan.cpu), ('max,pauth-impdef=on', 'cortex-a57'))
		self.assertEqual(pan.kernel_path, 'arch/arm64/boot/Image.gz')
		self.assertEqual(pan.kconfig, nopan.kconfig)  # same lines, another order
		groups = configs.group_by_kconfig([broken, nopan, pan])
		self.assertEqual([[c.name for c in g] for g in groups.values()],
				 [['builderror_pan'], ['skip_nopan', 'pass_pan']])
		self.assertEqual(len(pan.build_key()), 12)
		# A --kconfig_add is a build of its own; none keeps the build it had.
		self.assertEqual(pan.build_key([]), pan.build_key())
		self.assertNotEqual(pan.build_key(['CONFIG_KASAN=y']), pan.build_key())
		self.assertFalse(os.path.exists(test_data_path('fake_repo', 'qemu_configs', '__pycache__')))

	def test_the_repo_configs_share_a_build(self) -> None:
		loaded = [configs.load(REPO, name, test_data_path('fake_kunit'))
			  for name in configs.select(REPO, [])]
		self.assertEqual({c.name: c.cpu for c in loaded},
				 {'arm64_nopan': 'cortex-a57', 'arm64_pan': 'max,pauth-impdef=on',
				  'arm64_pan_overrides': 'max,pauth-impdef=on',
				  'arm64_pan_sw_ttbr0': 'neoverse-n1',
				  'arm64_ttbr0_pan': 'cortex-a57'})
		# Each kconfig is built once, for a CPU with PAN and one without;
		# the command-line overrides boot arm64_pan's kernel.
		groups = configs.group_by_kconfig(loaded)
		self.assertEqual(sorted([c.name for c in g] for g in groups.values()),
				 [['arm64_nopan', 'arm64_pan', 'arm64_pan_overrides'],
				  ['arm64_pan_sw_ttbr0', 'arm64_ttbr0_pan']])
		by_name = {c.name: c for c in loaded}
		overrides = by_name['arm64_pan_overrides']
		self.assertEqual(overrides.cmdline.split()[:3], by_name['arm64_pan'].cmdline.split())
		self.assertEqual(overrides.cmdline.split()[3:],
				 ['arm64.nobti', 'arm64.nomops', 'id_aa64isar2.gpa3=1',
				  'id_aa64mmfr2.varange=1'])
		ttbr0 = by_name['arm64_ttbr0_pan']
		self.assertIn('CONFIG_ARM64_SW_TTBR0_PAN=y', ttbr0.kconfig.splitlines())
		self.assertEqual(lkdtm.pan_source(ttbr0), lkdtm.PanSource.SW_TTBR0)
		# With SW TTBR0 PAN built in, a CPU with PAN provides it.
		self.assertEqual(lkdtm.pan_source(by_name['arm64_pan_sw_ttbr0']), lkdtm.PanSource.CPU)
		self.assertIsNone(lkdtm.pan_source(by_name['arm64_nopan']))
		# A kernel that dies before its console starts says why on the
		# virt machine's PL011 (QEMU hw/arm/virt.c: VIRT_UART at 0x09000000).
		for config in loaded:
			self.assertIn('earlycon=pl011,0x9000000', config.cmdline.split(), config.name)

	def broken_repo(self, tmp: str) -> str:
		"""fake_repo's configs, and one broken config of each kind."""
		repo = os.path.join(tmp, 'repo')
		shutil.copytree(test_data_path('fake_repo', 'qemu_configs'),
				os.path.join(repo, 'qemu_configs'))
		write(os.path.join(repo, 'patches', '6.1', 'series'), '')
		good = read(test_data_path('fake_repo', 'qemu_configs', 'pass_pan.py'))
		broken = {
			'syntax': good.replace('kconfig=', 'kconfig=='),
			'no_arch': good.replace('QEMU_ARCH =', 'ARCH ='),
			'no_cpu': good.replace("'-cpu', 'max,pauth-impdef=on',", ''),
			'no_kernel_path': good.replace("kernel_path='arch/arm64/boot/Image.gz',", ''),
			'not_params': '\nQEMU_ARCH = 1\n',
		}
		for name, text in broken.items():
			write(os.path.join(repo, 'qemu_configs', name + '.py'), text)
		return repo

	def test_checked_without_a_tree(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			repo = self.broken_repo(tmp)
			# The stand-in QemuArchParams reads a config as kunit_tool does.
			for name in ('pass_pan', 'skip_nopan'):
				self.assertEqual(configs.load(repo, name, None),
						 configs.load(repo, name, test_data_path('fake_kunit')))
			path = os.path.join(repo, 'qemu_configs', '{}.py')
			for name, message in (
					('syntax', r'cannot load {}: .*\(syntax\.py, line 16\)'),
					('no_arch', r'{} does not define QEMU_ARCH'),
					('no_cpu', r"{}: no -cpu in extra_qemu_params; pan-kunit needs one"),
					('no_kernel_path', r"cannot load {}: .*missing 1 required .*'kernel_path'"),
					('not_params', r'{}: QEMU_ARCH is no QemuArchParams')):
				with self.assertRaisesRegex(Error, message.format(path.format(name))):
					configs.load(repo, name, None)
			self.assertNotIn(configs.QEMU_CONFIG_MODULE, sys.modules)

	def test_loaded_with_the_given_kunit_tool_not_a_cached_one(self) -> None:
		with tempfile.TemporaryDirectory() as kunit_dir:
			# A kunit_tool whose QemuArchParams needs one more field.
			write(os.path.join(kunit_dir, 'qemu_config.py'),
			      read(test_data_path('fake_kunit', 'qemu_config.py')) + '  extra: str\n')
			repo = test_data_path('fake_repo')
			configs.load(repo, 'pass_pan', None)
			configs.load(repo, 'pass_pan', test_data_path('fake_kunit'))
			with self.assertRaisesRegex(Error, "missing 1 required .*'extra'"):
				configs.load(repo, 'pass_pan', kunit_dir)
			configs.load(repo, 'pass_pan', test_data_path('fake_kunit'))

	def test_broken_config_fails_before_setup(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			repo = self.broken_repo(tmp)
			for command in (['run'], ['lkdtm'], ['bisect'], ['mutants'],
					['export', os.path.join(tmp, 'out')]):
				err = io.StringIO()
				start = time.monotonic()
				with mock.patch.object(targets, 'setup') as setup, contextlib.redirect_stderr(err):
					status = cli.main(['--tree', os.path.join(tmp, 'tree')] + command +
							  ['--config', 'pass_pan', '--config', 'no_cpu'], repo=repo)
				self.assertLess(time.monotonic() - start, 5)
				self.assertEqual(status, 2, command)
				setup.assert_not_called()
				self.assertIn('no_cpu.py: no -cpu in extra_qemu_params', err.getvalue())
			# lkdtm also needs to know whether the CPU has PAN.
			write(os.path.join(repo, 'qemu_configs', 'a64fx.py'),
			      read(os.path.join(repo, 'qemu_configs', 'pass_pan.py')).replace(
				      'max,pauth-impdef=on', 'a64fx'))
			err = io.StringIO()
			with mock.patch.object(targets, 'setup') as setup, contextlib.redirect_stderr(err):
				status = cli.main(['--tree', os.path.join(tmp, 'tree'), 'lkdtm',
						   '--config', 'a64fx'], repo=repo)
			self.assertEqual(status, 2)
			setup.assert_not_called()
			self.assertIn("no known PAN level for QEMU CPU 'a64fx'", err.getvalue())

	def test_select(self) -> None:
		repo = test_data_path('fake_repo')
		self.assertEqual(configs.select(repo, ['skip_nopan', 'pass_pan', 'pass_pan']),
				 ['pass_pan', 'skip_nopan'])
		self.assertEqual(len(configs.select(repo, [])), 7)

class ImageOptionsTest(unittest.TestCase):

	def config(self, name: str, kernel_path: str) -> configs.QemuConfig:
		return configs.QemuConfig(name=name, path=f'/{name}.py', kconfig='',
					  kernel_path=kernel_path, cpu='max')

	def test_make_builds_the_image_the_group_boots(self) -> None:
		group = [self.config('a', 'arch/arm64/boot/Image'),
			 self.config('b', 'arch/arm64/boot/Image')]
		self.assertEqual(builds.image_options(group),
				 ['--make_options', 'KBUILD_IMAGE=arch/arm64/boot/Image'])
		self.assertEqual(builds.image_options(group, ['W=1']),
				 ['--make_options', 'KBUILD_IMAGE=arch/arm64/boot/Image'])

	def test_two_images_or_the_users_own_are_left_to_make(self) -> None:
		two = [self.config('a', 'arch/arm64/boot/Image'),
		       self.config('b', 'arch/arm64/boot/Image.gz')]
		self.assertEqual(builds.image_options(two), [])
		one = two[:1]
		self.assertEqual(builds.image_options(one, ['KBUILD_IMAGE=arch/arm64/boot/Image.gz']), [])

	def test_the_projects_configs_boot_the_image_make_builds_last(self) -> None:
		# Image.gz is compressed from the Image after it: a config that
		# boots it costs every build that compression.
		for path in sorted(glob.glob(os.path.join(REPO, 'qemu_configs', '*.py'))):
			with open(path) as f:
				self.assertIn("kernel_path='arch/arm64/boot/Image',", f.read(), path)


if __name__ == '__main__':
	unittest.main()
