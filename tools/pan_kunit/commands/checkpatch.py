# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict of the series `export` writes, run in a worktree
# of the tree, as upstream runs it on every patch it is sent.

import os
import re
from typing import Dict, List

from pan_kunit.host import proc

# checkpatch warns about every patch that adds a file unless it also edits
# MAINTAINERS; arch/arm64/ already belongs to "ARM64 PORT (AARCH64
# ARCHITECTURE)", so that warning says nothing here.  It also looks up
# the commit of a Fixes: tag in the tree's git history, which a tree
# made from Debian's tarball does not have (UNKNOWN_COMMIT_ID): the id
# and subject of 7.3's patch 0001 were checked against upstream's.
CHECKPATCH_IGNORE = 'FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID'
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

def ignored(patch: str) -> str:
	"""The checkpatch types left out for @patch: CHECKPATCH_IGNORE, and
	KSELFTEST_IGNORE for a patch that changes kselftests alone (their
	ARM64_SUBTARGETS line included)."""
	paths = changed_paths(patch)
	if paths and all(p.startswith(KSELFTESTS_DIR) for p in paths):
		return CHECKPATCH_IGNORE + ',' + KSELFTEST_IGNORE
	return CHECKPATCH_IGNORE

def run(tree_dir: str, patches: List[str]) -> Dict[str, str]:
	"""checkpatch.pl --strict of each patch (not the cover letter), with
	the tree (@tree_dir, a git worktree: checkpatch looks for .git where it
	runs): the problems it found, by patch; empty when clean."""
	problems = {}
	path = os.pathsep.join([DEBIAN_PYTHON_DIR, os.environ.get('PATH', '')])
	for patch in patches:
		result = proc.run(['perl', os.path.join('scripts', 'checkpatch.pl'),
				   '--strict', '--ignore', ignored(patch), '--terse',
				   '--show-types', os.path.abspath(patch)],
				  cwd=tree_dir, env=dict(os.environ, PATH=path), stderr=proc.To.MERGED)
		if result.returncode != 0:
			problems[patch] = result.stdout.strip()
	return problems
