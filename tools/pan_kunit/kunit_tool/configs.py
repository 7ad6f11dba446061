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
import types
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

from pan_kunit import Error
from pan_kunit.kunit_tool import modules

CONFIGS_DIR = 'qemu_configs'
# What `from ..qemu_config import QemuArchParams` imports in a config
# loaded as '.qemu_configs.NAME', as kunit_tool loads it.
QEMU_CONFIG_MODULE = '.qemu_config'

@dataclass
class QemuConfig:
	name: str         # file name without .py
	path: str         # absolute path of the file
	kconfig: str      # normalised: stripped non-empty lines, sorted
	kernel_path: str  # relative to the build dir
	cpu: str          # QEMU's -cpu
	cmdline: str = ''  # the kernel command line the config gives

	def build_key(self, kconfig_add: Sequence[str]=()) -> str:
		"""Names the build of this kconfig plus @kconfig_add (kunit.py's
		--kconfig_add, which goes into the build's .config too)."""
		kconfig = normalise_kconfig('\n'.join([self.kconfig] + list(kconfig_add)))
		return hashlib.sha256(kconfig.encode()).hexdigest()[:12]

@dataclass(frozen=True)
class QemuArchParams:
	"""kunit_tool's qemu_config.QemuArchParams (6.1's fields, and 6.12's
	optional serial), to check the configs before there is a tree, and
	so a kunit_tool, to load them with."""
	linux_arch: str
	kconfig: str
	qemu_arch: str
	kernel_path: str
	kernel_command_line: str
	extra_qemu_params: List[str]
	serial: str = 'stdio'

def _stand_in() -> types.ModuleType:
	module = types.ModuleType(QEMU_CONFIG_MODULE)
	setattr(module, 'QemuArchParams', QemuArchParams)
	return module

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

def load(repo: str, name: str, kunit_dir: Optional[str]) -> QemuConfig:
	"""Loads qemu_configs/NAME.py like kunit_kernel._get_qemu_ops(), with
	the kunit_tool of kunit_dir providing `..qemu_config`, or with None
	(before setup), pan-kunit's stand-in QemuArchParams."""
	path = os.path.join(os.path.abspath(repo), CONFIGS_DIR, name + '.py')
	with modules.importable(kunit_dir, [QEMU_CONFIG_MODULE]):
		if kunit_dir is None:
			sys.modules[QEMU_CONFIG_MODULE] = _stand_in()
		try:
			spec = importlib.util.spec_from_file_location('.' + CONFIGS_DIR + '.' + name,
								      path)
			assert spec is not None
			module = importlib.util.module_from_spec(spec)
			assert isinstance(spec.loader, importlib.abc.Loader)
			spec.loader.exec_module(module)
		except Exception as e:
			raise Error(f'cannot load {path}: {e}')
	if not hasattr(module, 'QEMU_ARCH'):
		raise Error(f'{path} does not define QEMU_ARCH')
	params = module.QEMU_ARCH
	kconfig = getattr(params, 'kconfig', None)
	kernel_path = getattr(params, 'kernel_path', None)
	cmdline = getattr(params, 'kernel_command_line', None)
	qemu_params = getattr(params, 'extra_qemu_params', None)
	if not isinstance(kconfig, str) or not isinstance(kernel_path, str) or \
	   not isinstance(cmdline, str) or \
	   not isinstance(qemu_params, list) or not all(isinstance(p, str) for p in qemu_params):
		raise Error(f'{path}: QEMU_ARCH is no QemuArchParams with a kconfig, a kernel_path '
			    'a kernel_command_line and a list of extra_qemu_params')
	cpu = _cpu(qemu_params)
	if not cpu:
		raise Error(f'{path}: no -cpu in extra_qemu_params; pan-kunit needs one, to say '
			    "which CPU each result is for (e.g. '-cpu', 'cortex-a57')")
	return QemuConfig(name=name, path=path, kconfig=normalise_kconfig(kconfig),
			  kernel_path=kernel_path, cpu=cpu, cmdline=cmdline)

def matrix(repo: str, names: List[str], kunit_dir: Optional[str]) -> List[QemuConfig]:
	"""The configs @names (--config; none: all), loaded with the
	kunit_tool of @kunit_dir, or with None, before setup, with pan-kunit's
	stand-in for it."""
	return [load(repo, name, kunit_dir) for name in select(repo, names)]

def check(repo: str, names: List[str]) -> None:
	"""Refuses, before setup, a config of @names (none: all) that is
	unknown or does not load."""
	matrix(repo, names, None)

def group_by_kconfig(configs: List[QemuConfig],
		     kconfig_add: Sequence[str]=()) -> Dict[str, List[QemuConfig]]:
	groups: Dict[str, List[QemuConfig]] = {}
	for config in configs:
		groups.setdefault(config.build_key(kconfig_add), []).append(config)
	return groups
