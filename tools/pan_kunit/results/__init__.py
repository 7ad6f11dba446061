# SPDX-License-Identifier: GPL-2.0
#
# The results of a boot: kunit_tool's JSON read once (kunit_json.py), the
# leaves of the one model (leaves.py), a config's result (config_result.py),
# and its renderings: the terminal's report (terminal.py), the JSON records
# (record.py) and JUnit (junit.py).  It imports only the layers below it:
# host, trees, kunit_tool.
