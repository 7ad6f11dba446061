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
#   hang        exec: starts a stand-in for QEMU (`sleep 600`, in our
#               process group, ignoring SIGTERM) and never exits
#   noboot      exec: QEMU does not start; writes no test.log, no JSON (exit 1)
#   builderror  build: fails
# Any other mode builds and passes.  A file fake_mode at the top of the
# tree, holding a mode, overrides the config's.  build copies the
# --kunitconfig it was given to BUILD_DIR/.kunitconfig.
#
# Environment:
#   FAKE_KUNIT_DATA          tools/test_data, where the fixtures are
#   FAKE_KUNIT_TRACE         file to append one line per call to:
#                            "build CONFIG BUILD_DIR" or
#                            "exec CONFIG START END QEMU_PID"
#   FAKE_KUNIT_EXEC_SECONDS  how long exec takes in pass and skip modes

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time

OUTPUTS = {
	'pass': ('pass.log', 'pass.json', 0),
	'skip': ('skips.log', 'skips.json', 0),
	'fail': ('fail.log', 'fail.json', 1),
	'failtwo': ('fail_two.log', 'fail_two.json', 1),
	'crash': ('panic.log', 'panic.json', 1),
}

# The tree this kunit.py is in: TREE/tools/testing/kunit/kunit.py.
TREE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
	os.path.abspath(__file__)))))

def trace(*fields: object) -> None:
	with open(os.environ['FAKE_KUNIT_TRACE'], 'a') as f:
		f.write(' '.join(str(field) for field in fields) + '\n')

def check_absolute(*paths: str) -> None:
	for path in paths:
		if not os.path.isabs(path):
			sys.exit(f'fake kunit.py: {path} is not absolute')

def build(args: argparse.Namespace, mode: str) -> int:
	check_absolute(args.build_dir, args.kunitconfig, args.qemu_config)
	trace('build', mode_config(args), args.build_dir)
	os.makedirs(args.build_dir, exist_ok=True)
	shutil.copyfile(args.kunitconfig, os.path.join(args.build_dir, '.kunitconfig'))
	if mode == 'builderror':
		print('arch/arm64/kernel/cpufeature_fake_test.c:12:1: error: expected \';\' before \'}\' token')
		print('make[3]: *** [scripts/Makefile.build:250: arch/arm64/kernel/cpufeature_fake_test.o] Error 1')
		return 1
	for path in ('arch/arm64/boot/Image.gz', 'vmlinux'):
		os.makedirs(os.path.dirname(os.path.join(args.build_dir, path)), exist_ok=True)
		with open(os.path.join(args.build_dir, path), 'w') as f:
			f.write(f'fake kernel built for {mode_config(args)}\n')
	return 0

def execute(args: argparse.Namespace, mode: str) -> int:
	check_absolute(args.build_dir, args.kunitconfig, args.qemu_config, args.json)
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
	if mode in ('pass', 'skip'):
		time.sleep(float(os.environ.get('FAKE_KUNIT_EXEC_SECONDS', '0')))
	data = os.environ['FAKE_KUNIT_DATA']
	shutil.copyfile(os.path.join(data, 'console', console),
			os.path.join(args.build_dir, 'test.log'))
	shutil.copyfile(os.path.join(data, 'kunit_json', result), args.json)
	trace('exec', mode_config(args), start, time.time(), '-')
	return status

def mode_config(args: argparse.Namespace) -> str:
	path: str = args.qemu_config
	return os.path.basename(path)[:-len('.py')]

def main() -> int:
	parser = argparse.ArgumentParser()
	parser.add_argument('subcommand', choices=['build', 'exec'])
	parser.add_argument('--build_dir', required=True)
	parser.add_argument('--arch', required=True)
	parser.add_argument('--cross_compile', required=True)
	parser.add_argument('--kunitconfig', required=True)
	parser.add_argument('--qemu_config', required=True)
	parser.add_argument('--jobs', type=int)
	parser.add_argument('--timeout', type=int)
	parser.add_argument('--make_options', action='append')
	# As the real kunit.py: a bare --json means stdout, and a word after
	# it is the filter_glob, so a file must be given as --json=FILE.
	parser.add_argument('--json', nargs='?', const='stdout')
	parser.add_argument('filter_glob', nargs='?', default='')
	argv = ['--json=stdout' if a == '--json' else a for a in sys.argv[1:]]
	args = parser.parse_args(argv)
	if args.filter_glob or args.json == 'stdout':
		print(f'fake kunit.py: unexpected filter_glob {args.filter_glob!r} or '
		      f'--json {args.json!r}', file=sys.stderr)
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
