# SPDX-License-Identifier: GPL-2.0
#
# pan-kunit's own kernel tree for the checks that change it (`bisect`,
# `mutants`, `export`): a git worktree of the prepared tree,
# <tree>/.pan-kunit/check/linux, on a detached HEAD, so that the user's
# tree, branch, index and uncommitted edits are never touched.  The
# worktree keeps its build directories (<worktree>/.pan-kunit/build/KEY)
# from step to step and from run to run, and git rewrites only the files
# a step changes, so a step costs an incremental build.  One command at a
# time holds it (locked()).

import contextlib
import os
from typing import Iterator, Optional

from pan_kunit.host import lockfile
from pan_kunit.host.printer import Printer
from pan_kunit.trees import tree
from pan_kunit.trees.sources import Sources, write_files

SUITES_FIRST_SUBJECT = 'pan-kunit: the KUnit suites, before the patches'

def location(tree_dir: str) -> str:
	"""Where the worktree of the prepared tree @tree_dir is."""
	return tree.state_dir(tree_dir, 'check', 'linux')

@contextlib.contextmanager
def locked(printer: Printer, tree_dir: str) -> Iterator[None]:
	"""Holds the check worktree for one command: two checks at once would
	reset it under each other.  Another check that holds it is named and
	refused (exit 2): a check holds it for its whole run; one that ended
	without releasing it is named, and its lock cleared (lockfile.py)."""
	path = tree.state_dir(tree_dir, 'check', 'lock')
	os.makedirs(os.path.dirname(path), exist_ok=True)
	with lockfile.held(printer, path, f'is using {location(tree_dir)}', wait=False):
		yield

def _git_dir(worktree: str) -> str:
	"""The git directory of @worktree, from its .git file ("gitdir: DIR",
	as git worktree add writes it) without a git, else git's answer."""
	try:
		with open(os.path.join(worktree, '.git')) as f:
			line = f.read().strip()
	except OSError:  # a directory (a main tree), or none
		line = ''
	if line.startswith('gitdir: '):
		return os.path.normpath(os.path.join(worktree, line[len('gitdir: '):]))
	return tree.git(worktree, 'rev-parse', '--absolute-git-dir').stdout.strip()

def reset(worktree: str, rev: str) -> None:
	"""Puts pan-kunit's own worktree at @rev, discarding what a previous
	check left in it; its build outputs stay."""
	if os.path.exists(os.path.join(_git_dir(worktree), 'rebase-apply')):
		tree.git(worktree, 'am', '--abort')
	tree.git(worktree, 'checkout', '-q', '--detach', '-f', rev)
	tree.git(worktree, 'clean', '-q', '-fdx', '-e', '/.pan-kunit/', '-e', '/.kunit/')

def checkout(printer: Printer, tree_dir: str, rev: str) -> str:
	"""The worktree of @tree_dir, created on first use, at @rev."""
	path = location(tree_dir)
	if not os.path.exists(os.path.join(path, '.git')):
		tree.git(tree_dir, 'worktree', 'prune')
		printer.print(f'creating the check worktree {path} ...')
		os.makedirs(os.path.dirname(path), exist_ok=True)
		tree.git(tree_dir, 'worktree', 'add', '-q', '--detach', path, rev)
	reset(path, rev)
	return path

def start_with_suites(worktree: str, base: str, sources: Sources) -> None:
	"""The start of a check of patches/: the Debian base plus the suites'
	files, which no Makefile builds until a patch hooks them in."""
	reset(worktree, base)
	write_files(worktree, sources.suites)
	tree.git(worktree, '--literal-pathspecs', 'add', '-f', '--', *sorted(sources.suites))
	tree.git(worktree, 'commit', '-q', '--allow-empty', '-m', SUITES_FIRST_SUBJECT)

def apply(worktree: str, patch: str) -> Optional[str]:
	"""git am of the patch file @patch; on failure, aborts it and returns why."""
	result = tree.git(worktree, 'am', '-q', '--committer-date-is-author-date', patch,
			  check=False)
	if result.returncode == 0:
		return None
	tree.git(worktree, 'am', '--abort', check=False)
	output = (result.stdout + result.stderr).splitlines()
	return '\n'.join([l for l in output if l.startswith(('error:', 'fatal:'))] or output[-10:])
