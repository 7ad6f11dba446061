# SPDX-License-Identifier: GPL-2.0
#
# The prepared tree: a git repository on branch pan-kunit whose history is
#
#   base     every file of the Debian tarball          refs/pan-kunit/base
#   patches  one commit per patches/VERSION/series entry (git am)
#   suites   kunit/ files and .kunitconfig, with the    refs/pan-kunit/prepared
#            digests of the patches and the suites as
#            trailers
#
# All of the tree's state is read from git; there is no state file.

import glob
import hashlib
import os
import shutil
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from pan_kunit import Error
from pan_kunit.host import files, gitcmd, lockfile, proc
from pan_kunit.host.printer import Printer
from pan_kunit.trees import kernels
from pan_kunit.trees.kernels import KernelSpec
from pan_kunit.trees.sources import Sources, write_files

BRANCH = 'pan-kunit'
BASE_REF = 'refs/pan-kunit/base'
PREPARED_REF = 'refs/pan-kunit/prepared'
SUITES_SUBJECT = 'pan-kunit: install KUnit suites'
PATCHES_TRAILER = 'Pan-Kunit-Patches'
SUITES_TRAILER = 'Pan-Kunit-Suites'
# Where pan-kunit keeps its files in a tree: builds, boots, logs, its worktree.
STATE_DIR = '.pan-kunit'
# In the tree's .git: a setup is changing the tree (removed when it ends),
# and the lock that one setup at a time holds.
SETUP_MARK = 'pan-kunit-setup'
SETUP_LOCK = 'pan-kunit-setup.lock'
# Build outputs of pan-kunit and of kunit_tool: never part of the tree's state.
OUTPUT_DIRS = [STATE_DIR + '/', '.kunit/']
# How many paths an error message lists.
MAX_LISTED = 20

def git(tree: str, *args: str, check: bool=True) -> proc.Result:
	"""git in @tree, as pan-kunit (gitcmd.OWN); with @check, an Error
	when it fails."""
	return gitcmd.run(tree, *args, check=check)

def rev(tree: str, ref: str) -> Optional[str]:
	result = git(tree, 'rev-parse', '--verify', '-q', ref + '^{commit}', check=False)
	return result.stdout.strip() if result.returncode == 0 else None

@dataclass(frozen=True)
class Refs:
	"""What a setup reads of pan-kunit's refs in a tree (refs_of()), with
	one git for all of it: a setup of a prepared tree would otherwise
	run five, for its checks and its decision, before it changes anything."""
	base: Optional[str] = None      # BASE_REF's commit, None if it names none
	base_subject: str = ''          # that commit's subject, '' if none
	prepared: Optional[str] = None  # PREPARED_REF's commit, None if it names none
	trailers: Mapping[str, str] = field(default_factory=dict)  # the prepared commit's

# Each of the refs, as refs_of() reads it: its fields ended by NULs, then
# git's newline.
_REFS_FORMAT = ('%(refname)%00%(objecttype)%00%(objectname)%00%(subject)%00'
		'%(trailers:only,unfold)%00')
_REFS_FIELDS = 5

def refs_of(tree: str, reached_from: Optional[str]=None) -> Refs:
	"""BASE_REF and PREPARED_REF of @tree, from one `git for-each-ref`:
	each ref that names a commit, its subject, and its trailers
	(rev(), base_subject() and _trailers() of the two refs, in one
	process); with @reached_from, only those that commit reaches (an
	ancestry check of each, in the same git).  A ref that names no
	commit, or none @reached_from reaches, or a @tree that is no git
	repository, gives the defaults."""
	reached = ['--merged=' + reached_from] if reached_from else []
	result = git(tree, 'for-each-ref', '--format=' + _REFS_FORMAT, *reached, BASE_REF,
		     PREPARED_REF, check=False)
	fields = result.stdout.split('\0') if result.returncode == 0 else []
	found: Dict[str, Tuple[str, str, str]] = {}
	for at in range(0, len(fields) - _REFS_FIELDS + 1, _REFS_FIELDS):
		name, kind, commit, subject, trailers = fields[at:at + _REFS_FIELDS]
		if kind == 'commit':
			found[name.lstrip('\n')] = commit, subject, trailers
	base = found.get(BASE_REF)
	prepared = found.get(PREPARED_REF)
	return Refs(base=base[0] if base else None, base_subject=base[1] if base else '',
		    prepared=prepared[0] if prepared else None,
		    trailers=_parse_trailers(prepared[2]) if prepared else {})

