# SPDX-License-Identifier: GPL-2.0
#
# Which KUnit suites a kernel patch hooks in, and the patch cut into one
# change per suite, for `pan-kunit export`.
#
# A patch of patches/ hooks a suite in with lines that name the suite's
# files (`obj-$(CONFIG_X) += foo_kunit.o`, `#include "tests/foo_kunit.c"`) and
# with the Kconfig entry of the symbol those lines name (`config X`).
# What a patch changes in a file is read from `git diff -U0` of the file
# before and after it.  A hunk that only adds lines is cut into items:
#
#   Kconfig*            an entry: a line at column 0 (config, if, menu, ...)
#                       and the indented lines after it; if..endif,
#                       menu..endmenu and choice..endchoice whole
#   Makefile, Kbuild    a statement with its backslash continuations;
#                       ifeq/ifdef..endif whole
#   *.c, *.h, *.S       a line at column 0 and the lines after it up to the
#                       next; #if..#endif and {..} whole
#
# with the blank lines between two items as their separator.  A hunk that
# also removes lines is one item.  An item of a Kconfig file or a Makefile
# belongs to the suites whose files it names, and to the suite of a symbol
# it names (CONFIG_X) or, in a Kconfig file, defines (config X); a symbol
# is a suite's once an item names it together with the files of that
# suite alone.  An item of a C file the patch does not create belongs to
# a suite only when it #includes one of its files (`#include
# "tests/foo_kunit.c"`); any other code there is a change of the code
# under test, a hook (Item.hook), whatever suite its comment or its
# IS_ENABLED(CONFIG_X) names: upstream takes hooks in a patch of their
# own, before the tests that use them.  An item that is neither (a
# comment, a Kconfig or make line that names nothing) goes with the
# nearest item that is, in the same hunk (the next one, else the one
# before), else in the same file; without one it belongs to no suite.
#
# FileChange.render() writes a file with only some of the items: the
# change of the first suite's cut keeps the items of no suite and of that
# suite, and leaves out those of the suites cut after it.

import enum
import os
import re
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Pattern, Set, Tuple

from pan_kunit import Error
from pan_kunit.host import gitcmd, proc
from pan_kunit.trees import tree

_HUNK = re.compile(r'^@@ -([0-9]+)(?:,([0-9]+))? \+([0-9]+)(?:,([0-9]+))? @@', re.M)
_CONFIG_REF = re.compile(r'\bCONFIG_([A-Za-z0-9_]+)')
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)
# A line of a C comment, or a blank one.
_COMMENT_LINE = re.compile(r'^\s*(/\*.*|\*.*|//.*)?$')
_KCONFIG_DEF = re.compile(r'^[ \t]*(?:menu)?config[ \t]+([A-Za-z0-9_]+)', re.M)

class FileKind(enum.Enum):
	"""How a file's added lines are cut into items."""
	KCONFIG = 'Kconfig*'
	MAKE = 'Makefile, Kbuild'
	C = '*.c, *.h, *.S'
	OTHER = 'other'

# Lines that open and close a block an item keeps whole, by kind of file;
# matched at column 0 only (an indented "if" in Kconfig is help text).
_BLOCKS: Dict[FileKind, Tuple[Pattern[str], Pattern[str]]] = {
	FileKind.KCONFIG: (re.compile(r'(if|menu|choice)\b'),
			   re.compile(r'(endif|endmenu|endchoice)\b')),
	FileKind.MAKE: (re.compile(r'(ifeq|ifneq|ifdef|ifndef)\b'), re.compile(r'endif\b')),
	FileKind.C: (re.compile(r'#[ \t]*if'), re.compile(r'#[ \t]*endif\b')),
}

def file_kind(path: str) -> FileKind:
	name = os.path.basename(path)
	if name.startswith('Kconfig'):
		return FileKind.KCONFIG
	if name.startswith(('Makefile', 'Kbuild')) or name.endswith('.mk'):
		return FileKind.MAKE
	if name.endswith(('.c', '.h', '.S')):
		return FileKind.C
	return FileKind.OTHER

def lines_of(data: bytes) -> List[bytes]:
	"""Lines as git counts them: split at \\n only, each with its \\n."""
	parts = data.split(b'\n')
	return [p + b'\n' for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])

def text_of(lines: List[bytes]) -> str:
	return b''.join(lines).decode(errors='replace')

@dataclass
class Item:
	"""Lines a cut keeps or leaves out as one."""
	lines: List[bytes]
	separator: List[bytes] = field(default_factory=list)  # the blank lines after it
	suites: Set[str] = field(default_factory=set)
	hook: bool = False  # code of a C file that includes no suite's file

