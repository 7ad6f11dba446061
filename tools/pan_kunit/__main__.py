# SPDX-License-Identifier: GPL-2.0
#
# python3 -m pan_kunit: what tools/pan-kunit runs.

import sys

from pan_kunit.commands import cli

sys.exit(cli.main(sys.argv[1:]))