_BRANCHES = 'refs/heads/'

def state_dir(tree: str, *parts: str) -> str:
	"""@parts of pan-kunit's files in @tree (STATE_DIR)."""
	return os.path.join(tree, STATE_DIR, *parts)

def head(tree: str) -> str:
	return git(tree, 'rev-parse', 'HEAD').stdout.strip()

@dataclass
class Kernel:
	"""What a tree builds, as a test record names it."""
	version: str                   # the Makefile's, as `make kernelversion`; '' if unknown
	package: Optional[str]          # the Debian package, from the base commit's subject
	package_version: Optional[str]  # its version, from there too
	commit: str                    # HEAD
	branch: Optional[str]          # None on a detached HEAD
	dirty: bool = False            # built with edits HEAD does not hold (changed_files())
	edits: Tuple[str, ...] = ()    # the files of those edits, if known

def kernel_version(tree: str) -> str:
	"""VERSION.PATCHLEVEL.SUBLEVEL and EXTRAVERSION of the top Makefile."""
	found = kernels.makefile_version(tree)
	if not all(found.get(v) for v in ('VERSION', 'PATCHLEVEL', 'SUBLEVEL')):
		return ''
	return (f'{found["VERSION"]}.{found["PATCHLEVEL"]}.{found["SUBLEVEL"]}'
		f'{found.get("EXTRAVERSION", "")}')

def kernel_of(tree: str, changed: Optional[List[str]]=None) -> Kernel:
	"""The kernel that @tree (the prepared tree or a worktree of it) builds
	now; @changed: its changed_files(), if the caller has them."""
	changed = changed_files(tree) if changed is None else changed
	# One git for the base commit's subject and, on a branch, the branch
	# and its commit (the one %(HEAD) marks); a detached HEAD's commit
	# takes one more.
	listed = git(tree, 'for-each-ref', '--format=%(HEAD)%00%(refname)%00%(objectname)%00%(subject)',
		     BASE_REF, _BRANCHES, check=False)
	subject, commit, branch = '', '', None
	for line in listed.stdout.splitlines() if listed.returncode == 0 else []:
		current, name, oid, text = line.split('\0', 3)
		if name == BASE_REF:
			subject = text
		elif current == '*' and name.startswith(_BRANCHES):
			commit, branch = oid, name[len(_BRANCHES):]
	if not commit:
		commit = head(tree)
	base = kernels.BASE_SUBJECT.match(subject)
	return Kernel(version=kernel_version(tree), package=base.group(1) if base else None,
		      package_version=base.group(2) if base else None, commit=commit,
		      branch=branch, dirty=bool(changed), edits=tuple(changed))

def base_subject(tree: str) -> str:
	"""The subject of @tree's base commit, '' if it has none."""
	# log, not show: show diffs a root commit (the base: the whole tree)
	# even with -s, a tenth of a second per call.
	return git(tree, 'log', '-1', '--format=%s', BASE_REF, '--', check=False).stdout.strip()

def kernel_spec(tree: str, refs: Optional[Refs]=None) -> Optional[KernelSpec]:
	"""The kernel @tree holds: its base commit's (that of @refs, if the
	caller read them), else its Makefile's; None if it is no tree of a
	known kernel."""
	if refs is not None or os.path.isdir(os.path.join(tree, '.git')):
		spec = kernels.parse_base_subject(base_subject(tree) if refs is None
						   else refs.base_subject)
		if spec is not None:
			return spec
	return kernels.from_makefile(tree)

def describe(tree: str) -> str:
	"""Returns '<short hash> <subject>' of HEAD."""
	return git(tree, 'show', '-s', '--format=%h %s', 'HEAD').stdout.strip()

