# SPDX-License-Identifier: GPL-2.0
#
# tools/pan-kunit [--tree DIR] {setup,run,lkdtm,coverage,bisect,mutants,export,selftest,list,
#                 parse}
#                 [--kernel VERSION ...]
#
# The command line, as kunit.py's: the parser of the options of each group
# (options.py), the request each command takes, and a short handler per
# command that refuses what it can before any work and hands the request
# to the module named for the command (run.py, series_bisect.py,
# mutants.py, score.py ...), from the one table of commands.
#
# Exit status: 0 when every config passed, 1 when one did not, 2 for usage
# and setup errors (refusals, missing packages, a patch that does not apply).

import argparse
import functools
import os
import signal
import sys
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, NoReturn, Optional, Sequence

from pan_kunit import Error
from pan_kunit.commands import (checkpatch, coverage, export, export_check, listing, lkdtm,
				merge, mutagen, mutants, mutants_report, options, parse, run, score,
				selftest, series_bisect, sharding)
from pan_kunit.commands.boot_request import BootRequest, check_filters
from pan_kunit.commands.session import Session
from pan_kunit.host import files, proc
from pan_kunit.host.files import JsonObj
from pan_kunit.kunit_tool import configs, kunit_py, toolchains
from pan_kunit.matrix import cost
from pan_kunit.matrix.shard import Unit
from pan_kunit.results import record, terminal
from pan_kunit.trees import kernels, sources, targets
from pan_kunit.trees.kernels import KernelSpec
from pan_kunit.trees.targets import Target

# This repo: tools/pan_kunit/commands/cli.py is four levels below it.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
	os.path.abspath(__file__)))))

def resolve_targets(args: argparse.Namespace, repo: str) -> List[Target]:
	"""targets.resolve() of @args: by default export and bisect SERIES
	take the newest kernel, the others every supported one."""
	newest_only = args.command == 'export' or (args.command == 'bisect' and args.series)
	return targets.resolve(repo, getattr(args, 'kernel', None) or [],
			       targets.given_tree(args.tree), bool(newest_only))

class _Parser(argparse.ArgumentParser):
	"""argparse's parser, whose usage errors are one line, as pan-kunit's
	own are, naming the command (its prog: `pan-kunit run`) and its
	--help instead of printing its usage."""
	def error(self, message: str) -> NoReturn:
		self.exit(2, f'{self.prog}: error: {message} (see tools/{self.prog} --help)\n')

@functools.lru_cache(maxsize=None)
def _parser() -> argparse.ArgumentParser:
	"""pan-kunit's parser, built once: parsing leaves it as it was."""
	parser = _Parser(
		prog='pan-kunit', epilog=options.EPILOG,
		formatter_class=argparse.RawDescriptionHelpFormatter,
		description='Prepares Debian linux-source-VERSION trees (one per kernel of\n'
		'patches/VERSION/series) with the patches and KUnit suites of this repo,\n'
		'and runs the suites under QEMU, once per qemu_configs/*.py.')
	parser.add_argument('--tree', metavar='DIR', help=options.TREE_HELP)
	subparsers = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')
	sub = {}
	for name, command in COMMANDS.items():
		sub[name] = subparsers.add_parser(name, help=command.help, description=command.help)
		options.add_tree_opts(sub[name])
	for name in ('setup', 'run', 'lkdtm', 'coverage', 'bisect', 'mutants', 'export'):
		options.add_kernel_opts(sub[name], 'the newest supported one' if name == 'export' else
					'every supported one; with SERIES: the newest' if name == 'bisect'
					else 'every supported one')
	for name in ('run', 'lkdtm', 'coverage', 'bisect', 'mutants', 'export'):
		options.add_boot_opts(sub[name], mutants.TIMEOUT if name == 'mutants' else 300)
	for name in ('run', 'bisect', 'mutants'):
		options.add_report_opts(sub[name], name)
	options.add_json_opt(sub['lkdtm'], 'lkdtm')
	for name in ('run', 'lkdtm', 'coverage', 'bisect', 'mutants'):
		options.add_shard_opts(sub[name], name)
	options.add_run_opts(sub['run'])
	options.add_kunit_opts(sub['bisect'], filter_glob=True, isolated=True)
	options.add_kunit_opts(sub['coverage'], filter_glob=True)
	options.add_kunit_opts(sub['mutants'], filter_glob=False)
	sub['merge'].add_argument('file', nargs='+', metavar='FILE',
				  help='the --json FILE of each shard, all N of them')
	options.add_report_opts(sub['merge'], 'merge')
	sub['parse'].add_argument('file', metavar='FILE',
				  help='a console log, e.g. a boot\'s test.log')
	options.add_bisect_opts(sub['bisect'])
	options.add_export_opts(sub['export'])
	options.add_mutants_opts(sub['mutants'])
	selftest.add_opts(sub['selftest'])
	parser.set_defaults(subparsers=sub)
	return parser

