# SPDX-License-Identifier: GPL-2.0
#
# `pan-kunit export --check`: what a maintainer checks of a series before
# sending or merging it, in a worktree of the tree that holds Debian's base
# and the series' patch files and nothing else (<tree>/.pan-kunit/check/plain):
#
#   per patch     git am of its file applies; W=1 and sparse (C=1) of the
#                 directories the series touches give no warning the base
#                 does not give (make recompiles what the patch changed,
#                 so each patch answers for what it touched); and
#                 scripts/kernel-doc of each C file or header it touches
#                 that has a kernel-doc comment gives none;
#   the series    the plain `./tools/testing/kunit/kunit.py run --arch=arm64`
#                 with the suites' own .kunitconfig passes in that tree;
#                 and with the test options off (CONFIG_KUNIT=n), the
#                 object code of each file the series touches is that of
#                 the base, or named with the patches after which it
#                 changes and the functions whose code differs, in each of
#                 OBJECT_CONFIGS.
#
# `export` builds and boots every prefix of the series on the matrix too
# (bisect's steps): together, the proof per patch that export --check
# prints in one table.

import os
import re
import shutil
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

from pan_kunit import Error
from pan_kunit.host import proc
from pan_kunit.host.printer import Printer
from pan_kunit.trees import tree
from pan_kunit.trees.sources import TREE_KUNITCONFIG

# Debian's sparse, for make C=1.
PACKAGES = ['sparse']
CROSS_COMPILE = 'aarch64-linux-gnu-'
# A compiler or sparse diagnostic: "FILE:LINE:COL: warning: TEXT".
_DIAGNOSTIC = re.compile(r'^(?P<file>[^\s:]+):(?P<line>\d+):(?:\d+:)?\s*'
			 r'(?P<kind>warning|error|note):\s*(?P<text>.*)$')
# A kernel-doc diagnostic, as W=1 builds print them for every C file they
# compile and scripts/kernel-doc -none for a header: "Warning: FILE:LINE TEXT".
_KDOC = re.compile(r'^[Ww]arning: (?P<file>[^\s:]+):(?P<line>\d+):? (?P<text>.*)$')
# What the kernel's Makefile says when it turns C=1 off: its
# scripts/checker-valid.sh found sparse missing or too old (7.3's wants
# __typeof_unqual__, which Debian 12's sparse 0.6.4 does not know).
_NO_CHECKER = re.compile(r'C=\d specified, but (?P<check>\S+) is not available or not up to date')
# Where the build of a check and its logs go, in the tree's state directory.
STATE = ('check', 'plain-out')
# The configurations the object code is compared in, without KUnit: the
# series' .kunitconfig, and the same with SW TTBR0 PAN, the matrix's other
# kconfig group, without which the code the fix changes in entry.S
# (__swpan_exit_el1) is not built and entry.o would compare identical.
OBJECT_CONFIGS: Dict[str, Tuple[str, ...]] = {
	'kunitconfig': (),
	'kunitconfig+ARM64_SW_TTBR0_PAN': ('ARM64_SW_TTBR0_PAN',),
}
# A function's first line in objdump -d: "0000000000000040 <name>:".
_FUNCTION = re.compile(r'^[0-9a-f]+ <(?P<name>[^>]+)>:$')

def location(tree_dir: str) -> str:
	"""The plain worktree of @tree_dir: the base and the series' files."""
	return tree.state_dir(tree_dir, 'check', 'plain')

@dataclass
class PatchCheck:
	"""What --check found of one patch."""
	name: str
	applies: bool = False
	why: str = ''                                         # git am's error
	warnings: List[str] = field(default_factory=list)    # W=1 and sparse, new
	kerneldoc: List[str] = field(default_factory=list)
	build_failed: str = ''                               # make's last lines

	def ok(self) -> bool:
		return self.applies and not (self.warnings or self.kerneldoc or self.build_failed)

	def verdict(self) -> str:
		if not self.applies:
			return 'does not apply'
		if self.build_failed:
			return 'W=1 build failed'
		found = []
		if self.warnings:
			found.append(f'{len(self.warnings)} new W=1/sparse warnings')
		if self.kerneldoc:
			found.append(f'{len(self.kerneldoc)} kernel-doc warnings')
		return ', '.join(found) or 'clean'

@dataclass
class ObjectCheck:
	"""The object code of one file with the test options off, in one
	of OBJECT_CONFIGS."""
	source: str
	identical: bool
	patches: List[str]   # the patches that touch the file
	changed_lines: int = 0
	config: str = ''
	functions: List[str] = field(default_factory=list)   # those that differ
	changed_by: List[str] = field(default_factory=list)  # the patches after which it changes

