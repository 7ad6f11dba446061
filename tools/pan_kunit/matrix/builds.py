# SPDX-License-Identifier: GPL-2.0
#
# The builds of a run of the matrix (plan.py): one `kunit.py build` per
# kconfig group, all at once, each through ccache when it is installed,
# making only the image the configs boot, and under a lock on its build
# directory, which `run` and `lkdtm` (and two runs) share.

import contextlib
import os
import shutil
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from pan_kunit.host import lockfile
from pan_kunit.host.printer import Printer
from pan_kunit.host.progress import Progress
from pan_kunit.kunit_tool import kunit_py, toolchains
from pan_kunit.kunit_tool.configs import QemuConfig
from pan_kunit.kunit_tool.toolchains import BuildSettings
from pan_kunit.matrix import cost, jobs
from pan_kunit.matrix.plan import Build, MatrixPlan
from pan_kunit.results import terminal
from pan_kunit.trees import kernels
from pan_kunit.trees.tree import kernel_version

# How much of a build's log a failed build shows.
BUILD_LOG_LINES = 30

def ccache() -> Optional[str]:
	"""The ccache PATH finds, through which builds go if there is one."""
	return shutil.which('ccache')

def ccache_options(tree: str, make_options: Sequence[str]=()) -> Tuple[List[str], Dict[str, str]]:
	"""kunit.py options and environment that compile through ccache, when
	it is installed.  With base_dir at the tree, the paths ccache hashes
	are relative, so builds of the tree and of its check worktree share
	cache entries.  Not in depend mode, which would skip ccache's own
	preprocessor run on a miss (a quarter of a cold build): there ccache
	no longer sees .incbin, and would serve an old vdso-wrap.o after an
	edit of the vDSO.  A make CC= overrides the compiler LLVM= chooses, so
	with the user's LLVM=1 it is clang through ccache, and with the
	user's own CC= or another LLVM= (a prefix or suffix) there is none."""
	if not ccache():
		return [], {}
	given = {option.split('=', 1)[0] for option in make_options}
	if 'CC' in given or ('LLVM' in given and 'LLVM=1' not in make_options):
		return [], {}
	compiler = 'clang' if 'LLVM' in given else f'{kunit_py.CROSS_COMPILE}gcc'
	return (['--make_options', f'CC=ccache {compiler}'],
		{'CCACHE_BASEDIR': os.path.realpath(tree)})

def image_options(group: Sequence[QemuConfig], make_options: Sequence[str]=()) -> List[str]:
	"""kunit.py options that make the image the configs of @group boot
	and no other: `make all` builds KBUILD_IMAGE, Image.gz by default on
	arm64, and compressing the Image is half a second of every build that
	nothing boots when the configs boot the Image.  None when the configs
	boot different files or the user sets KBUILD_IMAGE."""
	paths = {config.kernel_path for config in group}
	if len(paths) != 1 or any(o.startswith('KBUILD_IMAGE=') for o in make_options):
		return []
	return ['--make_options', f'KBUILD_IMAGE={paths.pop()}']

def kernel_name(tree: str) -> str:
	"""The kernel of @tree as --kernel names it (7.3), else its Makefile's
	version, else ''."""
	spec = kernels.from_makefile(tree)
	return spec.name if spec else kernel_version(tree)

def short_path(path: str, tree: str) -> str:
	"""@path relative to @tree when it is in it, else with ~ for the home
	directory: the lines name the tree before its builds."""
	relative = os.path.relpath(path, tree)
	if not relative.startswith(os.pardir + os.sep):
		return relative
	home = os.path.expanduser('~')
	return '~' + path[len(home):] if path.startswith(home + os.sep) else path

