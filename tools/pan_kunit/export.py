# SPDX-License-Identifier: GPL-2.0
#
# `pan-kunit export DIR`: the repo as an upstream series, made with git
# format-patch in the check worktree, on the Debian base:
#
#   one patch per suite of kunit/   the suites' files; no Makefile builds
#                                   them yet, so every prefix builds
#   the patches of patches/series   the hooks that build them
#   the .kunitconfig                from kunitconfig
#
# and a cover letter from patches/cover-letter.  Every patch must pass
# checkpatch.pl --strict.

import os
import re
import subprocess
from dataclasses import dataclass
from typing import Dict, List, Tuple

from pan_kunit import Error, check, tree
from pan_kunit.sources import Sources, TREE_KUNITCONFIG

COVER_LETTER = os.path.join('patches', 'cover-letter')
# checkpatch warns about every patch that adds a file unless it also edits
# MAINTAINERS; arch/arm64/ already belongs to "ARM64 PORT (AARCH64
# ARCHITECTURE)", so that warning says nothing here.
CHECKPATCH_IGNORE = 'FILE_PATH_CHANGES'
# A suite's C file names it in its struct kunit_suite.
SUITE_NAME = re.compile(r'\.name\s*=\s*"(arm64_[a-z0-9_]+)"')

@dataclass
class Suite:
	name: str           # the KUnit suite, e.g. arm64_alternative
	paths: List[str]    # its files, in the tree
	summary: str        # the first paragraph of its C file's header comment

def _header_comment(text: str) -> str:
	"""The first paragraph of the first /* */ comment, unwrapped."""
	match = re.search(r'/\*(.*?)\*/', text, re.S)
	if not match:
		return ''
	lines = [line.strip().lstrip('*').strip() for line in match.group(1).splitlines()]
	paragraph: List[str] = []
	for line in lines:
		if not line and paragraph:
			break
		if line:
			paragraph.append(line)
	return ' '.join(paragraph)

def suites(sources: Sources) -> List[Suite]:
	"""Groups kunit/'s files by stem (foo_test.c, foo_test.h and
	foo_test_asm.S are one suite), named by the suite its C file defines."""
	groups: Dict[Tuple[str, str], List[str]] = {}
	for path in sorted(sources.suites):
		if path == TREE_KUNITCONFIG:
			continue
		stem = os.path.splitext(os.path.basename(path))[0]
		stem = stem[:-len('_asm')] if stem.endswith('_asm') else stem
		groups.setdefault((os.path.dirname(path), stem), []).append(path)
	found = []
	for (_, stem), paths in sorted(groups.items()):
		c_files = [p for p in paths if p.endswith('.c')]
		text = sources.suites[c_files[0]].decode(errors='replace') if c_files else ''
		names = SUITE_NAME.findall(text)
		if not names:
			raise Error(f'kunit/{paths[0]}: cannot tell which suite it is (no C file with '
				    '.name = "arm64_..."); export needs one per group of files')
		found.append(Suite(names[0], paths, _header_comment(text)))
	return found

def _wrap(text: str, width: int=72) -> str:
	lines: List[str] = []
	for word in text.split():
		if lines and len(lines[-1]) + 1 + len(word) <= width:
			lines[-1] += ' ' + word
		else:
			lines.append(word)
	return '\n'.join(lines)

def _identity(patch: str) -> Tuple[str, str]:
	"""The author and Signed-off-by line of a patch of the series."""
	with open(patch, errors='replace') as f:
		text = f.read()
	author = re.search(r'^From: (.+(?:\n .+)*)$', text, re.M)
	signed = re.search(r'^Signed-off-by: .+$', text, re.M)
	if not author or not signed:
		raise Error(f'{patch}: no From: or Signed-off-by: line to sign the suite patches with')
	return ' '.join(author.group(1).split()), signed.group(0)

def suite_message(suite: Suite, signed_off_by: str) -> str:
	# The subsystem prefix upstream uses: "mm" for arch/arm64/mm, else
	# the first word of the file (cpufeature, alternative, cpucap).
	directory = os.path.basename(os.path.dirname(suite.paths[0]))
	area = directory if directory == 'mm' else \
		os.path.basename(suite.paths[0]).split('_')[0]
	files = ', '.join(os.path.basename(p) for p in suite.paths)
	body = (f'{suite.summary}\n\n' if suite.summary else '') + (
		f'The suite is {suite.name}, in {files}. No Makefile builds it yet: '
		'a later patch of this series adds its Kconfig symbol and hooks it in.')
	return f'arm64: {area}: add the {suite.name} KUnit suite\n\n{_wrap(body)}\n\n{signed_off_by}\n'

