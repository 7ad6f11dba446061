# SPDX-License-Identifier: GPL-2.0
#
# tools/pan-kunit [--tree DIR] {setup,run,lkdtm,bisect,mutants,export,selftest}
#
# Exit status: 0 when every config passed, 1 when one did not, 2 for usage
# and setup errors (refusals, missing packages, a patch that does not apply).

import argparse
import json
import os
import shlex
import signal
import statistics
import sys
import time
import unittest
from typing import Sequence

from pan_kunit import (Error, check, configs, export, junit, lkdtm, packages, results, runner,
		       sources, tree)

TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TOOLS_DIR)
DEFAULT_TARBALL = '/usr/src/linux-source-6.1.tar.xz'
KUNIT_TOOL_DIR = os.path.join('tools', 'testing', 'kunit')
MUTANTS_DIR = 'mutants'
# kunit.py exec's --timeout for a mutant: a mutant may hang the boot,
# and a healthy boot of the matrix takes seconds.
MUTANT_TIMEOUT = 120
# How many uncommitted files the note of `run` names.
MAX_NOTED = 10

def default_tree() -> str:
	return os.environ.get('PAN_KUNIT_TREE') or os.path.join(
		os.path.expanduser('~'), '.cache', 'pan-kunit', 'linux-source-6.1')

def _positive_int(text: str) -> int:
	value = int(text)
	if value < 1:
		raise argparse.ArgumentTypeError(f'must be at least 1, not {value}')
	return value

def parse_args(argv: Sequence[str]) -> argparse.Namespace:
	parser = argparse.ArgumentParser(
		prog='pan-kunit',
		description='Prepares a Debian linux-source-6.1 tree with the patches and '
		'KUnit suites of this repo, and runs the suites under QEMU, once per '
		'qemu_configs/*.py.')
	tree_help = ('the prepared kernel tree (default: $PAN_KUNIT_TREE, else '
		     '~/.cache/pan-kunit/linux-source-6.1)')
	parser.add_argument('--tree', metavar='DIR', help=tree_help)
	subparsers = parser.add_subparsers(dest='command', required=True)
	commands = {
		'setup': 'install the needed Debian packages and prepare the tree',
		'run': 'setup, then build and boot every QEMU config and report',
		'lkdtm': 'setup, then prove PAN end to end: LKDTM ACCESS_USERSPACE and '
			 'EXEC_USERSPACE, one boot each, on every QEMU config',
		'bisect': 'setup, then check a series one patch at a time in a worktree of '
			  'the tree: build and run the matrix after each patch, report the '
			  'first bad one',
		'mutants': 'setup, then apply each known regression of mutants/ to a '
			   'worktree of the tree and check that the suites catch it',
		'export': 'setup, then write the suites and patches as one upstream series '
			  '(git format-patch, with a cover letter) into DIR, check it with '
			  'checkpatch.pl --strict and check that every prefix builds and passes',
		'selftest': 'run the unit tests of this tool',
	}
	for name, help_text in commands.items():
		subparser = subparsers.add_parser(name, help=help_text, description=help_text)
		# Also after the subcommand; SUPPRESS keeps a --tree given before it.
		subparser.add_argument('--tree', metavar='DIR', help=tree_help,
				       default=argparse.SUPPRESS)
	for name in ('run', 'lkdtm', 'bisect', 'mutants', 'export'):
		boot_parser = subparsers.choices[name]
		timeout = MUTANT_TIMEOUT if name == 'mutants' else 300
		boot_parser.add_argument('--config', action='append', default=[], metavar='NAME',
					 help='run only qemu_configs/NAME.py; repeatable')
		boot_parser.add_argument('--timeout', type=_positive_int, default=timeout,
					 metavar='SECONDS',
					 help=f'kunit.py exec\'s --timeout per boot (default: {timeout})')
		boot_parser.add_argument('--jobs', type=_positive_int, default=os.cpu_count(),
					 metavar='N',
					 help='make jobs per build (default: the number of CPUs)')
	for name in ('run', 'bisect', 'mutants'):
		subparsers.choices[name].add_argument(
			'--json', metavar='FILE',
			help='also write the results, each config\'s as a KernelCI record (kunit_tool\'s '
			'JSON with the kernel, commit, config and CPU), to FILE')
		subparsers.choices[name].add_argument(
			'--junit', metavar='FILE',
			help='also write the results as JUnit XML to FILE: a testsuite per kernel, '
			'config and suite, a testcase per case')
	bisect_parser = subparsers.choices['bisect']
	bisect_parser.add_argument(
		'series', nargs='?', metavar='SERIES',
		help='a directory of patches (in the order of its "series" file, else by '
		'name), an mbox, or a git range of the tree; applied on top of the prepared '
		'tree.  Default: this repo\'s patches/, applied on top of the Debian base '
		'plus the suites\' files')
	bisect_parser.add_argument('--step', type=int, metavar='N',
				   help='apply the first N patches and check that step alone')
	export_parser = subparsers.choices['export']
	export_parser.add_argument('dir', metavar='DIR',
				   help='where the series goes: a new or empty directory')
	export_parser.add_argument('--no-build', action='store_true',
				   help='only write and checkpatch the series; do not build its '
				   'prefixes')
	subparsers.choices['mutants'].add_argument(
		'--only', action='append', default=[], metavar='NAME',
		help='check only mutants/NAME.patch; repeatable')
	return parser.parse_args(argv)