@contextlib.contextmanager
def build_locks(printer: Printer, build_dirs: List[str]) -> Iterator[List[int]]:
	"""Holds the lock DIR.lock beside each build directory for the time of
	the block, and yields their file descriptors, which each build's
	kunit.py holds too: `run` and `lkdtm` (and two runs) share build
	directories, and two `make O=DIR` at once break each other, as do a
	make that a killed pan-kunit left running and a new one; the lock is
	held until the last of them ends.  A lock another pan-kunit holds is
	waited for, with a line that names it; a lock its holder did not
	release is named and cleared (lockfile.py).  The locks are taken in
	one order, so two runs never wait for each other."""
	for build_dir in build_dirs:
		os.makedirs(os.path.dirname(build_dir), exist_ok=True)
	with contextlib.ExitStack() as held:
		yield [held.enter_context(lockfile.held(printer, build_dir + '.lock',
							f'builds in {build_dir}'))
		       for build_dir in sorted(set(build_dirs))]

def build_all(plan: MatrixPlan, progress: Progress, settings: BuildSettings,
	      builds: Optional[List[Build]]=None, locks: Optional[List[int]]=None) -> Dict[str, bool]:
	"""Runs the @builds of @plan (default: one per kconfig group) at once
	(incremental builds are mostly make walking the tree on one CPU) and
	returns whether each succeeded, by key.  The user's --make_options come
	after ccache's CC= (if any); @settings say whether they run kunit.py's
	olddefconfig.  The builds take their directories' locks (build_locks()),
	unless the caller holds them (@locks: their file descriptors)."""
	tree, options = plan.tree, plan.options
	builds = plan.builds() if builds is None else builds
	ccache, env = ccache_options(tree, options.make_options)
	added = kunit_py.build_options(options)
	tools = settings.toolchains.probe(kunit_py.CROSS_COMPILE, ccache[1:] + options.make_options)
	build_jobs = []
	printer = progress.printer
	kernel = kernel_name(tree)
	for b in builds:
		os.makedirs(b.build_dir(tree), exist_ok=True)
		job = jobs.Job(f'build {b.label(kernel)}',
			       kunit_py.kunit_cmd(plan.kunit_dir, 'build', b.build_dir(tree),
						    b.kunitconfig, b.group[0].path, b.fragments) +
			       ['--jobs', str(plan.jobs)] + ccache +
			       image_options(b.group, options.make_options) + added,
			       plan.outputs.build_log(b.key),
			       dict(env, **settings.build_env(printer, b.build_dir(tree), tools)))
		if not plan.quiet:
			printer.print(f'building {b.label(kernel)} (log: {short_path(job.log, tree)}) '
				      '...')
		build_jobs.append(job)
	with contextlib.nullcontext(locks) if locks is not None else \
	     build_locks(printer, [b.build_dir(tree) for b in builds]) as held:
		for job in build_jobs:
			job.pass_fds = held
		image = {b.key: b.group[0].kernel_path for b in builds}
		scratch = {b.key: not os.path.exists(os.path.join(b.build_dir(tree), image[b.key]))
			   for b in builds}
		for b, job in zip(builds, build_jobs):
			expected = cost.expected_objects(b.build_dir(tree), image[b.key], [tree])
			progress.build_started(b.label(kernel), b.build_dir(tree), job.log, expected)
		try:
			jobs.run_jobs(progress, build_jobs, None)
		finally:
			objects = {b.key: progress.build_ended(b.label(kernel)) for b in builds}
	built = {}
	for b, job in zip(builds, build_jobs):
		assert job.outcome is not None
		built[b.key] = job.outcome.returncode == 0
		if built[b.key]:
			toolchains.note_toolchain(b.build_dir(tree), tools)
			cost.write_record(b.build_dir(tree), job.outcome.elapsed, objects[b.key],
					  scratch[b.key])
			if not plan.quiet:
				printer.print(f'built {b.label(kernel)} in {job.outcome.elapsed:.0f} s '
					      f'({objects[b.key]} objects compiled)')
			continue
		printer.print(f'build of {b.label(kernel)} failed '
			      f'(kunit.py exit {job.outcome.returncode})')
		terminal.print_tail(printer, 'build log', job.log, BUILD_LOG_LINES)
	return built
