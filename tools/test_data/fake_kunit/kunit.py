#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# pan_kunit_test.py fixture: a stand-in for kunit_tool's kunit.py.  The
# tests pack it into the fake source tarball as tools/testing/kunit/, so
# pan-kunit runs it exactly where it would run the real one.
#
# What it does is chosen by the --qemu_config file's name, up to the first
# '_' (e.g. "fail" for fail_pan.py):
#   pass        exec: a run where every case passes
#   skip        exec: a passing run with skipped cases
#   fail        exec: a run with a failing case (exit 1, like kunit.py)
#   failtwo     exec: failing cases in two suites, one a parameter (exit 1)
#   crash       exec: a kernel panic in the middle of a suite (exit 1)
#   notests     exec: a boot that runs no test (exit 1, like kunit.py)
#   hang        exec: starts a stand-in for QEMU (`sleep 600`, in our
#               process group, ignoring SIGTERM) and never exits
#   noboot      exec: QEMU does not start; writes no test.log, no JSON (exit 1)
#   builderror  build: fails
#   parse       (kunit.py parse FILE) the JSON fixture of the console
#               fixture FILE is a copy of, and that fixture's exit status
# An exec with --list_tests prints SUITE.CASE of each case of the mode's
# JSON fixture, as kunit.py does, and writes a console with just a KTAP
# header.  An exec with a filter_glob keeps, of the console and JSON
# fixtures of the pass, skip, fail and failtwo modes, the suites whose name
# matches the glob's suite part (its case part is not looked at).
# Any other mode builds and passes.  An exec whose kernel command line
# (the last -append of --qemu_args, else --kernel_args) has
# pankunit_crash=TYPE is an LKDTM boot: its console is one of lkdtm/'s,
# as a CPU with PAN (pass mode; by SW TTBR0 when the config's kconfig
# says so) or without it takes TYPE (noboot mode: none, as when QEMU does
# not start).  A file fake_mode at the top of the tree, holding a mode,
# overrides the config's.  build writes the --kunitconfig files it was
# given (kunit.py takes several and merges them) one after the other into
# BUILD_DIR/.kunitconfig, prints the line kunit.py prints when make
# starts, and writes OBJECTS into BUILD_DIR; with FAKE_KUNIT_TRACE_ENV
# (names, comma-separated) it also traces "env NAME=VALUE" of each of its
# environment's, as make would see them.
#
# Its options are those of the real kunit.py's build and exec (the same
# in 6.1 and 6.12), parsed the same way: an option either lacks is refused.
# argparse parses them only when fast_parse() cannot: it takes the plain
# arguments pan-kunit passes (whole option names, values that do not
# start with '-') as argparse would, and leaves anything else to it.
#
# Environment:
#   FAKE_KUNIT_DATA          tools/test_data, where the fixtures are
#   FAKE_KUNIT_TRACE         file to append lines to, words quoted as by
#                            shlex.quote: per call "argv SUBCOMMAND CONFIG
#                            ARG..." (every argument it was given), then
#                            "build CONFIG BUILD_DIR",
#                            "exec CONFIG START END QEMU_PID" or
#                            "qemu_args CONFIG WORD..." (LKDTM boots)
#   FAKE_KUNIT_RENDEZVOUS    DIR:N: exec in pass and skip modes creates
#                            DIR/CONFIG, then waits until DIR holds N files
#                            (at most RENDEZVOUS_SECONDS) and traces
#                            "rendezvous CONFIG FOUND": N boots that run at
#                            once all find N, without a fixed sleep
#   FAKE_KUNIT_STALL         STAGE:DIR (STAGE: build or exec): at STAGE,
#                            after writing half its output (a partial
#                            object, a partial test.log), starts a
#                            stand-in for make or QEMU (`sleep 600`, in
#                            our process group, ignoring SIGTERM), writes
#                            DIR/STAGE holding "KUNIT_PID CHILD_PID", and
#                            never exits: the fault tests kill pan-kunit
#                            there (faults_test.py)
#   FAKE_KUNIT_FULL          STAGE (build or exec): at STAGE, the disk is
#                            full: build fails as the assembler does on a
#                            full disk, exec as kunit.py's Python does
#                            when it writes test.log (faults_disk_test.py)

# Only what every call needs is imported here, the rest where it is used:
# the tests start this file a few hundred times, and importing argparse
# and building its parser, and re, were most of what each start cost.
from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
	from typing import Any, Dict, Optional

