# SPDX-License-Identifier: GPL-2.0
#
# tools/pan-kunit [--tree DIR] {setup,run,lkdtm,coverage,bisect,mutants,export,selftest,list,
#                 parse}
#                 [--kernel VERSION ...]
#
# Exit status: 0 when every config passed, 1 when one did not, 2 for usage
# and setup errors (refusals, missing packages, a patch that does not apply).

import argparse
import difflib
import functools
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import unittest
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence

from pan_kunit import (Error, apt_suites, bisect, configs, coverage, export, junit, kernels,
		       ktap, lkdtm, mutagen, mutants, packages, progress, results, runner, score,
		       series, sources, steps, summary, tree, usertree, worktree)
from pan_kunit.kernels import KernelSpec

TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TOOLS_DIR)
# How many uncommitted files the note of `run` names.
MAX_NOTED = 10

# What every kernel pan-kunit builds leaves out that nothing under test uses.
LEAN_KCONFIG = 'lean.config'

def fragments(repo: str, kernel: KernelSpec) -> List[str]:
	"""The kconfig files every build of @kernel merges into the
	kunitconfig: LKDTM's, so that `lkdtm` boots the kernels `run` built,
	lean.config, and the kernel's own fragment, if it has one: the
	kunitconfig and lean.config hold only what every kernel accepts."""
	found = [os.path.join(repo, lkdtm.KCONFIG), os.path.join(repo, LEAN_KCONFIG)]
	own = os.path.join(repo, kernel.kconfig())
	return found + [own] if os.path.isfile(own) else found

@dataclass
class Target:
	"""A kernel, and the prepared tree a command works in for it."""
	kernel: KernelSpec
	tree: str         # absolute
	given: bool       # named by --tree or PAN_KUNIT_TREE, not the kernel's default
	# A tree of the user's own (usertree.py): its path; @tree is then
	# pan-kunit's clone of it, and @kernel the kernel whose series it gets.
	user: Optional[str] = None
	note: str = ''    # how that kernel was chosen, when not by its version

def _given_tree(args: argparse.Namespace) -> Optional[str]:
	return args.tree or os.environ.get('PAN_KUNIT_TREE') or None

def targets(args: argparse.Namespace, repo: str) -> List[Target]:
	"""The (kernel, tree) pairs a command works on.  --kernel (default:
	every supported kernel; export's and bisect SERIES's: the newest) picks
	the kernels, each in its default tree; a tree the user names (--tree,
	PAN_KUNIT_TREE) is one tree, of the kernel it holds (its base commit,
	else its Makefile), never guessed from its path."""
	names: List[str] = getattr(args, 'kernel', None) or []
	chosen = kernels.select(repo, names)
	newest_only = args.command == 'export' or (args.command == 'bisect' and args.series)
	given = _given_tree(args)
	if given is None:
		if newest_only and not names:
			chosen = [kernels.newest(chosen)]
		return [Target(k, os.path.abspath(k.default_tree()), False) for k in chosen]
	path = os.path.abspath(given)
	if usertree.is_user_tree(path):
		kernel, note = usertree.series_kernel(path, kernels.supported(repo))
		if names and kernel not in chosen:
			raise Error(f'{path} is a tree of {kernel.name} (its Makefile), not ' +
				    ' or '.join(k.name for k in chosen) + ': leave out --kernel')
		return [Target(kernel, usertree.clone_dir(kernels.cache_dir(), path), True,
			       user=path, note=note)]
	held = tree.kernel_spec(path) if os.path.isdir(path) else None
	if held is not None:
		if names and held not in chosen:
			raise Error(f'{path} holds {held.package}, not ' +
				    ' or '.join(k.package for k in chosen) +
				    f': give --kernel {held.name}, or another tree')
		if held not in kernels.supported(repo):
			raise Error(f'{path} holds {held.package}, which {repo} has no series for '
				    f'({held.series()})')
		return [Target(held, path, True)]
	if os.path.lexists(path):
		# No tree of a known kernel: setup refuses it, with the reason.
		return [Target(chosen[0], path, True)]
	if len(chosen) > 1:
		raise Error(f'the tree {path} does not exist yet, so it holds no kernel to read: '
			    'name the one setup should extract into it with --kernel (' +
			    ', '.join(k.name for k in chosen) + ')')
	return [Target(chosen[0], path, True)]

def _positive_int(text: str) -> int:
	value = int(text)
	if value < 1:
		raise argparse.ArgumentTypeError(f'must be at least 1, not {value}')
	return value

# kunit_tool's kunit_config patterns: what kunit.py takes as a --kconfig_add.
_KCONFIG_LINE = re.compile(r'^(?:CONFIG_(\w+)=(\S+|".*")|# CONFIG_(\w+) is not set)$')

def _kconfig_line(text: str) -> str:
	if not _KCONFIG_LINE.match(text):
		raise argparse.ArgumentTypeError(f'{text!r} is no CONFIG_X=VALUE (or '
						 '"# CONFIG_X is not set") line')
	return text

def _filter_glob(text: str) -> str:
	if not text or text.startswith('-') or any(c.isspace() for c in text):
		raise argparse.ArgumentTypeError(f'{text!r} is no SUITE or SUITE.CASE glob (one word '
						 'for the kernel command line, not starting with -)')
	return text

def _attribute_filter(text: str) -> str:
	if not text.strip() or any(c in text for c in '"\n'):
		raise argparse.ArgumentTypeError(f'{text!r} is no attribute filter (e.g. '
						 '"speed>slow" or "module=name", without a double quote)')
	return text

def _add_kunit_options(parser: argparse.ArgumentParser, filter_glob: bool,
		       isolated: bool=False) -> None:
	"""kunit.py's options that pan-kunit passes on; @filter_glob: those
	that choose the cases a boot runs; @isolated: --run_isolated too."""
	if filter_glob:
		parser.add_argument('--filter_glob', type=_filter_glob, metavar='GLOB',
				    help='run only the suites or cases of GLOB (SUITE, SUITE.CASE, '
				    'with * and ?), as kunit.py exec does: the kernel filters them')
		parser.add_argument('--filter', type=_attribute_filter, metavar='FILTER',
				    help='run only the cases whose KUnit attributes match FILTER '
				    '("speed>slow", "module=name"; comma-separated: all of them), as '
				    'kunit.py exec does; kernels from 6.6 (not 6.1)')
		parser.add_argument('--filter_action', choices=['skip'], default='',
				    help='with --filter: report the cases it leaves out as skipped '
				    '(default: they do not run and are not reported)')
	if isolated:
		parser.add_argument('--run_isolated', choices=['suite', 'test'], default='',
				    help='boot each config once per suite (or per case), as kunit.py '
				    'exec does, keeping every boot\'s results: for a case whose result '
				    'depends on what ran before it')
	parser.add_argument('--kconfig_add', type=_kconfig_line, action='append', default=[],
			    metavar='CONFIG_X=Y', help='add a kconfig line to every build, as '
			    'kunit.py does (a build of its own); repeatable')
	parser.add_argument('--make_options', action='append', default=[], metavar='X=Y',
			    help='a make option for every build, as kunit.py passes it on; '
			    'repeatable')