def _listing(paths: List[str]) -> str:
	lines = ['  ' + p for p in paths[:MAX_LISTED]]
	if len(paths) > MAX_LISTED:
		lines.append(f'  ... and {len(paths) - MAX_LISTED} more')
	return '\n'.join(lines)

def changed_files(tree: str) -> List[str]:
	"""Tracked files that differ from HEAD, and untracked files.

	Debian's top-level .gitignore ignores every top-level entry, so
	untracked files only show up with --ignored; OUTPUT_DIRS are left out.
	"""
	fields = git(tree, 'status', '--porcelain', '-z', '--ignored').stdout.split('\0')
	paths = []
	i = 0
	while i < len(fields):
		entry = fields[i]
		i += 1
		if not entry:
			continue
		if entry[0] in 'RC':
			i += 1  # the path it was renamed or copied from
		path = entry[3:]
		if not any(path.startswith(d) for d in OUTPUT_DIRS):
			paths.append(path)
	return paths

def exclude_outputs(tree: str) -> None:
	path = os.path.join(tree, '.git', 'info', 'exclude')
	try:
		with open(path) as f:
			present = f.read().splitlines()
	except FileNotFoundError:
		present = []
	missing = ['/' + d for d in OUTPUT_DIRS if '/' + d not in present]
	if missing:
		os.makedirs(os.path.dirname(path), exist_ok=True)
		with open(path, 'a') as f:
			f.write(''.join(m + '\n' for m in missing))

def _sha256_file(path: str) -> str:
	digest = hashlib.sha256()
	with open(path, 'rb') as f:
		for block in iter(lambda: f.read(1 << 20), b''):
			digest.update(block)
	return digest.hexdigest()

def _alive(pid: int) -> bool:
	try:
		os.kill(pid, 0)
	except ProcessLookupError:
		return False
	except PermissionError:
		pass
	return True

def remove_stale_partials(printer: Printer, tree: str) -> None:
	"""Removes the TREE.partial-PID directories (a tree, or a clone, made
	beside @tree and renamed to it when complete) that a setup which was
	stopped left: this process's, and those of a PID no longer running."""
	for path in glob.glob(glob.escape(tree) + '.partial-*'):
		pid = path.rsplit('-', 1)[1]
		if pid.isdigit() and (int(pid) == os.getpid() or not _alive(int(pid))):
			printer.print(f'removing {path}, left by an interrupted setup')
			shutil.rmtree(path)

def _check_writable(tree: str) -> None:
	"""Refuses a tree that pan-kunit could not write (a read-only file
	system, a directory of another user): the tree itself if it exists,
	else the nearest directory above it, which setup creates it in."""
	existing = tree
	while not os.path.lexists(existing) and os.path.dirname(existing) != existing:
		existing = os.path.dirname(existing)
	if os.path.isdir(existing) and not os.access(existing, os.W_OK | os.X_OK):
		where = 'the tree' if existing == tree else 'the directory it would be made in,'
		raise Error(f'cannot write {where} {existing}: read-only or not yours; give a tree '
			    'pan-kunit can write with --tree DIR, PAN_KUNIT_TREE or PAN_KUNIT_CACHE')

def check_location(tree: str, user_given: bool) -> None:
	"""Refuses, before any work, a tree that setup would create in a
	directory that does not exist: setup creates the tree, and the
	directories above pan-kunit's default one, not those of a tree the
	user named, which more likely is a typo."""
	parent = os.path.dirname(tree)
	_check_writable(tree)
	if os.path.lexists(tree) or os.path.isdir(parent):
		return
	if os.path.lexists(parent):
		raise Error(f'cannot create the tree {tree}: {parent} is not a directory')
	if user_given:
		raise Error(f'the tree {tree} does not exist, nor does its directory {parent}; '
			    'setup would extract the kernel source into the tree, but creates no '
			    f'directory above it: create {parent}, or check the --tree DIR or '
			    'PAN_KUNIT_TREE you gave')

