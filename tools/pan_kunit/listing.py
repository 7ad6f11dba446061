# SPDX-License-Identifier: GPL-2.0
#
# `pan-kunit list`: what a run can be made of: the QEMU configs (CPU,
# kconfig group), the kernels pan-kunit knows and their state on this
# machine, and the mutants of each supported kernel.

import os

from pan_kunit import Error, configs, kernels, mutants, packages, results
from pan_kunit.kernels import KernelSpec

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
		f'{tarball}' + ('' if os.path.isfile(tarball) else ' (missing)') +
		f'; tree {kernel.default_tree()}')

def run_list(repo: str) -> int:
	"""What a run can be made of: configs, kernels, mutants."""
	matrix = [configs.load(repo, name, None) for name in configs.available(repo)]
	groups = configs.group_by_kconfig(matrix)
	rows = [['config', 'cpu', 'kconfig group', 'shares its build with']]
	for config in matrix:
		others = [c.name for c in groups[config.build_key()] if c is not config]
		rows.append([config.name, config.cpu, config.build_key(), ', '.join(others) or '-'])
	print(f'QEMU configs ({os.path.join(repo, configs.CONFIGS_DIR)}):')
	for line in results.align(rows):
		print('    ' + line)
	print('\nkernels:')
	for kernel in kernels.KNOWN:
		print(f'    {kernel.name} ({kernel.package}): {_kernel_state(kernel, repo)}')
	for kernel in kernels.supported(repo):
		directory = os.path.join(repo, kernel.mutants_dir())
		found = mutants.load(directory, []) if os.path.isdir(directory) else []
		print(f'\nmutants of {kernel.name} ({directory}):')
		rows = [['mutant', 'must fail', 'subject']] + [
			[m.name, ', '.join(m.must_fail), m.subject] for m in found]
		for line in results.align(rows) if found else ['(none)']:
			print('    ' + line)
	return 0