@dataclass
class SeriesCheck:
	patches: List[PatchCheck] = field(default_factory=list)
	kunit_run: Optional[bool] = None   # the plain kunit.py run passed
	kunit_summary: str = ''
	kunit_log: str = ''
	sparse_off: str = ''   # why the kernel's Makefile did not run sparse
	objects: List[ObjectCheck] = field(default_factory=list)
	stray: List[str] = field(default_factory=list)    # files not of the series

	def ok(self) -> bool:
		return (all(p.ok() for p in self.patches) and bool(self.kunit_run) and
			not self.stray)

def _plain_worktree(printer: Printer, tree_dir: str) -> str:
	path = location(tree_dir)
	if not os.path.exists(os.path.join(path, '.git')):
		tree.git(tree_dir, 'worktree', 'prune')
		printer.print(f'creating the plain worktree {path} ...')
		os.makedirs(os.path.dirname(path), exist_ok=True)
		tree.git(tree_dir, 'worktree', 'add', '-q', '--detach', path, tree.BASE_REF)
	tree.git(path, 'am', '--abort', check=False)
	tree.git(path, 'checkout', '-q', '--detach', '-f', tree.BASE_REF)
	tree.git(path, 'clean', '-q', '-fdx')
	return path

def _make(worktree: str, out: str, log: str, args: Sequence[str], jobs: int) -> int:
	"""make -C @worktree O=@out ARGS for arm64, into @log; its exit status.
	Its whole process group is killed if pan-kunit is interrupted."""
	os.makedirs(out, exist_ok=True)
	cmd = ['make', '-C', worktree, f'O={out}', 'ARCH=arm64', f'CROSS_COMPILE={CROSS_COMPILE}',
	       f'CC=ccache {CROSS_COMPILE}gcc', f'-j{jobs}'] + list(args)
	with open(log, 'a') as f:
		f.write('$ ' + ' '.join(cmd) + '\n')
		f.flush()
		return proc.Session(cmd, f, {'CCACHE_BASEDIR': os.path.realpath(worktree)}).wait_to_end(2)

def _tail(log: str, lines: int=15) -> str:
	with open(log, errors='replace') as f:
		return ''.join(f.readlines()[-lines:]).rstrip()

def diagnostics(text: str, tree_dir: str, out: str) -> Set[Tuple[str, str]]:
	"""The warnings and errors of a W=1/sparse make (with its kernel-doc
	checks): (file, text), the file relative to @tree_dir (make prints it
	absolute, or relative to @out, where the compiler runs), without the
	line number, which a patch moves."""
	found = set()
	for line in text.splitlines():
		match = _DIAGNOSTIC.match(line.strip()) or _KDOC.match(line.strip())
		if not match or match.groupdict().get('kind') == 'note':
			continue
		path = os.path.normpath(os.path.join(out, match.group('file')))
		found.add((os.path.relpath(path, tree_dir), match.group('text').strip()))
	return found

def sparse_off(text: str) -> str:
	"""Why the make of @text (its log) ran no sparse, or ''."""
	match = _NO_CHECKER.search(text)
	if not match:
		return ''
	version = proc.run([match.group('check'), '--version']) \
		if shutil.which(match.group('check')) else None
	found = f' ({version.stdout.strip()})' if version and version.stdout.strip() else ''
	return (f'the kernel\'s Makefile turned C=1 off: scripts/checker-valid.sh found '
		f'{match.group("check")}{found} missing or too old for this kernel')

def _kerneldoc(worktree: str, paths: List[str]) -> Set[Tuple[str, str]]:
	"""scripts/kernel-doc -none of each header of @paths that has a
	kernel-doc comment (W=1 checks the C files it compiles): (file, text)."""
	found = set()
	for path in paths:
		full = os.path.join(worktree, path)
		if not path.endswith('.h') or not os.path.isfile(full):
			continue
		with open(full, errors='replace') as f:
			if '/**' not in f.read():
				continue
		result = proc.run([os.path.join(worktree, 'scripts', 'kernel-doc'), '-none', path],
				  cwd=worktree, stderr=proc.To.MERGED)
		found |= diagnostics(result.stdout, worktree, worktree)
	return found

def _touched(worktree: str, rev: str) -> List[str]:
	return tree.git(worktree, 'diff-tree', '--no-commit-id', '--name-only', '-r', rev,
			'--').stdout.split()