EPILOG = """\
quick start:
  tools/pan-kunit run                     every kernel, every QEMU config
  tools/pan-kunit run --kernel 7.3 --config arm64_pan   one kernel, one config
  tools/pan-kunit run --tree ~/src/linux  your own checkout, HEAD and edits

what it costs (a 2-core machine; a slower one takes up to 3 times as long):
  the first run installs packages and builds each kernel's two kconfig
  groups from scratch: 5-12 minutes per kernel, about 30 for all three;
  then run takes 10-25 s after an edit, lkdtm and coverage a build each,
  bisect 15-60 s a patch, mutants 10-20 s a mutant (minutes for one of a
  header)

exit status: 0 all passed, 1 a test failed (or a build, a boot, a mutant),
  2 bad input or a setup that cannot be done (nothing was run), 130
  interrupted

the rest: README.md, and tools/pan-kunit COMMAND --help
"""

def parse_args(argv: Sequence[str]) -> argparse.Namespace:
	parser = argparse.ArgumentParser(
		prog='pan-kunit', epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
		description='Prepares Debian linux-source-VERSION trees (one per kernel of '
		'patches/VERSION/series) with the patches and KUnit suites of this repo, '
		'and runs the suites under QEMU, once per qemu_configs/*.py.')
	tree_help = ('one kernel tree, of the kernel it holds: a tree pan-kunit prepares, or '
		     'a git checkout of your own, whose HEAD and uncommitted edits are tested '
		     'in a clone and never changed (default: $PAN_KUNIT_TREE, else one tree per '
		     'kernel, $PAN_KUNIT_CACHE/linux-source-VERSION, $PAN_KUNIT_CACHE defaulting '
		     'to ~/.cache/pan-kunit)')
	parser.add_argument('--tree', metavar='DIR', help=tree_help)
	subparsers = parser.add_subparsers(dest='command', required=True)
	commands = {
		'setup': 'install the needed Debian packages and prepare the tree',
		'run': 'setup, then build and boot every QEMU config and report',
		'lkdtm': 'setup, then prove PAN end to end: LKDTM ACCESS_USERSPACE and '
			 'EXEC_USERSPACE, one boot each, on every QEMU config',
		'coverage': 'setup, then build with gcov profiling of the code under test, '
			    'run the suites once per QEMU config and report line and branch '
			    'coverage of each function under test (lcov HTML too)',
		'bisect': 'setup, then check a series one patch at a time in a worktree of '
			  'the tree: build and run the matrix after each patch, report the '
			  'first bad one',
		'mutants': 'setup, then apply each known regression of mutants/ to a '
			   'worktree of the tree and check that the suites catch it',
		'export': 'setup, then write the suites and patches as one upstream series '
			  '(git format-patch, with a cover letter) into DIR, check it with '
			  'checkpatch.pl --strict and check that every prefix builds and passes',
		'selftest': 'run the unit tests of this tool',
		'list': 'list the QEMU configs (CPU, kconfig group), the kernels pan-kunit '
			'supports and the mutants',
		'parse': 'parse a saved console log with kunit_tool and print the report run '
			 'prints for one config',
	}
	for name, help_text in commands.items():
		subparser = subparsers.add_parser(name, help=help_text, description=help_text)
		# Also after the subcommand; SUPPRESS keeps a --tree given before it.
		subparser.add_argument('--tree', metavar='DIR', help=tree_help,
				       default=argparse.SUPPRESS)
	kernel_names = ', '.join(k.name for k in kernels.KNOWN)
	for name in ('setup', 'run', 'lkdtm', 'coverage', 'bisect', 'mutants', 'export'):
		default = ('the newest supported one' if name == 'export' else
			   'every supported one; bisect SERIES: the newest')
		subparsers.choices[name].add_argument(
			'--kernel', action='append', default=[], metavar='VERSION',
			help=f'work on the kernel VERSION ({kernel_names}); repeatable '
			f'(default: {default})')
	for name in ('run', 'lkdtm', 'coverage', 'bisect', 'mutants', 'export'):
		boot_parser = subparsers.choices[name]
		timeout = mutants.TIMEOUT if name == 'mutants' else 300
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
	run_parser = subparsers.choices['run']
	run_parser.add_argument('glob', nargs='?', type=_filter_glob, metavar='filter_glob',
				help='the same as --filter_glob')
	_add_kunit_options(run_parser, filter_glob=True, isolated=True)
	shown = run_parser.add_mutually_exclusive_group()
	shown.add_argument('--summary', action='store_true',
			   help='print only the total lines, as kunit.py --summary does')
	shown.add_argument('--failed', action='store_true',
			   help='print only what failed and the total lines, as kunit.py '
			   '--failed does')
	run_parser.add_argument('--raw_output', nargs='?', const='kunit', default=None,
				choices=['all', 'kunit'],
				help='also print the console of every boot, as kunit.py does: '
				'all of it (all), or from the KTAP header on (kunit, the default)')
	_add_kunit_options(subparsers.choices['bisect'], filter_glob=True, isolated=True)
	_add_kunit_options(subparsers.choices['coverage'], filter_glob=True)
	_add_kunit_options(subparsers.choices['mutants'], filter_glob=False)
	subparsers.choices['parse'].add_argument(
		'file', metavar='FILE', help='a console log, e.g. a boot\'s test.log')
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
		help='check only mutants/VERSION/NAME.patch; repeatable')
	subparsers.choices['mutants'].add_argument(
		'--generate', action='store_true',
		help='generate mutants of the functions under test with libclang (relational, '
		'logical, bitwise and shift operators, constants +-1, negated conditions, deleted '
		'calls, swapped arguments) on the lines the last coverage run reached, judge a '
		'sample, and print the mutation score and every survivor')
	subparsers.choices['mutants'].add_argument(
		'--sample', type=int, metavar='N',
		help=f'with --generate: check N of them, drawn at random (default: '
		f'{score.DEFAULT_SAMPLE}; 0: all)')
	subparsers.choices['mutants'].add_argument(
		'--seed', type=int, default=1, metavar='S',
		help='with --generate: the seed of the sample (default: 1)')
	subparsers.choices['mutants'].add_argument(
		'--no-header-mutants', action='store_true',
		help='leave out the mutants that change a header: nearly every object includes '
		'it, so each is a build from scratch (minutes, where the others take seconds)')
	return parser.parse_args(argv)

# What a command is asked to do, from its arguments, as kunit.py's
# KunitRequest and its kin are: parse_args() reads the command line, and
# each command takes the request of its own.

@dataclass
class BootRequest:
	"""A command that builds and boots the matrix (lkdtm takes only this)."""
	configs: List[str]     # --config: the QEMU configs by name; none: all
	timeout: int           # kunit.py exec's --timeout
	jobs: int              # make jobs per build
	options: runner.KunitOptions   # kunit.py's that are passed on (none: lkdtm, export)