def _commit(worktree: str, paths: List[str], message: str, author: str) -> None:
	tree.git(worktree, '--literal-pathspecs', 'add', '-f', '--', *paths)
	name, _, email = author.rpartition(' <')
	env_args = ['-c', f'user.name={name}', '-c', f'user.email={email.rstrip(">")}']
	result = subprocess.run(['git', '-C', worktree] + env_args +
				['commit', '-q', '--author', author, '-F', '-'],
				input=message, text=True, stdout=subprocess.PIPE,
				stderr=subprocess.PIPE, check=False,
				env=dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull,
					 GIT_CONFIG_NOSYSTEM='1'))
	if result.returncode != 0:
		raise Error(f'git commit failed in {worktree}:\n{result.stderr.strip()}')

def _write(worktree: str, sources: Sources, paths: List[str]) -> None:
	for path in paths:
		full = os.path.join(worktree, path)
		os.makedirs(os.path.dirname(full), exist_ok=True)
		with open(full, 'wb') as f:
			f.write(sources.suites[path])

def _cover_letter(repo: str) -> Tuple[str, str]:
	path = os.path.join(repo, COVER_LETTER)
	try:
		with open(path) as f:
			subject, _, body = f.read().partition('\n')
	except OSError as e:
		raise Error(f'cannot read the cover letter {path}: {e.strerror}')
	return subject.strip(), body.strip()

def series_author(sources: Sources) -> str:
	return _identity(sources.patches[0])[0]

def build_series(worktree: str, repo: str, sources: Sources) -> int:
	"""Commits the series on the base in @worktree; returns its length."""
	check.reset(worktree, tree.BASE_REF)
	author, signed_off_by = _identity(sources.patches[0])
	count = 0
	for suite in suites(sources):
		_write(worktree, sources, suite.paths)
		_commit(worktree, suite.paths, suite_message(suite, signed_off_by), author)
		count += 1
	for patch in sources.patches:
		why = check.apply(worktree, check.Patch(patch, os.path.basename(patch), ''))
		if why is not None:
			raise Error(f'{patch} does not apply after the suites:\n{why}')
		count += 1
	_write(worktree, sources, [TREE_KUNITCONFIG])
	_commit(worktree, [TREE_KUNITCONFIG],
		'arm64: kernel: add a .kunitconfig for the arm64 KUnit suites\n\n' + _wrap(
			'With it, "./tools/testing/kunit/kunit.py run --arch=arm64 '
			'--kunitconfig=arch/arm64/kernel" builds and runs every suite of this '
			'series.') + f'\n\n{signed_off_by}\n', author)
	return count + 1

def check_out_dir(out: str) -> None:
	"""Refuses a DIR that export cannot write the series into."""
	if os.path.exists(out) and (not os.path.isdir(out) or os.listdir(out)):
		raise Error(f'{out} exists and is not an empty directory; export writes only '
			    'into a new or empty one')
	parent = os.path.dirname(out)
	while not os.path.exists(parent):
		parent = os.path.dirname(parent)
	if not os.path.isdir(parent) or not os.access(parent, os.W_OK | os.X_OK):
		raise Error(f'cannot create {out}: {parent} is not a directory pan-kunit can write to')

def format_patches(worktree: str, repo: str, out: str, author: str) -> List[str]:
	"""git format-patch of the series, and its cover letter, from @author."""
	check_out_dir(out)
	subject, body = _cover_letter(repo)
	tree.git(worktree, 'format-patch', '-q', '--cover-letter', '-o', out,
		 tree.BASE_REF + '..HEAD')
	files = sorted(os.path.join(out, f) for f in os.listdir(out))
	cover = files[0]
	with open(cover) as f:
		text = f.read()
	text = text.replace('*** SUBJECT HERE ***', subject).replace('*** BLURB HERE ***', body)
	text = re.sub(r'^From: .*(?:\n[ \t].*)*$', lambda _: f'From: {author}', text, count=1,
		      flags=re.M)
	with open(cover, 'w') as f:
		f.write(text)
	return files

def checkpatch(tree_dir: str, patches: List[str]) -> Dict[str, str]:
	"""checkpatch.pl --strict of each patch (not the cover letter):
	the problems it found, by patch; empty when clean."""
	problems = {}
	script = os.path.join(tree_dir, 'scripts', 'checkpatch.pl')
	for patch in patches:
		result = subprocess.run(['perl', script, '--strict', '--no-tree', '--ignore',
					 CHECKPATCH_IGNORE, '--terse', '--show-types', patch],
					stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
					check=False)
		if result.returncode != 0:
			problems[patch] = result.stdout.strip()
	return problems