def parse_args(argv: Sequence[str]) -> argparse.Namespace:
	"""@argv's arguments; an unknown one refused by its command's parser
	(`pan-kunit list: error: unrecognized arguments: --kernel 9.9`)."""
	args, unknown = _parser().parse_known_args(argv)
	sub = args.__dict__.pop('subparsers')
	if unknown:
		sub[args.command].error('unrecognized arguments: ' + ' '.join(unknown))
	return args

# Each command's request, which its module defines (as kunit.py's
# KunitRequest), of the arguments parse_args() read.

def _kunit_options(args: argparse.Namespace) -> kunit_py.KunitOptions:
	"""The kunit.py options of @args; a command that takes none has none."""
	given = vars(args)
	globs = sorted({g for g in (given.get('glob'), given.get('filter_glob')) if g})
	if len(globs) > 1:
		raise Error(f'two filter_globs, {globs[0]!r} and {globs[1]!r}: give one')
	if given.get('filter_action') and not given.get('filter'):
		raise Error('--filter_action skip skips what --filter leaves out: give --filter too')
	return kunit_py.KunitOptions(filter_glob=globs[0] if globs else '',
				       kconfig_add=given.get('kconfig_add', []),
				       make_options=given.get('make_options', []),
				       filter=given.get('filter') or '',
				       filter_action=given.get('filter_action', ''),
				       run_isolated=given.get('run_isolated', ''))

def _boot_fields(args: argparse.Namespace) -> Dict[str, Any]:
	"""The fields of BootRequest, which every command that boots has."""
	return dict(configs=args.config, timeout=args.timeout, jobs=args.jobs,
		    options=_kunit_options(args))

def _report_fields(args: argparse.Namespace) -> Dict[str, Any]:
	"""The fields of ReportRequest."""
	return dict(_boot_fields(args), json=args.json, junit=args.junit)

def boot_request(args: argparse.Namespace) -> BootRequest:
	return BootRequest(**_boot_fields(args))

def run_request(args: argparse.Namespace) -> run.RunRequest:
	shown = (terminal.Shown.SUMMARY if args.summary else
		 terminal.Shown.FAILED if args.failed else terminal.Shown.ALL)
	return run.RunRequest(**_report_fields(args), raw_output=args.raw_output, shown=shown,
			      kselftests=args.kselftests)

def bisect_request(args: argparse.Namespace) -> series_bisect.BisectRequest:
	return series_bisect.BisectRequest(**_report_fields(args), series=args.series,
					   step=args.step)

def mutants_request(args: argparse.Namespace) -> mutants.MutantsRequest:
	if args.generate and args.only:
		raise Error('--only names mutants of mutants/; --generate makes its own: give one')
	if args.sample is not None and args.only:
		raise Error('--only names the mutants to check; --sample draws them: give one')
	if not args.generate and args.sample is None and args.seed != 1:
		raise Error('--seed seeds the sample: give --sample N too')
	# 0: all; none given: all of mutants/, a default sample of the generated.
	sample = None if args.sample == 0 else (
		args.sample or (score.DEFAULT_SAMPLE if args.generate else None))
	return mutants.MutantsRequest(**_report_fields(args), only=args.only, headers=args.headers,
				      generate=args.generate, sample=sample, seed=args.seed)

def export_request(args: argparse.Namespace) -> export.ExportRequest:
	return export.ExportRequest(**_boot_fields(args), out=os.path.abspath(args.dir),
				    no_build=args.no_build, check=args.check)

