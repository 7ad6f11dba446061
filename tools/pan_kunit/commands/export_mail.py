# SPDX-License-Identifier: GPL-2.0
#
# What `export` puts into the mails of the series besides the patches: the
# recipients scripts/get_maintainer.pl gives, KUnit's, the stable list a
# fix goes to, and the cover letter's results of the whole series per QEMU CPU.

import os
import re
from typing import List, Optional, Tuple

from pan_kunit import Error
from pan_kunit.host import proc
from pan_kunit.host.files import write_text
from pan_kunit.results.config_result import ConfigResult, Status

# What export writes into the cover letter in place of these lines: the
# kernel the series is against, and the results of its last step.
BASE_MARK = '@BASE@'
RESULTS_MARK = '@RESULTS@'
NO_RESULTS = ('Not built here (export --no-build): ./tools/testing/kunit/kunit.py run '
	      '--arch=arm64 gives the results of your QEMU.')

# The MAINTAINERS entry of KUnit, whose people and lists a series that
# adds KUnit suites goes to as well: get_maintainer.pl names them only for
# KUnit's own files (include/kunit/, lib/kunit/), not for a suite in arch/.
KUNIT_ENTRY = 'KERNEL UNIT TESTING FRAMEWORK (KUnit)'
# A file of a patch that makes it a KUnit patch: a suite, or a .kunitconfig.
_KUNIT_FILE = re.compile(r'^\+\+\+ b/\S*(?:_kunit\.c|/\.kunitconfig)$', re.M)

def _entry(worktree: str, name: str) -> List[Tuple[str, str]]:
	"""The lines of the tree's MAINTAINERS entry @name: (kind, value),
	as ('L', 'list@example.org'); none when it has no such entry."""
	try:
		with open(os.path.join(worktree, 'MAINTAINERS'), errors='replace') as f:
			text = f.read()
	except OSError:
		return []
	entry = re.search(rf'^{re.escape(name)}\n((?:[A-Z]:\t.*\n?)+)', text, re.M)
	if not entry:
		return []
	return [(line[0], line[3:].strip()) for line in entry.group(1).splitlines()]

def stable_list(worktree: str) -> Optional[str]:
	"""The list of the tree's MAINTAINERS entry "STABLE BRANCH" (its L:),
	to which a fix goes with "Cc:" (Documentation/process/stable-kernel-rules.rst)."""
	lists = [value.split()[0] for kind, value in _entry(worktree, 'STABLE BRANCH')
		 if kind == 'L']
	return lists[0] if lists else None

def kunit_recipients(worktree: str, patches: List[str]) -> List[str]:
	"""KUnit's maintainers, reviewers and lists (KUNIT_ENTRY's M:, R:
	and L:, a list without its "(moderated ...)"), when one of @patches
	adds or changes a KUnit suite or a .kunitconfig; else none."""
	for patch in patches:
		with open(patch, encoding='utf-8', errors='replace') as f:
			if _KUNIT_FILE.search(f.read()):
				break
	else:
		return []
	return [value.split(' (')[0] if kind == 'L' else value
		for kind, value in _entry(worktree, KUNIT_ENTRY) if kind in 'MRL']

def recipients(worktree: str, patches: List[str]) -> Tuple[List[str], List[str]]:
	"""To: and Cc: of @patches: what scripts/get_maintainer.pl of the
	tree says of them (without git history, which a tree made from
	Debian's tarball does not have): its maintainers, then the rest
	(reviewers, lists)."""
	result = proc.run(['perl', os.path.join('scripts', 'get_maintainer.pl'), '--no-git',
			   '--no-git-fallback', '--rolestats'] + patches, cwd=worktree)
	if result.returncode != 0:
		raise Error(f'scripts/get_maintainer.pl failed in {worktree}:\n'
			    f'{(result.stdout + result.stderr).strip()}')
	to: List[str] = []
	cc: List[str] = []
	for line in result.stdout.splitlines():
		found = re.match(r'^(.*?<?\S+@\S+?>?)\s+\((.*)\)$', line.strip())
		if not found:
			continue
		(to if found.group(2).startswith('maintainer:') else cc).append(found.group(1))
	return to, cc

def fill_results(cover: str, results: str) -> None:
	"""The cover letter's results, once the last step has run."""
	with open(cover, encoding='utf-8', errors='surrogateescape') as f:
		text = f.read()
	write_text(cover, text.replace(RESULTS_MARK, results), 'the cover letter')

def qemu_version() -> str:
	"""'QEMU 10.0.2', from qemu-system-aarch64 --version."""
	try:
		result = proc.run(['qemu-system-aarch64', '--version'])
	except FileNotFoundError:
		return 'QEMU'
	found = re.search(r'version (\d+(?:\.\d+)+)', result.stdout)
	return f'QEMU {found.group(1)}' if found else 'QEMU'

def results_block(step_configs: List[ConfigResult], qemu: str) -> str:
	"""The cover letter's results: per QEMU config of the last step, its
	CPU and its passed/failed/skipped leaf cases."""
	if not step_configs:
		return NO_RESULTS
	lines = [f'Results of the whole series under {qemu} (TCG), leaf cases',
		 'passed/failed/skipped:', '']
	width = max(len(r.name) for r in step_configs)
	cpus = max(len(r.cpu or '') for r in step_configs)
	for r in step_configs:
		counts = r.totals()
		lines.append(f'  {r.name.ljust(width)}  {(r.cpu or "").ljust(cpus)}  '
			     f'{counts.passed}/{counts.failed + counts.errors}/{counts.skipped}'
			     f'{"" if r.status == Status.PASS else "  (" + r.status + ")"}')
	return '\n'.join(lines)
