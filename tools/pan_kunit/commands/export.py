# SPDX-License-Identifier: GPL-2.0
#
# `pan-kunit export DIR`: the repo as an upstream series, made with git
# format-patch in the check worktree, on the Debian base.  Every patch is
# yours: its author, committer and Signed-off-by, and the cover letter's
# From:, are your git identity (user.name and user.email, as git reads
# them outside pan-kunit), which git format-patch encodes (RFC 2047).
#
# Upstream wants a test added together with what builds it.  So each
# patch of patches/VERSION/series, applied in order with git am (its subject and
# message read with git mailinfo), becomes:
#
#   a patch that hooks in no suite      itself, with its own message (the
#                                       fix 0001, the refactors 0004 and
#                                       0007, the static stubs 0005 and
#                                       0006): it
#                                       stays before the suites that need
#                                       it
#   a patch that hooks in one suite     one patch: its lines and the
#                                       suite's files, "arm64: AREA: Add
#                                       the SUITE KUnit suite"
#   a patch that hooks in N suites      N such patches, cut by hooks.py
#                                       (0002, 0005): the first holds the
#                                       Kconfig entries, make statements
#                                       and #if blocks of the first suite
#                                       (and those of no suite), each next
#                                       one adds the next suite's, and the
#                                       last ends at the patch's result
#
# then one that adds kunit/'s kselftests (the pan EL0 tests) and wires
# their directory into tools/testing/selftests/arm64/Makefile's
# ARM64_SUBTARGETS, as each of its directories was added upstream (the
# prepared tree leaves that line alone: pan-kunit's kselftest build names
# its ARM64_SUBTARGETS on make's command line), then one that adds the
# .kunitconfig, and a cover letter from patches/cover-letter.  hooks.py
# tells which suites a patch hooks in: those whose files its Kconfig and
# make lines name, or its C lines #include, and whose symbols those lines
# name.  The rest of its C lines are hooks into the code under test: a
# patch that has both is refused, as upstream reviews hooks in a patch of
# their own, before the tests that use them.
# AREA is "mm" for a suite in arch/arm64/mm/tests/, else the first word
# of its C file's name.  So every prefix builds as the series did: a
# suite comes with the lines that build it, and no line names a suite
# that is not there yet.  The last patch ends at exactly the prepared tree (checked),
# and every patch must pass checkpatch.pl --strict (checkpatch.py).

import glob
import os
import re
import shutil
from dataclasses import dataclass
from typing import Dict, List, Optional, Pattern, Sequence, Set, Tuple

from pan_kunit import Error
from pan_kunit.commands import (checkpatch, export_check, export_kselftests, hooks,
				 series_bisect, steps)
from pan_kunit.commands.export_mail import (BASE_MARK, NO_RESULTS, RESULTS_MARK, fill_results,
					    kunit_recipients, qemu_version, recipients, results_block,
					    stable_list)
from pan_kunit.commands.boot_request import BootRequest
from pan_kunit.commands.session import Session
from pan_kunit.host import gitcmd, pids, proc
from pan_kunit.host.files import write_text
from pan_kunit.host.printer import Printer
from pan_kunit.trees import series, sources, suites, tree
from pan_kunit.trees.sources import Sources, TREE_KUNITCONFIG, write_files
from pan_kunit.trees.targets import Target
from pan_kunit.trees.worktree import apply, checkout, locked, reset

@dataclass
class ExportRequest(BootRequest):
	"""What `export` is asked."""
	out: str               # DIR, absolute
	no_build: bool         # checkpatch the series, do not build its prefixes
	check: bool = False    # and the maintainer's checks (export_check.py)

COVER_LETTER = os.path.join('patches', 'cover-letter')
# Where KUnit's style guide puts a suite: tests/ beside the code it tests.
TESTS_DIR = 'tests'
# A line of a message's trailer block ("Signed-off-by: ...").
TRAILER = re.compile(r'[A-Za-z][A-Za-z0-9-]*: ')
SIGNED_OFF_BY = 'Signed-off-by: '
# A mail's From: header, with its continuation lines.
_FROM = re.compile(r'^From: .*(?:\n[ \t].*)*$', re.M)

@dataclass
class Identity:
	"""Who sends the series: git's user.name and user.email."""
	name: str
	email: str

	def ident(self) -> str:
		return f'{self.name} <{self.email}>'

	def signed_off_by(self) -> str:
		return SIGNED_OFF_BY + self.ident()

	def env(self) -> Dict[str, str]:
		"""git's environment for commits and mails of this identity,
		with no user or system configuration, as tree.git runs git."""
		return dict(gitcmd.OWN, GIT_AUTHOR_NAME=self.name, GIT_AUTHOR_EMAIL=self.email,
			    GIT_COMMITTER_NAME=self.name, GIT_COMMITTER_EMAIL=self.email)