@dataclass
class ReportRequest(BootRequest):
	"""One that also writes its results into files."""
	json: Optional[str]
	junit: Optional[str]

@dataclass
class RunRequest(ReportRequest):
	raw_output: Optional[str]  # print every boot's console too: 'all' or 'kunit' (KTAP on)
	shown: results.Shown = results.Shown.ALL  # --summary, --failed

@dataclass
class BisectRequest(ReportRequest):
	series: Optional[str]  # SERIES as given; None: patches/ on the Debian base
	step: Optional[int]    # check this step alone

@dataclass
class MutantsRequest(ReportRequest):
	only: List[str]        # the mutants to check, by name; none: all
	headers: bool = True   # also the mutants that change a header
	generate: Optional[score.GenerateRequest] = None  # generated ones, not mutants/'s

@dataclass
class ExportRequest(BootRequest):
	out: str               # DIR, absolute
	no_build: bool         # checkpatch the series, do not build its prefixes

@dataclass
class ParseRequest:
	file: str              # the console log

def _kunit_options(args: argparse.Namespace) -> runner.KunitOptions:
	"""The kunit.py options of @args; a command that takes none has none."""
	given = vars(args)
	globs = sorted({g for g in (given.get('glob'), given.get('filter_glob')) if g})
	if len(globs) > 1:
		raise Error(f'two filter_globs, {globs[0]!r} and {globs[1]!r}: give one')
	if given.get('filter_action') and not given.get('filter'):
		raise Error('--filter_action skip skips what --filter leaves out: give --filter too')
	return runner.KunitOptions(filter_glob=globs[0] if globs else '',
				   kconfig_add=given.get('kconfig_add', []),
				   make_options=given.get('make_options', []),
				   filter=given.get('filter') or '',
				   filter_action=given.get('filter_action', ''),
				   run_isolated=given.get('run_isolated', ''))

def _check_kunit_options(options: runner.KunitOptions, target_list: List[Target]) -> None:
	"""Refuses --filter for a kernel without KUnit attributes: its kernel
	would ignore kunit.filter= and run every case."""
	if not options.filter:
		return
	lacking = [t.kernel.name for t in target_list if not kernels.has_kunit_attributes(t.kernel)]
	if lacking:
		raise Error(f'--filter {options.filter!r}: the kernel {", ".join(lacking)} has no KUnit '
			    'attributes (lib/kunit/attributes.c, 6.6 and later) and would run every '
			    'case; leave out --filter, or that kernel (--kernel)')

def _boot_fields(args: argparse.Namespace) -> Dict[str, Any]:
	"""The fields of BootRequest, which every command that boots has."""
	return dict(configs=args.config, timeout=args.timeout, jobs=args.jobs,
		    options=_kunit_options(args))

def _report_fields(args: argparse.Namespace) -> Dict[str, Any]:
	"""The fields of ReportRequest."""
	return dict(_boot_fields(args), json=args.json, junit=args.junit)

def boot_request(args: argparse.Namespace) -> BootRequest:
	return BootRequest(**_boot_fields(args))

def run_request(args: argparse.Namespace) -> RunRequest:
	shown = (results.Shown.SUMMARY if args.summary else
		 results.Shown.FAILED if args.failed else results.Shown.ALL)
	return RunRequest(**_report_fields(args), raw_output=args.raw_output, shown=shown)

def bisect_request(args: argparse.Namespace) -> BisectRequest:
	return BisectRequest(**_report_fields(args), series=args.series, step=args.step)

def mutants_request(args: argparse.Namespace) -> MutantsRequest:
	generate = None
	if args.generate:
		if args.only:
			raise Error('--only names mutants of mutants/; --generate makes its own: give one')
		generate = score.GenerateRequest(
			sample=None if args.sample == 0 else args.sample or score.DEFAULT_SAMPLE,
			seed=args.seed, headers=not args.no_header_mutants)
	elif args.sample is not None or args.seed != 1:
		raise Error('--sample and --seed choose among generated mutants: give --generate too')
	return MutantsRequest(**_report_fields(args), only=args.only,
			      headers=not args.no_header_mutants, generate=generate)

def export_request(args: argparse.Namespace) -> ExportRequest:
	return ExportRequest(**_boot_fields(args), out=os.path.abspath(args.dir),
			     no_build=args.no_build)

# The user's trees prepared so far (usertree.py), by their clone.
_PREPARED: Dict[str, usertree.Prepared] = {}

def setup(target: Target, repo: str, purpose: str, builds: bool=True,
	  at: Optional[str]=None) -> None:
	"""Checks that the tools the command @purpose needs are on PATH
	(setup's, and those that build and boot a kernel if it @builds), then
	prepares the tree: a Debian source's, or pan-kunit's clone of a tree of
	the user's (of its commit @at, if given, else of HEAD and the edits).
	The packages were installed by _ensure_packages()."""
	tools = packages.SETUP_TOOLS + (packages.BUILD_TOOLS + packages.BOOT_TOOLS if builds else [])
	packages.require(tools, purpose)
	kernel = target.kernel
	wanted = sources.load(repo, kernel)
	if target.user:
		_PREPARED[target.tree] = usertree.prepare(target.user, target.tree, kernel, wanted,
							  at=at, note=target.note)
		return
	tree.setup(target.tree, kernel, wanted, kernel.tarball(), packages.version(kernel.package))

def _describe(target: Target) -> Callable[[], tree.Kernel]:
	"""What the records of @target's boots name (see runner.run())."""
	prepared = _PREPARED.get(target.tree)
	if prepared is not None:
		return lambda: usertree.kernel_record(prepared)
	return lambda: tree.kernel_of(target.tree, _note_edits(target.tree))

def _note_edits(tree_dir: str) -> List[str]:
	"""Notes the tree's uncommitted edits, and returns them.  The note
	is one write: `run` notes them in a thread, while the kernels build."""
	edits = tree.changed_files(tree_dir)
	if edits:
		more = f' and {len(edits) - MAX_NOTED} more' if len(edits) > MAX_NOTED else ''
		progress.get().line(f'note: building with uncommitted changes in {tree_dir}: '
				    f'{", ".join(edits[:MAX_NOTED])}{more}')
	return edits

def _matrix(request: BootRequest, repo: str,
	    kunit_dir: Optional[str]) -> List[configs.QemuConfig]:
	"""The configs of --config (default: all), loaded with the tree's
	kunit_tool, or with None, before setup, with pan-kunit's stand-in for
	it: a config that does not load fails before any work."""
	return [configs.load(repo, name, kunit_dir)
		for name in configs.select(repo, request.configs)]