# What the kernel's make (kbuild) does not build: user space, such as the
# kselftests, which their own Makefile builds (`run --kselftests`).
USER_SPACE = ('tools/',)

def _kbuild(path: str) -> bool:
	"""Whether @path is a C or assembler file of the kernel's build."""
	return path.endswith(('.c', '.S')) and not path.startswith(USER_SPACE)

def _dirs(paths: List[str]) -> List[str]:
	"""The directories make builds for W=1 and sparse: those of the
	series' C and assembler files (make DIR/ builds what DIR's Makefile
	builds), not of user space."""
	dirs = sorted({os.path.dirname(p) + '/' for p in paths if _kbuild(p)})
	return [d for d in dirs if d != '/']

def _present(worktree: str, dirs: List[str]) -> List[str]:
	"""Those of @dirs that the worktree has as it is checked out (a
	suite's tests/ is not there before the patch that adds it): make
	DIR/ of one it lacks builds nothing and says nothing, so the list
	printed is what is built."""
	return [d for d in dirs if os.path.isfile(os.path.join(worktree, d, 'Makefile')) or
		os.path.isfile(os.path.join(worktree, d, 'Kbuild'))]

def _objects(worktree: str, paths: List[str]) -> List[str]:
	"""The objects of the series' C and assembler files that are not
	tests: what --check compares with the test options off."""
	return [os.path.splitext(p)[0] + '.o' for p in paths
		if _kbuild(p) and '/tests/' not in p and
		os.path.exists(os.path.join(worktree, p))]

def _disassembly(out: str, obj: str) -> List[str]:
	"""The disassembly of @obj under @out, without its file name line."""
	result = proc.run([CROSS_COMPILE + 'objdump', '-dr', '--no-show-raw-insn',
			   os.path.join(out, obj)])
	if result.returncode != 0:
		raise Error(f'objdump of {os.path.join(out, obj)} failed:\n{result.stderr.strip()}')
	return [l for l in result.stdout.splitlines() if 'file format' not in l]

def functions(disassembly: List[str]) -> Dict[str, List[str]]:
	"""The instructions of each function of @disassembly (objdump -dr),
	without the addresses that an earlier function's change of size moves:
	the offsets within the function and the symbols stay."""
	found: Dict[str, List[str]] = {}
	body: Optional[List[str]] = None
	for line in disassembly:
		match = _FUNCTION.match(line.strip())
		if match:
			body = found.setdefault(match.group('name'), [])
		elif body is not None and line.strip():
			line = re.sub(r'^\s*[0-9a-f]+:\s*', '', line)
			body.append(re.sub(r'\b[0-9a-f]+ <', '<', line))
	return found

def object_steps(touched: List[List[str]], sources: Sequence[str]) -> List[int]:
	"""The patches (indexes into @touched, the files each patch touches)
	after which the objects of @sources are built again: those that touch
	one of @sources, or a header that is not a test's (any of them may
	include it), and the last."""
	wanted = set(sources)
	steps = [i for i, paths in enumerate(touched)
		 if any(p in wanted or (p.endswith('.h') and '/tests/' not in p and
					  not p.startswith(USER_SPACE)) for p in paths)]
	last = len(touched) - 1
	return steps if last < 0 or last in steps else steps + [last]

def changed_by(built: Sequence[Tuple[str, Dict[str, List[str]]]], obj: str) -> List[str]:
	"""The steps of @built (each a label and its disassembly of each
	object) whose disassembly of @obj differs from the step's before."""
	return [label for (_, before), (label, after) in zip(built, built[1:])
		if before.get(obj) != after.get(obj)]

def changed_functions(base: List[str], series: List[str]) -> List[str]:
	"""The functions whose code differs between two disassemblies of an
	object, or that only one has."""
	before, after = functions(base), functions(series)
	return sorted(name for name in set(before) | set(after)
		      if before.get(name) != after.get(name))

def _config(worktree: str, out: str, log: str, config: str, jobs: int,
	    disable: Sequence[str]=(), enable: Sequence[str]=()) -> int:
	"""@config in @out's .config, made whole for the worktree as it is
	(olddefconfig), with @disable turned off and @enable on first."""
	os.makedirs(out, exist_ok=True)
	with open(config) as f:
		lines = [l for l in f.read().splitlines()
			 if not any(l.startswith((f'CONFIG_{s}=', f'# CONFIG_{s} is not set'))
				    for s in list(disable) + list(enable))]
	lines += [f'# CONFIG_{s} is not set' for s in disable]
	lines += [f'CONFIG_{s}=y' for s in enable]
	with open(os.path.join(out, '.config'), 'w') as f:
		f.write('\n'.join(lines) + '\n')
	return _make(worktree, out, log, ['olddefconfig'], jobs)

