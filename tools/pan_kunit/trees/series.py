# SPDX-License-Identifier: GPL-2.0
#
# The SERIES of `pan-kunit bisect`: a directory of patches, an mbox, or a
# git range BASE..TIP of the tree, loaded as patch files that git am can
# take (checked with git mailinfo, as git am reads them), each with the
# name the report gives it and its subject.

import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from pan_kunit import Error, StrEnum
from pan_kunit.host import gitcmd, proc
from pan_kunit.trees import tree

@dataclass
class Patch:
	path: str     # a file `git am` takes
	name: str     # how the report names it
	subject: str

@dataclass
class MailInfo:
	"""A patch mail as git mailinfo (as git am) reads it: headers decoded
	(RFC 2047) and the subject without its [PATCH n/m], the message, UTF-8."""
	headers: Dict[str, str]
	message: str

def mailinfo(path: str) -> MailInfo:
	with tempfile.TemporaryDirectory(prefix='pan-kunit-mailinfo-') as scratch:
		message, diff = os.path.join(scratch, 'message'), os.path.join(scratch, 'diff')
		try:
			with open(path, 'rb') as mail:
				result = _git_tool(['mailinfo', '-u', message, diff], stdin=mail)
		except OSError as e:
			raise Error(f'cannot read {path}: {e.strerror}')
		if result.returncode != 0:
			raise Error(f'git mailinfo {path} failed:\n{result.stderr.strip()}')
		with open(message, encoding='utf-8', errors='replace') as f:
			body = f.read()
	headers = dict(line.split(': ', 1) for line in result.stdout.splitlines() if ': ' in line)
	return MailInfo(headers, body)

def subject(path: str) -> str:
	"""The Subject: of a patch mail, decoded, without its [PATCH n/m]."""
	return mailinfo(path).headers.get('Subject', '').strip()

def patch(path: str) -> Patch:
	"""The patch file at @path, named by its file name."""
	return Patch(path, os.path.basename(path), subject(path))

class Kind(StrEnum):
	"""What SERIES is; an mbox's patches are named by it."""
	DIRECTORY = 'directory'
	MBOX = 'mbox'
	GIT_RANGE = 'git range'

# The files of a directory without a series file that are patches.
PATCH_SUFFIXES = ('.patch', '.diff', '.eml', '.mbox')
# How many unusable patches an error lists.
MAX_LISTED = 10

def kind(spec: str) -> Kind:
	"""What SERIES @spec is: a directory, an mbox or a git range; an Error
	for anything else, which no tree is needed to tell."""
	if os.path.isdir(spec):
		return Kind.DIRECTORY
	if os.path.isfile(spec):
		return Kind.MBOX
	if os.path.exists(spec):
		raise Error(f'SERIES {spec} is neither a directory nor a file')
	if '...' in spec:
		raise Error(f'SERIES {spec!r}: A...B means the commits of either side, not a '
			    'series; give BASE..TIP')
	if spec.count('..') != 1:
		raise Error(f'SERIES {spec!r} is no directory or file, and no git range BASE..TIP; '
			    'a branch or commit alone would be its whole history, the Debian base '
			    f'included (for a branch on the prepared tree: {tree.PREPARED_REF}..{spec})')
	# ../my-series, ./x..y, dir/..: a path mistyped, not a range.
	if any(side.startswith(('.', '/')) or side.endswith('/') for side in spec.split('..')):
		raise Error(f'SERIES {spec}: no such file or directory')
	return Kind.GIT_RANGE

def range_commits(tree_dir: str, rev_range: str,
		  git: Optional[Callable[..., proc.Result]]=None) -> List[str]:
	"""The commits of the git range @rev_range of the tree, oldest first,
	read with @git (default: tree.git, unchecked); an Error when git
	cannot read it or it is empty."""
	git = git or (lambda directory, *args: tree.git(directory, *args, check=False))
	listed = git(tree_dir, 'rev-list', '--reverse', '--no-merges', '--end-of-options', rev_range)
	if listed.returncode != 0:
		raise Error(f'SERIES {rev_range!r} is no directory or file, and git cannot read it '
			    f'as a range of {tree_dir}:\n{listed.stderr.strip()}')
	commits = listed.stdout.split()
	if not commits:
		raise Error(f'the git range {rev_range} of {tree_dir} is empty: no commit to check')
	return commits

def _git_tool(args: List[str], stdin: proc.Stream=proc.To.TERMINAL) -> proc.Result:
	"""git outside any repository: mailsplit and mailinfo."""
	return gitcmd.run(None, *args, stdin=stdin)

def _read_mail(path: str, scratch: str) -> Tuple[Optional[str], str]:
	"""Why git am cannot take the file at @path as one patch (None when
	it can), and its subject, as subject() reads it: one git mailinfo, as
	git am reads it, its message and diff written into @scratch."""
	message, diff = os.path.join(scratch, 'message'), os.path.join(scratch, 'diff')
	try:
		with open(path, 'rb') as mail:
			result = _git_tool(['mailinfo', '-u', message, diff], stdin=mail)
	except OSError as e:
		return f'cannot read it: {e.strerror}', ''
	if result.returncode != 0:
		return f'git mailinfo cannot read it: {result.stderr.strip()}', ''
	headers = dict(line.split(': ', 1) for line in result.stdout.splitlines() if ': ' in line)
	subject = headers.get('Subject', '').strip()
	if not headers.get('Email', '').strip():
		return ('no From: line with an e-mail address: git am takes a mail, not a plain diff '
			'(git format-patch makes one)', subject)
	if os.path.getsize(diff) == 0:
		return 'a mail with no diff: git am would stop at it ("Patch is empty")', subject
	return None, subject

