# SPDX-License-Identifier: GPL-2.0
#
# The order in which `pan-kunit selftest` runs its test files: the
# longest first, so that no long file starts last and ends alone while
# the other workers have nothing left to run.  By size, run_test.py, the
# longest file end to end (8 s of a 15 s run), came seventeenth, and
# proc_test.py, which waits for the processes it starts (3.5 s), last but
# two.  How long each file took in the last run of each layer is kept in
# TIMES, beside mypy's cache, which the next run of that layer reads; a
# file it has no time of (a new one; every file in a fresh checkout, as
# CI has it) starts before the others, the biggest first.

import json
import os
from typing import Dict, List, Mapping, Tuple

from pan_kunit.host import files

# In the directory of the test files: {layer: {file name: seconds}}.
TIMES = '.selftest-times.json'

def _read(directory: str) -> Dict[str, Dict[str, float]]:
	"""TIMES of @directory; {} when there is none or it cannot be read."""
	return files.read_json(os.path.join(directory, TIMES)) or {}

def order(directory: str, paths: List[str], layer: str) -> List[str]:
	"""@paths, test files of @directory, in the order to run them for
	@layer: those the last run of @layer did not time first, the biggest
	first, then the others, the longest first."""
	times = _read(directory).get(layer)
	timed = times if isinstance(times, dict) else {}

	def longest(path: str) -> Tuple[bool, float, int, str]:
		took = timed.get(os.path.basename(path))
		if isinstance(took, (int, float)):
			return (True, -took, -os.path.getsize(path), path)
		return (False, 0.0, -os.path.getsize(path), path)

	return sorted(paths, key=longest)

def record(directory: str, layer: str, took: Mapping[str, float]) -> None:
	"""Keeps in TIMES of @directory how long each file of @took (a file's
	name -> its seconds) took in a run of @layer.  If it cannot be
	written (a read-only checkout), the next run starts the biggest
	files first, as it would without it."""
	times = _read(directory)
	times[layer] = {name: round(seconds, 2) for name, seconds in sorted(took.items())}
	path = os.path.join(directory, TIMES)
	partial = f'{path}.{os.getpid()}'  # another selftest may write it at once
	try:
		with open(partial, 'w') as f:
			json.dump(times, f, indent=1, sort_keys=True)
			f.write('\n')
		os.replace(partial, path)
	except OSError:
		try:
			os.unlink(partial)
		except OSError:
			pass
