# SPDX-License-Identifier: GPL-2.0
#
# Processes by number, as /proc tells them: when one started, which tells
# it from a later process that reuses its number, and whether a number
# that pan-kunit wrote into a file's name (a temporary file, an export's
# partial directory) names a pan-kunit that is no longer running, so that
# what it left may be removed.

import os

def start_time(pid: int) -> str:
	"""When @pid started, in clock ticks since boot (/proc/PID/stat's
	22nd field): with the pid, what tells a process from a later one that
	reuses its number; '' when it is gone."""
	try:
		with open(f'/proc/{pid}/stat', 'rb') as f:
			fields = f.read().rsplit(b')', 1)[1].split()
	except (OSError, IndexError):
		return ''
	return fields[19].decode() if len(fields) > 19 else ''

def left_by_gone(pid: str) -> bool:
	"""Whether @pid, the text of a number in a file's name, names a
	process that is gone: not this one, and no longer running.  A text
	that is no number names none, and is never gone."""
	return pid.isdigit() and int(pid) != os.getpid() and not start_time(int(pid))
