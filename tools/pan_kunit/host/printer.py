# SPDX-License-Identifier: GPL-2.0
#
# pan-kunit's output: one Printer, which cli.main() makes and hands down
# with the session, as kunit_tool hands its kunit_printer.Printer to what
# prints.  Every line a command prints goes through it: print() to its
# stdout, print_stderr() to its stderr; nothing writes to sys.stdout or
# sys.stderr behind it, and it swaps neither.
#
# On a terminal it keeps one status line under the normal lines, rewritten
# in place ("\r", then clear to the end of the line) and cleared before
# any normal line is written, so the two never mix.  When stdout is not a
# terminal (a CI log) there is no status line, only the normal lines.
# Each line is one write, under a lock: the threads that wait on builds
# and boots print their lines as they end.  A stream that can no longer be
# written (a terminal that hung up: a closed window, a dropped ssh
# session; a pipe whose reader is gone) is given up, not raised from: the
# command stops what it started and ends with its status all the same.

import shutil
import threading
from typing import Callable, List, Optional, TextIO

CLEAR_LINE = '\r\033[K'

class Printer:
	"""Normal lines on @stdout and @stderr, and, when @stdout is a
	terminal (@tty), one status line under them, cut to the terminal's
	@width."""

	def __init__(self, stdout: TextIO, stderr: Optional[TextIO]=None,
		     tty: Optional[bool]=None, width: Callable[[], int]=lambda: 0) -> None:
		self._stdout = stdout
		self._stderr = stderr or stdout
		self.live = stdout.isatty() if tty is None else tty
		self._width = width
		self._lock = threading.RLock()
		self._status = ''
		self._shown = False
		self._line_start = True
		self._gone: List[TextIO] = []  # the streams given up

	def print(self, text: str='', end: str='\n') -> None:
		"""@text and @end on stdout, in one write."""
		self._write(text + end, self._stdout)

	def print_stderr(self, text: str='', end: str='\n') -> None:
		"""@text and @end on stderr, in one write."""
		self._write(text + end, self._stderr)

	def _write(self, text: str, stream: TextIO) -> None:
		with self._lock:
			if text:
				self._erase()
				self._put(stream, text, flush=stream is not self._stdout)
				self._line_start = text.endswith('\n')
				self._draw()

	def _put(self, stream: TextIO, text: str, flush: bool=False) -> None:
		"""@text on @stream, unless it was given up (see the top)."""
		if any(gone is stream for gone in self._gone):
			return
		try:
			if text:
				stream.write(text)
			if flush:
				stream.flush()
		except (OSError, ValueError):  # ValueError: closed
			self._gone.append(stream)

	def status(self, text: str) -> None:
		"""Shows @text as the status line ('' for none), on a terminal."""
		with self._lock:
			if not self.live or text == self._status:
				return
			self._status = text
			self._erase()
			self._draw()

	def close(self) -> None:
		"""Clears the status line."""
		self.status('')

	def _erase(self) -> None:
		if self._shown:
			self._put(self._stdout, CLEAR_LINE)
			self._shown = False

	def _draw(self) -> None:
		if self.live and self._status and self._line_start:
			width = self._width() or shutil.get_terminal_size().columns
			self._put(self._stdout, self._status[:max(width - 1, 1)])
			self._shown = True
		self._put(self._stdout, '', flush=True)
