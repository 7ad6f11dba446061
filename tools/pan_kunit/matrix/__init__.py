# SPDX-License-Identifier: GPL-2.0
#
# The matrix of QEMU configs, built and booted: a run's plan (plan.py),
# config, build, exec and parse in one pass (pipeline.py), its kunit.py
# processes (jobs.py), its builds (builds.py), its boots (boots.py, and
# isolation.py with --run_isolated), what builds from scratch cost
# (cost.py), and the initramfs of pan-kunit's own boots (initramfs.py).  It
# imports only the layers below it: host, trees, kunit_tool, results.
