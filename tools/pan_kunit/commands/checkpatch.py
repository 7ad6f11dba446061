# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict of the series `export` writes, run in a worktree
# of the tree, as upstream runs it on every patch it is sent.

import os
import re
from typing import Dict, List

from pan_kunit.host import proc
from pan_kunit.trees import tree

# checkpatch warns about every patch that adds a file unless it also edits
# MAINTAINERS; arch/arm64/ and tools/testing/selftests/arm64/ already belong
# to "ARM64 PORT (AARCH64 ARCHITECTURE)" (get_maintainer.pl names its
# maintainers and list for every file the series adds, as for riscv's
# arch/riscv/kernel/tests/, which has no entry of its own), so that
# warning says nothing here.
CHECKPATCH_IGNORE = 'FILE_PATH_CHANGES'
# checkpatch also looks up the commit of a Fixes: tag, or of "commit ID
# ("subject")", in the tree's git history (UNKNOWN_COMMIT_ID).  A tree
# made from Debian's tarball has none: its base is a root commit, where
# every id is unknown.  There the lookup is left out and each id is named
# for you to look up in upstream's history; a tree with history (an
# upstream clone, --tree) keeps it.
NO_HISTORY_IGNORE = 'UNKNOWN_COMMIT_ID'
# A commit a message refers to, as checkpatch looks them up.
_COMMIT_REF = re.compile(r'(?:^Fixes:\s*|\bcommit\s+)([0-9a-f]{12,40})\s+\(', re.M | re.I)
# A patch of kselftests alone is user space, where checkpatch's rules for
# kernel C say the opposite of the C library's: it has uint32_t, not u32
# (PREFER_KERNEL_TYPES); a variable a signal handler reads must be a
# volatile sig_atomic_t (C11 7.14.1.1; VOLATILE); and a test that asks
# whether a system call exists reads its errno, ENOSYS, which is what
# checkpatch says ENOSYS may only mean (ENOSYS).
KSELFTEST_IGNORE = 'PREFER_KERNEL_TYPES,VOLATILE,ENOSYS'
KSELFTESTS_DIR = 'tools/testing/selftests/'
# checkpatch runs with the tree, from its top: its SPDX check runs
# scripts/spdxcheck.py, which imports ply and git (GitPython). Without them
# it prints a traceback and passes every licence.
PACKAGES = ['perl', 'python3-ply', 'python3-git']
# spdxcheck.py runs the python3 of PATH, and Debian's python3-ply and
# python3-git are modules of Debian's python3, /usr/bin/python3: another
# python3 first on PATH (pyenv, a venv) does not see them.
DEBIAN_PYTHON_DIR = '/usr/bin'

def changed_paths(patch: str) -> List[str]:
	"""The files a patch mail changes, from its "diff --git" lines."""
	found = []
	with open(patch, encoding='utf-8', errors='replace') as f:
		for line in f:
			match = re.match(r'diff --git a/(\S+) b/(\S+)$', line.rstrip('\n'))
			if match:
				found.append(match.group(2))
	return found

def commit_refs(patch: str) -> List[str]:
	"""The commits @patch's message refers to (Fixes:, "commit ID (")."""
	with open(patch, encoding='utf-8', errors='replace') as f:
		message = f.read().split('\n---\n')[0]
	return _COMMIT_REF.findall(message)

def has_history(tree_dir: str) -> bool:
	"""Whether @tree_dir has history before its base, where checkpatch
	can look up the commits a message names."""
	return tree.rev(tree_dir, tree.BASE_REF + '^') is not None

def ignored(patch: str, history: bool=True) -> str:
	"""The checkpatch types left out for @patch: CHECKPATCH_IGNORE,
	NO_HISTORY_IGNORE in a tree without @history, and KSELFTEST_IGNORE
	for a patch that changes kselftests alone (their ARM64_SUBTARGETS line
	included)."""
	types = [CHECKPATCH_IGNORE] + ([] if history else [NO_HISTORY_IGNORE])
	paths = changed_paths(patch)
	if paths and all(p.startswith(KSELFTESTS_DIR) for p in paths):
		types.append(KSELFTEST_IGNORE)
	return ','.join(types)

def not_looked_up(tree_dir: str, patches: List[str]) -> Dict[str, List[str]]:
	"""The commits each of @patches names that checkpatch cannot look up,
	in a tree without history: for you to look up in upstream's."""
	if has_history(tree_dir):
		return {}
	return {patch: refs for patch in patches for refs in [commit_refs(patch)] if refs}

def run(tree_dir: str, patches: List[str]) -> Dict[str, str]:
	"""checkpatch.pl --strict of each patch (not the cover letter), with
	the tree (@tree_dir, a git worktree: checkpatch looks for .git where it
	runs): the problems it found, by patch; empty when clean."""
	problems = {}
	path = os.pathsep.join([DEBIAN_PYTHON_DIR, os.environ.get('PATH', '')])
	history = has_history(tree_dir)
	for patch in patches:
		result = proc.run(['perl', os.path.join('scripts', 'checkpatch.pl'),
				   '--strict', '--ignore', ignored(patch, history), '--terse',
				   '--show-types', os.path.abspath(patch)],
				  cwd=tree_dir, env=dict(os.environ, PATH=path), stderr=proc.To.MERGED)
		if result.returncode != 0:
			problems[patch] = result.stdout.strip()
	return problems
