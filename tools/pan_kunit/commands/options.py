# SPDX-License-Identifier: GPL-2.0
#
# The options of pan-kunit's command line, group by group, as kunit.py's
# add_*_opts(): the kernels and the tree, what a command that boots takes,
# kunit.py's that are passed on, the files a report is written into, and
# each command's own; their values checked as argparse reads them, so that
# bad input is refused, exit 2, before any work.  cli.py builds the parser
# of them.

import argparse
import os
import re
from typing import Callable

from pan_kunit.commands import mutants, score
from pan_kunit.kunit_tool import toolchains
from pan_kunit.matrix import kselftest_build, kselftests, shard
from pan_kunit.trees import kernels

def _at_least(minimum: int) -> Callable[[str], int]:
	def number(text: str) -> int:
		value = int(text)
		if value < minimum:
			raise argparse.ArgumentTypeError(f'must be at least {minimum}, not {value}')
		return value
	number.__name__ = 'int'   # argparse's "invalid int value" for a non-number
	return number

_positive_int, _non_negative_int = _at_least(1), _at_least(0)

def _matching(pattern: str, what: str) -> Callable[[str], str]:
	"""An argparse type: a value that @pattern matches, else an error
	that says it is no @what."""
	regex = re.compile(pattern)
	def value(text: str) -> str:
		if not regex.match(text):
			raise argparse.ArgumentTypeError(f'{text!r} is no {what}')
		return text
	return value

# kunit_tool's kunit_config patterns: what kunit.py takes as a --kconfig_add.
_kconfig_line = _matching(r'^(?:CONFIG_(\w+)=(\S+|".*")|# CONFIG_(\w+) is not set)$',
			  'CONFIG_X=VALUE (or "# CONFIG_X is not set") line')
# What make takes as a variable's assignment: NAME=VALUE.
_make_option = _matching(r'^[^\s=:#]+=', 'X=Y make variable (e.g. LLVM=1 or KCFLAGS=-O1)')

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

def _shard(text: str) -> shard.Shard:
	try:
		return shard.parse(text)
	except ValueError as e:
		raise argparse.ArgumentTypeError(str(e))

# What each command's shard takes of its work.
_SHARDED = {
	'run': 'the kconfig groups of its kernels (a group\'s build and boots stay together)',
	'lkdtm': 'the kconfig groups of its kernels',
	'coverage': 'the kconfig groups of its kernels',
	'bisect': 'the kconfig groups of its kernels, each with every step of the series',
	'mutants': 'the mutants (of every kernel; with --generate, of each kernel\'s sample)',
}

def add_shard_opts(parser: argparse.ArgumentParser, command: str) -> None:
	"""--shard I/N, of a command whose work is a list."""
	parser.add_argument(
		'--shard', type=_shard, metavar='I/N',
		help=f'check the I-th of N shards of the work ({_SHARDED[command]}), split by '
		'cost the same way on every machine; --json says which shard of which request '
		f'it is (default: ${shard.ENV}, else GitLab\'s '
		f'${shard.GITLAB_INDEX}/${shard.GITLAB_TOTAL}; 1/1: all of it)')