def _extract(printer: Printer, tree: str, kernel: KernelSpec, tarball: str,
	     version: str) -> None:
	"""Extracts the tarball and commits it as the base, in a sibling
	directory that is renamed to the tree only when complete."""
	os.makedirs(os.path.dirname(tree), exist_ok=True)
	remove_stale_partials(printer, tree)
	partial = f'{tree}.partial-{os.getpid()}'
	os.mkdir(partial)
	try:
		printer.print(f'extracting {tarball} into {tree}, which does not exist yet ...')
		result = proc.run(['tar', '-xf', tarball, '-C', partial], stdout=proc.To.TERMINAL)
		if result.returncode != 0:
			full = files.disk_full_line(result.stderr)
			if full:
				raise Error(f'cannot extract {tarball} into {tree}: {full}\n'
					    f'{files.DISK_FULL_HINT}')
			raise Error(f'tar -xf {tarball} failed:\n{result.stderr.strip()}')
		top = os.listdir(partial)
		source = os.path.join(partial, top[0]) if len(top) == 1 else ''
		if not os.path.isdir(source):
			raise Error(f'{tarball} should hold a single top-level directory, not {sorted(top)}')
		git(source, 'init', '-q', '--initial-branch=' + BRANCH)
		git(source, 'config', 'gc.auto', '0')  # no surprise background gc on 75k files
		exclude_outputs(source)
		# -f: Debian's .gitignore ignores every top-level entry.
		git(source, 'add', '-A', '-f')
		git(source, 'commit', '-q', '-m', kernels.base_subject(kernel, version),
		     '-m', f'Tarball: {tarball}\nTarball-Sha256: {_sha256_file(tarball)}')
		git(source, 'update-ref', BASE_REF, 'HEAD')
		os.rename(source, tree)
	finally:
		shutil.rmtree(partial, ignore_errors=True)
	printer.print(f'extracted {tarball} ({kernel.package} {version}) into {tree}')

def check_existing(tree: str, kernel: KernelSpec) -> None:
	"""Refuses, before any work, a @tree that exists and that setup would
	refuse: not one setup made, or of another kernel than @kernel."""
	if os.path.lexists(tree):
		refs = refs_of(tree)
		_check_ours(tree, refs)
		_check_kernel(tree, kernel, refs)

def _check_ours(tree: str, refs: Refs) -> None:
	if os.path.isdir(tree) and not os.listdir(tree):
		raise Error(f'the tree {tree} is an empty directory: setup extracts the kernel into '
			    'a tree that does not exist yet, in a directory that does; remove it '
			    f'(rmdir {tree}), or give --tree a path inside it')
	if not os.path.isdir(os.path.join(tree, '.git')) or not refs.base:
		raise Error(f'{tree} exists but is not a pan-kunit tree (no git repository with '
			    f'{BASE_REF}); pan-kunit leaves it alone: move it away, or use another '
			    'tree with --tree DIR or PAN_KUNIT_TREE')

def _check_kernel(tree: str, kernel: KernelSpec, refs: Refs) -> None:
	held = kernel_spec(tree, refs)
	if held != kernel:
		raise Error(f'{tree} holds {held.package if held else "no known kernel"}, not '
			    f'{kernel.package}: pan-kunit leaves it alone; give its kernel with '
			    f'--kernel{" " + held.name if held else ""}, or another tree')

def _warn_if_other_version(printer: Printer, tree: str, kernel: KernelSpec,
			   version: str, refs: Refs) -> None:
	subject = refs.base_subject
	prefix = kernels.base_subject(kernel, '')
	tree_version = subject[len(prefix):] if subject.startswith(prefix) else subject
	if tree_version != version:
		printer.print_stderr(f'pan-kunit: warning: {tree} holds {kernel.package} {tree_version}, '
				     f'but {version} is installed; to use {version}, move {tree} away '
				     'and run setup again')

def _parse_trailers(text: str) -> Dict[str, str]:
	return dict(line.split(': ', 1) for line in text.splitlines() if ': ' in line)

def _is_ancestor(tree: str, ancestor: str, rev: str) -> bool:
	result = git(tree, 'merge-base', '--is-ancestor', ancestor, rev, check=False)
	if result.returncode not in (0, 1):
		raise Error(f'git merge-base --is-ancestor failed in {tree}:\n{result.stderr.strip()}')
	return result.returncode == 0