def identity(repo: str) -> Identity:
	"""user.name and user.email, read by a plain `git config` (tree.git
	leaves the user's configuration out on purpose)."""
	values: Dict[str, str] = {}
	for key in ('user.name', 'user.email'):
		result = gitcmd.run(repo, 'config', key, env=gitcmd.USERS,
				    decoding=proc.Decoding.EXACT)
		if result.returncode not in (0, 1):  # 1: not set
			raise Error(f'git config {key} failed:\n{result.stderr.strip()}')
		values[key] = result.stdout.strip()
	missing = [key for key, value in values.items() if not value]
	if missing:
		raise Error(f'export writes the series as yours, from your git identity, and git has '
			    f'no {" and no ".join(missing)}; set it with:\n'
			    '  git config --global user.name "Your Name"\n'
			    '  git config --global user.email you@example.org')
	return Identity(values['user.name'], values['user.email'])

@dataclass
class Mail:
	"""A patch's subject and message, as git mailinfo decodes them."""
	subject: str
	paragraphs: List[str]   # the message's, without its trailers
	trailers: List[str]

def mailinfo(patch: str) -> Mail:
	info = series.mailinfo(patch)
	headers, body = info.headers, info.message
	paragraphs = [p.strip('\n') for p in re.split(r'\n[ \t]*\n', body) if p.strip()]
	trailers: List[str] = []
	if paragraphs and all(TRAILER.match(l) for l in paragraphs[-1].splitlines()):
		trailers = paragraphs.pop().splitlines()
	return Mail(headers.get('Subject', '').strip(), paragraphs, trailers)

def _and(words: List[str]) -> str:
	return ', '.join(words[:-1]) + ' and ' + words[-1] if len(words) > 1 else ''.join(words)

def area(suite: suites.Suite) -> str:
	"""The subsystem prefix upstream uses: "mm" for a suite of
	arch/arm64/mm (or its tests/), else the first word of the file
	(cpufeature, alternative, cpucap)."""
	directory = os.path.dirname(suite.paths[0])
	if os.path.basename(directory) == TESTS_DIR:
		directory = os.path.dirname(directory)
	if os.path.basename(directory) == 'mm':
		return 'mm'
	return os.path.basename(suite.paths[0]).split('_')[0]

def _shown(path: str) -> str:
	"""How a suite's message names its file: from the directory of the
	code it tests (tests/foo_kunit.c)."""
	directory = os.path.dirname(path)
	if os.path.basename(directory) == TESTS_DIR:
		return os.path.join(TESTS_DIR, os.path.basename(path))
	return os.path.basename(path)

def suite_message(suite: suites.Suite, symbols: List[str], paragraphs: List[str],
		  signed_off_by: str, shared: Sequence[str]=()) -> str:
	"""The message of the patch that adds @suite, built by the Kconfig
	@symbols, with @paragraphs of the message of the patch that hooks it
	in, and the @shared headers it adds."""
	files = _and([_shown(p) for p in list(shared) + suite.paths])
	built = _and([f'CONFIG_{s}' for s in symbols])
	built = f'; {built} {"builds" if len(symbols) == 1 else "build"} it' if built else ''
	body = ([suites.wrap(suite.summary)] if suite.summary else []) + [
		suites.wrap(f'The suite is {suite.name}, in {files}{built}.')] + paragraphs
	return (f'arm64: {area(suite)}: Add the {suite.name} KUnit suite\n\n' +
		'\n\n'.join(body) + f'\n\n{signed_off_by}\n')

def _own_paragraphs(mail: Mail, patterns: Dict[str, Pattern[str]],
		    symbols: Dict[str, str], name: str) -> List[str]:
	"""The paragraphs of a patch that hooks in several suites that name
	suite @name (its files or symbols) and none of the others, unwrapped
	and without a list's bullet."""
	def named(paragraph: str) -> Set[str]:
		found = {suite for suite, pattern in patterns.items() if pattern.search(paragraph)}
		return found | {suite for symbol, suite in symbols.items()
				if suite in patterns and re.search(rf'\b{symbol}\b', paragraph)}
	return [suites.wrap(re.sub(r'^\s*[-*]\s+', '', p)) for p in mail.paragraphs
		if named(p) == {name}]