def setup(tree_dir: str, repo: str) -> None:
	packages.ensure()
	wanted = sources.load(repo)
	tarball = os.environ.get('PAN_KUNIT_TARBALL', DEFAULT_TARBALL)
	tree.setup(tree_dir, wanted, tarball, packages.version(packages.SOURCE_PACKAGE))

def _note_edits(tree_dir: str) -> None:
	edits = tree.changed_files(tree_dir)
	if edits:
		more = f' and {len(edits) - MAX_NOTED} more' if len(edits) > MAX_NOTED else ''
		print(f'note: building with uncommitted changes in {tree_dir}: '
		      f'{", ".join(edits[:MAX_NOTED])}{more}')

def run(args: argparse.Namespace, tree_dir: str, repo: str) -> int:
	names = configs.select(repo, args.config)  # a wrong name fails before setup
	setup(tree_dir, repo)
	_note_edits(tree_dir)
	kunit_dir = os.path.join(tree_dir, KUNIT_TOOL_DIR)
	matrix = [configs.load(repo, name, kunit_dir) for name in names]
	result_list = runner.run(tree_dir, kunit_dir, matrix, args.timeout, args.jobs)
	results.print_report(result_list)
	if args.json:
		_write_json(args.json, results.report(tree_dir, tree.head(tree_dir), result_list))
	if args.junit:
		junit.write(args.junit, junit.document('pan-kunit run', [
			suite for result in result_list for suite in junit.config_suites(result)]))
	return 0 if all(r.status == results.PASS for r in result_list) else 1

def run_lkdtm(args: argparse.Namespace, tree_dir: str, repo: str) -> int:
	names = configs.select(repo, args.config)
	setup(tree_dir, repo)
	kunit_dir = os.path.join(tree_dir, KUNIT_TOOL_DIR)
	matrix = [configs.load(repo, name, kunit_dir) for name in names]
	verdicts = lkdtm.run(tree_dir, kunit_dir, matrix, repo, args.timeout, args.jobs)
	return 0 if lkdtm.print_report(matrix, verdicts) else 1

def check_destinations(args: argparse.Namespace) -> None:
	"""Refuses a --json or --junit FILE that cannot be written, before
	anything runs: its directory must exist and be writable."""
	for option in ('json', 'junit'):
		path = getattr(args, option, None)
		if not path:
			continue
		directory = os.path.dirname(os.path.abspath(path))
		why = None
		if os.path.isdir(path):
			why = 'it is a directory'
		elif not os.path.exists(directory):
			why = f'no such directory: {directory}'
		elif not os.path.isdir(directory):
			why = f'{directory} is not a directory'
		elif not os.access(directory, os.W_OK | os.X_OK) or (
				os.path.exists(path) and not os.access(path, os.W_OK)):
			why = 'permission denied'
		if why:
			raise Error(f'cannot write --{option} {path}: {why}')

def _write_json(path: str, data: results.JsonObj) -> None:
	try:
		with open(path, 'w') as f:
			json.dump(data, f, indent=4)
			f.write('\n')
	except OSError as e:
		raise Error(f'cannot write --json {path}: {e.strerror}')

