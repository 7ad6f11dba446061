#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# A stand-in for the kernel's scripts/clang-tools/gen_compile_commands.py
# (same -d and -o options): one entry per .cmd file of the build directory,
# or exit 1 when there is none, as the kernel's does.
import argparse, glob, json, os, sys
parser = argparse.ArgumentParser()
parser.add_argument('-d', dest='directory')
parser.add_argument('-o', dest='output')
args = parser.parse_args()
cmds = glob.glob(os.path.join(args.directory, '.*.o.cmd'))
if not cmds:
	print(f'no .cmd files in {args.directory}')
	sys.exit(1)
entries = [{'directory': args.directory, 'file': os.path.basename(c)[1:-len('.o.cmd')] + '.c',
	    'arguments': ['gcc', '-c']} for c in cmds]
with open(args.output, 'w') as f:
	json.dump(entries, f)
