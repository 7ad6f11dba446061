# SPDX-License-Identifier: GPL-2.0
#
# pan-kunit: prepares a Debian linux-source-VERSION tree for each kernel of
# patches/VERSION/series (6.1, 6.12, 7.3) with the project's patches and
# KUnit suites, then builds and boots it under QEMU with kunit_tool, once
# per qemu_configs/*.py.

import enum


class Error(Exception):
	"""A problem the user has to fix; main() prints it and exits with 2."""


class StrEnum(str, enum.Enum):
	"""A status or a kind that pan-kunit prints and writes (JSON, JUnit):
	a str that is its value, as enum.StrEnum of Python 3.11 is.  It
	prints and formats as its value, and equals and hashes as it, so that
	a value read back from kunit_tool's JSON finds its member."""

	def __str__(self) -> str:
		return str.__str__(self)

	def __format__(self, spec: str) -> str:
		return str.__format__(str(self), spec)

	def __hash__(self) -> int:
		return str.__hash__(self)
