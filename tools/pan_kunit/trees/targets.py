# SPDX-License-Identifier: GPL-2.0
#
# The kernels a command works on, each in its tree, and what every command
# that builds does with them before its own work: install the packages,
# prepare the tree (a Debian source's, or pan-kunit's clone of a tree of
# the user's), and name the kconfig fragments every build merges.

import functools
import os
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence

from pan_kunit import Error
from pan_kunit.host import apt_suites, packages
from pan_kunit.host.printer import Printer
from pan_kunit.trees import kernels, sources, tree, usertree
from pan_kunit.trees.kernels import KernelSpec

# How many uncommitted files the note of `run` names.
MAX_NOTED = 10

# What every kernel pan-kunit builds leaves out that nothing under test uses.
LEAN_KCONFIG = os.path.join(kernels.KCONFIG_DIR, 'lean.config')
# What every kernel pan-kunit builds has for `lkdtm` (lkdtm.py).
LKDTM_KCONFIG = os.path.join(kernels.KCONFIG_DIR, 'lkdtm.config')

def fragments(repo: str, kernel: KernelSpec) -> List[str]:
	"""The kconfig files every build of @kernel merges into the
	kunitconfig: LKDTM's, so that `lkdtm` boots the kernels `run` built,
	lean.config, and the kernel's own fragment, if it has one: the
	kunitconfig and lean.config hold only what every kernel accepts."""
	found = [os.path.join(repo, LKDTM_KCONFIG), os.path.join(repo, LEAN_KCONFIG)]
	own = os.path.join(repo, kernel.kconfig())
	return found + [own] if os.path.isfile(own) else found

@dataclass
class Target:
	"""A kernel, and the prepared tree a command works in for it."""
	kernel: KernelSpec
	tree: str         # absolute
	given: bool       # named by --tree or PAN_KUNIT_TREE, not the kernel's default
	# A tree of the user's own (usertree.py): its path; @tree is then
	# pan-kunit's clone of it, and @kernel the kernel whose series it gets.
	user: Optional[str] = None
	note: str = ''    # how that kernel was chosen, when not by its version

def given_tree(tree_option: Optional[str]) -> Optional[str]:
	"""The tree the user named: --tree, else PAN_KUNIT_TREE; None."""
	return tree_option or os.environ.get('PAN_KUNIT_TREE') or None

def resolve(repo: str, names: List[str], given: Optional[str], newest_only: bool) -> List[Target]:
	"""The (kernel, tree) pairs a command works on.  @names, the kernels
	of --kernel (default: every supported kernel; with @newest_only: the
	newest), each in its default tree; a tree the user named (@given) is
	one tree, of the kernel it holds (its base commit, else its
	Makefile), never guessed from its path."""
	chosen = kernels.select(repo, names)
	if given is None:
		if newest_only and not names:
			chosen = [kernels.newest(chosen)]
		return [Target(k, os.path.abspath(k.default_tree()), False) for k in chosen]
	path = os.path.abspath(given)
	if usertree.is_user_tree(path):
		kernel, note = usertree.series_kernel(path, kernels.supported(repo))
		if names and kernel not in chosen:
			raise Error(f'{path} is a tree of {kernel.name} (its Makefile), not ' +
				    ' or '.join(k.name for k in chosen) + ': leave out --kernel')
		return [Target(kernel, usertree.clone_dir(kernels.cache_dir(), path), True,
			       user=path, note=note)]
	held = tree.kernel_spec(path) if os.path.isdir(path) else None
	if held is not None:
		if names and held not in chosen:
			raise Error(f'{path} holds {held.package}, not ' +
				    ' or '.join(k.package for k in chosen) +
				    f': give --kernel {held.name}, or another tree')
		if held not in kernels.supported(repo):
			raise Error(f'{path} holds {held.package}, which {repo} has no series for '
				    f'({held.series()})')
		return [Target(held, path, True)]
	if os.path.lexists(path):
		# No tree of a known kernel: setup refuses it, with the reason.
		return [Target(chosen[0], path, True)]
	if len(chosen) > 1:
		# Its directory's problem first: --kernel would not be enough.
		tree.check_location(path, True)
		raise Error(f'the tree {path} does not exist yet, so it holds no kernel to read: '
			    'name the one setup should extract into it with --kernel (' +
			    ', '.join(k.name for k in chosen) + ')')
	return [Target(chosen[0], path, True)]