def _check_updatable(tree: str, ours: Sequence[str]=()) -> None:
	"""Refuses to update a tree that holds work pan-kunit did not make;
	the changes of @ours are pan-kunit's (an interrupted setup's)."""
	if os.path.exists(os.path.join(tree, '.git', 'rebase-apply')):
		raise Error(f'{tree} has a git am or rebase in progress; finish it or abort it '
			    f'(git -C {tree} am --abort), then run again')
	changed = [path for path in changed_files(tree) if path not in ours]
	if changed:
		raise Error(f'{tree} needs an update (the patches or suites changed) but has '
			    f'uncommitted changes:\n{_listing(changed)}\n'
			    'pan-kunit does not overwrite them. Save what you want to keep, '
			    f'then discard them:\n  git -C {tree} reset --hard && '
			    f'git -C {tree} clean -fdx -e /.pan-kunit/ -e /.kunit/')
	log = git(tree, 'log', '--format=%cn <%ce>%x00%h %s', BASE_REF + '..HEAD').stdout
	foreign = [line.split('\0', 1)[1] for line in log.splitlines()
		   if line.split('\0', 1)[0] != f'{gitcmd.NAME} <{gitcmd.EMAIL}>']
	if foreign:
		raise Error(f'{tree} needs an update (the patches or suites changed) but has '
			    f'commits that pan-kunit did not make:\n{_listing(foreign)}\n'
			    'pan-kunit does not discard them. Keep them on a branch and reset, '
			    f'then run again:\n  git -C {tree} branch my-work && '
			    f'git -C {tree} reset --hard {BASE_REF}')

def _apply_patches(tree: str, patches: List[str]) -> None:
	for patch in patches:
		result = git(tree, 'am', patch, check=False)
		if result.returncode == 0:
			continue
		git(tree, 'am', '--abort')
		output = (result.stdout + result.stderr).splitlines()
		errors = [l for l in output if l.startswith(('error:', 'fatal:'))] or output[-10:]
		raise Error(f'{patch} does not apply:\n' + '\n'.join('  ' + e for e in errors) +
			    f'\n{tree} is at {describe(tree)}, the last commit that applied; '
			    'fix the patch, then run setup again')

def _install_suites(printer: Printer, tree: str, sources: Sources) -> None:
	"""Commits the suites on top of HEAD.

	The index may still hold a previous suites commit (after `reset
	--soft`): the paths it differs in from HEAD are the previous suites.
	Only files whose contents change are written, so that make does not
	rebuild the others.
	"""
	previous = git(tree, 'diff', '--cached', '--no-renames', '--name-only', '-z').stdout
	previous_paths = [p for p in previous.split('\0') if p]
	removed = 0
	for path in previous_paths:
		if path in sources.suites:
			continue
		if git(tree, 'cat-file', '-e', 'HEAD:' + path, check=False).returncode == 0:
			git(tree, 'checkout', 'HEAD', '--', path)
		else:
			os.unlink(os.path.join(tree, path))
			try:
				os.removedirs(os.path.dirname(os.path.join(tree, path)))
			except OSError:
				pass  # not empty
		removed += 1
	written = write_files(tree, sources.suites)
	git(tree, '--literal-pathspecs', 'add', '-A', '-f', '--',
	     *sorted(set(previous_paths) | set(sources.suites)))
	git(tree, 'commit', '-q', '--allow-empty', '-m', SUITES_SUBJECT,
	     '-m', f'{PATCHES_TRAILER}: {sources.patches_digest()}\n'
		   f'{SUITES_TRAILER}: {sources.suites_digest()}')
	git(tree, 'update-ref', PREPARED_REF, 'HEAD')
	printer.print(f'installed the KUnit suites: {written} files written, {removed} removed')

def _mark_path(tree: str) -> str:
	return os.path.join(tree, '.git', SETUP_MARK)

