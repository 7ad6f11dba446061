# SPDX-License-Identifier: GPL-2.0
#
# What the repo puts into a kernel's tree: the patches of its series
# (patches/VERSION/series), and the files of kunit/ plus kunitconfig (the
# "suites", one set for every kernel).

import hashlib
import os
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional

from pan_kunit import Error
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
	series = os.path.join(repo, kernel.series())
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
		path = os.path.join(repo, kernel.patches_dir(), name)
		if not os.path.isfile(path):
			raise Error(f'{series}:{number}: no such patch: {path}')
		patches.append(path)
	return patches

def _read_suites(repo: str) -> Dict[str, bytes]:
	suites = {}
	top = os.path.join(repo, SUITES_DIR)
	for root, dirs, files in os.walk(top):
		dirs.sort()
		for name in sorted(files):
			path = os.path.join(root, name)
			if os.path.isfile(path) and not os.path.islink(path):
				with open(path, 'rb') as f:
					suites[os.path.relpath(path, top)] = f.read()
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

def load(repo: str, kernel: KernelSpec) -> Sources:
	return Sources(series=kernel.series(), patches=_read_series(repo, kernel),
		       suites=_read_suites(repo))