def main(argv: Sequence[str], repo: str=REPO,
	 probed: Optional[toolchains.Toolchains]=None) -> int:
	"""The command of @argv in a session of its own, whose builds probe
	their toolchains into @probed (the tests': every command's)."""
	args = parse_args(argv)
	session = Session.of_streams(sys.stdout, sys.stderr, getattr(args, 'olddefconfig', False),
				     probed)
	# A SIGTERM (a CI job cancelled, kill), a SIGHUP (a closed terminal, a
	# dropped ssh session) or a SIGQUIT ends the run as ^C does: every
	# kunit.py, make and QEMU it started is stopped, not orphaned.
	with proc.stopping_on_signals():
		try:
			return _command(args, repo, session)
		finally:
			session.printer.close()

# Each command's handler, as kunit.py's: turns the arguments into the
# command's request and refuses what it can before any work (for every
# kernel of the command: checks), then runs it on each (runs).

def _check_targets(target_list: List[Target], repo: str) -> None:
	"""Refuses a tree setup cannot make, or a series it cannot read."""
	for target in target_list:
		targets.check_tree(target)
		sources.load(repo, target.kernel)

def setup_handler(args: argparse.Namespace, repo: str, session: Session) -> int:
	target_list = resolve_targets(args, repo)
	_check_targets(target_list, repo)
	targets.ensure_packages(session.printer, target_list)
	for target in target_list:
		session.prepare(target, repo, 'setup', builds=False)
	return 0

def _take_groups(args: argparse.Namespace, repo: str, session: Session,
		 request: BootRequest, target_list: List[Target], boots: int=1,
		 steps: Optional[Callable[[Target], int]]=None) -> List[Target]:
	"""The command's shard of the kconfig groups of its kernels (all
	without one), and the kernels it has a group of."""
	session.sharding = sharding.of_args(args, [t.kernel.name for t in target_list])
	return session.sharding.take_groups(session.printer, repo, request.configs,
					    request.options.kconfig_add, target_list, boots, steps)

def run_handler(args: argparse.Namespace, repo: str, session: Session) -> int:
	target_list = resolve_targets(args, repo)
	request = run_request(args)
	record.check_destinations(request.json, request.junit)  # before anything runs
	check_filters(request.options, target_list, repo)
	configs.check(repo, request.configs)  # a wrong name or a broken config fails before setup
	_check_targets(target_list, repo)  # before the cost of its shard
	target_list = _take_groups(args, repo, session, request, target_list)
	targets.ensure_packages(session.printer, target_list)
	return run.run_tests(session, request, target_list, repo)

def lkdtm_handler(args: argparse.Namespace, repo: str, session: Session) -> int:
	target_list = resolve_targets(args, repo)
	request = boot_request(args)
	record.check_destinations(args.json, None)
	for config in configs.matrix(repo, request.configs, None):
		lkdtm.has_pan(config)  # a CPU of no known PAN level fails before setup
	_check_targets(target_list, repo)
	target_list = _take_groups(args, repo, session, request, target_list,
				   boots=len(lkdtm.CRASH_TYPES))
	targets.ensure_packages(session.printer, target_list)
	reports: List[JsonObj] = []
	status = targets.each(session.printer, target_list,
			      lambda t: lkdtm.run_lkdtm(session, request, t, repo, reports))
	if args.json:
		files.write_json(args.json, dict(session.sharding.record(repo), kernels=reports),
				 '--json')
	return status

def coverage_handler(args: argparse.Namespace, repo: str, session: Session) -> int:
	target_list = resolve_targets(args, repo)
	request = boot_request(args)
	check_filters(request.options, target_list, repo)
	configs.check(repo, request.configs)
	_check_targets(target_list, repo)
	target_list = _take_groups(args, repo, session, request, target_list, boots=2)
	targets.ensure_packages(session.printer, target_list, coverage.PACKAGES)
	return targets.each(session.printer, target_list,
			    lambda t: coverage.run_coverage(session, request, t, repo))