OUTPUTS = {
	'pass': ('pass.log', 'pass.json', 0),
	'skip': ('skips.log', 'skips.json', 0),
	'fail': ('fail.log', 'fail.json', 1),
	'failtwo': ('fail_two.log', 'fail_two.json', 1),
	'crash': ('panic.log', 'panic.json', 1),
	'notests': ('no_tests.log', 'no_tests.json', 1),
}

# How long an exec waits for the other boots of FAKE_KUNIT_RENDEZVOUS.
RENDEZVOUS_SECONDS = 30

# What a build compiles, in BUILD_DIR.
OBJECTS = ('arch/arm64/kernel/cpufeature.o', 'arch/arm64/kernel/cpufeature_fake_test.o')

# The tree this kunit.py is in: TREE/tools/testing/kunit/kunit.py.
TREE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
	os.path.abspath(__file__)))))

def copyfile(source: str, destination: str) -> None:
	"""shutil.copyfile(), without importing shutil."""
	with open(source, 'rb') as f:
		data = f.read()
	with open(destination, 'wb') as f:
		f.write(data)

# What shlex.quote() leaves unquoted.
UNQUOTED = frozenset('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-')

def quote(word: str) -> str:
	"""shlex.quote(), without importing shlex and re."""
	if not word:
		return "''"
	if UNQUOTED.issuperset(word):
		return word
	return "'" + word.replace("'", "'\"'\"'") + "'"

def trace(*fields: object) -> None:
	with open(os.environ['FAKE_KUNIT_TRACE'], 'a') as f:
		f.write(' '.join(quote(str(field)) for field in fields) + '\n')

def check_absolute(*paths: str) -> None:
	for path in paths:
		if not os.path.isabs(path):
			sys.exit(f'fake kunit.py: {path} is not absolute')

def stall(stage: str, half: str) -> None:
	"""Stalls at @stage if FAKE_KUNIT_STALL says so, with the file
	@half written in part: see FAKE_KUNIT_STALL."""
	spec = os.environ.get('FAKE_KUNIT_STALL', '')
	if not spec.startswith(stage + ':'):
		return
	import signal
	import subprocess
	with open(half, 'w') as f:
		f.write('half of it\n')
	child = subprocess.Popen(['sleep', '600'],
				 preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_IGN))
	where = os.path.join(spec.split(':', 1)[1], stage)
	with open(where + '.tmp', 'w') as f:
		f.write(f'{os.getpid()} {child.pid}\n')
	os.rename(where + '.tmp', where)
	while True:
		time.sleep(600)

def build(args: Args, mode: str) -> int:
	check_absolute(args.build_dir, args.qemu_config, *args.kunitconfig)
	trace('build', mode_config(args), args.build_dir)
	for name in filter(None, os.environ.get('FAKE_KUNIT_TRACE_ENV', '').split(',')):
		trace('env', f'{name}={os.environ.get(name, "")}')
	os.makedirs(args.build_dir, exist_ok=True)
	os.makedirs(os.path.join(args.build_dir, 'arch/arm64/kernel'), exist_ok=True)
	stall('build', os.path.join(args.build_dir, OBJECTS[0]))
	if os.environ.get('FAKE_KUNIT_FULL') == 'build':
		print(f'Building with:\n$ make ARCH=arm64 O={args.build_dir} --jobs={args.jobs}')
		print(f'{args.build_dir}/{OBJECTS[0]}: Assembler messages:')
		print(f'{args.build_dir}/{OBJECTS[0]}: Fatal error: can\'t write 4096 bytes to section '
		      '.text: \'No space left on device\'')
		print(f'make[4]: *** [scripts/Makefile.build:250: {OBJECTS[0]}] Error 1')
		return 1
	with open(os.path.join(args.build_dir, '.kunitconfig'), 'w') as merged:
		for kunitconfig in args.kunitconfig:
			with open(kunitconfig) as f:
				merged.write(f.read())
	print(f'Building with:\n$ make ARCH=arm64 O={args.build_dir} --jobs={args.jobs}')
	if mode == 'builderror':
		print('arch/arm64/kernel/cpufeature_fake_test.c:12:1: error: expected \';\' before \'}\' token')
		print('make[3]: *** [scripts/Makefile.build:250: arch/arm64/kernel/cpufeature_fake_test.o] Error 1')
		return 1
	for path in OBJECTS + ('arch/arm64/boot/Image.gz', 'vmlinux'):
		os.makedirs(os.path.dirname(os.path.join(args.build_dir, path)), exist_ok=True)
		with open(os.path.join(args.build_dir, path), 'w') as f:
			f.write(f'fake kernel built for {mode_config(args)}\n')
	return 0

