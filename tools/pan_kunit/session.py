# SPDX-License-Identifier: GPL-2.0
#
# What one command of pan-kunit carries from the command line down to its
# work, in one object that cli.main() makes and every command takes, in
# place of module globals: the printer every line goes through, and the
# progress of the builds and boots on its status line.

from dataclasses import dataclass
from typing import Optional, TextIO

from pan_kunit.printer import Printer
from pan_kunit.progress import Progress

@dataclass
class Session:
	"""One command's state, from its start to its end."""
	printer: Printer
	progress: Progress

	@classmethod
	def of_streams(cls, stdout: TextIO, stderr: Optional[TextIO]=None) -> 'Session':
		"""A session whose lines go to @stdout and @stderr."""
		printer = Printer(stdout, stderr)
		return cls(printer, Progress(printer))