def _print_console(result: results.ConfigResult, what: str='all') -> None:
	"""--raw_output: the console of @result's boot, as it came (@what
	'all'), or from its KTAP header on ('kunit')."""
	if result.elapsed is None:
		print(f'--- {result.name}: not booted ({result.status})')
		return
	console = results.read_text(result.console_log)
	print(f'--- {result.name}: console ({result.console_log})' if console is not None else
	      f'--- {result.name}: no console ({result.console_log} is missing)')
	if console and what == 'kunit':
		lines = console.splitlines(keepends=True)
		start = next((i for i, line in enumerate(lines)
			      if results.KTAP_HEADER.search(line)), len(lines))
		console = ''.join(lines[start:])
	if console:
		print(console, end='' if console.endswith('\n') else '\n')

# The config run builds and boots alone first on a cold start: the
# newest kernel's, on a CPU with PAN.
FIRST_CONFIG = 'arm64_pan'

def _first_alone(request: RunRequest, target: Target, repo: str,
		 matrix: List[configs.QemuConfig]) -> List[configs.QemuConfig]:
	"""On a cold start (no kernel built yet for it) of the whole matrix,
	FIRST_CONFIG, which is then built and booted before the others, so
	that a first verdict comes after one build, not all of them; else
	none.  With --config the configs named are the matrix."""
	first = [c for c in matrix if c.name == FIRST_CONFIG]
	if request.configs or not first or len(matrix) < 2:
		return []
	options = request.options
	(build,) = runner.kconfig_builds(target.tree, first, fragments=fragments(repo, target.kernel),
					 kconfig_add=options.kconfig_add,
					 make_options=options.make_options)
	if os.path.exists(os.path.join(build.build_dir(target.tree), first[0].kernel_path)):
		return []
	print(f'cold start: {FIRST_CONFIG} first, built and booted alone; then the others')
	return first

def _print_first(first: List[results.ConfigResult]) -> None:
	"""The verdict of the config booted first: its failures and its
	column, before the other configs build (the kernel's table, after
	them, has it again, and its total counts it once)."""
	for result in first:
		print(f'=== first verdict: {result.kernel.package or result.kernel.version} '
		      f'{result.name}: {result.status}')
		results.print_failed(result)
	for line in results.table(first):
		print(line)

def run(request: RunRequest, target_list: List[Target], repo: str) -> int:
	"""Builds and boots the matrix of every kernel, the newest first, and
	reports each as soon as its boots end: its failures, skips, a table
	with a column per config and its total; then a total per kernel."""
	per_kernel: List[List[results.ConfigResult]] = []
	reports = []
	for target in reversed(target_list):  # targets() lists them oldest first
		tree_dir = target.tree
		setup(target, repo, 'run')
		kunit_dir = tree.kunit_dir(tree_dir)
		matrix = _matrix(request, repo, kunit_dir)
		first = _first_alone(request, target, repo, matrix) if not per_kernel else []
		# One description of the kernel for the one or two runs of the matrix:
		# a git status of a kernel tree takes 0.2-0.3 s.
		describe = functools.lru_cache(maxsize=None)(_describe(target))
		kernel_results = []
		for configs_now in ([first, [c for c in matrix if c not in first]] if first else
				    [matrix]):
			# The edits are noted while the kernels build: git status of a
			# kernel tree takes 0.2-0.3 s, once per run.
			kernel_results += runner.run(tree_dir, kunit_dir, configs_now, request.timeout,
						     request.jobs, options=request.options,
						     fragments=fragments(repo, target.kernel),
						     describe=describe)
			if first and configs_now is first:
				_print_first(kernel_results)
		order = [c.name for c in matrix]
		kernel_results.sort(key=lambda r: order.index(r.name))
		per_kernel.append(kernel_results)
		reports.append(results.report(tree_dir, tree.head(tree_dir), kernel_results))
		if request.raw_output:
			for result in kernel_results:
				_print_console(result, request.raw_output)
		results.print_report(kernel_results, headed=len(target_list) > 1, shown=request.shown)
		if tree_dir in _PREPARED:
			prepared = _PREPARED[tree_dir]
			print(f'tested your tree {prepared.state.path}: {prepared.state.describe()}' +
			      (' (it held the suites: taken as it is)' if prepared.carried else ''))
	# The files and the totals list the kernels oldest first, as --kernel does.
	reports.reverse()
	result_list = [result for kernel_results in reversed(per_kernel) for result in kernel_results]
	if len(target_list) > 1:
		for line in results.total_lines(result_list):
			print(line)
	passed, failed, _ = results.totals(result_list)
	summary.report(summary.Tally('run', passed, failed))
	if request.json:
		# One kernel: its report; several: {"kernels": [each one's]}.
		results.write_json(request.json, reports[0] if len(reports) == 1 else
				   {'kernels': reports}, '--json')
	if request.junit:
		junit.write(request.junit, junit.document('pan-kunit run', [
			suite for result in result_list for suite in junit.config_suites(result)]))
	return 0 if all(r.status == results.Status.PASS for r in result_list) else 1

def run_lkdtm(request: BootRequest, target: Target, repo: str) -> int:
	tree_dir = target.tree
	setup(target, repo, 'lkdtm')
	kunit_dir = tree.kunit_dir(tree_dir)
	matrix = _matrix(request, repo, kunit_dir)
	verdicts = lkdtm.run(tree_dir, kunit_dir, matrix, repo, request.timeout, request.jobs,
			     fragments=fragments(repo, target.kernel))
	passed = sum(v.ok for v in verdicts.values())
	ok = lkdtm.print_report(matrix, verdicts)
	summary.report(summary.Tally('lkdtm', passed, len(verdicts) - passed))
	return 0 if ok else 1

def run_coverage(request: BootRequest, target: Target, repo: str) -> int:
	tree_dir = target.tree
	setup(target, repo, 'coverage')
	packages.require(coverage.TOOLS, 'coverage')
	kunit_dir = tree.kunit_dir(tree_dir)
	matrix = _matrix(request, repo, kunit_dir)
	kernel = _describe(target)()
	title = ' '.join(w for w in (kernel.package, kernel.package_version) if w) or kernel.version
	report = coverage.run(tree_dir, kunit_dir, target.kernel.name, title, matrix, repo,
			      request.timeout, request.jobs, fragments=fragments(repo, target.kernel),
			      options=request.options)
	ok = coverage.print_report(title, report)
	passed = sum(b.ok for b in report.boots)
	summary.report(summary.Tally('coverage', passed, len(report.boots) - passed))
	return 0 if ok else 1

def check_destinations(request: ReportRequest) -> None:
	"""Refuses a --json or --junit FILE that cannot be written, before
	anything runs: its directory must exist and be writable, and the two
	must not be one file."""
	if request.json and request.junit and (
			os.path.abspath(request.json) == os.path.abspath(request.junit) or
			os.path.exists(request.json) and os.path.exists(request.junit) and
			os.path.samefile(request.json, request.junit)):
		raise Error(f'--json {request.json} and --junit {request.junit} are one file: '
			    'give each its own')
	for option, path in (('json', request.json), ('junit', request.junit)):
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

