# SPDX-License-Identifier: GPL-2.0
#
# The files pan-kunit reads and writes whole: text read as a message is
# (a stray byte shows as \xNN), None when it is not there; JSON objects
# (kunit_tool's, pan-kunit's records), None when unreadable; and a JSON
# file a command writes, whose failure is an Error that names it.

import json
from typing import Any, Dict, Optional

from pan_kunit import Error

# A JSON object: kunit_tool's JSON, and pan-kunit's records.
JsonObj = Dict[str, Any]

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

def write_json(path: str, data: JsonObj, option: str='') -> None:
	"""Writes @data to @path, the FILE of @option (e.g. --json), if any."""
	try:
		with open(path, 'w') as f:
			json.dump(data, f, indent=4)
			f.write('\n')
	except OSError as e:
		raise Error(f'cannot write {option + " " if option else ""}{path}: {e.strerror}')
