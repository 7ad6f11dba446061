# SPDX-License-Identifier: GPL-2.0
#
# What the repo puts into a kernel's tree: the patches of its series
# (patches/VERSION/series), and the files of kunit/ plus kunitconfig (the
# "suites", written for the newest kernel).
#
# What an older kernel lacks of the newest is in compat/VERSION/, which
# export never writes: its tree/ holds files installed beside the suites
# (headers that provide the newest kernel's KUnit interfaces, say), and
# its series the patches that backport the suites to that kernel, applied
# here to the suites' contents, as a stable backport adapts a commit.

import hashlib
import os
import tempfile
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Set, Tuple

from pan_kunit import Error
from pan_kunit.host import gitcmd, proc
from pan_kunit.trees.kernels import KernelSpec

SUITES_DIR = 'kunit'
KUNITCONFIG = 'kunitconfig'
# Where kunitconfig goes in the tree.
# Beside the suites of arch/arm64/kernel/tests/: `kunit.py run
# --kunitconfig=arch/arm64/kernel/tests` runs every suite, those of
# arch/arm64/mm/tests/ too.
TREE_KUNITCONFIG = 'arch/arm64/kernel/tests/.kunitconfig'

@dataclass
class Sources:
	series: str               # the series file, relative to the repo
	patches: List[str]        # absolute paths, in series order
	suites: Dict[str, bytes]  # path in the tree -> contents
	# The paths of @suites that compat/VERSION/tree/ gives an older kernel
	# (headers with the newest kernel's interfaces): no suite's files.
	compat: Set[str] = field(default_factory=set)

	def patches_digest(self) -> str:
		digest = hashlib.sha256()
		for patch in self.patches:
			with open(patch, 'rb') as f:
				digest.update(hashlib.sha256(f.read()).hexdigest().encode() + b'\n')
		return digest.hexdigest()

	def suites_digest(self) -> str:
		digest = hashlib.sha256()
		for path in sorted(self.suites):
			digest.update(path.encode() + b'\0' +
				      hashlib.sha256(self.suites[path]).hexdigest().encode() + b'\n')
		return digest.hexdigest()

def _read_series(repo: str, kernel: KernelSpec) -> List[str]:
	return _read_patch_list(repo, kernel.series())

def _read_patch_list(repo: str, series_path: str) -> List[str]:
	"""The patches a series file names, in order, as absolute paths: each
	beside the series file."""
	series = os.path.join(repo, series_path)
	try:
		with open(series) as f:
			lines = f.read().splitlines()
	except OSError as e:
		raise Error(f'cannot read the patch series {series}: {e.strerror}')
	patches = []
	for number, line in enumerate(lines, 1):
		name = line.split('#', 1)[0].strip()
		if not name:
			continue
		path = os.path.join(os.path.dirname(series), name)
		if not os.path.isfile(path):
			raise Error(f'{series}:{number}: no such patch: {path}')
		patches.append(path)
	return patches

def _read_dir(top: str) -> Dict[str, bytes]:
	"""Every regular file under @top: its path relative to @top -> its
	contents."""
	files = {}
	for root, dirs, names in os.walk(top):
		dirs.sort()
		for name in sorted(names):
			path = os.path.join(root, name)
			if os.path.isfile(path) and not os.path.islink(path):
				with open(path, 'rb') as f:
					files[os.path.relpath(path, top)] = f.read()
	return files

def _read_suites(repo: str) -> Dict[str, bytes]:
	top = os.path.join(repo, SUITES_DIR)
	suites = _read_dir(top)
	if TREE_KUNITCONFIG in suites:
		raise Error(f'{os.path.join(top, TREE_KUNITCONFIG)} clashes with '
			    f'{os.path.join(repo, KUNITCONFIG)}, which is installed there: remove one')
	kunitconfig = os.path.join(repo, KUNITCONFIG)
	try:
		with open(kunitconfig, 'rb') as f:
			suites[TREE_KUNITCONFIG] = f.read()
	except OSError as e:
		raise Error(f'cannot read {kunitconfig}: {e.strerror}')
	return suites

