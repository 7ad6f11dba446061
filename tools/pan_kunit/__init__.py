# SPDX-License-Identifier: GPL-2.0
#
# pan-kunit: prepares a Debian linux-source-6.1 tree with the project's
# patches and KUnit suites, then builds and boots it under QEMU with
# kunit_tool, once per qemu_configs/*.py.


class Error(Exception):
	"""A problem the user has to fix; main() prints it and exits with 2."""