def _checker(request: BootRequest, tree_dir: str, kernel: KernelSpec, repo: str,
	     kunitconfig: Optional[bytes]=None) -> steps.Checker:
	matrix = _matrix(request, repo, tree.kunit_dir(tree_dir))
	return steps.Checker(tree_dir, matrix, request.timeout, request.jobs,
			     kunitconfig=kunitconfig, options=request.options,
			     fragments=fragments(repo, kernel))

def _series(spec: str) -> str:
	"""SERIES as bisect's report names it: a file or directory by its
	absolute path."""
	return os.path.abspath(spec) if os.path.exists(spec) else spec

def _reproduce(request: BisectRequest, tree_dir: str, step: int) -> str:
	"""The command that checks @step alone; in a tree of the user's, of
	their tree and range as they gave them."""
	user = _USER_RANGE.get(tree_dir)
	words = ['tools/pan-kunit', '--tree', user.user if user else tree_dir, 'bisect']
	words += [user.given] if user else [_series(request.series)] if request.series else []
	options = request.options
	words += [f'--config={c}' for c in request.configs]
	words += [f'--filter_glob={options.filter_glob}'] if options.filter_glob else []
	words += runner.exec_options(options)
	words += [f'--run_isolated={options.run_isolated}'] if options.run_isolated else []
	words += runner.build_options(options) + [f'--step={step}']
	return ' '.join(shlex.quote(w) for w in words)

def _check_step(request: BisectRequest, patches: int) -> None:
	if request.step is not None and not 0 <= request.step <= patches:
		raise Error(f'--step {request.step}: the series has steps 0 to {patches}')

@dataclass
class UserRange:
	"""A git range SERIES of a tree of the user's, by its clone."""
	user: str      # the tree, as given
	given: str     # the range, as given: for the reproduce line
	base: str      # where the check starts: the range's base, without the edits

_USER_RANGE: Dict[str, UserRange] = {}

def _check_user_range(request: BisectRequest, target: Target) -> None:
	"""A git range SERIES of a tree of the user's is read there (its branch
	names are not in the clone) and given to the clone as commits."""
	assert target.user is not None and request.series is not None
	base, tip = usertree.resolve_range(target.user, request.series)
	print(f'bisect of {request.series} of {target.user}: from {base[:12]}, without your '
	      'uncommitted edits, to ' + tip[:12])
	_USER_RANGE[target.tree] = UserRange(target.user, request.series, base)
	request.series = f'{base}..{tip}'
	if request.step is not None:
		_check_step(request, len(usertree.range_commits(target.user, request.series)))

def _check_bisect(request: BisectRequest, tree_dir: str, kernel: KernelSpec, repo: str) -> None:
	"""Loads SERIES, and checks --step against it, before setup; a git
	range needs the tree: it is refused at once without one, else read
	now (and loaded after setup, which may update the tree's refs)."""
	if request.series is None:
		patches = len(sources.load(repo, kernel).patches)
	elif series.kind(request.series) == series.Kind.GIT_RANGE:
		if not os.path.isdir(os.path.join(tree_dir, '.git')):
			raise Error(f'SERIES {request.series} is a git range, and there is no tree '
				    f'{tree_dir} yet to read it in: run tools/pan-kunit setup first, '
				    'or give a directory or an mbox')
		series.range_commits(tree_dir, request.series)
		return
	else:
		with tempfile.TemporaryDirectory(prefix='pan-kunit-series-') as scratch:
			patches = len(series.load(request.series, '', scratch))
	_check_step(request, patches)

def _mutants_of(request: MutantsRequest, kernel: KernelSpec, repo: str,
		kernel_list: Sequence[KernelSpec]) -> List[mutants.Mutant]:
	"""@kernel's mutants (mutants/VERSION/), or those of --only that it
	has; a name of --only is refused when no kernel of @kernel_list has it."""
	directory = os.path.join(repo, kernel.mutants_dir())
	if not request.only:
		return _headers_left_out(request, kernel, mutants.load(directory, []))
	known = {k.name: mutants.names(os.path.join(repo, k.mutants_dir())) for k in kernel_list}
	unknown = sorted(set(request.only) - {n for names in known.values() for n in names})
	if unknown:
		every = sorted({n for names in known.values() for n in names})
		hints = []
		for name in unknown:
			close = difflib.get_close_matches(name, every, n=3, cutoff=0.5)
			hints.append(f'--only {name}: no such mutant' +
				     (f'; did you mean {" or ".join(close)}?' if close else ''))
		raise Error('; '.join(hints) + ' (tools/pan-kunit list names every mutant of ' +
			    ', '.join(os.path.join(repo, 'mutants', k) for k in known) + ')')
	here = [n for n in request.only if n in mutants.names(directory)]
	return _headers_left_out(request, kernel, mutants.load(directory, here) if here else [])

def _headers_left_out(request: MutantsRequest, kernel: KernelSpec,
		      found: List[mutants.Mutant]) -> List[mutants.Mutant]:
	"""@found, less the mutants of headers with --no-header-mutants."""
	if request.headers:
		return found
	left_out = [m.name for m in found if m.of_header()]
	if left_out:
		print(f'mutants of {kernel.name}: left out, as they change a header '
		      f'(--no-header-mutants): {", ".join(left_out)}')
	return [m for m in found if not m.of_header()]

def _check_export(request: ExportRequest, repo: str) -> None:
	export.check_out_dir(request.out)
	export.identity(repo)  # and a missing git identity

def run_bisect(request: BisectRequest, target: Target, repo: str) -> int:
	tallies: List[summary.Tally] = []
	status = _bisect(request, target.tree, target.kernel, repo, tallies)
	for tally in tallies:  # the closing line, after the verdict
		summary.report(tally)
	return status

