# SPDX-License-Identifier: GPL-2.0
#
# `pan-kunit list`: what a run can be made of, without a build or a boot:
# the QEMU configs (CPU, kconfig group; a broken one is named and the rest
# still listed), the kernels pan-kunit knows and their state on this
# machine, each tree's state (prepared, its builds and whether they are
# stale), the suites and their cases from their sources, and the mutants
# of each supported kernel.

import glob
import os
import time
from typing import Dict, List, Optional, Tuple

from pan_kunit import Error
from pan_kunit.commands import mutants
from pan_kunit.host import packages
from pan_kunit.host.printer import Printer
from pan_kunit.kunit_tool import configs
from pan_kunit.kunit_tool.configs import QemuConfig
from pan_kunit.matrix import initramfs
from pan_kunit.results import terminal
from pan_kunit.trees import kernels, suites
from pan_kunit.trees.kernels import KernelSpec
from pan_kunit.trees.sources import TREE_KUNITCONFIG
from pan_kunit.trees.tree import state_dir

# What a build is stale against: a file newer than its kernel, in the
# tree, where the code under test and the suites are, or in the repo,
# what setup installs or every build merges.
TREE_INPUTS = ('arch/arm64', 'lib/kunit', 'include/kunit')
REPO_INPUTS = ('kunit', 'kunitconfig', kernels.KCONFIG_DIR, 'qemu_configs', 'patches',
	       initramfs.GUEST_DIR)

def _kernel_state(kernel: KernelSpec, repo: str) -> str:
	tarball = kernel.tarball()
	try:
		version = packages.version(kernel.package) if packages.is_installed(kernel.package) else ''
	except Error:  # not a Debian host
		version = ''
	series_state = (f'series {kernel.series()}' if kernel in kernels.supported(repo) else
			f'not supported: no {kernel.series()}')
	return (f'{series_state}; Debian package, '
		f'{version + " installed" if version else "not installed"}; '
		f'{tarball}' + ('' if os.path.isfile(tarball) else ' (missing)'))

def _configs(repo: str) -> Tuple[List[QemuConfig], Dict[str, str]]:
	"""The QEMU configs that load, and why each other one does not."""
	loaded, broken = [], {}
	for name in configs.available(repo):
		try:
			loaded.append(configs.load(repo, name, None))
		except Error as e:
			broken[name] = str(e)
	return loaded, broken

def _newest(paths: List[str], since: float) -> Optional[str]:
	"""A file under @paths modified after @since, if any."""
	for path in paths:
		for root, dirs, files in os.walk(path) if os.path.isdir(path) else [('', [], [path])]:
			for name in files:
				try:
					if os.stat(os.path.join(root, name)).st_mtime > since:
						return os.path.join(root, name)
				except OSError:
					pass
	return None

def _ago(seconds: float) -> str:
	for unit, size in (('days', 86400), ('h', 3600), ('min', 60)):
		if seconds >= size:
			return f'{seconds / size:.0f} {unit} ago'
	return 'just now'

def tree_lines(tree: str, repo: str, matrix: List[QemuConfig]) -> List[str]:
	"""The state of @tree: not prepared, or prepared with each build of
	its build directory, named by its configs, built or not, and stale
	when a file it is built from is newer than its kernel."""
	if not os.path.isfile(os.path.join(tree, TREE_KUNITCONFIG)):
		return ['not prepared' + (' (it does not exist)' if not os.path.isdir(tree) else
					  ': tools/pan-kunit setup prepares it')]
	groups = configs.group_by_kconfig(matrix)
	lines = ['prepared']
	keys = [os.path.basename(os.path.dirname(d))
		for d in glob.glob(os.path.join(state_dir(tree, 'build'), '*', ''))]
	for key in sorted(keys, key=lambda k: (k not in groups, k)):
		build_dir = state_dir(tree, 'build', key)
		group = groups.get(key, [])
		name = ', '.join(c.name for c in group) or f'{key} (other options)'
		image = os.path.join(build_dir, group[0].kernel_path if group else
				     os.path.join('arch', 'arm64', 'boot', 'Image'))
		if not os.path.isfile(image):
			lines.append(f'build {name}: not built')
			continue
		built = os.stat(image).st_mtime
		newer = _newest([os.path.join(tree, p) for p in TREE_INPUTS], built)
		ours = None if newer else _newest([os.path.join(repo, p) for p in REPO_INPUTS], built)
		lines.append(f'build {name}: built {_ago(time.time() - built)}' + (
			f'; stale: {os.path.relpath(newer, tree)} is newer' if newer else
			f'; stale: the repo\'s {os.path.relpath(ours, repo)} is newer' if ours else ''))
	return lines + (['no build yet'] if len(lines) == 1 else [])

def _trees(repo: str, given: Optional[str]) -> List[Tuple[str, str]]:
	"""(kernel, tree) of the tree named (@given), else of each kernel."""
	if given:
		spec = kernels.from_makefile(given)
		return [(spec.name if spec else '?', os.path.abspath(given))]
	return [(k.name, k.default_tree()) for k in kernels.KNOWN]

def run_list(printer: Printer, repo: str, given: Optional[str]=None) -> int:
	"""What a run can be made of: configs, kernels and trees, suites,
	mutants, kept to the terminal's width without losing a word: a line
	too long is folded at its "; ", else at its spaces (terminal.fold()),
	and a mutant's subject has a line of its own.  Exit 2 when a QEMU
	config is broken, after the rest."""
	width = terminal.width(printer)
	out: List[str] = []
	matrix, broken = _configs(repo)
	# The configs of one kconfig group share one build: the column says
	# which, where a list of the others wrapped in 80 columns.
	rows = [['config', 'cpu', 'kconfig group']]
	rows += [[config.name, config.cpu, config.build_key()] for config in matrix]
	out.append(f'QEMU configs ({os.path.join(repo, configs.CONFIGS_DIR)}), '
		   'one build per kconfig group:')
	out += ['    ' + line for line in terminal.align(rows)]
	out += [f'    {name}: broken: {why}' for name, why in broken.items()]
	out += ['', 'kernels:']
	out += [f'    {kernel.name} ({kernel.package}): {_kernel_state(kernel, repo)}'
		for kernel in kernels.KNOWN]
	out += ['', 'trees:']
	for name, tree in _trees(repo, given):
		state = tree_lines(tree, repo, matrix)
		out.append(f'    {name} {tree}: {state[0]}')
		out += ['        ' + line for line in state[1:]]
	known = suites.known(repo)
	out += ['', f'suites ({sum(map(len, known.values()))} cases in {len(known)} suites of '
		f'{suites.SOURCES}):']
	for suite in sorted(known):
		out.append(f'    {suite}')
		out += [f'        {case}' for case in known[suite]]
	for kernel in kernels.supported(repo):
		directory = os.path.join(repo, kernel.mutants_dir())
		found = mutants.load(directory, []) if os.path.isdir(directory) else []
		out += ['', f'mutants of {kernel.name} ({directory}), each with the suites that '
			'must fail:']
		for m in found:
			out += [f'    {m.name}: {", ".join(m.must_fail)}', f'        {m.subject}']
		if not found:
			out.append('    (none)')
	for line in out:
		for part in terminal.fold(line, width):
			printer.print(part)
	if broken:
		printer.print_stderr(f'pan-kunit: error: broken QEMU configs: {", ".join(broken)} '
				     '(see above)')
		return 2
	return 0
