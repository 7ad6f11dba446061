# SPDX-License-Identifier: GPL-2.0
#
# The files pan-kunit reads and writes whole: text read as a message is
# (a stray byte shows as \xNN), None when it is not there; JSON objects
# (kunit_tool's, pan-kunit's records), None when unreadable; and the files
# a command writes (--json, --junit, a boot's record), whose failure is an
# Error that names them.
#
# A file is written whole or not at all: into a temporary file beside it
# (.NAME.pan-kunit-PID.tmp, in the same directory, so on the same file
# system), then renamed over it.  Killed before the rename (SIGKILL, a
# full disk), the file is as it was, never half-written as if complete;
# the next write of it removes the temporary files that dead pan-kunits
# left.

import contextlib
import errno
import glob
import json
import os
from typing import Any, Callable, Dict, IO, Iterator, Optional

from pan_kunit import Error
from pan_kunit.host import pids

# A JSON object: kunit_tool's JSON, and pan-kunit's records.
JsonObj = Dict[str, Any]

# What a write fails with on a full disk (or a user's full quota).
DISK_FULL = (errno.ENOSPC, errno.EDQUOT)
# What an Error of a full disk adds: the next run, with space, needs no
# clean-up (what was half-written is removed, or written again).
DISK_FULL_HINT = 'the disk is full: free space on it, then run again'

# What a process that could not write because the disk is full says
# (strerror(ENOSPC), strerror(EDQUOT)): tar, git, make, the compilers, ld,
# QEMU and kunit.py's Python.
DISK_FULL_WORDS = ('No space left on device', 'Disk quota exceeded')

def disk_full_line(output: str) -> Optional[str]:
	"""The first line of a process's @output that says the disk is full,
	stripped; None if none does."""
	return next((line.strip() for line in output.splitlines()
		     if any(words in line for words in DISK_FULL_WORDS)), None)

def write_error(e: OSError, path: str, what: str='') -> Error:
	"""The Error of a failed write of @what (e.g. --json) into @path."""
	hint = f'; {DISK_FULL_HINT}' if e.errno in DISK_FULL else ''
	return Error(f'cannot write {what + " " if what else ""}{path}: {e.strerror or e}{hint}')

@contextlib.contextmanager
def writing(path: str, what: str) -> Iterator[None]:
	"""The block writes @what into @path: an OSError of a full disk is
	an Error that names them."""
	try:
		yield
	except OSError as e:
		if e.errno not in DISK_FULL:
			raise
		raise write_error(e, path, what) from None

def read_text(path: str) -> Optional[str]:
	try:
		with open(path, errors='backslashreplace') as f:
			return f.read()
	except OSError:
		return None

def read_json(path: str) -> Optional[JsonObj]:
	try:
		with open(path) as f:
			data = json.load(f)
	except (OSError, ValueError):
		return None
	return data if isinstance(data, dict) else None

def _temporary(path: str, pid: int) -> str:
	directory, name = os.path.split(path)
	return os.path.join(directory, f'.{name}.pan-kunit-{pid}.tmp')

def _remove_stale(path: str) -> None:
	"""Removes the temporary files of @path that a pan-kunit which is no
	longer running left."""
	prefix, suffix = _temporary(path, 0).split('-0.', 1)
	for stale in glob.glob(glob.escape(prefix) + '-*.' + suffix):
		pid = stale[len(prefix) + 1:-len(suffix) - 1]
		if pids.left_by_gone(pid):
			try:
				os.unlink(stale)
			except OSError:
				pass

def write_with(path: str, write: Callable[[IO[bytes]], object], what: str='') -> None:
	"""Writes @path whole or not at all (see the top), with @write, which
	writes the bytes into the file it is given; an Error that names @what
	(e.g. --json) and @path if it cannot."""
	_remove_stale(path)
	temporary = _temporary(path, os.getpid())
	try:
		try:
			with open(temporary, 'wb') as f:
				write(f)
			os.replace(temporary, path)
		except BaseException:
			if os.path.lexists(temporary):
				os.unlink(temporary)
			raise
	except OSError as e:
		raise write_error(e, path, what) from None

def write_text(path: str, text: str, what: str='') -> None:
	"""Writes @text to @path (UTF-8), whole or not at all."""
	write_with(path, lambda f: f.write(text.encode('utf-8', 'surrogateescape')), what)

def write_json(path: str, data: JsonObj, option: str='') -> None:
	"""Writes @data to @path, the FILE of @option (e.g. --json), if any,
	whole or not at all."""
	write_text(path, json.dumps(data, indent=4) + '\n', option)