def add_kunit_opts(parser: argparse.ArgumentParser, filter_glob: bool,
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
	parser.add_argument('--make_options', type=_make_option, action='append', default=[],
			    metavar='X=Y',
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
  2 bad input or a setup that cannot be done (before any work), or a full
  disk; 128 + the number of the signal that ended it (130 ^C, 143 SIGTERM,
  129 SIGHUP)

the rest: README.md, and tools/pan-kunit COMMAND --help
"""

TREE_HELP = ('one kernel tree, of the kernel it holds: a tree pan-kunit prepares, or '
	     'a git checkout of your own, whose HEAD and uncommitted edits are tested '
	     'in a clone and never changed (default: $PAN_KUNIT_TREE, else one tree per '
	     'kernel, $PAN_KUNIT_CACHE/linux-source-VERSION, $PAN_KUNIT_CACHE defaulting '
	     'to ~/.cache/pan-kunit)')

def add_tree_opts(parser: argparse.ArgumentParser) -> None:
	"""--tree, after the subcommand too; SUPPRESS keeps a --tree given before it."""
	parser.add_argument('--tree', metavar='DIR', help=TREE_HELP, default=argparse.SUPPRESS)

def add_kernel_opts(parser: argparse.ArgumentParser, default: str) -> None:
	kernel_names = ', '.join(k.name for k in kernels.KNOWN)
	parser.add_argument('--kernel', action='append', default=[], metavar='VERSION',
			    help=f'work on the kernel VERSION ({kernel_names}); repeatable '
			    f'(default: {default})')

def add_boot_opts(parser: argparse.ArgumentParser, timeout: int) -> None:
	"""The options of a command that builds and boots the matrix."""
	parser.add_argument('--config', action='append', default=[], metavar='NAME',
			    help='run only qemu_configs/NAME.py; repeatable')
	parser.add_argument('--timeout', type=_positive_int, default=timeout, metavar='SECONDS',
			    help=f'kunit.py exec\'s --timeout per boot (default: {timeout}); '
			    f'below {kselftest_build.DEFAULT_TIMEOUT}, also the longest a kselftest '
			    f'binary may take (at least {kselftests.LEAST_CAP})')
	parser.add_argument('--jobs', type=_positive_int, default=os.cpu_count(), metavar='N',
			    help='make jobs per build (default: the number of CPUs)')
	parser.add_argument('--olddefconfig', action='store_true',
			    help='run kunit.py\'s make olddefconfig before every build\'s make, '
			    f'as kunit.py does (also: {toolchains.OLDDEFCONFIG_ENV}=1); by default '
			    'a build leaves it out while the compiler, assembler, linker and pahole '
			    'are those it last built with (1.5 s of CPU a build)')

# What each reporting command's --json and --junit FILE hold.
_REPORT_FILES = {
	'run': ('the results, each config\'s as a KernelCI record (kunit_tool\'s JSON with '
		'the kernel, commit, config and CPU)',
		'a testsuite per kernel, config and suite, a testcase per case'),
	'bisect': ('a record per step, with its logs directory and each config\'s record as '
		   'run --json writes it',
		   'a testsuite bisect with a testcase per step, and a testsuite per step, kernel, '
		   'config and suite'),
	'mutants': ('a record per mutant: its verdict, the suites that must fail and its logs',
		    'a testsuite mutants with a testcase per mutant, and the baseline\'s testsuites'),
	'merge': ('the JSON of one unsharded run of the shards\' request, with a record per shard',
		  'the JUnit of one unsharded run (not of lkdtm, which writes none)'),
	'lkdtm': ('a record per kernel, config and crash type: its verdict, and the console\'s '
		  'last lines of one that is not ok', ''),
}

def add_report_opts(parser: argparse.ArgumentParser, command: str) -> None:
	"""The files a command that reports results also writes them into."""
	json_text, junit_text = _REPORT_FILES[command]
	parser.add_argument('--json', metavar='FILE', help=f'also write {json_text}, to FILE')
	parser.add_argument('--junit', metavar='FILE',
			    help=f'also write JUnit XML to FILE: {junit_text}')

def add_json_opt(parser: argparse.ArgumentParser, command: str) -> None:
	"""--json alone, of a command that writes no JUnit."""
	parser.add_argument('--json', metavar='FILE', help=f'also write {_REPORT_FILES[command][0]}, '
			    'to FILE')

def add_run_opts(parser: argparse.ArgumentParser) -> None:
	parser.add_argument('glob', nargs='?', type=_filter_glob, metavar='filter_glob',
			    help='the same as --filter_glob')
	add_kunit_opts(parser, filter_glob=True, isolated=True)
	shown = parser.add_mutually_exclusive_group()
	shown.add_argument('--summary', action='store_true',
			   help='print only the total lines, as kunit.py --summary does')
	shown.add_argument('--failed', action='store_true',
			   help='print only what failed and the total lines, as kunit.py '
			   '--failed does')
	parser.add_argument(
		'--kselftests', action='store_true',
		help='after each config\'s suites, boot it once more with the kernel\'s arm64 '
		'kselftests and the pan EL0 tests (a row per collection, kselftest.arm64.NAME). '
		'Off by default: under TCG they take 30 s (cortex-a57) to 2 min (max) a config '
		'on an idle host (built once per tree, cached), more than an edit loop of about '
		'one raw kunit.py run can afford')
	parser.add_argument('--raw_output', nargs='?', const='kunit', default=None,
			    choices=['all', 'kunit'],
			    help='also print the console of every boot, as kunit.py does: '
			    'all of it (all), or from the KTAP header on (kunit, the default)')

def add_bisect_opts(parser: argparse.ArgumentParser) -> None:
	parser.add_argument(
		'series', nargs='?', metavar='SERIES',
		help='a directory of patches (in the order of its "series" file, else by '
		'name), an mbox, or a git range of the tree; applied on top of the prepared '
		'tree.  Default: this repo\'s patches/, applied on top of the Debian base '
		'plus the suites\' files')
	parser.add_argument('--step', type=int, metavar='N',
			    help='apply the first N patches and check that step alone')

def add_export_opts(parser: argparse.ArgumentParser) -> None:
	parser.add_argument('dir', metavar='DIR',
			    help='where the series goes: a new or empty directory')
	parser.add_argument('--no-build', action='store_true',
			    help='only write and checkpatch the series; do not build its '
			    'prefixes')
	parser.add_argument('--check', action='store_true',
			    help='also check it as a maintainer does, in a tree of the base and '
			    'the series alone: each patch applies with git am and adds no W=1, '
			    'sparse or kernel-doc warning; the plain kunit.py run of the suites\' '
			    '.kunitconfig passes; and, without KUnit, the object code of each file '
			    'it touches is compared with the base\'s')

def add_mutants_opts(parser: argparse.ArgumentParser) -> None:
	parser.add_argument('--only', action='append', default=[], metavar='NAME',
			    help='check only mutants/VERSION/NAME.patch; repeatable')
	parser.add_argument(
		'--generate', action='store_true',
		help='generate mutants of the functions under test with libclang (relational, '
		'logical, bitwise and shift operators, constants +-1, negated conditions, deleted '
		'calls, swapped arguments) on the lines the last coverage run reached, judge a '
		'sample, and print the mutation score and every survivor')
	parser.add_argument('--sample', type=_non_negative_int, metavar='N',
			    help='check N of the mutants, drawn at random (with --generate: default '
			    f'{score.DEFAULT_SAMPLE}; 0: all; without it, all by default)')
	parser.add_argument('--seed', type=int, default=1, metavar='S',
			    help='the seed of the sample (default: 1)')
	headers = parser.add_mutually_exclusive_group()
	headers.add_argument(
		'--no-header-mutants', action='store_const', dest='headers',
		const=mutants.HeaderMutants.WITHOUT, default=mutants.HeaderMutants.WITH,
		help='leave out the mutants that change a header: nearly every object includes '
		'it, so each is a build from scratch (minutes, where the others take seconds)')
	headers.add_argument('--only-header-mutants', action='store_const', dest='headers',
			     const=mutants.HeaderMutants.ONLY,
			     help='check those alone, as a run of their own outside CI')