def _item_symbols(changes: List[hooks.FileChange]) -> Dict[str, Set[str]]:
	"""The Kconfig symbols each suite's hook lines of @changes name: one
	symbol may build several suites, and each patch says what builds it."""
	found: Dict[str, Set[str]] = {}
	for change in changes:
		for item in change.items():
			names = hooks.symbols_of(change.path, hooks.text_of(item.lines))
			for suite in item.suites:
				found.setdefault(suite, set()).update(names)
	return found

def _export_kselftests(worktree: str, who: Identity, files: Dict[str, bytes]) -> bool:
	"""Commits kunit/'s kselftests of @files, and their directories added
	to ARM64_SUBTARGETS, as one patch; False when there are none."""
	added = export_kselftests.write(worktree, files)
	if added is None:
		return False
	_commit(worktree, who, added.paths,
		export_kselftests.message(added.names, added.summaries, who.signed_off_by()))
	return True

def _git(worktree: str, who: Identity, *args: str, stdin: Optional[str]=None) -> proc.Result:
	return gitcmd.run(worktree, *args, env=who.env(), input=stdin,
			  decoding=proc.Decoding.EXACT, check=True)

def _commit(worktree: str, who: Identity, paths: List[str], message: str) -> None:
	if paths:
		tree.git(worktree, '--literal-pathspecs', 'add', '-A', '-f', '--', *paths)
	_git(worktree, who, 'commit', '-q', '--cleanup=whitespace', '-F', '-', stdin=message)

def _cover_letter(repo: str) -> Tuple[str, str]:
	path = os.path.join(repo, COVER_LETTER)
	try:
		with open(path) as f:
			subject, _, body = f.read().partition('\n')
	except OSError as e:
		raise Error(f'cannot read the cover letter {path}: {e.strerror}')
	return subject.strip(), body.strip()

def _message(mail: Mail, signed_off_by: str, stable: Optional[str]=None) -> str:
	"""The message of a patch exported as it is, signed off by you
	instead of by whoever signed it off in patches/; a fix (a Fixes:
	trailer) goes to the @stable list too."""
	trailers = [t for t in mail.trailers if not t.startswith(SIGNED_OFF_BY)]
	if stable and any(t.startswith('Fixes: ') for t in trailers) and \
	   not any(stable in t for t in trailers):
		trailers.append(f'Cc: {stable}')
	return '\n\n'.join([mail.subject] + mail.paragraphs +
			   ['\n'.join(trailers + [signed_off_by])]) + '\n'

def _export_patch(worktree: str, who: Identity, patch: str, waiting: List[suites.Suite],
		  files: Dict[str, bytes], symbols: Dict[str, str]) -> List[suites.Suite]:
	"""Commits @patch of patches/ on HEAD as one patch, or as one patch
	per suite of @waiting (the suites not exported yet) it hooks in, with
	their @files; returns those suites.  @symbols: see hooks.assign()."""
	mail = mailinfo(patch)
	before = tree.head(worktree)
	why = apply(worktree, patch)
	if why is not None:
		raise Error(f'{patch} does not apply in the exported series:\n{why}')
	after = tree.head(worktree)
	by_name = {suite.name: suite for suite in waiting}
	changes = hooks.changes(worktree, before, after)
	hooks.assign(changes, {s.name: s.paths for s in waiting}, symbols)
	cuts = [by_name[name] for name in hooks.hooked(changes, patch, set(by_name))]
	hooked_in = hooks.hook_lines(changes)
	if cuts and hooked_in:
		raise Error(f'{os.path.basename(patch)} both hooks into the code under test and adds '
			    f'the build of {_and([s.name for s in cuts])}; upstream takes hooks in a '
			    'patch of their own, before the patch that adds the tests that use them: '
			    'split it there. Its hooks:\n    ' + '\n    '.join(hooked_in))
	tree.git(worktree, 'reset', '-q', '--soft', before)
	if not cuts:
		_commit(worktree, who, [], _message(mail, who.signed_off_by(), stable_list(worktree)))
		return []
	tree.git(worktree, 'reset', '-q', '--hard', before)
	patterns = hooks.file_patterns({s.name: s.paths for s in cuts})
	used = _item_symbols(changes)
	for number, suite in enumerate(cuts):
		later = {s.name for s in cuts[number + 1:]}
		if later:
			write_files(worktree, {change.path: change.render(
				lambda item: not item.suites & later) for change in changes})
		else:  # the patch's own result, modes included
			present = [c.path for c in changes if c.new is not None]
			if present:
				tree.git(worktree, '--literal-pathspecs', 'checkout', after, '--', *present)
			write_files(worktree, {c.path: None for c in changes if c.new is None})
		shared = [p for p in suite.shared if not os.path.exists(os.path.join(worktree, p))]
		write_files(worktree, {path: files[path] for path in shared + suite.paths})
		paragraphs = mail.paragraphs if len(cuts) == 1 else \
			_own_paragraphs(mail, patterns, symbols, suite.name)
		own = sorted({sym for sym, name in symbols.items() if name == suite.name} |
			     used.get(suite.name, set()))
		_commit(worktree, who, [c.path for c in changes] + shared + suite.paths,
			suite_message(suite, own, paragraphs, who.signed_off_by(), shared))
	return cuts

