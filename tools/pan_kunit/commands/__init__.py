# SPDX-License-Identifier: GPL-2.0
#
# The commands: run, parse, list, selftest, lkdtm, coverage, bisect,
# mutants (with their generator and score) and export, each with its
# request; what several share (the session, the requests of those that
# boot, the steps of a check); and on top, the command line (options.py,
# cli.py, the one dispatcher).  Any layer below may be imported.
