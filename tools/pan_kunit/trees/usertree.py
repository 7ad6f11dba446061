# SPDX-License-Identifier: GPL-2.0
#
# A kernel tree of the user's own: --tree DIR names a git checkout that
# pan-kunit did not make (no refs/pan-kunit/base), at the user's branch,
# with their commits and their uncommitted edits.  pan-kunit never writes
# into it: it runs only git plumbing there that reads (`git diff` and
# `git status` may rewrite the index to refresh its stat cache; `git
# diff-index` does not), with optional locks off too.  The clone writes
# the user's edits and the suites only where the user's repository lacks
# them; when git writes an object that repository already holds (a patch
# of the user's own range that bisect applies again, the series in a tree
# that holds it on another branch), it refreshes that object file's mtime
# instead ("freshening", so that a prune keeps it): the bytes never change.
#
# It works in a clone of its own, under $PAN_KUNIT_CACHE/own/, which
# shares the tree's objects (objects/info/alternates, as `git clone
# --shared` makes it) and is set up as a prepared tree: its base
# (refs/pan-kunit/base) is the user's HEAD plus their uncommitted edits
# (tracked and untracked files, as one commit), its prepared commit
# (refs/pan-kunit/prepared) that plus the series of the kernel and the
# suites.  The commits are made in a separate index and checked out at
# the end, so that a file the next run leaves as it was keeps its mtime
# and make does not rebuild it.  A tree that already holds the suites
# (after `git am` of `export`'s series) is taken as it is.

import hashlib
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from pan_kunit import Error
from pan_kunit.host import files, gitcmd, proc
from pan_kunit.host.printer import Printer
from pan_kunit.trees import kernels, series, tree
from pan_kunit.trees.kernels import KernelSpec
from pan_kunit.trees.sources import Sources

# Where the clones are, under the cache: one per tree, by its path.
OWN_DIR = 'own'
# The commit of the user's edits, and of the suites.
EDITS_SUBJECT = 'pan-kunit: the uncommitted edits of {}'
# What the clone last prepared, so that an unchanged tree costs no commits.
KEY_FILE = 'pan-kunit-key'
INDEX_FILE = 'pan-kunit-index'

# The user's own configuration, and no optional locks.
_READ_ENV = {'GIT_OPTIONAL_LOCKS': '0', 'LC_ALL': 'C'}

def _read(user: str, *args: str, check: bool=False) -> proc.Result:
	"""git in the user's tree, reading only: no optional locks, so that
	not even the index's stat cache is refreshed."""
	return gitcmd.run(user, *args, env=_READ_ENV, decoding=proc.Decoding.EXACT, locks=False,
			  check=check)

def _read_ok(user: str, *args: str) -> str:
	return _read(user, *args, check=True).stdout

def is_user_tree(path: str) -> bool:
	"""A git checkout that pan-kunit did not make."""
	if not os.path.isdir(path) or not os.path.exists(os.path.join(path, '.git')):
		return False
	found = _read(path, 'rev-parse', '--verify', '-q', tree.BASE_REF)
	return found.returncode != 0

def clone_dir(cache: str, user: str) -> str:
	"""The clone of the tree @user, under @cache."""
	real = os.path.realpath(user)
	digest = hashlib.sha256(real.encode()).hexdigest()[:10]
	return os.path.join(cache, OWN_DIR, f'{os.path.basename(real) or "tree"}-{digest}')

def series_kernel(user: str, available: Sequence[KernelSpec]) -> Tuple[KernelSpec, str]:
	"""The kernel whose series and suites @user gets (of @available, oldest
	first): the one of its Makefile's VERSION.PATCHLEVEL, else the newest
	below it, with a note that says so; refused when older than all."""
	found = kernels.makefile_version(user)
	try:
		version = (int(found['VERSION']), int(found['PATCHLEVEL']))
	except (KeyError, ValueError):
		raise Error(f'{user} is a git tree, but its Makefile gives no kernel version '
			    '(VERSION, PATCHLEVEL): is it a Linux tree?') from None
	name = f'{version[0]}.{version[1]}'
	below = [k for k in available if k.version() <= version]
	if not below:
		raise Error(f'{user} holds Linux {name}, older than every kernel pan-kunit has a '
			    f'series for ({", ".join(k.name for k in available)})')
	chosen = below[-1]
	note = '' if chosen.name == name else (
		f'{user} holds Linux {name}{found.get("EXTRAVERSION", "")}: pan-kunit has no '
		f'series for it, and uses {chosen.name}\'s ({chosen.series()}), the newest below it')
	return chosen, note

