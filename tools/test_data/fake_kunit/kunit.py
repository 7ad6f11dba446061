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
# as a CPU with PAN (pass mode) or without it takes TYPE (noboot mode:
# none, as when QEMU does not start).  A file
# fake_mode at the top of the tree, holding a mode, overrides the
# config's.  build writes the --kunitconfig files it was given (kunit.py
# takes several and merges them) one after the other into
# BUILD_DIR/.kunitconfig, prints the line kunit.py prints when make
# starts, and writes OBJECTS into BUILD_DIR.
#
# Its options are those of the real kunit.py's build and exec (the same
# in 6.1 and 6.12), parsed the same way: an option either lacks is refused.
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

import argparse
import fnmatch
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from typing import List

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

def trace(*fields: object) -> None:
	with open(os.environ['FAKE_KUNIT_TRACE'], 'a') as f:
		f.write(' '.join(shlex.quote(str(field)) for field in fields) + '\n')

def check_absolute(*paths: str) -> None:
	for path in paths:
		if not os.path.isabs(path):
			sys.exit(f'fake kunit.py: {path} is not absolute')

def build(args: argparse.Namespace, mode: str) -> int:
	check_absolute(args.build_dir, args.qemu_config, *args.kunitconfig)
	trace('build', mode_config(args), args.build_dir)
	os.makedirs(args.build_dir, exist_ok=True)
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

def lkdtm(args: argparse.Namespace, mode: str, crash: str) -> int:
	"""An LKDTM boot: the console of lkdtm/, as a CPU with PAN (pass
	mode) or without it (any other) takes the crash type."""
	trace('qemu_args', mode_config(args), *qemu_args(args))
	if mode == 'noboot':
		return 1
	if crash == 'EXEC_USERSPACE':
		console = 'exec_caught.log'
	else:
		console = 'access_caught.log' if mode == 'pass' else 'access_survived.log'
	shutil.copyfile(os.path.join(os.environ['FAKE_KUNIT_DATA'], 'lkdtm', console),
			os.path.join(args.build_dir, 'test.log'))
	return 1  # no KTAP: kunit.py finds no tests

def qemu_args(args: argparse.Namespace) -> List[str]:
	"""--qemu_args as kunit.py reads them: each one split as a shell would."""
	return [word for arg in args.qemu_args or [] for word in shlex.split(arg)]

def kernel_cmdline(args: argparse.Namespace) -> str:
	"""What the kernel would get: the last -append QEMU is given (kunit.py's
	own comes first), else kunit.py's --kernel_args."""
	words = qemu_args(args)
	appends = [words[i + 1] for i, w in enumerate(words[:-1]) if w == '-append']
	return appends[-1] if appends else ' '.join(args.kernel_args or [])

def execute(args: argparse.Namespace, mode: str) -> int:
	crashes = [w.split('=', 1)[1] for w in kernel_cmdline(args).split()
		   if w.startswith('pankunit_crash=')]
	if crashes:
		return lkdtm(args, mode, crashes[0])
	check_absolute(args.build_dir, args.qemu_config, args.json, *args.kunitconfig)
	with open(os.path.join(args.build_dir, 'arch/arm64/boot/Image.gz')) as f:
		print('booting', f.read().strip())
	start = time.time()
	if mode == 'hang':
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
	shutil.copyfile(os.path.join(data, 'console', console),
			os.path.join(args.build_dir, 'test.log'))
	shutil.copyfile(os.path.join(data, 'kunit_json', result), args.json)
	if args.filter_glob and mode in ('pass', 'skip', 'fail', 'failtwo'):
		status = keep_suites(args, args.filter_glob.split('.')[0], status)
	trace('exec', mode_config(args), start, time.time(), '-')
	return status

def list_tests(args: argparse.Namespace, fixture: str) -> int:
	with open(fixture) as f:
		suites = json.load(f)['sub_groups']
	with open(os.path.join(args.build_dir, 'test.log'), 'w') as f:
		f.write('[    0.412345] KTAP version 1\n')
	trace('list', mode_config(args), args.filter_glob)
	for suite in suites:
		for case in suite.get('test_cases', []) + suite.get('sub_groups', []):
			print(f'{suite["name"]}.{case["name"]}')
	return 0