def build_series(worktree: str, sources: Sources, who: Identity) -> int:
	"""Commits the series on the base in @worktree; returns its length."""
	reset(worktree, tree.BASE_REF)
	files = dict(sources.suites)
	waiting = suites.grouped(sources)
	symbols: Dict[str, str] = {}
	count = 0
	for patch in sources.patches:
		exported = _export_patch(worktree, who, patch, waiting, files, symbols)
		waiting = [s for s in waiting if s not in exported]
		count += max(len(exported), 1)
	if waiting:
		raise Error(f'no patch of {", ".join(os.path.basename(p) for p in sources.patches)} '
			    f'hooks in {_and([s.name for s in waiting])} (no added line names '
			    f'{_and([os.path.basename(p) for s in waiting for p in s.paths])}); export '
			    'adds each suite with the patch that builds it')
	kselftests = _export_kselftests(worktree, who, files)
	count += kselftests
	write_files(worktree, {TREE_KUNITCONFIG: sources.suites[TREE_KUNITCONFIG]})
	_commit(worktree, who, [TREE_KUNITCONFIG],
		'arm64: kernel: Add a .kunitconfig for the arm64 KUnit suites\n\n' + suites.wrap(
			'With it, "./tools/testing/kunit/kunit.py run --arch=arm64 '
			f'--kunitconfig={os.path.dirname(TREE_KUNITCONFIG)}" builds and runs every '
			'suite of this series.') + f'\n\n{who.signed_off_by()}\n')
	# The prepared tree, but for the kernel differences resolved.
	resolved = {path for path in files if files[path] != sources.suites[path]}
	# and for ARM64_SUBTARGETS, which the prepared tree leaves alone.
	if kselftests:
		resolved.add(export_kselftests.MAKEFILE)
	differ = [path for path in tree.git(worktree, 'diff', '--name-only', 'HEAD',
					    tree.PREPARED_REF).stdout.splitlines()
		  if path not in resolved]
	if differ:
		raise Error(f'the exported series in {worktree} does not end at the prepared tree '
			    f'({tree.PREPARED_REF}); they differ in:\n' + '\n'.join(differ))
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

def partial_dir(out: str, pid: int) -> str:
	"""Where export writes DIR (@out) until the series is checked: beside
	it, on its file system."""
	parent, name = os.path.split(os.path.normpath(out))
	return os.path.join(parent, f'.{name}.pan-kunit-{pid}')

def _remove_stale_partials(printer: Printer, out: str) -> None:
	"""Removes what an export to @out that was stopped (a signal, SIGKILL)
	left beside it."""
	prefix = partial_dir(out, 0)[:-1]
	for path in glob.glob(glob.escape(prefix) + '*'):
		pid = path[len(prefix):]
		if pids.left_by_gone(pid):
			printer.print(f'removing {path}, left by an export that was stopped')
			shutil.rmtree(path, ignore_errors=True)

def publish(partial: str, out: str) -> None:
	"""Moves the checked series from @partial to DIR (@out), new or empty:
	DIR holds the whole series or nothing, whatever stops export."""
	check_out_dir(out)
	if os.path.isdir(out):
		os.rmdir(out)
	os.rename(partial, out)