def bisect_handler(args: argparse.Namespace, repo: str, session: Session) -> int:
	target_list = resolve_targets(args, repo)
	request = bisect_request(args)
	record.check_destinations(request.json, request.junit)
	check_filters(request.options, target_list, repo)
	configs.check(repo, request.configs)
	for target in target_list:
		targets.check_tree(target)
		series_bisect.check(session, request, target, repo)
	# Each step of a kconfig group is judged against the step before on
	# the same configs: a group's steps stay together.
	target_list = _take_groups(
		args, repo, session, request, target_list,
		steps=lambda t: 1 if request.series else len(sources.load(repo, t.kernel).patches))
	targets.ensure_packages(session.printer, target_list)
	reports: List[series_bisect.KernelReport] = []
	return _writing(session, reports, lambda: targets.each(
		session.printer, target_list,
		lambda t: series_bisect.run_bisect(session, request, t, repo, reports)),
		lambda: series_bisect.write_files(request, reports, session.sharding.record(repo)))

def mutants_handler(args: argparse.Namespace, repo: str, session: Session) -> int:
	target_list = resolve_targets(args, repo)
	request = mutants_request(args)
	record.check_destinations(request.json, request.junit)
	configs.check(repo, request.configs)
	kernel_list = [t.kernel for t in target_list]
	session.sharding = sharding.of_args(args, [k.name for k in kernel_list])
	found: Dict[KernelSpec, List[mutants.Mutant]] = {}
	for target in target_list:
		targets.check_tree(target)
		sources.load(repo, target.kernel)
		if request.generate:
			found[target.kernel] = []
			continue
		found[target.kernel] = mutants.of_kernel(session.printer, request, target.kernel, repo,
							 kernel_list)
		for mutant in found[target.kernel]:
			mutants.check_kill_on(mutant, configs.available(repo))
	if not request.generate:
		found = _take_mutants(session, target_list, found)
		if session.sharding.shard is not None:
			target_list = [t for t in target_list if found[t.kernel]]
	targets.ensure_packages(session.printer,
				[t for t in target_list if found[t.kernel] or request.generate],
				[mutagen.PACKAGE] if request.generate else [])
	if request.generate:
		mutagen.load_bindings()  # before any build: names the package if it is missing
		scored: List[score.KernelReport] = []
		return _writing(session, scored, lambda: targets.each(
			session.printer, target_list,
			lambda t: score.run_generated(session, request, t, repo, scored)),
			lambda: score.write_files(request, scored, session.sharding.record(repo)))
	reports: List[mutants_report.KernelReport] = []
	return _writing(session, reports, lambda: targets.each(
		session.printer, target_list,
		lambda t: mutants_report.run_mutants(session, request, t, repo, found[t.kernel],
						     reports)),
		lambda: mutants_report.write_files(request, reports, session.sharding.record(repo)))

def _writing(session: Session, reports: Sequence[Any], work: Callable[[], int],
	     write: Callable[[], None]) -> int:
	"""The status of @work, its files written by @write after it, even
	when it stops half way (of the kernels whose @reports it made); and
	by a shard that had no work, whose file merge needs."""
	done = False
	try:
		status = work()
		done = True
		return status
	finally:
		if reports or (done and session.sharding.shard is not None):
			write()

def _take_mutants(session: Session, target_list: List[Target],
		  found: Dict[KernelSpec, List[mutants.Mutant]]) -> Dict[KernelSpec, List[mutants.Mutant]]:
	"""The command's shard of the mutants @found (all without one): each
	a unit, of a header a build from scratch, and each kernel's baseline
	a setup of every shard that checks one of its mutants."""
	units = [Unit(f'{t.kernel.name}/{m.name}', cost.mutant_cost(m.of_header()), t.kernel.name)
		 for t in target_list for m in found[t.kernel]]
	setup = {t.kernel.name: cost.kernel_setup(baseline=True) for t in target_list}
	mine = {u.key for u in session.sharding.take(session.printer, units, 'mutants', setup)}
	return {kernel: [m for m in found_here if f'{kernel.name}/{m.name}' in mine]
		for kernel, found_here in found.items()}

def export_handler(args: argparse.Namespace, repo: str, session: Session) -> int:
	target_list = resolve_targets(args, repo)
	request = export_request(args)
	configs.check(repo, request.configs)
	export.check(request, repo)
	if len(target_list) > 1:
		raise Error('export writes one series, against one kernel: give one --kernel (' +
			    ', '.join(t.kernel.name for t in target_list) + ')')
	newest = kernels.supported(repo)[-1]
	if target_list[0].kernel != newest:
		raise Error(f'export writes the series for the newest kernel, {newest.name}, as '
			    f'upstream would take it; {target_list[0].kernel.name} gets the suites '
			    f'through compat/{target_list[0].kernel.name}, which is no part of it: '
			    f'give --kernel {newest.name}, or no --kernel')
	_check_targets(target_list, repo)
	targets.ensure_packages(session.printer, target_list, checkpatch.PACKAGES +
				(export_check.PACKAGES if request.check else []))
	return export.run_export(session, request, target_list[0], repo)