def check_tree(target: Target) -> None:
	"""Refuses a tree that setup would create in no directory, or would
	refuse as it is."""
	if not target.user:  # the user's tree exists; pan-kunit makes the clone's directories
		tree.check_location(target.tree, target.given)
		tree.check_existing(target.tree, target.kernel)

def ensure_packages(printer: Printer, target_list: List[Target], extra: Sequence[str]=()) -> None:
	"""Installs (or asks for) every kernel's source package and the tools,
	and the command's @extra packages, at once, before any kernel's work: a
	second kernel's missing package is not found after the first kernel's
	builds.  A kernel source package of another suite (trixie-backports)
	gets its suite first, if it is missing."""
	# A tree of the user's own needs no Debian source package.
	kernel_list = [t.kernel for t in target_list if not t.user]
	suited = [k for k in kernel_list if k.suite]
	if suited:
		try:
			present = packages.installed([k.package for k in suited])
		except packages.NotDebian:
			pass  # packages.ensure() names what is needed
		else:
			wanted: Dict[str, List[str]] = {}
			for k in suited:
				if k.package not in present and k.suite:
					wanted.setdefault(k.suite, []).append(k.package)
			apt_suites.ensure(printer, wanted)
	packages.ensure(printer, [k.package for k in kernel_list], extra)

def each(printer: Printer, target_list: List[Target], work: Callable[[Target], int]) -> int:
	"""Runs @work on each target, each headed by its kernel when there are
	several; the worst exit status."""
	status = 0
	for target in target_list:
		if len(target_list) > 1:
			printer.print(f'=== {target.kernel.package}: {target.tree}')
		status = max(status, work(target))
	return status

def setup(printer: Printer, target: Target, repo: str, purpose: str, builds: bool=True,
	  at: Optional[str]=None) -> Optional[usertree.Prepared]:
	"""Checks that the tools the command @purpose needs are on PATH
	(setup's, and those that build and boot a kernel if it @builds), then
	prepares the tree: a Debian source's, or pan-kunit's clone of a tree of
	the user's (of its commit @at, if given, else of HEAD and the edits),
	which it returns.  The packages were installed by ensure_packages()."""
	tools = packages.SETUP_TOOLS + (packages.BUILD_TOOLS + packages.BOOT_TOOLS if builds else [])
	packages.require(tools, purpose)
	kernel = target.kernel
	wanted = sources.load(repo, kernel)
	if target.user:
		return usertree.prepare(printer, target.user, target.tree, kernel, wanted, at=at,
					note=target.note)
	tree.setup(printer, target.tree, kernel, wanted, kernel.tarball(),
		   packages.version(kernel.package))
	return None

def describe(printer: Printer, target: Target,
	     prepared: Optional[usertree.Prepared]) -> Callable[[], tree.Kernel]:
	"""What the records of @target's boots name (see pipeline.build_and_boot()): of
	the user's tree, when setup() @prepared one."""
	if prepared is not None:
		return functools.partial(usertree.kernel_record, prepared)
	return lambda: tree.kernel_of(target.tree, note_edits(printer, target.tree))

def note_edits(printer: Printer, tree_dir: str) -> List[str]:
	"""Notes the tree's uncommitted edits, and returns them.  The note
	is one write: `run` notes them in a thread, while the kernels build."""
	edits = tree.changed_files(tree_dir)
	if edits:
		more = f' and {len(edits) - MAX_NOTED} more' if len(edits) > MAX_NOTED else ''
		printer.print(f'note: building with uncommitted changes in {tree_dir}: '
			      f'{", ".join(edits[:MAX_NOTED])}{more}')
	return edits