def _bisect(request: BisectRequest, tree_dir: str, kernel: KernelSpec, repo: str,
	    tallies: List[summary.Tally]) -> int:
	checker = _checker(request, tree_dir, kernel, repo)
	work = runner.state(tree_dir, 'check')
	if request.series:
		patches = series.load(_series(request.series), tree_dir, work)
		wanted = None
	else:
		wanted = sources.load(repo, kernel)
		patches = [series.patch(p) for p in wanted.patches]
	_check_step(request, len(patches))
	start = time.monotonic()
	checked = bisect.run(checker, patches, wanted, request.step, kernel=kernel.package)
	print()
	for line in bisect.table(checked):
		print(line)
	bad = bisect.first_bad(checked) if request.step is None else None
	elapsed = time.monotonic() - start
	timed = sorted(s.elapsed for s in checked[1:]) or [0.0]
	print(f'bisect took {elapsed:.0f} s for {len(checked)} steps '
	      f'(median step {statistics.median(timed):.1f} s)')
	bad_steps = sum(s.bad() for s in checked)
	tallies.append(summary.Tally('bisect', len(checked) - bad_steps, bad_steps))
	if request.json:
		results.write_json(request.json, {
			'tree': tree_dir, 'worktree': worktree.location(tree_dir),
			'series': _series(request.series) if request.series else
			os.path.join(repo, kernel.series()),
			'first_bad': bad.number if bad else None,
			'steps': [s.to_json() for s in checked]}, '--json')
	if request.junit:
		checks = [junit.Check(f'step {s.number} {s.patch.name if s.patch else "start"}',
				      junit.Outcome.FAILURE if s.bad() else junit.Outcome.PASS,
				      s.verdict()) for s in checked]
		junit.write(request.junit, junit.document('pan-kunit bisect', [
			junit.checks_suite('bisect', checks)] + [
			suite for s in checked for result in s.configs
			for suite in junit.config_suites(result, f'step-{s.number:02d}',
							 # patches/ hooks no suite in at step 0
							 no_tests_expected=wanted is not None and
							 s.number == 0)]))
	if request.step is not None:
		no_tests = any(r.status == results.Status.NO_TESTS for r in checked[-1].configs)
		# Step 0 of patches/ hooks no suite in yet: it runs no test.
		no_tests = no_tests and not (wanted is not None and request.step == 0)
		return 1 if checked[-1].bad() or checked[-1].failed() or no_tests else 0
	if bisect.broken(checked[0]):
		print('bisect: the start (step 0) is broken, no patch can be judged against it: ' +
		      ', '.join(bisect.broken(checked[0])))
		return 1
	if bad is None and not any(bisect.passed_any(s) for s in checked):
		raise Error('no step passed any case: every patch would look good; check '
			    '--filter_glob, --config and the kunitconfig')
	if bad is None:
		print(f'bisect: all {len(patches)} patches good: every step built, and no case '
		      'that passed stopped passing')
		return 0
	assert bad.patch is not None
	print(f'bisect: first bad patch: {bad.number} {bad.patch.name}: {bad.patch.subject}')
	print(f'    {bad.verdict()}')
	for line in bad.regressions:
		print(f'    {line}')
	print(f'reproduce that step: {_reproduce(request, tree_dir, bad.number)}')
	return 1

def _mutant_check(mutant: mutants.Mutant) -> junit.Check:
	"""A mutant as JUnit shows it: a killed one passes, a pending one is
	skipped, any other fails."""
	outcome = (junit.Outcome.PASS if mutant.verdict == mutants.Verdict.KILLED else
		   junit.Outcome.SKIPPED if mutant.verdict in (mutants.Verdict.PENDING,
							       mutants.Verdict.NOT_APPLICABLE) else
		   junit.Outcome.FAILURE)
	return junit.Check(mutant.name, outcome, f'{mutant.verdict}: {mutant.detail}')

def run_mutants(request: MutantsRequest, target: Target, repo: str,
		found: List[mutants.Mutant]) -> int:
	tree_dir = target.tree
	checker = _checker(request, tree_dir, target.kernel, repo)
	start = time.monotonic()
	baseline = mutants.run(checker, found, own_tree=target.user is not None)
	elapsed = time.monotonic() - start
	print()
	for line in mutants.table(found):
		print(line)
	timed = sorted(m.elapsed for m in found if m.verdict != mutants.Verdict.PENDING) or [0.0]
	counts = {v: sum(m.verdict == v for m in found) for v in mutants.Verdict}
	print(f'mutants took {elapsed:.0f} s for {len(found)} mutants (baseline '
	      f'{baseline.elapsed:.0f} s, median mutant {statistics.median(timed):.1f} s): ' +
	      ', '.join(f'{n} {v}' for v, n in counts.items() if n))
	summary.report(summary.Tally('mutants', counts[mutants.Verdict.KILLED],
				     sum(not m.ok() for m in found)))
	if request.json:
		results.write_json(request.json, {
			'tree': tree_dir, 'worktree': worktree.location(tree_dir),
			'baseline': baseline.to_json(), 'mutants': [m.to_json() for m in found]}, '--json')
	if request.junit:
		junit.write(request.junit, junit.document('pan-kunit mutants', [
			junit.checks_suite('mutants', [_mutant_check(m) for m in found])] + [
			suite for result in baseline.configs
			for suite in junit.config_suites(result, 'baseline')]))
	return 0 if all(m.ok() for m in found) else 1

def run_generated(request: MutantsRequest, target: Target, repo: str) -> int:
	"""mutants --generate: the mutation score of the suites on a kernel."""
	assert request.generate is not None
	tree_dir = target.tree
	checker = _checker(request, tree_dir, target.kernel, repo)
	functions = [(f.name, f.source) for f in coverage.FUNCTIONS
		     if not f.kernels or target.kernel.name in f.kernels]
	baseline, sites, judged, total = score.run(checker, repo, target.kernel.name, functions,
						   request.generate, own_tree=target.user is not None)
	summary.report(summary.Tally('mutants', total.killed, total.survived))
	if request.json:
		results.write_json(request.json, {
			'tree': tree_dir, 'kernel': target.kernel.name, 'seed': request.generate.seed,
			'score': {'killed': total.killed, 'survived': total.survived,
				  'did_not_build': total.dropped},
			'baseline': baseline.to_json(),
			'mutants': [dict(m.to_json(), node=s.node(), function=s.function,
					 operator=s.operator) for s, m in zip(sites, judged)]}, '--json')
	if request.junit:
		junit.write(request.junit, junit.document('pan-kunit mutants --generate', [
			junit.checks_suite('mutants', [_mutant_check(m) for m in judged])]))
	return 0 if total.percent() >= score.GOAL else 1

def run_export(request: ExportRequest, target: Target, repo: str) -> int:
	tree_dir = target.tree
	who = export.identity(repo)
	wanted = sources.load(repo, target.kernel)
	# The steps before the series adds its .kunitconfig build with the repo's.
	checker = _checker(request, tree_dir, target.kernel, repo,
			   kunitconfig=wanted.suites[sources.TREE_KUNITCONFIG])
	wt = worktree.checkout(tree_dir, tree.BASE_REF)
	export.build_series(wt, wanted, who)
	files = export.format_patches(wt, repo, request.out, who)
	problems = export.checkpatch(wt, files[1:])
	print(f'wrote {len(files) - 1} patches and a cover letter into {request.out}:')
	for path in files:
		verdict = 'cover letter' if path == files[0] else (
			'checkpatch --strict: FAILED' if path in problems else
			'checkpatch --strict: clean')
		print(f'    {os.path.basename(path)}: {verdict}')
		for line in problems.get(path, '').splitlines():
			print(f'        {line}')
	bad = None
	if not request.no_build:
		patches = [series.patch(p) for p in files[1:]]
		checked = bisect.run(checker, patches, None, start=tree.BASE_REF,
				     kernel=target.kernel.package)
		print()
		for line in bisect.table(checked):
			print(line)
		bad = bisect.first_bad(checked)
		if bad is not None:
			print(f'export: step {bad.number} is bad: {bad.verdict()}')
		elif checked[-1].failed():
			bad = checked[-1]
			print('export: the whole series does not pass')
	if problems:
		print(f'export: {len(problems)} patches are not checkpatch clean')
	return 0 if not problems and bad is None else 1

