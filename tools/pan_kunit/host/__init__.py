# SPDX-License-Identifier: GPL-2.0
#
# The host: the processes pan-kunit runs (proc.py, the one module that
# starts any; git through gitcmd.py), the files it reads and writes whole,
# the Debian packages and APT suites it installs, the printer every line
# goes through and the progress on its status line, and the tallies of a
# command.  It imports nothing of the layers above it: trees, kunit_tool,
# results, matrix, commands.
