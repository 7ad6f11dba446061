# SPDX-License-Identifier: GPL-2.0
#
# The test matrix: the repo's qemu_configs/*.py, loaded as kunit_tool loads
# them, and grouped by kconfig so that configs differing only in how QEMU
# runs share one kernel build.

import hashlib
import importlib.abc
import importlib.util
import os
import sys
from dataclasses import dataclass
from typing import Dict, List

from pan_kunit import Error

CONFIGS_DIR = 'qemu_configs'

@dataclass
class QemuConfig:
	name: str         # file name without .py
	path: str         # absolute path of the file
	kconfig: str      # normalised: stripped non-empty lines, sorted
	kernel_path: str  # relative to the build dir
	cpu: str          # QEMU's -cpu, '' when not given
	cmdline: str = ''  # the kernel command line the config gives

	def build_key(self) -> str:
		return hashlib.sha256(self.kconfig.encode()).hexdigest()[:12]

def available(repo: str) -> List[str]:
	directory = os.path.join(repo, CONFIGS_DIR)
	try:
		files = os.listdir(directory)
	except OSError as e:
		raise Error(f'cannot list the QEMU configs in {directory}: {e.strerror}')
	names = sorted(f[:-len('.py')] for f in files if f.endswith('.py'))
	if not names:
		raise Error(f'no QEMU configs (*.py) in {directory}')
	return names

def select(repo: str, names: List[str]) -> List[str]:
	"""Returns the configs to run: all, or those named, in file-name order."""
	names_available = available(repo)
	unknown = sorted(set(names) - set(names_available))
	if unknown:
		raise Error(f'unknown --config {", ".join(unknown)}; the configs in '
			    f'{os.path.join(repo, CONFIGS_DIR)} are: {", ".join(names_available)}')
	return [n for n in names_available if not names or n in names]

def normalise_kconfig(kconfig: str) -> str:
	return '\n'.join(sorted(line.strip() for line in kconfig.splitlines() if line.strip()))

def _cpu(extra_qemu_params: List[str]) -> str:
	if '-cpu' in extra_qemu_params[:-1]:
		return extra_qemu_params[extra_qemu_params.index('-cpu') + 1]
	return ''

def load(repo: str, name: str, kunit_dir: str) -> QemuConfig:
	"""Loads qemu_configs/NAME.py like kunit_kernel._get_qemu_ops(), with
	the kunit_tool of kunit_dir providing `..qemu_config`."""
	path = os.path.join(os.path.abspath(repo), CONFIGS_DIR, name + '.py')
	sys.path.insert(0, kunit_dir)
	sys.modules.pop('qemu_config', None)  # use kunit_dir's, not a cached one
	dont_write_bytecode = sys.dont_write_bytecode
	sys.dont_write_bytecode = True  # no __pycache__ in the repo or the tree
	try:
		spec = importlib.util.spec_from_file_location('.' + CONFIGS_DIR + '.' + name, path)
		assert spec is not None
		module = importlib.util.module_from_spec(spec)
		assert isinstance(spec.loader, importlib.abc.Loader)
		spec.loader.exec_module(module)
	except Exception as e:
		raise Error(f'cannot load {path}: {e}')
	finally:
		sys.path.remove(kunit_dir)
		sys.dont_write_bytecode = dont_write_bytecode
	if not hasattr(module, 'QEMU_ARCH'):
		raise Error(f'{path} does not define QEMU_ARCH')
	params = module.QEMU_ARCH
	return QemuConfig(name=name, path=path, kconfig=normalise_kconfig(params.kconfig),
			  kernel_path=params.kernel_path, cpu=_cpu(params.extra_qemu_params),
			  cmdline=params.kernel_command_line)

def group_by_kconfig(configs: List[QemuConfig]) -> Dict[str, List[QemuConfig]]:
	groups: Dict[str, List[QemuConfig]] = {}
	for config in configs:
		groups.setdefault(config.build_key(), []).append(config)
	return groups