def _kernel_state(kernel: KernelSpec, repo: str) -> str:
	tarball = kernel.tarball()
	try:
		version = packages.version(kernel.package) if packages.is_installed(kernel.package) else ''
	except Error:  # not a Debian host
		version = ''
	series_state = (f'series {kernel.series()}' if kernel in kernels.supported(repo) else
			f'not supported: no {kernel.series()}')
	return (f'{series_state}; Debian package, '
		f'{version + " installed" if version else "not installed"}; '
		f'{tarball}' + ('' if os.path.isfile(tarball) else ' (missing)') +
		f'; tree {kernel.default_tree()}')

def run_list(repo: str) -> int:
	"""What a run can be made of: configs, kernels, mutants."""
	matrix = [configs.load(repo, name, None) for name in configs.available(repo)]
	groups = configs.group_by_kconfig(matrix)
	rows = [['config', 'cpu', 'kconfig group', 'shares its build with']]
	for config in matrix:
		others = [c.name for c in groups[config.build_key()] if c is not config]
		rows.append([config.name, config.cpu, config.build_key(), ', '.join(others) or '-'])
	print(f'QEMU configs ({os.path.join(repo, configs.CONFIGS_DIR)}):')
	for line in results.align(rows):
		print('    ' + line)
	print('\nkernels:')
	for kernel in kernels.KNOWN:
		print(f'    {kernel.name} ({kernel.package}): {_kernel_state(kernel, repo)}')
	for kernel in kernels.supported(repo):
		directory = os.path.join(repo, kernel.mutants_dir())
		found = mutants.load(directory, []) if os.path.isdir(directory) else []
		print(f'\nmutants of {kernel.name} ({directory}):')
		rows = [['mutant', 'must fail', 'subject']] + [
			[m.name, ', '.join(m.must_fail), m.subject] for m in found]
		for line in results.align(rows) if found else ['(none)']:
			print('    ' + line)
	return 0

def _parse_trees(args: argparse.Namespace, repo: str) -> List[str]:
	"""The trees whose kunit.py parse may use: the one named, then each
	kernel's default tree, newest first."""
	given = _given_tree(args)
	defaults = [os.path.abspath(k.default_tree()) for k in reversed(kernels.KNOWN)]
	return list(dict.fromkeys(([os.path.abspath(given)] if given else []) + defaults))

def _kunit_py(trees: List[str]) -> str:
	"""kunit.py of the first of @trees that has one."""
	for candidate in trees:
		path = os.path.join(tree.kunit_dir(candidate), 'kunit.py')
		if os.path.isfile(path):
			return path
	raise Error('parse needs kunit_tool\'s parser, and there is no '
		    f'{os.path.join(tree.KUNIT_TOOL_DIR, "kunit.py")} in {" nor in ".join(trees)}: '
		    'run tools/pan-kunit setup first')

def run_parse(request: ParseRequest, trees: List[str]) -> int:
	"""Parses a console log with the tree's kunit.py parse, and reports it as
	run reports a config."""
	path = os.path.abspath(request.file)
	try:
		with open(path, errors='backslashreplace') as f:
			console = f.read()
	except OSError as e:
		raise Error(f'cannot read {path}: {e.strerror}')
	if not any(results.KTAP_HEADER.search(line) for line in console.splitlines()):
		what = ('it is empty' if not console.strip() else
			'it is no text' if '\0' in console else
			'no "KTAP version 1" or "TAP version 14" line')
		raise Error(f'{path} holds no KTAP output ({what}): give the console of a boot that '
			    'ran KUnit, e.g. a boot\'s test.log')
	kunit_py = _kunit_py(trees)
	print(f'parsing {path} with {kunit_py}')
	with tempfile.TemporaryDirectory(prefix='pan-kunit-parse-') as scratch:
		json_path = os.path.join(scratch, 'kunit.json')
		# kunit.py works in the tree's top directory: absolute paths only.
		parsed = subprocess.run([sys.executable, kunit_py, 'parse', '--json=' + json_path, path],
					stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
					stderr=subprocess.STDOUT, text=True, errors='backslashreplace',
					env=dict(os.environ, PYTHONDONTWRITEBYTECODE='1'), check=False)
		kunit = results.read_json(json_path)
	if kunit is None:
		raise Error(f'{kunit_py} parse {path} failed (exit {parsed.returncode}):\n' +
			    '\n'.join(parsed.stdout.splitlines()[-runner.BUILD_LOG_LINES:]))
	# No boot, so no timeout: the exit status and the leaves decide.
	status = results.classify(kunit, console, results.Outcome(parsed.returncode, False, 0.0),
				  timeout=1)
	cases, _ = ktap.parse(console, os.path.dirname(kunit_py))
	results.print_report([results.ConfigResult(
		name=os.path.basename(path), cpu='-', qemu_config='', build_dir='', status=status,
		elapsed=None, skip_reasons=results.skip_reasons(console), kunit=kunit,
		console_log=path, exec_log='', cases=cases,
		param_skips=results.param_skips(console))])
	return 0 if status == results.Status.PASS else 1

class _Stream:
	"""sys.stderr, as unittest's results write to it."""
	def write(self, text: str) -> None:
		sys.stderr.write(text)

	def writeln(self, text: str='') -> None:
		sys.stderr.write(text + '\n')

	def flush(self) -> None:
		sys.stderr.flush()

def selftest() -> int:
	"""`python3 -m unittest discover -s tools -p '*_test.py'`, in-process;
	it closes with its tally, as the other commands do, instead of
	unittest's `Ran N tests in T s`."""
	# The commands the tests run must not add to the caller's summary.
	summary_file = os.environ.pop(summary.ENV, '')
	start = time.monotonic()
	try:
		suite = unittest.TestLoader().discover(TOOLS_DIR, pattern='*_test.py')
		result = unittest.TextTestResult(_Stream(), descriptions=True, verbosity=1)
		suite.run(result)
		print(file=sys.stderr)
		result.printErrors()
	finally:
		if summary_file:
			os.environ[summary.ENV] = summary_file
	failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
	print(f'selftest took {time.monotonic() - start:.1f} s for {result.testsRun} unit tests'
	      + (f' ({len(result.skipped)} skipped)' if result.skipped else ''))
	summary.report(summary.Tally('selftest', result.testsRun - failed - len(result.skipped),
				     failed))
	return 0 if result.wasSuccessful() else 1

def _interrupt(signum: int, frame: object) -> None:
	raise KeyboardInterrupt

def main(argv: Sequence[str], repo: str=REPO) -> int:
	args = parse_args(argv)
	# A SIGTERM (a CI job cancelled, kill) ends the run as ^C does: every
	# kunit.py, make and QEMU it started is killed, not orphaned.
	signal.signal(signal.SIGTERM, _interrupt)
	with progress.installed():
		return _command(args, repo)

