# SPDX-License-Identifier: GPL-2.0
#
# Debian's lcov, as `coverage` uses it: tracefiles captured from the gcov
# data files of a boot, merged over the configs, read back (the suites'
# counts less those of a boot without them) and rendered as HTML by
# genhtml; and where a function is, in its C source, for its lines.

import os
import re
import shlex
import shutil
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

from pan_kunit import Error
from pan_kunit.host import proc
from pan_kunit.kunit_tool import kunit_py

GCOV = kunit_py.CROSS_COMPILE + 'gcov'
# An lcov run also reports branches only when asked to.
LCOV_BRANCHES = ['--rc', 'lcov_branch_coverage=1']

# lcov's tracefile: https://manpages.debian.org/bookworm/lcov/geninfo.1
@dataclass
class SourceData:
	lines: Dict[int, int] = field(default_factory=dict)  # line: count
	branches: Dict[Tuple[int, str, str], int] = field(default_factory=dict)  # taken

def read_tracefile(text: str, root: str) -> Dict[str, SourceData]:
	"""The lines and branches of an lcov tracefile, by source path
	relative to @root (the tree); sources outside it are left out."""
	data: Dict[str, SourceData] = {}
	current: Optional[SourceData] = None
	real = os.path.realpath(root)
	for line in text.splitlines():
		key, _, value = line.partition(':')
		if key == 'SF':
			path = os.path.realpath(value)
			current = None
			if path.startswith(real + '/'):
				current = data.setdefault(path[len(real) + 1:], SourceData())
		elif current is None:
			continue
		elif key == 'DA':
			number, count = value.split(',')[:2]
			current.lines[int(number)] = current.lines.get(int(number), 0) + int(count)
		elif key == 'BRDA':
			number, block, branch, taken = value.split(',')
			at = (int(number), block, branch)
			current.branches[at] = current.branches.get(at, 0) + \
				(0 if taken == '-' else int(taken))
	return data

# How much more often the suites' boot must run a line (or take a branch)
# that the boot without them runs too: the coverage init's own user page
# faults vary by one between two boots of the same kernel (do_page_fault()'s
# per-VMA lock path ran 16 or 17 times, measured on 6.12), so one more run
# is noise.  A line the boot without the suites never ran counts at once.
NOISE = 1

def _less(count: int, base: int) -> int:
	if not base:
		return count
	return count - base if count - base > NOISE else 0

def suites_only(data: Dict[str, SourceData],
		baseline: Optional[Dict[str, SourceData]]) -> Dict[str, SourceData]:
	"""@data's counts less @baseline's (a boot of the same kernel and CPU
	without the suites): what the suites themselves ran.  Every line and
	branch stays, at 0 where the baseline ran it as often, or within
	NOISE of it."""
	if baseline is None:
		return data
	only: Dict[str, SourceData] = {}
	for source, counts in data.items():
		base = baseline.get(source, SourceData())
		only[source] = SourceData(
			{n: _less(c, base.lines.get(n, 0)) for n, c in counts.lines.items()},
			{at: _less(c, base.branches.get(at, 0)) for at, c in counts.branches.items()})
	return only

def add(total: Dict[str, SourceData], more: Dict[str, SourceData]) -> None:
	"""@more's counts added into @total."""
	for source, counts in more.items():
		into = total.setdefault(source, SourceData())
		for n, c in counts.lines.items():
			into.lines[n] = into.lines.get(n, 0) + c
		for at, c in counts.branches.items():
			into.branches[at] = into.branches.get(at, 0) + c

def reached_lines(data: Dict[str, SourceData]) -> Dict[str, Set[int]]:
	"""The lines run at least once, by source."""
	return {source: {n for n, c in counts.lines.items() if c > 0}
		for source, counts in data.items()}

def function_ranges(text: str, name: str) -> List[Tuple[int, int]]:
	"""The first and last line of each definition of the function @name
	in the C source @text, in kernel style: its name and '(' on the line
	that starts the definition (or the one after its return type), its
	body closed by a '}' in column 0, or all of it on one line.  Several
	under #ifdef: each."""
	lines = text.splitlines()
	start = re.compile(r'^(?:[A-Za-z_].*\W)?' + re.escape(name) + r'\(')
	ranges = []
	number = 0
	while number < len(lines):
		if start.match(lines[number]):
			body = number
			while body < len(lines) and '{' not in lines[body] and \
					not lines[body].rstrip().endswith(';'):
				body += 1
			if body < len(lines) and '{' in lines[body]:
				close = body
				if not lines[body].rstrip().endswith('}'):
					close += 1
					while close < len(lines) and not lines[close].startswith('}'):
						close += 1
				ranges.append((number + 1, min(close, len(lines) - 1) + 1))
				number = close
		number += 1
	return ranges

def _run(argv: List[str], what: str, cwd: Optional[str]=None) -> str:
	result = proc.run(argv, stderr=proc.To.MERGED, cwd=cwd)
	if result.returncode != 0:
		tail = '\n'.join(result.stdout.strip().splitlines()[-15:])
		raise Error(f'{what} failed ({shlex.join(argv)}):\n{tail}')
	return result.stdout

def capture(gcda_dir: str, out: str) -> None:
	"""An lcov tracefile of the data files under @gcda_dir."""
	_run(['lcov', '--quiet', '--capture', '--directory', gcda_dir, '--gcov-tool', GCOV,
	      '--output-file', out] + LCOV_BRANCHES, 'lcov --capture')

def merge(tracefiles: Sequence[str], tree: str, out: str) -> None:
	"""One tracefile of @tracefiles, with the sources of the tree's
	arch/arm64 only (the profiled objects include half of include/)."""
	added = [word for path in tracefiles for word in ('--add-tracefile', path)]
	_run(['lcov', '--quiet'] + added + ['--output-file', out + '.all'] + LCOV_BRANCHES,
	     'lcov --add-tracefile')
	_run(['lcov', '--quiet', '--extract', out + '.all',
	      os.path.join(os.path.realpath(tree), 'arch', 'arm64', '*'),
	      '--output-file', out] + LCOV_BRANCHES, 'lcov --extract')
	os.unlink(out + '.all')

def html(tracefile: str, tree: str, out_dir: str, title: str) -> None:
	if os.path.isdir(out_dir):
		shutil.rmtree(out_dir)
	_run(['genhtml', '--quiet', '--branch-coverage', '--title', title,
	      '--prefix', os.path.realpath(tree), '--output-directory', out_dir, tracefile],
	     'genhtml')
