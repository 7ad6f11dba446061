# SPDX-License-Identifier: GPL-2.0
#
# The kernels pan-kunit tests: Debian's packaged kernel sources.  Each has
# its own series (patches/VERSION/series), its own mutants
# (mutants/VERSION/) and its own prepared tree; the suites (kunit/) are
# one set for all.  A kernel is supported when the repo has its series.

import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from pan_kunit import Error

# The repo's directory of kconfig fragments, which every build merges
# into the kunitconfig (targets.fragments()).
KCONFIG_DIR = 'kconfig'
# Where Debian's linux-source-X packages put their tarball.
TARBALL_DIR = '/usr/src'
# The base commit's subject: "Debian linux-source-6.1 6.1.192-3".
BASE_SUBJECT = re.compile(r'^Debian (linux-source-[0-9.]+) (\S+)$')

@dataclass(frozen=True)
class KernelSpec:
	name: str       # VERSION.PATCHLEVEL, as --kernel takes it: '6.12'
	package: str    # the Debian source package: 'linux-source-6.12'
	# The suite of the machine's Debian archive the package comes from,
	# when it is not one of its own release's (apt_suites.py).
	suite: Optional[str] = None

	def tarball(self) -> str:
		"""The package's tarball ($PAN_KUNIT_TARBALL_DIR, else /usr/src)."""
		directory = os.environ.get('PAN_KUNIT_TARBALL_DIR') or TARBALL_DIR
		return os.path.join(directory, self.package + '.tar.xz')

	def series(self) -> str:
		"""The series file of its patches, relative to the repo."""
		return os.path.join(self.patches_dir(), 'series')

	def patches_dir(self) -> str:
		return os.path.join('patches', self.name)

	def kconfig(self) -> str:
		"""Its kconfig fragment, relative to the repo: the lines of every
		build of this kernel that another kernel would refuse (a symbol
		it lacks), beside the common fragments.  Optional."""
		return os.path.join(KCONFIG_DIR, self.name + '.config')

	def compat_dir(self) -> str:
		"""What this kernel lacks of the newest one, for the suites,
		relative to the repo (sources.py).  Optional."""
		return os.path.join('compat', self.name)

	def mutants_dir(self) -> str:
		return os.path.join('mutants', self.name)

	def version(self) -> Tuple[int, int]:
		"""VERSION and PATCHLEVEL: (6, 12)."""
		major, minor = self.name.split('.')
		return int(major), int(minor)

	def default_tree(self) -> str:
		"""Its prepared tree: $PAN_KUNIT_CACHE/PACKAGE, else under
		~/.cache/pan-kunit."""
		return os.path.join(cache_dir(), self.package)

def cache_dir() -> str:
	"""Where pan-kunit keeps its trees: $PAN_KUNIT_CACHE, else
	~/.cache/pan-kunit."""
	return os.environ.get('PAN_KUNIT_CACHE') or os.path.join(
		os.path.expanduser('~'), '.cache', 'pan-kunit')

# Oldest first.  A kernel is supported once the repo has its series.
KNOWN = (KernelSpec('6.1', 'linux-source-6.1'), KernelSpec('6.12', 'linux-source-6.12'),
	 KernelSpec('7.3', 'linux-source-7.3', 'trixie-backports'))

# KUnit attributes (lib/kunit/attributes.c), which kunit.filter= and
# kunit.filter_action= select by: from 6.6.
KUNIT_ATTRIBUTES_SINCE = (6, 6)

def has_kunit_attributes(kernel: KernelSpec) -> bool:
	return kernel.version() >= KUNIT_ATTRIBUTES_SINCE

def by_name(name: str) -> Optional[KernelSpec]:
	return next((k for k in KNOWN if k.name == name), None)

def by_package(package: str) -> Optional[KernelSpec]:
	return next((k for k in KNOWN if k.package == package), None)

def supported(repo: str) -> List[KernelSpec]:
	"""The kernels the repo has a series for, oldest first."""
	return [k for k in KNOWN if os.path.isfile(os.path.join(repo, k.series()))]

def select(repo: str, names: Sequence[str]) -> List[KernelSpec]:
	"""The kernels of --kernel (repeatable; none: every supported one),
	oldest first; an unknown or unsupported name is refused."""
	available = supported(repo)
	if not available:
		raise Error(f'{repo} has no series for any kernel: none of ' +
			    ', '.join(os.path.join(repo, k.series()) for k in KNOWN) + ' exists')
	if not names:
		return available
	chosen = []
	for name in names:
		kernel = by_name(name)
		if kernel is None or kernel not in available:
			why = 'unknown' if kernel is None else f'not supported: no {kernel.series()}'
			raise Error(f'--kernel {name}: {why}; the supported kernels are ' +
				    ', '.join(k.name for k in available))
		chosen.append(kernel)
	return [k for k in available if k in chosen]

def newest(kernels: Sequence[KernelSpec]) -> KernelSpec:
	return kernels[-1]

def base_subject(kernel: KernelSpec, version: str) -> str:
	return f'Debian {kernel.package} {version}'

def parse_base_subject(subject: str) -> Optional[KernelSpec]:
	match = BASE_SUBJECT.match(subject)
	return by_package(match.group(1)) if match else None

_MAKEFILE_VARIABLE = re.compile(r'^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)\s*=\s*(.*?)\s*$')

def makefile_version(tree: str) -> Dict[str, str]:
	"""VERSION, PATCHLEVEL, SUBLEVEL and EXTRAVERSION of the tree's top
	Makefile, those it sets; none if it has no Makefile."""
	found: Dict[str, str] = {}
	try:
		with open(os.path.join(tree, 'Makefile'), errors='backslashreplace') as f:
			for line in f:
				match = _MAKEFILE_VARIABLE.match(line)
				if match:
					found.setdefault(match.group(1), match.group(2))
	except OSError:
		pass
	return found

def from_makefile(tree: str) -> Optional[KernelSpec]:
	"""The known kernel whose VERSION.PATCHLEVEL the tree's Makefile has."""
	found = makefile_version(tree)
	return by_name(f'{found.get("VERSION")}.{found.get("PATCHLEVEL")}')