def selftest_handler(args: argparse.Namespace, repo: str, session: Session) -> int:
	return selftest.selftest(session.printer, layer=args.layer)

def list_handler(args: argparse.Namespace, repo: str, session: Session) -> int:
	return listing.run_list(session.printer, repo, targets.given_tree(args.tree))

def merge_handler(args: argparse.Namespace, repo: str, session: Session) -> int:
	return merge.run_merge(session.printer, merge.MergeRequest(
		files=args.file, json=args.json, junit=args.junit), repo)

def parse_handler(args: argparse.Namespace, repo: str, session: Session) -> int:
	return parse.run_parse(session.printer, parse.ParseRequest(file=args.file),
			       parse.trees(targets.given_tree(args.tree)), repo)

@dataclass(frozen=True)
class Command:
	"""A command: what --help says it does, and its handler."""
	help: str
	handler: Callable[[argparse.Namespace, str, Session], int]

# The commands, in --help's order: the one dispatcher (_command()) finds
# each command's handler here.
COMMANDS: Dict[str, Command] = {
	'setup': Command(
		'install the needed Debian packages and prepare the tree', setup_handler),
	'run': Command(
		'setup, then build and boot every QEMU config and report', run_handler),
	'lkdtm': Command(
		'setup, then prove PAN end to end: LKDTM ACCESS_USERSPACE, '
		'EXEC_USERSPACE and ACCESS_NULL, one boot each, on every QEMU config',
		lkdtm_handler),
	'coverage': Command(
		'setup, then build with gcov profiling of the code under test, '
		'run the suites once per QEMU config and report line and branch '
		'coverage of each function under test (lcov HTML too)', coverage_handler),
	'bisect': Command(
		'setup, then check a series one patch at a time in a worktree of '
		'the tree: build and run the matrix after each patch, report the '
		'first bad one', bisect_handler),
	'mutants': Command(
		'setup, then apply each known regression of mutants/ to a '
		'worktree of the tree and check that the suites catch it', mutants_handler),
	'export': Command(
		'setup, then write the suites and patches as one upstream series '
		'(git format-patch, with a cover letter) into DIR, check it with '
		'checkpatch.pl --strict and check that every prefix builds and passes',
		export_handler),
	'selftest': Command(
		'run the tests of this tool (its unit and end-to-end layers; --quick, --all) '
		'and its type check (mypy)', selftest_handler),
	'list': Command(
		'list, without a build, the QEMU configs, the kernels, each tree\'s '
		'state (prepared, built, stale), the suites and their cases, the mutants',
		list_handler),
	'merge': Command(
		'merge the --json results of the shards (--shard I/N) of one run, lkdtm, '
		'bisect or mutants into the report, JSON, JUnit, tally and exit status of '
		'one unsharded run', merge_handler),
	'parse': Command(
		'parse a saved console log with kunit_tool and print the report run '
		'prints for one config', parse_handler),
}

def _command(args: argparse.Namespace, repo: str, session: Session) -> int:
	try:
		return COMMANDS[args.command].handler(args, repo, session)
	except Error as e:
		session.printer.print_stderr(f'pan-kunit {args.command}: error: {e}')
		return 2
	except OSError as e:
		if e.errno not in files.DISK_FULL:
			raise
		# A write that no caller named (files.writing()): what the error says.
		session.printer.print_stderr(f'pan-kunit {args.command}: error: ' +
					     str(files.write_error(e, e.filename or 'a file')))
		return 2
	except KeyboardInterrupt as e:
		# ^C without pan-kunit's handler (before it, or in a test) is SIGINT's.
		stopped = e if isinstance(e, proc.Stopped) else proc.Stopped(signal.SIGINT)
		session.printer.print_stderr('pan-kunit: interrupted' if stopped.signum == signal.SIGINT
					     else f'pan-kunit: stopped by {stopped.name}')
		return stopped.status