def lkdtm(args: Args, mode: str, crash: str) -> int:
	"""An LKDTM boot: the console of lkdtm/, as a CPU with PAN (pass
	mode) or without it (any other) takes the crash type."""
	trace('qemu_args', mode_config(args), *qemu_args(args))
	if mode == 'noboot':
		return 1
	if crash == 'EXEC_USERSPACE':
		console = 'exec_caught.log'
	elif crash == 'ACCESS_NULL':
		# A PAN fault where PAN is SW TTBR0's, a NULL dereference elsewhere.
		with open(args.qemu_config) as f:
			ttbr0 = 'CONFIG_ARM64_SW_TTBR0_PAN=y' in f.read()
		console = 'null_pan_caught.log' if mode == 'pass' and ttbr0 else 'null_caught.log'
	else:
		console = 'access_caught.log' if mode == 'pass' else 'access_survived.log'
	copyfile(os.path.join(os.environ['FAKE_KUNIT_DATA'], 'lkdtm', console),
			os.path.join(args.build_dir, 'test.log'))
	return 1  # no KTAP: kunit.py finds no tests

def qemu_args(args: Args) -> list[str]:
	"""--qemu_args as kunit.py reads them: each one split as a shell would."""
	if not args.qemu_args:
		return []
	import shlex
	return [word for arg in args.qemu_args for word in shlex.split(arg)]

def kernel_cmdline(args: Args) -> str:
	"""What the kernel would get: the last -append QEMU is given (kunit.py's
	own comes first), else kunit.py's --kernel_args."""
	words = qemu_args(args)
	appends = [words[i + 1] for i, w in enumerate(words[:-1]) if w == '-append']
	return appends[-1] if appends else ' '.join(args.kernel_args or [])

def execute(args: Args, mode: str) -> int:
	crashes = [w.split('=', 1)[1] for w in kernel_cmdline(args).split()
		   if w.startswith('pankunit_crash=')]
	if crashes:
		return lkdtm(args, mode, crashes[0])
	check_absolute(args.build_dir, args.qemu_config, args.json, *args.kunitconfig)
	with open(os.path.join(args.build_dir, 'arch/arm64/boot/Image.gz')) as f:
		print('booting', f.read().strip())
	start = time.time()
	stall('exec', os.path.join(args.build_dir, 'test.log'))
	if os.environ.get('FAKE_KUNIT_FULL') == 'exec':
		log = os.path.join(args.build_dir, 'test.log')
		print('Traceback (most recent call last):\n  File "kunit.py", line 155, in exec_tests')
		print(f"OSError: [Errno 28] No space left on device: '{log}'")
		return 1
	if mode == 'hang':
		import signal
		import subprocess
		qemu = subprocess.Popen(['sleep', '600'],
					preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_IGN))
		trace('exec', mode_config(args), start, '-', qemu.pid)
		while True:
			time.sleep(600)
	if mode == 'noboot':
		print('qemu-system-aarch64: -cpu nosuch: unable to find CPU model', file=sys.stderr)
		trace('exec', mode_config(args), start, time.time(), '-')
		return 1
	console, result, status = OUTPUTS.get(mode, OUTPUTS['pass'])
	data = os.environ['FAKE_KUNIT_DATA']
	if args.list_tests:
		return list_tests(args, os.path.join(data, 'kunit_json', result))
	if mode in ('pass', 'skip') and os.environ.get('FAKE_KUNIT_RENDEZVOUS'):
		rendezvous(args, os.environ['FAKE_KUNIT_RENDEZVOUS'])
	copyfile(os.path.join(data, 'console', console),
			os.path.join(args.build_dir, 'test.log'))
	copyfile(os.path.join(data, 'kunit_json', result), args.json)
	if args.filter_glob and mode in ('pass', 'skip', 'fail', 'failtwo'):
		status = keep_suites(args, args.filter_glob.split('.')[0], status)
	trace('exec', mode_config(args), start, time.time(), '-')
	return status

def list_tests(args: Args, fixture: str) -> int:
	import json
	with open(fixture) as f:
		suites = json.load(f)['sub_groups']
	with open(os.path.join(args.build_dir, 'test.log'), 'w') as f:
		f.write('[    0.412345] KTAP version 1\n')
	trace('list', mode_config(args), args.filter_glob)
	for suite in suites:
		for case in suite.get('test_cases', []) + suite.get('sub_groups', []):
			print(f'{suite["name"]}.{case["name"]}')
	return 0

