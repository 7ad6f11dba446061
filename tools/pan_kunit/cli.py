# SPDX-License-Identifier: GPL-2.0
#
# tools/pan-kunit [--tree DIR] {setup,run,selftest}
#
# Exit status: 0 when every config passed, 1 when one did not, 2 for usage
# and setup errors (refusals, missing packages, a patch that does not apply).

import argparse
import json
import os
import sys
import unittest
from typing import Sequence

from pan_kunit import Error, configs, lkdtm, packages, results, runner, sources, tree

TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TOOLS_DIR)
DEFAULT_TARBALL = '/usr/src/linux-source-6.1.tar.xz'
KUNIT_TOOL_DIR = os.path.join('tools', 'testing', 'kunit')
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
		'selftest': 'run the unit tests of this tool',
	}
	for name, help_text in commands.items():
		subparser = subparsers.add_parser(name, help=help_text, description=help_text)
		# Also after the subcommand; SUPPRESS keeps a --tree given before it.
		subparser.add_argument('--tree', metavar='DIR', help=tree_help,
				       default=argparse.SUPPRESS)
	for name in ('run', 'lkdtm'):
		boot_parser = subparsers.choices[name]
		boot_parser.add_argument('--config', action='append', default=[], metavar='NAME',
					 help='run only qemu_configs/NAME.py; repeatable')
		boot_parser.add_argument('--timeout', type=_positive_int, default=300,
					 metavar='SECONDS',
					 help='kunit.py exec\'s --timeout per boot (default: 300)')
		boot_parser.add_argument('--jobs', type=_positive_int, default=os.cpu_count(),
					 metavar='N',
					 help='make jobs per build (default: the number of CPUs)')
	subparsers.choices['run'].add_argument(
		'--json', metavar='FILE',
		help='also write the results, with kunit_tool\'s JSON, to FILE')
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
		try:
			with open(args.json, 'w') as f:
				json.dump(results.report(tree_dir, tree.head(tree_dir), result_list),
					  f, indent=4)
				f.write('\n')
		except OSError as e:
			raise Error(f'cannot write --json {args.json}: {e.strerror}')
	return 0 if all(r.status == results.PASS for r in result_list) else 1

def run_lkdtm(args: argparse.Namespace, tree_dir: str, repo: str) -> int:
	names = configs.select(repo, args.config)
	setup(tree_dir, repo)
	kunit_dir = os.path.join(tree_dir, KUNIT_TOOL_DIR)
	matrix = [configs.load(repo, name, kunit_dir) for name in names]
	verdicts = lkdtm.run(tree_dir, kunit_dir, matrix, repo, args.timeout, args.jobs)
	return 0 if lkdtm.print_report(matrix, verdicts) else 1

def selftest() -> int:
	"""`python3 -m unittest discover -s tools -p '*_test.py'`, in-process."""
	program = unittest.main(module=None, exit=False, testLoader=unittest.TestLoader(), argv=[
		'pan-kunit selftest', 'discover', '-s', TOOLS_DIR, '-p', '*_test.py'])
	return 0 if program.result.wasSuccessful() else 1

def main(argv: Sequence[str], repo: str=REPO) -> int:
	args = parse_args(argv)
	try:
		if args.command == 'selftest':
			return selftest()
		tree_dir = os.path.abspath(args.tree or default_tree())
		if args.command == 'setup':
			setup(tree_dir, repo)
			return 0
		if args.command == 'lkdtm':
			return run_lkdtm(args, tree_dir, repo)
		return run(args, tree_dir, repo)
	except Error as e:
		print(f'pan-kunit: error: {e}', file=sys.stderr)
		return 2
	except KeyboardInterrupt:
		print('pan-kunit: interrupted', file=sys.stderr)
		return 130