def format_patches(worktree: str, repo: str, out: str, who: Identity,
		   results: str=NO_RESULTS) -> List[str]:
	"""git format-patch of the series, and its cover letter, from @who,
	into the directory @out (partial_dir()), to the recipients
	get_maintainer.pl gives, with the base commit, and @results
	(RESULTS_MARK: fill_results() writes them later) in the cover
	letter."""
	subject, body = _cover_letter(repo)
	draft = os.path.join(tree.state_dir(worktree, 'export-draft'))
	shutil.rmtree(draft, ignore_errors=True)
	_git(worktree, who, 'format-patch', '-q', '-o', draft, tree.BASE_REF + '..HEAD')
	drafts = sorted(os.path.join(draft, f) for f in os.listdir(draft))
	to, cc = recipients(worktree, drafts)
	cc += [r for r in kunit_recipients(worktree, drafts) if r not in to + cc]
	shutil.rmtree(draft, ignore_errors=True)
	# The cover letter is from the committer: @who, as every commit.
	_git(worktree, who, 'format-patch', '-q', '--cover-letter', '-o', out,
	     f'--base={tree.rev(worktree, tree.BASE_REF)}', *[f'--to={r}' for r in to],
	     *[f'--cc={r}' for r in cc], tree.BASE_REF + '..HEAD')
	files = sorted(os.path.join(out, f) for f in os.listdir(out))
	cover = files[0]
	with open(cover, encoding='utf-8', errors='surrogateescape') as f:
		text = f.read()
	body = body.replace(BASE_MARK, 'v' + tree.kernel_version(worktree))
	body = body.replace(RESULTS_MARK, results)
	text = text.replace('*** SUBJECT HERE ***', subject).replace('*** BLURB HERE ***', body)
	# git 2.39 writes the cover letter's From: as it is, unencoded: give
	# it the From: that git encoded in the patches, which are @who's too.
	with open(files[1], encoding='utf-8', errors='surrogateescape') as f:
		encoded = _FROM.search(f.read())
	if encoded:
		line = encoded.group(0)
		text = _FROM.sub(lambda _: line, text, count=1)
	write_text(cover, text, 'the cover letter')
	return files

def check(request: ExportRequest, repo: str) -> None:
	"""Refuses a DIR that is not new or empty, and a missing git identity."""
	check_out_dir(request.out)
	identity(repo)

def run_export(session: Session, request: ExportRequest, target: Target, repo: str) -> int:
	"""Prepares @target's tree, writes the series and checks it."""
	session.prepare(target, repo, 'export', builds=not request.no_build)
	with locked(session.printer, target.tree):
		return _export(session, request, target, repo)

def _export(session: Session, request: ExportRequest, target: Target, repo: str) -> int:
	who = identity(repo)
	wanted = sources.load(repo, target.kernel)
	printer = session.printer
	# The steps before the series adds its .kunitconfig build with the repo's.
	checker = steps.checker(session, request, target, repo,
				  kunitconfig=wanted.suites[sources.TREE_KUNITCONFIG])
	wt = checkout(printer, target.tree, tree.BASE_REF)
	build_series(wt, wanted, who)
	# Written beside DIR, checked, then moved into it: an export that is
	# stopped leaves DIR as it was, for the next one.
	_remove_stale_partials(printer, request.out)
	check_out_dir(request.out)
	partial = partial_dir(request.out, os.getpid())
	try:
		files = format_patches(wt, repo, partial, who,
				       NO_RESULTS if request.no_build else RESULTS_MARK)
		problems = checkpatch.run(wt, files[1:])
		unchecked = checkpatch.not_looked_up(wt, files[1:])
		checked: List[steps.Step] = []
		if not request.no_build:
			patches = [series.patch(p) for p in files[1:]]
			checked = series_bisect.run(checker, patches, None, start=tree.BASE_REF,
						    kernel=target.kernel.package, adds_suites=True)
			fill_results(files[0], results_block(checked[-1].configs, qemu_version()))
		publish(partial, request.out)
	finally:
		shutil.rmtree(partial, ignore_errors=True)
	moved = {path: os.path.join(request.out, os.path.basename(path)) for path in files}
	original = {new: path for path, new in moved.items()}
	files = [moved[path] for path in files]
	problems = {moved[path]: text for path, text in problems.items()}
	printer.print(f'wrote {len(files) - 1} patches and a cover letter into {request.out}:')
	for path in files:
		verdict = 'cover letter' if path == files[0] else (
			'checkpatch --strict: FAILED' if path in problems else
			'checkpatch --strict: clean')
		printer.print(f'    {os.path.basename(path)}: {verdict}')
		for line in problems.get(path, '').splitlines():
			printer.print(f'        {line}')
		for commit in unchecked.get(original[path], []):
			printer.print(f'        commit {commit} not looked up: the tree has no history '
				      'before its base; look up its id and subject in upstream\'s')
	bad = None
	if checked:
		printer.print()
		for line in series_bisect.table(checked):
			printer.print(line)
		bad = series_bisect.first_bad(checked)
		if bad is not None:
			printer.print(f'export: step {bad.number} is bad: {bad.verdict()}')
		elif checked[-1].failed():
			bad = checked[-1]
			printer.print('export: the whole series does not pass')
	checked_series = None
	if request.check:
		checked_series = export_check.check_series(printer, target.tree, files[1:],
							   request.jobs, request.timeout)
		export_check.report(printer, checked_series)
	if problems:
		printer.print(f'export: {len(problems)} patches are not checkpatch clean')
	ok = not problems and bad is None and (checked_series is None or checked_series.ok())
	return 0 if ok else 1