def keep_suites(args: Args, glob: str, status: int) -> int:
	"""Cuts the console and JSON just written to the suites of @glob:
	a suite's lines run from its indented KTAP header to its result line."""
	import fnmatch
	import json
	import re
	TIMESTAMP = re.compile(r'^\[[^\]]*\] ')
	RESULT = re.compile(r'^(not ok|ok) \d+ (\S+)')
	log = os.path.join(args.build_dir, 'test.log')
	with open(log) as f:
		lines = f.read().splitlines(keepends=True)
	head: list[str] = []
	blocks: list[list[str]] = []
	tail: list[str] = []
	block: list[str] = []
	for line in lines:
		text = TIMESTAMP.sub('', line, count=1)
		if text.startswith('    KTAP version') and not block:
			block = [line]
		elif block:
			block.append(line)
			if RESULT.match(text):
				blocks.append(block)
				block = []
		elif blocks:
			tail.append(line)
		else:
			head.append(line)
	kept = [b for b in blocks if fnmatch.fnmatchcase(
		RESULT.match(TIMESTAMP.sub('', b[-1], count=1)).group(2), glob)]
	with open(log, 'w') as f:
		for line in head:
			f.write(re.sub(r'1\.\.\d+$', f'1..{len(kept)}', line.rstrip('\n')) + '\n')
		for number, b in enumerate(kept, 1):
			f.writelines(b[:-1])
			f.write(re.sub(r'ok \d+ ', f'ok {number} ', b[-1], count=1))
		f.writelines(tail)
	with open(args.json) as f:
		result = json.load(f)
	result['sub_groups'] = [g for g in result['sub_groups']
				if fnmatch.fnmatchcase(g['name'], glob)]
	with open(args.json, 'w') as f:
		json.dump(result, f, indent=4)
	failed = any(RESULT.match(TIMESTAMP.sub('', b[-1], count=1)).group(1) == 'not ok'
		     for b in kept)
	return 1 if failed else 0 if status in (0, 1) else status

def rendezvous(args: Args, spec: str) -> None:
	"""Waits for the other boots: see FAKE_KUNIT_RENDEZVOUS."""
	directory, count = spec.rsplit(':', 1)
	os.makedirs(directory, exist_ok=True)
	with open(os.path.join(directory, mode_config(args)), 'w'):
		pass
	deadline = time.monotonic() + RENDEZVOUS_SECONDS
	found = len(os.listdir(directory))
	while found < int(count) and time.monotonic() < deadline:
		time.sleep(0.01)
		found = len(os.listdir(directory))
	trace('rendezvous', mode_config(args), found)

# kunit.py parse of a console fixture: its JSON fixture, and exit status.
PARSED = {
	'pass.log': ('pass.json', 0), 'skips.log': ('skips.json', 0),
	'fail.log': ('fail.json', 1), 'panic.log': ('panic.json', 1),
	'no_tests.log': ('no_tests.json', 1), 'no_ktap.log': ('no_ktap.json', 1),
	'7.3_cut_short.log': ('7.3_cut_short.json', 1),
}

def parse(args: Args) -> int:
	check_absolute(args.file, args.json)
	data = os.environ['FAKE_KUNIT_DATA']
	with open(args.file, 'rb') as f:
		console = f.read()
	for name, (result, status) in PARSED.items():
		with open(os.path.join(data, 'console', name), 'rb') as f:
			if f.read() == console:
				copyfile(os.path.join(data, 'kunit_json', result), args.json)
				return status
	print(f'fake kunit.py: {args.file} is no copy of a console fixture', file=sys.stderr)
	return 2

def mode_config(args: Args) -> str:
	if args.subcommand == 'parse':
		return '-'

	path: str = args.qemu_config
	return os.path.basename(path)[:-len('.py')]

class Args:
	"""The parsed arguments, as argparse's Namespace."""

	def __init__(self, **values: Any) -> None:
		self.__dict__.update(values)

	def __eq__(self, other: object) -> bool:
		return isinstance(other, Args) and vars(self) == vars(other)

	def __repr__(self) -> str:
		return f'Args({vars(self)!r})'