def _subjects(spec: str, labelled: List[Tuple[str, str]]) -> List[str]:
	"""The subject of each patch of @labelled (path, label), with one git
	mailinfo each; refuses the series @spec when git am cannot take one
	of them."""
	with tempfile.TemporaryDirectory(prefix='pan-kunit-mailinfo-') as scratch:
		read = [(label, *_read_mail(path, scratch)) for path, label in labelled]
	problems = [f'{label}: {why}' for label, why, _ in read if why is not None]
	if problems:
		more = [f'... and {len(problems) - MAX_LISTED} more'] if len(problems) > MAX_LISTED else []
		raise Error(f'SERIES {spec}: git am cannot take ' +
			    ('this patch' if len(problems) == 1 else 'these patches') + ':\n' +
			    '\n'.join('  ' + p for p in problems[:MAX_LISTED] + more))
	return [subject for _, _, subject in read]

def _from_directory(directory: str) -> List[str]:
	series = os.path.join(directory, 'series')
	try:
		if os.path.isfile(series):
			with open(series) as f:
				names = [line.split('#', 1)[0].strip() for line in f]
			paths = [os.path.join(directory, n) for n in names if n]
			missing = [p for p in paths if not os.path.isfile(p)]
			if missing:
				raise Error(f'{series} names patches that do not exist: {", ".join(missing)}')
			if not paths:
				raise Error(f'{series} names no patches')
			return paths
		paths = [os.path.join(directory, n) for n in sorted(os.listdir(directory))
			 if n.endswith(PATCH_SUFFIXES)]
	except OSError as e:
		raise Error(f'cannot read the SERIES {directory}: {e.strerror}')
	if not paths:
		raise Error(f'no patches in the directory {directory}: it has no series file, and no '
			    + ', '.join('*' + s for s in PATCH_SUFFIXES))
	return paths

def _from_mbox(mbox: str, work: str) -> List[str]:
	out = os.path.join(work, 'mbox')
	shutil.rmtree(out, ignore_errors=True)
	os.makedirs(out)
	result = _git_tool(['mailsplit', '-o' + out, mbox])
	if result.returncode != 0:
		# A plain diff is a "corrupt mailbox" to mailsplit: say why.
		if os.path.getsize(mbox) > 0:
			_subjects(mbox, [(mbox, mbox)])
		raise Error(f'git mailsplit {mbox} failed:\n{result.stderr.strip()}')
	paths = [os.path.join(out, n) for n in sorted(os.listdir(out))]
	if not paths:
		raise Error(f'no mail in the mbox {mbox}')
	return paths

def _from_range(tree_dir: str, rev_range: str, work: str) -> List[Tuple[str, str]]:
	"""A patch file of each commit of @rev_range, in @work, with its label."""
	commits = range_commits(tree_dir, rev_range)
	out = os.path.join(work, 'range')
	shutil.rmtree(out, ignore_errors=True)
	os.makedirs(out)
	paths = []
	empty = []
	for number, commit in enumerate(commits, 1):
		path = os.path.join(out, f'{number:04d}-{commit[:12]}.patch')
		mail = tree.git(tree_dir, 'format-patch', '-1', '--stdout', commit).stdout
		if not mail:
			empty.append(f'  commit {commit}: an empty commit, no diff for git am to apply')
		with open(path, 'w') as f:
			f.write(mail)
		paths.append(path)
	if empty:
		raise Error(f'SERIES {rev_range}: git am cannot take ' +
			    ('this commit' if len(empty) == 1 else 'these commits') + ':\n' +
			    '\n'.join(empty))
	return list(zip(paths, (f'commit {c}' for c in commits)))

def load(spec: str, tree_dir: str, work: str) -> List[Patch]:
	"""SERIES: a directory of patches (in its `series` file's order, else
	by name), an mbox, or a git range BASE..TIP of the tree; each patch
	one that git am can take (one git mailinfo each tells that and its
	subject).  A directory or an mbox needs no tree."""
	what = kind(spec)
	if what == Kind.DIRECTORY:
		labelled = [(p, p) for p in _from_directory(spec)]
	elif what == Kind.MBOX:
		labelled = [(p, f'mail {i} of {spec}') for i, p in enumerate(_from_mbox(spec, work), 1)]
	else:
		labelled = _from_range(tree_dir, spec, work)
	subjects = _subjects(spec, labelled)
	return [Patch(path=p, name=os.path.basename(p) if what != Kind.MBOX else f'{what} #{i}',
		      subject=subject) for i, ((p, _), subject) in enumerate(zip(labelled, subjects), 1)]