TIMESTAMP = re.compile(r'^\[[^\]]*\] ')
RESULT = re.compile(r'^(not ok|ok) \d+ (\S+)')

def keep_suites(args: argparse.Namespace, glob: str, status: int) -> int:
	"""Cuts the console and JSON just written to the suites of @glob:
	a suite's lines run from its indented KTAP header to its result line."""
	log = os.path.join(args.build_dir, 'test.log')
	with open(log) as f:
		lines = f.read().splitlines(keepends=True)
	head: List[str] = []
	blocks: List[List[str]] = []
	tail: List[str] = []
	block: List[str] = []
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

def rendezvous(args: argparse.Namespace, spec: str) -> None:
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

def parse(args: argparse.Namespace) -> int:
	check_absolute(args.file, args.json)
	data = os.environ['FAKE_KUNIT_DATA']
	with open(args.file, 'rb') as f:
		console = f.read()
	for name, (result, status) in PARSED.items():
		with open(os.path.join(data, 'console', name), 'rb') as f:
			if f.read() == console:
				shutil.copyfile(os.path.join(data, 'kunit_json', result), args.json)
				return status
	print(f'fake kunit.py: {args.file} is no copy of a console fixture', file=sys.stderr)
	return 2

def mode_config(args: argparse.Namespace) -> str:
	if args.subcommand == 'parse':
		return '-'

	path: str = args.qemu_config
	return os.path.basename(path)[:-len('.py')]

def add_common_opts(parser: argparse.ArgumentParser) -> None:
	"""kunit.py's, less their help; --build_dir, --kunitconfig and
	--qemu_config are required, as pan-kunit always passes them."""
	parser.add_argument('--build_dir', required=True)
	parser.add_argument('--make_options', action='append')
	parser.add_argument('--alltests', action='store_true')
	parser.add_argument('--kunitconfig', required=True, action='append')
	parser.add_argument('--kconfig_add', action='append')
	parser.add_argument('--arch', required=True)
	parser.add_argument('--cross_compile', required=True)
	parser.add_argument('--qemu_config', required=True)
	parser.add_argument('--qemu_args', action='append')

def add_exec_opts(parser: argparse.ArgumentParser) -> None:
	parser.add_argument('--timeout', type=int, default=300)
	parser.add_argument('filter_glob', nargs='?', default='')
	parser.add_argument('--filter', default='')
	parser.add_argument('--filter_action', choices=['skip'])
	parser.add_argument('--kernel_args', action='append')
	parser.add_argument('--run_isolated', choices=['suite', 'test'])
	parser.add_argument('--list_tests', action='store_true')
	parser.add_argument('--list_tests_attr', action='store_true')

def add_parse_opts(parser: argparse.ArgumentParser) -> None:
	parser.add_argument('--raw_output', nargs='?', const='all', choices=['all', 'kunit'])
	parser.add_argument('--json', nargs='?', const='stdout')

# As the real kunit.py: a bare --json means stdout (and a word after it
# is the filter_glob), a bare --raw_output means kunit.
PSEUDO_BOOL_FLAG_DEFAULTS = {'--json': 'stdout', '--raw_output': 'kunit'}

def main() -> int:
	parser = argparse.ArgumentParser()
	subparsers = parser.add_subparsers(dest='subcommand', required=True)
	build_parser = subparsers.add_parser('build')
	add_common_opts(build_parser)
	build_parser.add_argument('--jobs', type=int)
	exec_parser = subparsers.add_parser('exec')
	add_common_opts(exec_parser)
	add_exec_opts(exec_parser)
	add_parse_opts(exec_parser)
	parse_parser = subparsers.add_parser('parse')
	add_parse_opts(parse_parser)
	parse_parser.add_argument('file', nargs='?')
	argv = [f'{a}={PSEUDO_BOOL_FLAG_DEFAULTS[a]}' if a in PSEUDO_BOOL_FLAG_DEFAULTS else a
		for a in sys.argv[1:]]
	args = parser.parse_args(argv)
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