# Each command's handler, as kunit.py's: turns the arguments into the
# command's request and refuses what it can before any work (for every
# kernel of the command: checks), then runs it on each (runs).

def _check_tree(target: Target) -> None:
	"""Refuses a tree that setup would create in no directory."""
	if not target.user:  # the user's tree exists; pan-kunit makes the clone's directories
		tree.check_location(target.tree, target.given)

def _ensure_packages(target_list: List[Target], extra: Sequence[str]=()) -> None:
	"""Installs (or asks for) every kernel's source package and the tools,
	and the command's @extra packages, at once, before any kernel's work: a
	second kernel's missing package is not found after the first kernel's
	builds.  A kernel source package of another suite (trixie-backports)
	gets its suite first, if it is missing."""
	# A tree of the user's own needs no Debian source package.
	kernel_list = [t.kernel for t in target_list if not t.user]
	suited = [k for k in kernel_list if k.suite]
	if suited:
		try:
			present = packages.installed([k.package for k in suited])
		except packages.NotDebian:
			pass  # packages.ensure() names what is needed
		else:
			apt_suites.ensure([k for k in suited if k.package not in present])
	packages.ensure([k.package for k in kernel_list], extra)

def setup_handler(args: argparse.Namespace, target_list: List[Target], repo: str) -> int:
	for target in target_list:
		_check_tree(target)
		sources.load(repo, target.kernel)  # every series readable, before any extraction
	_ensure_packages(target_list)
	for target in target_list:
		setup(target, repo, 'setup', builds=False)
	return 0

def run_handler(args: argparse.Namespace, target_list: List[Target], repo: str) -> int:
	request = run_request(args)
	check_destinations(request)  # before anything runs
	_check_kunit_options(request.options, target_list)
	_matrix(request, repo, None)  # a wrong name or a broken config fails before setup
	for target in target_list:
		_check_tree(target)
		sources.load(repo, target.kernel)
	_ensure_packages(target_list)
	return run(request, target_list, repo)

def _each(target_list: List[Target], work: Callable[[Target], int]) -> int:
	"""Runs @work on each target, each headed by its kernel when there are
	several; the worst exit status."""
	status = 0
	for target in target_list:
		if len(target_list) > 1:
			print(f'=== {target.kernel.package}: {target.tree}')
		status = max(status, work(target))
	return status

def lkdtm_handler(args: argparse.Namespace, target_list: List[Target], repo: str) -> int:
	request = boot_request(args)
	for config in _matrix(request, repo, None):
		lkdtm.has_pan(config)  # a CPU of no known PAN level fails before setup
	for target in target_list:
		_check_tree(target)
		sources.load(repo, target.kernel)
	_ensure_packages(target_list)
	return _each(target_list, lambda t: run_lkdtm(request, t, repo))

def coverage_handler(args: argparse.Namespace, target_list: List[Target], repo: str) -> int:
	request = boot_request(args)
	_check_kunit_options(request.options, target_list)
	_matrix(request, repo, None)  # a wrong name or a broken config fails before setup
	for target in target_list:
		_check_tree(target)
		sources.load(repo, target.kernel)
	_ensure_packages(target_list, coverage.PACKAGES)
	return _each(target_list, lambda t: run_coverage(request, t, repo))

def bisect_handler(args: argparse.Namespace, target_list: List[Target], repo: str) -> int:
	request = bisect_request(args)
	check_destinations(request)
	_check_kunit_options(request.options, target_list)
	_matrix(request, repo, None)  # a wrong name or a broken config fails before setup
	for target in target_list:
		_check_tree(target)
		if (target.user and request.series and
				series.kind(request.series) == series.Kind.GIT_RANGE):
			_check_user_range(request, target)
			continue
		_check_bisect(request, target.tree, target.kernel, repo)
	_ensure_packages(target_list)

	def one(target: Target) -> int:
		user_range = _USER_RANGE.get(target.tree)
		setup(target, repo, 'bisect', at=user_range.base if user_range else None)
		with worktree.locked(target.tree):
			return run_bisect(request, target, repo)
	return _each(target_list, one)

def mutants_handler(args: argparse.Namespace, target_list: List[Target], repo: str) -> int:
	request = mutants_request(args)
	check_destinations(request)
	_matrix(request, repo, None)
	kernel_list = [t.kernel for t in target_list]
	found = {}
	for target in target_list:
		_check_tree(target)
		sources.load(repo, target.kernel)
		if request.generate is not None:
			found[target.kernel] = []
			continue
		found[target.kernel] = _mutants_of(request, target.kernel, repo, kernel_list)
		for mutant in found[target.kernel]:
			mutants.check_kill_on(mutant, configs.available(repo))
	_ensure_packages([t for t in target_list if found[t.kernel] or request.generate],
			 [mutagen.PACKAGE] if request.generate else [])
	if request.generate is not None:
		mutagen.load_bindings()  # before any build: names the package if it is missing

	def one(target: Target) -> int:
		if request.generate is not None:
			setup(target, repo, 'mutants')
			with worktree.locked(target.tree):
				return run_generated(request, target, repo)
		if not found[target.kernel]:
			print(f'mutants: none to check on {target.kernel.package}')
			return 0
		setup(target, repo, 'mutants')
		with worktree.locked(target.tree):
			return run_mutants(request, target, repo, found[target.kernel])
	return _each(target_list, one)

def export_handler(args: argparse.Namespace, target_list: List[Target], repo: str) -> int:
	request = export_request(args)
	_matrix(request, repo, None)
	_check_export(request, repo)
	if len(target_list) > 1:
		raise Error('export writes one series, against one kernel: give one --kernel (' +
			    ', '.join(t.kernel.name for t in target_list) + ')')
	target = target_list[0]
	_check_tree(target)
	sources.load(repo, target.kernel)
	_ensure_packages(target_list, export.PACKAGES)
	setup(target, repo, 'export', builds=not request.no_build)
	with worktree.locked(target.tree):
		return run_export(request, target, repo)

HANDLERS: Dict[str, Callable[[argparse.Namespace, List[Target], str], int]] = {
	'setup': setup_handler, 'run': run_handler, 'lkdtm': lkdtm_handler,
	'coverage': coverage_handler,
	'bisect': bisect_handler, 'mutants': mutants_handler, 'export': export_handler}

def _command(args: argparse.Namespace, repo: str) -> int:
	try:
		if args.command == 'selftest':
			return selftest()
		if args.command == 'list':
			return run_list(repo)
		if args.command == 'parse':
			return run_parse(ParseRequest(file=args.file), _parse_trees(args, repo))
		return HANDLERS[args.command](args, targets(args, repo), repo)
	except Error as e:
		print(f'pan-kunit: error: {e}', file=sys.stderr)
		return 2
	except KeyboardInterrupt:
		print('pan-kunit: interrupted', file=sys.stderr)
		return 130