# Each subcommand's arguments, as argparse's add_argument() takes them.
# kunit.py's common options, less their help; --build_dir, --kunitconfig
# and --qemu_config are required, as pan-kunit always passes them.
COMMON_OPTS: Dict[str, Dict[str, Any]] = {
	'--build_dir': {'required': True},
	'--make_options': {'action': 'append'},
	'--alltests': {'action': 'store_true'},
	'--kunitconfig': {'required': True, 'action': 'append'},
	'--kconfig_add': {'action': 'append'},
	'--arch': {'required': True},
	'--cross_compile': {'required': True},
	'--qemu_config': {'required': True},
	'--qemu_args': {'action': 'append'},
}
EXEC_OPTS: Dict[str, Dict[str, Any]] = {
	'--timeout': {'type': int, 'default': 300},
	'filter_glob': {'nargs': '?', 'default': ''},
	'--filter': {'default': ''},
	'--filter_action': {'choices': ['skip']},
	'--kernel_args': {'action': 'append'},
	'--run_isolated': {'choices': ['suite', 'test']},
	'--list_tests': {'action': 'store_true'},
	'--list_tests_attr': {'action': 'store_true'},
}
PARSE_OPTS: Dict[str, Dict[str, Any]] = {
	'--raw_output': {'nargs': '?', 'const': 'all', 'choices': ['all', 'kunit']},
	'--json': {'nargs': '?', 'const': 'stdout'},
}
SUBCOMMANDS: Dict[str, Dict[str, Dict[str, Any]]] = {
	'build': {**COMMON_OPTS, '--jobs': {'type': int}},
	'exec': {**COMMON_OPTS, **EXEC_OPTS, **PARSE_OPTS},
	'parse': {**PARSE_OPTS, 'file': {'nargs': '?'}},
}

def argparse_parse(argv: list[str]) -> Args:
	"""@argv as kunit.py's argparse parses it: exits on an error."""
	import argparse
	parser = argparse.ArgumentParser()
	subparsers = parser.add_subparsers(dest='subcommand', required=True)
	for name, arguments in SUBCOMMANDS.items():
		subparser = subparsers.add_parser(name)
		for argument, kwargs in arguments.items():
			subparser.add_argument(argument, **kwargs)
	return Args(**vars(parser.parse_args(argv)))

def fast_parse(argv: list[str]) -> Optional[Args]:
	"""What argparse_parse() makes of @argv, when @argv is plain: every
	option by its whole name, its value after '=' or, when it does not
	start with '-', as the next argument, and no more positional
	arguments than the subcommand takes.  None for anything else,
	accepted or refused by argparse."""
	if not argv or argv[0] not in SUBCOMMANDS:
		return None
	arguments = SUBCOMMANDS[argv[0]]
	found: Dict[str, Any] = {'subcommand': argv[0]}
	for argument, kwargs in arguments.items():
		default = False if kwargs.get('action') == 'store_true' else kwargs.get('default')
		found[argument.lstrip('-')] = default
	positionals = [a for a in arguments if not a.startswith('-')]
	words = iter(argv[1:])
	for word in words:
		if not word.startswith('-'):
			if not positionals:
				return None
			found[positionals.pop(0)] = word
			continue
		name, equals, value = word.partition('=')
		kwargs = arguments.get(name)
		if kwargs is None:
			return None
		if kwargs.get('action') == 'store_true':
			if equals:
				return None
			found[name[2:]] = True
			continue
		if not equals:
			if kwargs.get('nargs') == '?':
				return None
			value = next(words, '-')
			if value.startswith('-'):
				return None
		if value not in kwargs.get('choices', [value]):
			return None
		if kwargs.get('type') is int:
			if not value.isdigit():
				return None
			found[name[2:]] = int(value)
		elif kwargs.get('action') == 'append':
			found[name[2:]] = (found[name[2:]] or []) + [value]
		else:
			found[name[2:]] = value
	if any(kwargs.get('required') and found[a.lstrip('-')] is None
	       for a, kwargs in arguments.items()):
		return None
	return Args(**found)

# As the real kunit.py: a bare --json means stdout (and a word after it
# is the filter_glob), a bare --raw_output means kunit.
PSEUDO_BOOL_FLAG_DEFAULTS = {'--json': 'stdout', '--raw_output': 'kunit'}

def main() -> int:
	argv = [f'{a}={PSEUDO_BOOL_FLAG_DEFAULTS[a]}' if a in PSEUDO_BOOL_FLAG_DEFAULTS else a
		for a in sys.argv[1:]]
	args = fast_parse(argv) or argparse_parse(argv)
	trace('argv', args.subcommand, mode_config(args), *sys.argv[1:])
	if args.subcommand == 'parse':
		return parse(args)
	if args.subcommand == 'exec' and args.json == 'stdout':
		print(f'fake kunit.py: a bare --json (and filter_glob {args.filter_glob!r}): '
		      'pan-kunit must pass --json=FILE', file=sys.stderr)
		return 2
	mode = mode_config(args).split('_')[0]
	try:  # the tree's own choice, for checks that change the tree
		with open(os.path.join(TREE, 'fake_mode')) as f:
			mode = f.read().strip() or mode
	except FileNotFoundError:
		pass
	if args.subcommand == 'build':
		return build(args, mode)
	return execute(args, mode)

if __name__ == '__main__':
	sys.exit(main())