def split_run(path: str, lines: List[bytes]) -> Tuple[List[bytes], List[Item]]:
	"""Cuts a run of added lines into items; returns the blank lines
	before the first item, and the items."""
	kind = file_kind(path)
	opens, closes = _BLOCKS.get(kind, (None, None))
	lead: List[bytes] = []
	items: List[Item] = []
	blanks: List[bytes] = []
	depth = 0      # open blocks
	braces = 0     # open { in C
	continued = False
	for raw in lines:
		line = raw.decode(errors='replace').rstrip('\n')
		if not line.strip():
			blanks.append(raw)
			continue
		starts = (not items or
			  (line[0] not in ' \t{}' and depth == 0 and braces == 0 and not continued))
		if starts:
			if items:
				items[-1].separator = blanks
			else:
				lead = blanks
			items.append(Item([raw]))
		else:
			items[-1].lines += blanks + [raw]
		blanks = []
		if opens is not None and closes is not None:
			if closes.match(line):
				depth = max(depth - 1, 0)
			elif opens.match(line):
				depth += 1
		if kind == FileKind.C and not line.lstrip().startswith(('#', '//', '/*', '*')):
			braces = max(braces + line.count('{') - line.count('}'), 0)
		continued = line.endswith('\\')
	if items:
		items[-1].separator = blanks
	else:
		lead = blanks
	return lead, items

@dataclass
class Hunk:
	"""old[start:start + count] becomes the lines of the items: a run of
	added lines when count is 0 (cut into items), else one item."""
	start: int
	count: int
	lead: List[bytes]
	items: List[Item]

@dataclass
class FileChange:
	"""What a patch changes in one file; None for a file that is not there."""
	path: str
	old: Optional[bytes]
	new: Optional[bytes]
	hunks: List[Hunk]

	def items(self) -> List[Item]:
		return [item for hunk in self.hunks for item in hunk.items]

	def render(self, keep: Callable[[Item], bool]) -> Optional[bytes]:
		"""The file with the items @keep keeps, and the old lines where it
		keeps none of a hunk.  Kept items of a run are joined by the
		separators that followed them, and the run keeps its first and
		last blank lines, so that leaving out the last item of a run does
		not leave out the blank line that closed the run."""
		old = lines_of(self.old or b'')
		out: List[bytes] = []
		pos = 0
		for hunk in self.hunks:
			out += old[pos:hunk.start]
			pos = hunk.start + hunk.count
			kept = [item for item in hunk.items if keep(item)]
			if hunk.count:
				out += hunk.items[0].lines if kept else old[hunk.start:pos]
				continue
			if not kept:
				continue
			out += hunk.lead
			for number, item in enumerate(kept):
				out += item.lines
				out += item.separator if number < len(kept) - 1 else hunk.items[-1].separator
		out += old[pos:]
		data = b''.join(out)
		return None if self.old is None and not data else data

def _blob(worktree: str, rev: str, path: str) -> Optional[bytes]:
	"""The file at @rev, as bytes; None when it is not there."""
	result = gitcmd.run(worktree, 'cat-file', 'blob', f'{rev}:{path}', stderr=proc.To.NOWHERE)
	return result.output if result.returncode == 0 else None

def _hunks(worktree: str, before: str, after: str, path: str,
	   old: Optional[bytes], new: Optional[bytes]) -> List[Hunk]:
	diff = tree.git(worktree, 'diff', '-U0', '--no-renames', '--no-color', '--no-ext-diff',
			before, after, '--', ':(literal)' + path).stdout
	headers = list(_HUNK.finditer(diff))
	old_lines, new_lines = lines_of(old or b''), lines_of(new or b'')
	if not headers:  # binary: the whole file is one item
		return [Hunk(0, len(old_lines), [], [Item(new_lines)])]
	hunks = []
	for match in headers:
		old_start, old_count = int(match.group(1)), int(match.group(2) or '1')
		new_start, new_count = int(match.group(3)), int(match.group(4) or '1')
		start = old_start if old_count == 0 else old_start - 1
		first = new_start if new_count == 0 else new_start - 1
		added = new_lines[first:first + new_count]
		if old_count:
			hunks.append(Hunk(start, old_count, [], [Item(added)]))
		else:
			lead, items = split_run(path, added)
			hunks.append(Hunk(start, 0, lead, items))
	return hunks

def symbols_of(path: str, text: str) -> Set[str]:
	if file_kind(path) == FileKind.KCONFIG:
		return set(_KCONFIG_DEF.findall(text))
	return set(_CONFIG_REF.findall(text))

def file_patterns(suites: Dict[str, List[str]]) -> Dict[str, Pattern[str]]:
	"""A pattern per suite for a name of its files (foo_kunit.o,
	tests/foo_kunit.c)."""
	patterns = {}
	for name, paths in suites.items():
		stems = sorted({os.path.splitext(os.path.basename(p))[0] for p in paths})
		patterns[name] = re.compile(r'(?<![\w.-])(?:' + '|'.join(map(re.escape, stems)) +
					    r')\.[A-Za-z]\b')
	return patterns