def check_series(printer: Printer, tree_dir: str, patch_files: List[str], jobs: int,
		 kunit_timeout: int) -> SeriesCheck:
	"""export --check of @patch_files (the series export wrote, in order)."""
	result = SeriesCheck()
	wt = _plain_worktree(printer, tree_dir)
	state = tree.state_dir(tree_dir, *STATE)
	shutil.rmtree(state, ignore_errors=True)
	os.makedirs(state)
	log = os.path.join(state, 'make.log')
	printer.print(f'export --check in {wt} (logs: {state})')
	# Every patch applies, in order, to the base alone.
	commits = []
	for path in patch_files:
		check = PatchCheck(os.path.basename(path))
		result.patches.append(check)
		applied = tree.git(wt, 'am', '-q', '--committer-date-is-author-date', path, check=False)
		if applied.returncode != 0:
			tree.git(wt, 'am', '--abort', check=False)
			check.why = (applied.stdout + applied.stderr).strip()
			printer.print(f'    {check.name}: does not apply:\n{check.why}')
			return result
		check.applies = True
		commits.append(tree.head(wt))
	final = tree.head(wt)
	series_files = sorted(set(tree.git(wt, 'diff', '--name-only', tree.BASE_REF, final)
				  .stdout.split()))
	# Nothing in the worktree but the base and the series.
	result.stray = [l for l in tree.git(wt, 'status', '--porcelain', '--ignored',
					    '--untracked-files=all').stdout.splitlines() if l]
	# The suites' own .kunitconfig, as kunit.py makes it into a .config.
	full = os.path.join(state, 'series.config')
	kunit = os.path.join(wt, 'tools', 'testing', 'kunit', 'kunit.py')
	printer.print('    the series\' .config, from its .kunitconfig (kunit.py config) ...')
	configured = proc.run(['python3', kunit, 'config', '--arch=arm64',
			       f'--cross_compile={CROSS_COMPILE}', f'--build_dir={state}/kunit-config',
			       f'--kunitconfig={os.path.dirname(TREE_KUNITCONFIG)}'],
			      cwd=wt, stderr=proc.To.MERGED)
	if configured.returncode != 0:
		raise Error(f'kunit.py config of the series failed in {wt}:\n'
			    f'{configured.stdout.strip()[-2000:]}')
	shutil.copyfile(os.path.join(state, 'kunit-config', '.config'), full)
	dirs = _dirs(series_files)
	w1 = os.path.join(state, 'w1')
	# W=1 and sparse of the base: the warnings no patch answers for.
	tree.git(wt, 'checkout', '-q', '--detach', tree.BASE_REF)
	printer.print(f'    W=1 and sparse of the base: {" ".join(_present(wt, dirs))} ...')
	if _config(wt, w1, log, full, jobs) != 0 or \
	   _make(wt, w1, log, ['W=1', 'C=1', 'CHECK=sparse'] + _present(wt, dirs), jobs) != 0:
		raise Error(f'the W=1 build of the base failed (log: {log}):\n{_tail(log)}')
	with open(log, errors='replace') as f:
		text = f.read()
	known = diagnostics(text, wt, w1)
	result.sparse_off = sparse_off(text)
	if result.sparse_off:
		printer.print(f'    sparse not run: {result.sparse_off}')
	known_doc = _kerneldoc(wt, series_files)
	for check, commit in zip(result.patches, commits):
		tree.git(wt, 'checkout', '-q', '--detach', commit)
		one = os.path.join(state, f'{check.name}.log')
		if _config(wt, w1, one, full, jobs) != 0 or \
		   _make(wt, w1, one, ['W=1', 'C=1', 'CHECK=sparse'] + _present(wt, dirs),
			 jobs) != 0:
			check.build_failed = _tail(one)
		else:
			with open(one, errors='replace') as f:
				found = diagnostics(f.read(), wt, w1)
			check.warnings = sorted(f'{p}: {t}' for p, t in found - known)
			known |= found
		check.kerneldoc = sorted(f'{p}: {t}' for p, t in
					 _kerneldoc(wt, _touched(wt, commit)) - known_doc)
		printer.print(f'    {check.name}: {check.verdict()}')
		for line in (check.warnings + check.kerneldoc)[:20]:
			printer.print(f'        {line}')
	# The object code of what the series touches, with the test options off:
	# built at the base and again after each patch that may change it.
	touched = [_touched(wt, commit) for commit in commits]
	touched_by: Dict[str, List[str]] = {}
	for check, paths in zip(result.patches, touched):
		for path in paths:
			touched_by.setdefault(path, []).append(check.name)
	objs = _objects(wt, series_files)
	sources = {obj: next((p for p in series_files if os.path.splitext(p)[0] + '.o' == obj), obj)
		   for obj in objs}
	steps = [('base', tree.BASE_REF)] + [(result.patches[i].name, commits[i]) for i in
					    object_steps(touched, list(sources.values()))]
	for name, enable in OBJECT_CONFIGS.items() if objs else ():
		out = os.path.join(state, f'objects-{name}')
		printer.print(f'    the object code without KUnit ({name}), at the base and after '
			      f'{len(steps) - 1} of the patches ...')
		built: List[Tuple[str, Dict[str, List[str]]]] = []
		for label, rev in steps:
			tree.git(wt, 'checkout', '-q', '--detach', rev)
			present = [o for o in objs if os.path.exists(os.path.join(wt, sources[o]))]
			if _config(wt, out, log, full, jobs, disable=['KUNIT'], enable=enable) != 0 or \
			   _make(wt, out, log, present, jobs) != 0:
				raise Error(f'the build of {", ".join(present)} without KUnit failed '
					    f'({name}, {label}; log: {log}):\n{_tail(log)}')
			built.append((label, {o: _disassembly(out, o) for o in present}))
		for obj in objs:
			base, series = built[0][1].get(obj), built[-1][1].get(obj)
			changed = 0 if base == series else sum(
				1 for a, b in zip(base or [], series or []) if a != b) + abs(
				len(base or []) - len(series or []))
			result.objects.append(ObjectCheck(
				sources[obj], base == series, touched_by.get(sources[obj], []), changed,
				name, changed_functions(base or [], series or []), changed_by(built, obj)))
	# The plain kunit.py run, in the tree of the series.
	tree.git(wt, 'checkout', '-q', '--detach', final)
	result.kunit_log = os.path.join(state, 'kunit.log')
	printer.print(f'    ./tools/testing/kunit/kunit.py run --arch=arm64 '
		      f'--kunitconfig={os.path.dirname(TREE_KUNITCONFIG)} in {wt} ...')
	cmd = ['python3', kunit, 'run', '--arch=arm64', f'--cross_compile={CROSS_COMPILE}',
	       f'--kunitconfig={os.path.dirname(TREE_KUNITCONFIG)}', f'--jobs={jobs}',
	       f'--timeout={kunit_timeout}',
	       f'--make_options=CC=ccache {CROSS_COMPILE}gcc']
	with open(result.kunit_log, 'w') as f:
		status = proc.Session(cmd, f, {'CCACHE_BASEDIR': os.path.realpath(wt)}).wait_to_end(2)
	with open(result.kunit_log, errors='replace') as f:
		text = f.read()
	summary = re.findall(r'^\[[0-9:]+\] (Testing complete\..*)$', text, re.M)
	result.kunit_summary = summary[-1] if summary else _tail(result.kunit_log, 5)
	result.kunit_run = status == 0
	# Leave nothing in the worktree a later check would take for the series.
	shutil.rmtree(os.path.join(wt, '.kunit'), ignore_errors=True)
	return result

def report(printer: Printer, result: SeriesCheck) -> None:
	printer.print()
	printer.print('export --check:')
	for check in result.patches:
		printer.print(f'    {check.name}: applies with git am'
			      f'{"" if check.applies else ": NO"}; {check.verdict()}')
	if result.stray:
		printer.print('    files in the plain worktree that are not the series\': ' +
			      ', '.join(result.stray))
	for obj in result.objects:
		if obj.identical:
			printer.print(f'    {obj.source}, without KUnit ({obj.config}): object code '
				      'identical to the base')
		else:
			printer.print(f'    {obj.source}, without KUnit ({obj.config}): object code '
				      f'differs from the base ({obj.changed_lines} lines of disassembly, '
				      f'in {", ".join(obj.functions) or "no function"}; changed by '
				      f'{", ".join(obj.changed_by) or "no patch"}; touched by '
				      f'{", ".join(obj.patches) or "no patch"})')
	if result.sparse_off:
		printer.print(f'    sparse: NOT RUN, the W=1 builds ran without it: {result.sparse_off}')
	if result.kunit_run is not None:
		printer.print(f'    plain kunit.py run: {"pass" if result.kunit_run else "FAILED"}: '
			      f'{result.kunit_summary} (log: {result.kunit_log})')