def write_files(top: str, files: Mapping[str, Optional[bytes]]) -> int:
	"""Gives each of @files (a path under @top -> its contents; None: no
	such file) its contents, writing only the files whose contents
	change, so that make does not rebuild the others.  Returns how many
	files it wrote or removed.  Every writer of the suites into a tree
	(setup, the start of a bisect of patches/, export) writes with it."""
	changed = 0
	for path, data in sorted(files.items()):
		full = os.path.join(top, path)
		if data is None:
			if os.path.lexists(full):
				os.unlink(full)
				changed += 1
			continue
		try:
			with open(full, 'rb') as f:
				if f.read() == data:
					continue
		except FileNotFoundError:
			os.makedirs(os.path.dirname(full), exist_ok=True)
		with open(full, 'wb') as f:
			f.write(data)
		changed += 1
	return changed

def _apply(files: Dict[str, bytes], patches: List[str]) -> Tuple[Dict[str, bytes], proc.Result]:
	"""@files (a path -> its contents) once `git apply @patches` changed
	them, in a directory of their own, outside any repository (no git
	above it takes part), and what git did.  git applies each patch to
	what the ones before it made, and stops at one that does not apply,
	without naming it."""
	with tempfile.TemporaryDirectory(prefix='pan-kunit-compat-') as work:
		write_files(work, files)
		result = gitcmd.run(None, 'apply', '--whitespace=nowarn', *patches, cwd=work,
				    env=dict(gitcmd.OWN, GIT_CEILING_DIRECTORIES=tempfile.gettempdir()))
		return _read_dir(work), result

def _backport(repo: str, kernel: KernelSpec,
	      suites: Dict[str, bytes]) -> Tuple[Dict[str, bytes], Set[str]]:
	"""The suites as @kernel takes them: compat/VERSION/series's patches
	applied to them (git apply, in a directory of their own), and the
	files of compat/VERSION/tree/ beside them, whose paths it returns too.
	The suites themselves when @kernel has no compat/VERSION/."""
	top = os.path.join(repo, kernel.compat_dir())
	if not os.path.isdir(top):
		return suites, set()
	backported = dict(suites)
	if os.path.exists(os.path.join(top, 'series')):
		patches = _read_patch_list(repo, os.path.join(kernel.compat_dir(), 'series'))
		# The series in one git apply (a git for each patch cost each
		# command a tenth of a second per older kernel); if it fails, a
		# patch at a time, from the suites again, to name the one that
		# does not apply.
		backported, result = _apply(suites, patches) if patches else (backported, None)
		if result is not None and not result.ok():
			backported = dict(suites)
			for patch in patches:
				backported, result = _apply(backported, [patch])
				if not result.ok():
					raise Error(f'{os.path.relpath(patch, repo)} does not apply to the '
						    f'suites of {SUITES_DIR}/: {result.stderr.strip()}\n'
						    f'Refresh it against {SUITES_DIR}/ (each suite is written '
						    f'for the newest kernel; {kernel.compat_dir()}/ adapts it '
						    f'to {kernel.name})')
	compat = set()
	for path, data in _read_dir(os.path.join(top, 'tree')).items():
		if path in backported:
			raise Error(f'{os.path.join(kernel.compat_dir(), "tree", path)} clashes with '
				    f'{os.path.join(SUITES_DIR, path)}: a backport changes a suite '
				    f'with a patch in {kernel.compat_dir()}/series')
		backported[path] = data
		compat.add(path)
	return backported, compat

def load(repo: str, kernel: KernelSpec) -> Sources:
	suites, compat = _backport(repo, kernel, _read_suites(repo))
	return Sources(series=kernel.series(), patches=_read_series(repo, kernel),
		       suites=suites, compat=compat)
