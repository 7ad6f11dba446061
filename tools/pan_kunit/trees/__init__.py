# SPDX-License-Identifier: GPL-2.0
#
# The kernels and their trees: the kernels pan-kunit knows, what the repo
# puts into a tree (its series, the suites), a bisect SERIES, the prepared
# tree, a tree of the user's and pan-kunit's clone of it, the check
# worktree, and the kernels a command works on, each in its tree
# (targets.py).  It imports only the host (pan_kunit.host).