def _interrupted(printer: Printer, tree: str) -> bool:
	"""Whether a setup of @tree began changing it and was stopped before
	it ended (a signal, SIGKILL); a git am of the series it left in
	progress is aborted."""
	if not os.path.exists(_mark_path(tree)):
		return False
	am = os.path.exists(os.path.join(tree, '.git', 'rebase-apply'))
	printer.print(f'{tree}: the last setup was stopped before it ended' +
		      (', in a git am of the series: aborting it' if am else '') +
		      '; setting the tree up again')
	if am:
		git(tree, 'am', '--abort')
	return True

def _suite_paths(tree: str, prepared: Optional[str], sources: Sources) -> List[str]:
	"""What a setup writes of the suites: the suites of @sources, and
	those of the @prepared tree it replaces."""
	previous = git(tree, 'diff', '--no-renames', '--name-only', '-z', prepared + '^',
		       prepared).stdout.split('\0') if prepared else []
	return sorted(set(sources.suites) | {p for p in previous if p})

def setup(printer: Printer, tree: str, kernel: KernelSpec, sources: Sources, tarball: str,
	  version: str) -> None:
	"""Brings the tree of @kernel to the current patches and suites, or
	refuses.  One setup of a tree at a time (a lock in its .git); one
	that was stopped while it changed the tree (SETUP_MARK) is done
	again: its git am aborted, the suites it was writing not taken for
	the user's edits."""
	extracted = not os.path.lexists(tree)
	refs = Refs()  # the extracted tree's: none yet
	if extracted:
		_extract(printer, tree, kernel, tarball, version)
	else:
		refs = refs_of(tree)
		_check_ours(tree, refs)
		_check_kernel(tree, kernel, refs)
		_warn_if_other_version(printer, tree, kernel, version, refs)
		exclude_outputs(tree)
	with lockfile.held(printer, os.path.join(tree, '.git', SETUP_LOCK), f'sets up {tree}'):
		_setup(printer, tree, kernel, sources, extracted, refs)
	printer.print(f'{tree} is at {describe(tree)}')

def _setup(printer: Printer, tree: str, kernel: KernelSpec, sources: Sources,
	   extracted: bool, before: Refs) -> None:
	interrupted = _interrupted(printer, tree)
	# Read again under the lock (another setup may have moved them), as
	# HEAD reaches them, if the tree had a prepared ref @before: that of a
	# tree that is set up, with its ancestry checked in the same git.
	# Else all of them, and the prepared ref's ancestry asked alone, as
	# its own error if it fails.
	refs = refs_of(tree, reached_from='HEAD') if before.prepared else Refs()
	reached = refs.prepared is not None
	if not reached:
		refs = refs_of(tree)
	prepared, trailers = refs.prepared, refs.trailers
	patches_current = trailers.get(PATCHES_TRAILER) == sources.patches_digest()
	suites_current = trailers.get(SUITES_TRAILER) == sources.suites_digest()
	if prepared and patches_current and suites_current and (
			reached or _is_ancestor(tree, prepared, 'HEAD')):
		# Set up: what differs from HEAD is the user's (a setup moves the
		# prepared ref last).
		if interrupted:
			os.unlink(_mark_path(tree))
		# The tree on a line of its own: the line keeps to 80 columns.
		printer.print(f'{tree}:\n    the patches of {kernel.name} and the KUnit suites are '
			      'already installed')
		return
	_check_updatable(tree, _suite_paths(tree, prepared, sources) if interrupted else [])
	with open(_mark_path(tree), 'w') as f:
		f.write('a pan-kunit setup is changing this tree; if none runs, it was stopped\n')
	try:
		if prepared and patches_current and prepared == rev(tree, 'HEAD') and not interrupted:
			printer.print('updating the suites; the patches are unchanged')
			git(tree, 'reset', '-q', '--soft', 'HEAD^')
		else:
			if not extracted:
				printer.print('updating the patches: applying them again onto the Debian '
					      'base')
				git(tree, 'reset', '-q', '--hard', BASE_REF)
			_apply_patches(tree, sources.patches)
			printer.print(f'applied the {len(sources.patches)} patches of {sources.series}')
		_install_suites(printer, tree, sources)
	except Error:
		os.unlink(_mark_path(tree))  # an orderly end: the tree is as the error says
		raise
	os.unlink(_mark_path(tree))