@dataclass
class Change:
	"""A file of the user's working tree that HEAD does not hold so."""
	path: str
	mode: str        # '' when deleted
	blob: str        # its object id, as git hashes it; '' when deleted

@dataclass
class UserState:
	"""What the user's tree holds now."""
	path: str
	head: str                   # HEAD's commit
	branch: Optional[str]       # None when detached
	subject: str
	changes: List[Change]       # tracked edits (staged or not) and untracked files

	@property
	def edited(self) -> List[str]:
		return [c.path for c in self.changes]

	def key(self, sources: Sources) -> str:
		"""What the clone holds when it holds this state with @sources."""
		digest = hashlib.sha256()
		for part in [self.head, sources.patches_digest(), sources.suites_digest()] + [
				f'{c.path}\0{c.mode}\0{c.blob}' for c in self.changes]:
			digest.update(part.encode() + b'\0')
		return digest.hexdigest()

	def describe(self, with_edits: bool=True) -> str:
		where = f'branch {self.branch}' if self.branch else 'a detached HEAD'
		text = f'{where} at {self.head[:12]} ("{self.subject}")'
		if with_edits and self.edited:
			listed = ', '.join(self.edited[:5]) + (
				f' and {len(self.edited) - 5} more' if len(self.edited) > 5 else '')
			text += f', with your uncommitted edits of {listed}'
		elif with_edits:
			text += ', without uncommitted edits'
		return text

def _mode(full: str) -> str:
	"""The git mode of a working file, as git add records it: a link, or a
	file that is executable by its owner or not."""
	info = os.lstat(full)
	if stat.S_ISLNK(info.st_mode):
		return '120000'
	return '100755' if info.st_mode & stat.S_IXUSR else '100644'

def read_state(user: str, hasher: 'Clone') -> UserState:
	"""HEAD, and what the working tree changes of it: diff-index lists the
	candidates (an entry whose stat cache is stale is one too), each is
	hashed (by @hasher, which writes nothing) and kept if it differs."""
	head = _read_ok(user, 'rev-parse', '--verify', 'HEAD^{commit}').strip()
	branch = _read(user, 'symbolic-ref', '-q', '--short', 'HEAD').stdout.strip() or None
	subject = _read_ok(user, 'log', '-1', '--format=%s', head, '--').strip()
	listed = _read_ok(user, 'diff-index', '-z', '--no-renames', '--name-status', 'HEAD', '--')
	fields = [f for f in listed.split('\0') if f]
	candidates = {path: status for status, path in zip(fields[::2], fields[1::2])}
	candidates.update((p, '?') for p in _read_ok(user, 'ls-files', '-z', '--others',
						       '--exclude-standard').split('\0') if p)
	present = sorted(p for p, status in candidates.items()
			 if status != 'D' and os.path.lexists(os.path.join(user, p)) and
			 (os.path.islink(os.path.join(user, p)) or not os.path.isdir(os.path.join(user, p))))
	blobs = dict(zip(present, hasher.hash_files([os.path.join(user, p) for p in present])))
	known = {}
	# The whole tree, not the candidates on the command line: a stale stat
	# cache (a copied tree) makes every file one.
	listing = hasher.git('ls-tree', '-r', '-z', '--full-tree', head) if candidates else ''
	for line in listing.split('\0'):
		if line:
			info, path = line.split('\t', 1)
			mode, _, blob = info.split()
			known[path] = (mode, blob)
	changes = []
	for path in sorted(candidates):
		if os.path.isdir(os.path.join(user, path)) and not os.path.islink(os.path.join(user, path)):
			continue  # an untracked repository of its own: git add would not take it either
		if path not in blobs:
			if path in known:
				changes.append(Change(path, '', ''))
			continue
		mode = _mode(os.path.join(user, path))
		if known.get(path) != (mode, blobs[path]):
			changes.append(Change(path, mode, blobs[path]))
	return UserState(user, head, branch, subject, changes)