def _checker(args: argparse.Namespace, tree_dir: str, repo: str) -> check.Bisect:
	names = configs.select(repo, args.config)
	kunit_dir = os.path.join(tree_dir, KUNIT_TOOL_DIR)
	matrix = [configs.load(repo, name, kunit_dir) for name in names]
	return check.Bisect(tree_dir, kunit_dir, matrix, args.timeout, args.jobs)

def _reproduce(args: argparse.Namespace, tree_dir: str, step: int) -> str:
	words = ['tools/pan-kunit', '--tree', tree_dir, 'bisect']
	words += [args.series] if args.series else []
	words += [f'--config={c}' for c in args.config] + [f'--step={step}']
	return ' '.join(shlex.quote(w) for w in words)

def run_bisect(args: argparse.Namespace, tree_dir: str, repo: str) -> int:
	if args.series:
		args.series = os.path.abspath(args.series) if os.path.exists(args.series) \
			else args.series
	checker = _checker(args, tree_dir, repo)
	work = runner.state(tree_dir, 'check')
	if args.series:
		patches = check.load_series(args.series, tree_dir, work)
		wanted = None
	else:
		wanted = sources.load(repo)
		patches = [check.Patch(p, os.path.basename(p), check.subject(p))
			   for p in wanted.patches]
	if args.step is not None and not 0 <= args.step <= len(patches):
		raise Error(f'--step {args.step}: the series has steps 0 to {len(patches)}')
	start = time.monotonic()
	steps = check.run_bisect(checker, patches, wanted, args.step)
	print()
	for line in check.bisect_table(steps):
		print(line)
	bad = check.first_bad(steps) if args.step is None else None
	elapsed = time.monotonic() - start
	timed = sorted(s.elapsed for s in steps[1:]) or [0.0]
	print(f'{len(steps)} steps in {elapsed:.0f} s; median step {statistics.median(timed):.1f} s')
	if args.json:
		_write_json(args.json, {'tree': tree_dir, 'worktree': check.worktree_path(tree_dir),
					'series': args.series or os.path.join(repo, sources.SERIES),
					'first_bad': bad.number if bad else None,
					'steps': [s.to_json() for s in steps]})
	if args.junit:
		verdicts = [{'name': f'step {s.number} {s.patch.name if s.patch else "start"}',
			     'outcome': 'failure' if s.bad() else 'pass', 'message': s.verdict()}
			    for s in steps]
		junit.write(args.junit, junit.document('pan-kunit bisect', [
			junit.verdict_suite('bisect', verdicts)] + [
			suite for s in steps for result in s.configs
			for suite in junit.config_suites(result, f'step-{s.number:02d}')]))
	if args.step is not None:
		return 1 if steps[-1].bad() or steps[-1].failed() else 0
	if bad is None:
		print(f'bisect: all {len(patches)} patches good: every step built, and no case '
		      'that passed stopped passing')
		return 0
	assert bad.patch is not None
	print(f'bisect: first bad patch: {bad.number} {bad.patch.name}: {bad.patch.subject}')
	print(f'    {bad.verdict()}')
	for line in bad.regressions:
		print(f'    {line}')
	print(f'reproduce that step: {_reproduce(args, tree_dir, bad.number)}')
	return 1

