# SPDX-License-Identifier: GPL-2.0
#
# A tree's kunit_tool, which pan-kunit reuses rather than copies: its
# kunit.py (kunit_py.py; a build through kunit_build.py, with the
# toolchains.py decision on olddefconfig), its modules imported afresh
# (modules.py), the QEMU configs loaded as it loads them (configs.py), and
# the KTAP of a console, parsed by its kunit_parser (ktap.py) or read by
# pan-kunit's own patterns (ktap_lines.py).  It imports only the host and
# the trees.