def range_commits(user: str, rev_range: str) -> List[str]:
	"""The commits of @rev_range in the user's tree, oldest first, read
	as every git of their tree is (_read())."""
	return series.range_commits(user, rev_range, _read)

def resolve_range(user: str, rev_range: str) -> Tuple[str, str]:
	"""BASE..TIP of the user's tree as commits: where a check of the range
	starts (their merge base) and its tip."""
	base_name, tip_name = rev_range.split('..')
	tip = _read_ok(user, 'rev-parse', '--verify', '--end-of-options',
		       (tip_name or 'HEAD') + '^{commit}').strip()
	base = _read(user, 'merge-base', '--end-of-options', base_name or 'HEAD', tip)
	if base.returncode != 0:
		raise Error(f'SERIES {rev_range}: {base_name} and {tip_name or "HEAD"} have no common '
			    f'ancestor in {user}:\n{base.stderr.strip()}')
	range_commits(user, f'{base.stdout.strip()}..{tip}')
	return base.stdout.strip(), tip

class Clone:
	"""pan-kunit's clone of a user's tree (see the top of the file)."""

	def __init__(self, user: str, path: str) -> None:
		self.user = user
		self.path = path

	def git(self, *args: str, index: bool=False, stdin: Optional[bytes]=None,
		env: Optional[Dict[str, str]]=None) -> str:
		"""git in the clone; @index: on pan-kunit's own index file."""
		extra = dict(env or {})
		if index:
			extra['GIT_INDEX_FILE'] = os.path.join(self.path, '.git', INDEX_FILE)
		return gitcmd.run(self.path, *args, env={**gitcmd.OWN, **extra}, input=stdin,
				  decoding=proc.Decoding.EXACT, check=True).stdout

	def create(self, printer: Printer) -> None:
		"""An empty repository that reads the user's objects, made in a
		sibling directory and renamed when complete, so that an interrupted
		one is never taken for a clone; what an interrupted one left
		beside it is removed (a stopped one removes its own)."""
		objects = os.path.join(_read_ok(self.user, 'rev-parse', '--path-format=absolute',
						'--git-common-dir').strip(), 'objects')
		os.makedirs(os.path.dirname(self.path), exist_ok=True)
		tree.remove_stale_partials(printer, self.path)
		partial = f'{self.path}.partial-{os.getpid()}'
		shutil.rmtree(self.path, ignore_errors=True)  # one without .git: interrupted before
		try:
			tree.git(os.path.dirname(self.path), 'init', '-q',
				 '--initial-branch=' + tree.BRANCH, partial)
			# Nothing pruned or repacked behind pan-kunit's back.
			tree.git(partial, 'config', 'gc.auto', '0')
			tree.git(partial, 'config', 'maintenance.auto', 'false')
			with open(os.path.join(partial, '.git', 'objects', 'info', 'alternates'), 'w') as f:
				f.write(objects + '\n')
			tree.exclude_outputs(partial)
			os.rename(partial, self.path)
		finally:
			shutil.rmtree(partial, ignore_errors=True)

	def commit(self, subject: str, parent: str, body: str='',
		   author: Optional[Dict[str, str]]=None) -> str:
		tree_id = self.git('write-tree', index=True).strip()
		message = subject + (f'\n\n{body}' if body else '') + '\n'
		return self.git('commit-tree', tree_id, '-p', parent, stdin=message.encode(),
				env=author).strip()

	def hash_files(self, paths: Sequence[str], write: bool=False) -> List[str]:
		"""The blob ids of files (a symbolic link's target, as git
		stores it), written into the clone with @write."""
		ids = []
		for path in paths:
			if os.path.islink(path):
				ids.append(self.git('hash-object', *(['-w'] if write else []), '--stdin',
						    stdin=os.fsencode(os.readlink(path))).strip())
			else:
				ids.append('')
		files = [p for p, i in zip(paths, ids) if not i]
		if files:
			found = iter(self.git('hash-object', *(['-w'] if write else []), '--stdin-paths',
					      '--no-filters',
					      stdin=''.join(f'{p}\n' for p in files).encode()).split())
			ids = [i or next(found) for i in ids]
		return ids

	def missing(self, blobs: Sequence[str]) -> List[str]:
		"""Those of @blobs that neither the clone nor the user's objects
		hold: the only ones it writes (see the top of the file)."""
		if not blobs:
			return []
		out = self.git('cat-file', '--batch-check=%(objectname)',
			       stdin=''.join(f'{b}\n' for b in blobs).encode())
		return [line.split()[0] for line in out.splitlines() if line.endswith(' missing')]

	def add_edits(self, state: UserState) -> str:
		"""The user's HEAD plus their edits, as a commit (HEAD if none)."""
		self.git('read-tree', state.head, index=True)
		if not state.changes:
			return state.head
		written = [c for c in state.changes if c.blob]
		lacking = set(self.missing([c.blob for c in written]))
		self.hash_files([os.path.join(state.path, c.path) for c in written
				 if c.blob in lacking], write=True)
		entries = ''.join(f'{c.mode} {c.blob}\t{c.path}\0' if c.blob else
				  f'0 {"0" * 40}\t{c.path}\0' for c in state.changes)
		self.git('update-index', '-z', '--index-info', index=True, stdin=entries.encode())
		return self.commit(EDITS_SUBJECT.format(state.path), state.head,
				   'Files: ' + ', '.join(state.edited))

	def held(self, rev: str, paths: Sequence[str]) -> List[str]:
		"""Those of @paths that @rev holds."""
		listed = set(self.git('ls-tree', '-r', '--name-only', '-z', rev, '--',
				      *paths).split('\0'))
		return [p for p in paths if p in listed]

	def apply_series(self, base: str, sources: Sources, kernel: KernelSpec) -> str:
		"""@base plus each patch of the series, a commit each, with the
		patch's author, date and message (git mailinfo)."""
		rev = base
		for number, patch in enumerate(sources.patches, 1):
			with open(patch, 'rb') as f:
				mail = f.read()
			try:
				self.git('apply', '--cached', '--whitespace=nowarn', index=True, stdin=mail)
			except Error as e:
				lines = [line for line in str(e).splitlines()[1:] if line.strip()]
				raise Error(f'patch {number} of {sources.series}, {patch}, does not apply to '
					    f'{self.user} ({kernel.name}\'s series, on your code):\n' +
					    '\n'.join('  ' + line for line in lines) +
					    '\nnothing was built; apply the series yourself (git am), or '
					    'rebase your branch') from None
			rev = self.commit_mail(mail, rev)
		return rev

	def commit_mail(self, mail: bytes, parent: str) -> str:
		with tempfile.TemporaryDirectory(prefix='pan-kunit-mailinfo-') as scratch:
			msg, body = os.path.join(scratch, 'msg'), os.path.join(scratch, 'patch')
			info = gitcmd.run(None, 'mailinfo', msg, body, input=mail, cwd=scratch,
					  stderr=proc.To.TERMINAL).output.decode(errors='replace')
			with open(msg, errors='replace') as f:
				text = f.read().strip()
		fields = dict(line.split(': ', 1) for line in info.splitlines() if ': ' in line)
		author = {'GIT_AUTHOR_NAME': fields.get('Author', gitcmd.NAME),
			  'GIT_AUTHOR_EMAIL': fields.get('Email', gitcmd.EMAIL)}
		if fields.get('Date'):
			author['GIT_AUTHOR_DATE'] = fields['Date']
		return self.commit(fields.get('Subject', 'pan-kunit patch'), parent, text, author)

	def add_suites(self, base: str, sources: Sources) -> str:
		for path, content in sorted(sources.suites.items()):
			blob = self.git('hash-object', '--stdin', stdin=content).strip()
			if self.missing([blob]):
				self.git('hash-object', '-w', '--stdin', stdin=content)
			self.git('update-index', '--add', '--cacheinfo', f'100644,{blob},{path}', index=True)
		return self.commit(tree.SUITES_SUBJECT, base,
				   f'{tree.PATCHES_TRAILER}: {sources.patches_digest()}\n'
				   f'{tree.SUITES_TRAILER}: {sources.suites_digest()}')

	def key_path(self) -> str:
		return os.path.join(self.path, '.git', KEY_FILE)

