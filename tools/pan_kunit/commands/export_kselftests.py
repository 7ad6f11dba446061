# SPDX-License-Identifier: GPL-2.0
#
# The patch of `export`'s series that adds kunit/'s kselftests (the pan
# EL0 tests, tools/testing/selftests/arm64/pan/) as upstream would take
# them: their files, and their directory added to ARM64_SUBTARGETS in
# tools/testing/selftests/arm64/Makefile, the list that "make -C
# tools/testing/selftests TARGETS=arm64" builds and runs.  The prepared
# tree leaves that Makefile alone: matrix/kselftest_build.py names its
# ARM64_SUBTARGETS on make's command line, which overrides "?=".

import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

from pan_kunit import Error
from pan_kunit.trees import suites
from pan_kunit.trees.sources import write_files

ARM64 = 'tools/testing/selftests/arm64/'
MAKEFILE = ARM64 + 'Makefile'
_SUBTARGETS = re.compile(r'^(ARM64_SUBTARGETS[ \t]*\?=[^\n]*?)[ \t]*$', re.M)

@dataclass
class Added:
	"""What write() put in the worktree, for the patch's commit."""
	paths: List[str]        # the kselftests' files and MAKEFILE
	names: List[str]        # their directories in ARM64
	summaries: List[str]    # the comments at the top of their Makefiles

def with_subtargets(makefile: str, names: Sequence[str]) -> str:
	"""The text of MAKEFILE (@makefile) with the directories @names at the
	end of its "ARM64_SUBTARGETS ?=" list, those it lacks."""
	match = _SUBTARGETS.search(makefile)
	if not match:
		raise Error(f'{MAKEFILE} has no "ARM64_SUBTARGETS ?=" line; export adds the '
			    'directories of kunit/\'s kselftests to it')
	line = match.group(1)
	listed = line.split('=', 1)[1].split()
	line += ''.join(f' {name}' for name in names if name not in listed)
	return makefile[:match.start(1)] + line + makefile[match.end(1):]

def directories(paths: Sequence[str]) -> List[str]:
	"""The directories of ARM64 that @paths are in."""
	return sorted({p[len(ARM64):].split('/', 1)[0] for p in paths
		       if p.startswith(ARM64) and '/' in p[len(ARM64):]})

def summary(makefile: str) -> str:
	"""The comment at the top of a kselftest Makefile, after its SPDX line."""
	lines = []
	for line in makefile.splitlines():
		if line.startswith('# SPDX-License-Identifier:'):
			continue
		if not line.startswith('#'):
			break
		lines.append(line[1:].strip())
	return ' '.join(l for l in lines if l)

def _and(words: Sequence[str]) -> str:
	return ', '.join(words[:-1]) + ' and ' + words[-1] if len(words) > 1 else ''.join(words)

def message(names: Sequence[str], summaries: Sequence[str], signed_off_by: str) -> str:
	"""The message of the patch that adds the kselftest directories
	@names, with the comments of their Makefiles (@summaries)."""
	dirs = _and([f'{ARM64}{n}/' for n in names])
	body = [suites.wrap(s) for s in summaries if s] + [suites.wrap(
		f'The tests are in {dirs}; "make -C tools/testing/selftests TARGETS=arm64" builds '
		'and runs them with the other arm64 kselftests, which ARM64_SUBTARGETS lists.')]
	return (f'kselftest/arm64: Add the {_and(names)} tests\n\n' + '\n\n'.join(body) +
		f'\n\n{signed_off_by}\n')

def write(worktree: str, files: Dict[str, bytes]) -> Optional[Added]:
	"""Writes the kselftests of @files (kunit/'s, by path in the tree) into
	@worktree, and adds their directories to MAKEFILE's ARM64_SUBTARGETS;
	None when there are none."""
	paths = sorted(p for p in files if suites.is_kselftest(p))
	if not paths:
		return None
	names = directories(paths)
	if not names or any(not p.startswith(ARM64) for p in paths):
		raise Error(f'kunit/{paths[0]}: export adds kselftests of a directory of their own '
			    f'in {ARM64} only')
	makefile = os.path.join(worktree, MAKEFILE)
	try:
		with open(makefile) as f:
			text = f.read()
	except OSError as e:
		raise Error(f'cannot read {makefile}: {e.strerror}; export adds the directories of '
			    'kunit/\'s kselftests to its ARM64_SUBTARGETS')
	write_files(worktree, {p: files[p] for p in paths})
	write_files(worktree, {MAKEFILE: with_subtargets(text, names).encode()})
	summaries = [summary(files[f'{ARM64}{n}/Makefile'].decode(errors='replace'))
		     for n in names if f'{ARM64}{n}/Makefile' in files]
	return Added(paths + [MAKEFILE], names, summaries)