def run_mutants(args: argparse.Namespace, tree_dir: str, repo: str) -> int:
	mutants = check.load_mutants(os.path.join(repo, MUTANTS_DIR), args.only)
	checker = _checker(args, tree_dir, repo)
	start = time.monotonic()
	baseline = check.run_mutants(checker, mutants)
	elapsed = time.monotonic() - start
	print()
	for line in check.mutants_table(mutants):
		print(line)
	timed = sorted(m.elapsed for m in mutants if m.verdict != check.PENDING) or [0.0]
	counts = {v: sum(m.verdict == v for m in mutants)
		  for v in (check.KILLED, check.SURVIVED, check.PENDING, check.DOES_NOT_APPLY,
			    check.BUILD_FAILED)}
	print(f'{len(mutants)} mutants in {elapsed:.0f} s (baseline {baseline.elapsed:.0f} s, '
	      f'median mutant {statistics.median(timed):.1f} s)')
	print('mutants: ' + ', '.join(f'{n} {v}' for v, n in counts.items() if n))
	if args.json:
		_write_json(args.json, {'tree': tree_dir, 'worktree': check.worktree_path(tree_dir),
					'baseline': baseline.to_json(),
					'mutants': [m.to_json() for m in mutants]})
	if args.junit:
		verdicts = [{'name': m.name, 'message': f'{m.verdict}: {m.detail}',
			     'outcome': 'pass' if m.verdict == check.KILLED else
			     'skipped' if m.verdict == check.PENDING else 'failure'}
			    for m in mutants]
		junit.write(args.junit, junit.document('pan-kunit mutants', [
			junit.verdict_suite('mutants', verdicts)] + [
			suite for result in baseline.configs
			for suite in junit.config_suites(result, 'baseline')]))
	return 0 if all(m.ok() for m in mutants) else 1

def run_export(args: argparse.Namespace, tree_dir: str, repo: str) -> int:
	out = os.path.abspath(args.dir)
	checker = _checker(args, tree_dir, repo)
	wanted = sources.load(repo)
	worktree = check.worktree(tree_dir, tree.BASE_REF)
	export.build_series(worktree, repo, wanted)
	files = export.format_patches(worktree, repo, out, export.series_author(wanted))
	problems = export.checkpatch(worktree, files[1:])
	print(f'wrote {len(files) - 1} patches and a cover letter into {out}:')
	for path in files:
		verdict = 'cover letter' if path == files[0] else (
			'checkpatch --strict: FAILED' if path in problems else
			'checkpatch --strict: clean')
		print(f'    {os.path.basename(path)}: {verdict}')
		for line in problems.get(path, '').splitlines():
			print(f'        {line}')
	bad = None
	if not args.no_build:
		checker.kunitconfig = wanted.suites[sources.TREE_KUNITCONFIG]
		patches = [check.Patch(p, os.path.basename(p), check.subject(p)) for p in files[1:]]
		steps = check.run_bisect(checker, patches, None, start=tree.BASE_REF)
		print()
		for line in check.bisect_table(steps):
			print(line)
		bad = check.first_bad(steps)
		if bad is not None:
			print(f'export: step {bad.number} is bad: {bad.verdict()}')
		elif steps[-1].failed():
			bad = steps[-1]
			print('export: the whole series does not pass')
	if problems:
		print(f'export: {len(problems)} patches are not checkpatch clean')
	return 0 if not problems and bad is None else 1

def selftest() -> int:
	"""`python3 -m unittest discover -s tools -p '*_test.py'`, in-process."""
	program = unittest.main(module=None, exit=False, testLoader=unittest.TestLoader(), argv=[
		'pan-kunit selftest', 'discover', '-s', TOOLS_DIR, '-p', '*_test.py'])
	return 0 if program.result.wasSuccessful() else 1

def _interrupt(signum: int, frame: object) -> None:
	raise KeyboardInterrupt

def main(argv: Sequence[str], repo: str=REPO) -> int:
	args = parse_args(argv)
	# A SIGTERM (a CI job cancelled, kill) ends the run as ^C does: every
	# kunit.py, make and QEMU it started is killed, not orphaned.
	signal.signal(signal.SIGTERM, _interrupt)
	try:
		check_destinations(args)  # before anything runs
		if args.command == 'selftest':
			return selftest()
		tree_dir = os.path.abspath(args.tree or default_tree())
		if args.command == 'setup':
			setup(tree_dir, repo)
			return 0
		if args.command == 'lkdtm':
			return run_lkdtm(args, tree_dir, repo)
		checks = {'bisect': run_bisect, 'mutants': run_mutants, 'export': run_export}
		if args.command in checks:
			configs.select(repo, args.config)  # a wrong name fails before setup
			setup(tree_dir, repo)
			with check.locked(tree_dir):
				return checks[args.command](args, tree_dir, repo)
		return run(args, tree_dir, repo)
	except Error as e:
		print(f'pan-kunit: error: {e}', file=sys.stderr)
		return 2
	except KeyboardInterrupt:
		print('pan-kunit: interrupted', file=sys.stderr)
		return 130