@dataclass
class UserRange:
	"""A git range SERIES of a tree of the user's, which bisect checks in
	its clone."""
	user: str      # the tree, as given
	given: str     # the range, as given: for the reproduce line
	base: str      # where the check starts: the range's base, without the edits

@dataclass
class Prepared:
	clone: str
	state: UserState
	carried: bool           # the tree held the suites: taken as it is
	edits: bool             # the user's uncommitted edits are in it

def prepare(printer: Printer, user: str, clone_path: str, kernel: KernelSpec, sources: Sources,
	    at: Optional[str]=None, note: str='') -> Prepared:
	"""Makes @clone_path the prepared tree of @user's HEAD and edits (or
	of the commit @at, without them) with @kernel's series and the suites,
	and says what it holds."""
	clone = Clone(user, clone_path)
	if not os.path.isdir(os.path.join(clone_path, '.git')):
		printer.print(f'creating {clone_path}, pan-kunit\'s clone of {user} (it shares its '
			      f'objects; {user} itself is only read)')
		clone.create(printer)
	state = read_state(user, clone)
	edits = at is None and bool(state.edited)
	key = state.key(sources) if at is None else (
		f'{at}\n{sources.patches_digest()}\n{sources.suites_digest()}')
	try:
		with open(clone.key_path()) as f:
			same = f.read() == key
	except OSError:
		same = False
	prepared = tree.rev(clone_path, tree.PREPARED_REF)
	if note:
		printer.print(note)
	if same and prepared and tree.rev(clone_path, 'HEAD') == prepared:
		base = tree.rev(clone_path, tree.BASE_REF) or prepared
		carried = base == prepared
	else:
		if at is None:
			base = clone.add_edits(state)
		else:
			base = clone.git('rev-parse', '--verify', at + '^{commit}').strip()
			clone.git('read-tree', base, index=True)
		paths = sorted(sources.suites)
		held = clone.held(base, paths)
		carried = len(held) == len(paths)
		try:
			prepared = base if carried else clone.add_suites(
				clone.apply_series(base, sources, kernel), sources)
		except Error as e:
			if not held:
				raise
			lacking = ', '.join(p for p in paths if p not in held)[:400]
			raise Error(f'{e}\nyour tree holds {len(held)} of the {len(paths)} files '
				    f'of the suites, not {lacking}: a tree that holds them all is '
				    'taken as it is (a file .gitignore hides is not in it: git add -f)'
				    ) from None
		tree.git(clone_path, 'update-ref', tree.BASE_REF, base)
		tree.git(clone_path, 'update-ref', tree.PREPARED_REF, prepared)
		tree.git(clone_path, 'checkout', '-q', '-f', '--detach', prepared)
		files.write_text(clone.key_path(), key)
	what = (f'your tree {user}: ' + (state.describe() if at is None else
					 f'commit {at[:12]}, without your uncommitted edits'))
	if carried:
		printer.print(f'{what}; it holds the suites already: taken as it is')
	else:
		printer.print(f'{what}; with {kernel.name}\'s series ({sources.series}) and the suites '
			      f'on top, in {clone_path}')
	return Prepared(clone_path, state, carried, edits)

def kernel_record(prepared: Prepared) -> tree.Kernel:
	"""What a test record names: the user's commit and branch, and whether
	their edits were built."""
	return tree.Kernel(version=tree.kernel_version(prepared.clone), package=None,
			   package_version=None, commit=prepared.state.head,
			   branch=prepared.state.branch, dirty=prepared.edits)