def assign(changes: List[FileChange], suites: Dict[str, List[str]],
	   symbols: Dict[str, str]) -> None:
	"""Sets the suites of every item of @changes.  @symbols, symbol to
	suite, is what earlier patches taught; this patch's are added."""
	patterns = file_patterns(suites)
	named: List[Tuple[Item, Set[str], Set[str]]] = []
	for change in changes:
		c_file = file_kind(change.path) == FileKind.C
		for item in change.items():
			text = text_of(item.lines)
			# In C, only the #include of a suite's file hooks it in.
			searched = '\n'.join(_INCLUDE.findall(text)) if c_file else text
			files = {name for name, pattern in patterns.items() if pattern.search(searched)}
			syms = symbols_of(change.path, text) if files or not c_file else set()
			item.hook = (c_file and change.old is not None and not files and
				     not _comment_only(text))
			named.append((item, files, syms))
	for item, files, syms in named:
		if len(files) == 1:
			for sym in syms:
				symbols.setdefault(sym, next(iter(files)))
	# A line that names a suite's file is that suite's, whichever suite its
	# symbol came with: one Kconfig symbol may build several suites (the
	# PAN suites', a file each), each added by a Makefile line of its own.
	for item, files, syms in named:
		item.suites = files or {symbols[s] for s in syms if s in symbols}
	for change in changes:
		for hunk in change.hunks:
			_adopt(hunk.items)
	# An item left with no suite in its hunk (git diff -U0 makes a hunk of
	# each line a hook replaces) looks through the whole file the same way.
	# The changes of a file are in its order, each hunk's items too.
	by_path: Dict[str, List[Item]] = {}
	for change in changes:
		by_path.setdefault(change.path, []).extend(change.items())
	for ordered in by_path.values():
		_adopt(ordered)

def _adopt(ordered: List[Item]) -> None:
	"""Gives each item of @ordered that is neither a suite's nor a hook
	what the nearest one that is is (_nearest()), in order: an item
	adopted early counts for those after it."""
	def placed(item: Item) -> bool:
		return bool(item.suites) or item.hook
	for i, item in enumerate(ordered):
		if placed(item):
			continue
		nearest = _nearest(item, [other for other in ordered[:i] if placed(other)],
				   [other for other in ordered[i + 1:] if placed(other)])
		if nearest is not None:
			item.suites, item.hook = set(nearest.suites), nearest.hook

def _nearest(item: Item, before: List[Item], after: List[Item]) -> Optional[Item]:
	"""The item whose suites an item that names none takes: a comment or a
	definition goes with what follows it (the #ifdef block it introduces),
	a line inside a function (indented) with the hook above it, whose
	names it uses; else the other way round."""
	inside = bool(item.lines) and item.lines[0][:1] in (b'\t', b' ')
	first, second = (before[-1:], after[:1]) if inside else (after[:1], before[-1:])
	found = first or second
	return found[0] if found else None

def _comment_only(text: str) -> bool:
	return all(_COMMENT_LINE.match(line) for line in text.splitlines())

def hook_lines(changes: List[FileChange]) -> List[str]:
	"""Where @changes hook into the code under test: the first line of
	each hook item, with its file."""
	return [f'{change.path}: {text_of(item.lines[:1]).strip()}'
		for change in changes for item in change.items() if item.hook]

def changes(worktree: str, before: str, after: str) -> List[FileChange]:
	"""What the commits @before..@after change, file by file, in
	build_order()."""
	paths = tree.git(worktree, 'diff', '--no-renames', '-z', '--name-only',
			 before, after).stdout.split('\0')
	found = []
	for path in [p for p in paths if p]:
		old, new = _blob(worktree, before, path), _blob(worktree, after, path)
		found.append(FileChange(path, old, new, _hunks(worktree, before, after, path, old, new)))
	return build_order(found)

def build_order(found: List[FileChange]) -> List[FileChange]:
	"""@found with the Makefiles first, then the other files, each in the
	order given.  The suites of a patch are cut in the order they first
	appear, and a symbol that builds several is the first one's: so they
	follow the lines that build them (arch/arm64/mm/tests/Makefile), not
	an #include in a file that git lists first (arch/arm64/mm/fault.c)."""
	return sorted(found, key=lambda change: file_kind(change.path) != FileKind.MAKE)

def hooked(changes: List[FileChange], patch: str, new_suites: Set[str]) -> List[str]:
	"""The suites of @new_suites that @changes hook in, in the order they
	first appear; refuses a change that hooks in two of them at once,
	which no cut can give to one suite's patch."""
	order: List[str] = []
	for change in changes:
		for item in change.items():
			mine = sorted(item.suites & new_suites)
			if len(mine) > 1:
				raise Error(f'{patch}: one change to {change.path} hooks in both '
					    f'{" and ".join(mine)}:\n{text_of(item.lines).rstrip()}\n'
					    'export cannot cut it into a patch per suite; write a line '
					    '(or block) per suite')
			order += [name for name in mine if name not in order]
	return order
