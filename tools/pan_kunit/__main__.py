# SPDX-License-Identifier: GPL-2.0
#
# python3 -m pan_kunit: what tools/pan-kunit runs.

import os
import sys

from pan_kunit.commands import cli

status = cli.main(sys.argv[1:])
for stream in (sys.stdout, sys.stderr):
	try:
		stream.flush()
	except (OSError, ValueError):
		# A terminal that hung up, a pipe whose reader is gone: what is
		# left to flush goes nowhere, and the exit status stays the
		# command's (not Python's 120 for a failed flush at exit).
		os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
sys.exit(status)
