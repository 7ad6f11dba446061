# SPDX-License-Identifier: GPL-2.0
#
# `mutants --generate`: mutants made systematically from the functions
# under test (coverage.FUNCTIONS), instead of written by hand.  The places
# are found with a real C front end, libclang (Debian's python3-clang-N),
# given the flags of the kernel's own build (the build directory's
# compile_commands.json, which kunit.py's build writes; flags that only gcc
# takes are left out for clang).  Each operator makes one kind of small
# change at a place the function's own text holds (not one a macro
# expansion brought in):
#
#   relational   < <= > >= == != swapped for a neighbour
#   logical      && and ||
#   bitwise      & | ^ and &= |=
#   shift        << and >>
#   constant     an integer literal plus and minus one
#   negate       an if's condition negated
#   delete-call  a call made as a statement, dropped
#   swap-args    two adjacent arguments of one type, swapped
#
# A place is kept only on a line the suites reach, by the tree's last
# `coverage` run (its suites' boots less its boots without a suite), when
# there is one.  Each mutant is a patch that
# `mutants` judges as the written ones, killed when any case fails (or the
# kernel crashes or hangs); one that does not build is dropped, never
# counted.  A mutant claimed equivalent (mutants/VERSION/equivalent) is
# named by its function and syntax node, not by its line, so that it is
# not drawn again.

import dataclasses
import difflib
import hashlib
import math
import os
import re
import sys
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from pan_kunit import Error
from pan_kunit.commands import mutants

# Debian's python3-clang-N installs here, beside Python's own packages.
DIST_PACKAGES = '/usr/lib/python3/dist-packages'
# The Debian package of the bindings, and the libclang they load.
PACKAGE = 'python3-clang-19'
EQUIVALENT = 'equivalent'

SWAPS = {
	'relational': {'<': ['<=', '>'], '<=': ['<', '>'], '>': ['>=', '<'], '>=': ['>', '<'],
		       '==': ['!='], '!=': ['==']},
	'logical': {'&&': ['||'], '||': ['&&']},
	'bitwise': {'&': ['|'], '|': ['&'], '^': ['|'], '&=': ['|='], '|=': ['&=']},
	'shift': {'<<': ['>>'], '>>': ['<<'], '<<=': ['>>='], '>>=': ['<<=']},
}
OPERATORS = tuple(SWAPS) + ('constant', 'negate', 'delete-call', 'swap-args')
_LITERAL = re.compile(r'^(0[xX][0-9a-fA-F]+|[0-9]+)([uUlL]*)$')
# Flags of a gcc build that clang refuses or that change nothing it parses.
_KEEP = re.compile(r'^(-[IDU].*|-include|-isystem|-std=.*|-nostdinc|-f(no-)?short-wchar|'
		   r'-fno-strict-aliasing|-fno-common|-ffreestanding|-mgeneral-regs-only)$')

@dataclass(frozen=True)
class Site:
	"""One change at one place of a function under test."""
	function: str
	source: str          # relative to the tree
	operator: str
	line: int
	start: int           # byte offsets into the source
	end: int
	original: str
	replacement: str
	ordinal: int = 0     # among the function's sites of the same change

	def node(self) -> str:
		"""What names it across edits of other lines: function, operator,
		the text changed and the change, and which of the function's
		identical changes it is."""
		return (f'{self.function}: {self.operator} `{self.original}` -> '
			f'`{self.replacement}` #{self.ordinal}')

	def name(self) -> str:
		"""Unique among the sites of a tree: two changes of one place (>= to
		< and to >) differ by their replacement's digest."""
		digest = hashlib.sha256(self.replacement.encode()).hexdigest()[:6]
		return f'gen-{self.function}-{self.operator}-{self.line}-{self.start}-{digest}'

def load_bindings() -> Any:
	"""clang.cindex, from Debian's package."""
	if DIST_PACKAGES not in sys.path and os.path.isdir(DIST_PACKAGES):
		sys.path.append(DIST_PACKAGES)
	try:
		import clang.cindex as cindex  # type: ignore[import]
		cindex.Index.create()
	except Exception as e:  # ImportError, or libclang missing
		raise Error(f'mutants --generate needs libclang\'s Python bindings ({PACKAGE}, which '
			    f'setup installs as root): {e}') from None
	return cindex

def clang_args(command: Dict[str, Any]) -> List[str]:
	"""The flags of a compile_commands.json entry that clang takes for
	parsing: the preprocessor's, the language's, the target."""
	words = command.get('arguments') or command.get('command', '').split()
	kept, take_next = ['--target=aarch64-linux-gnu', '-Wno-unknown-warning-option'], False
	for word in words[1:]:
		if take_next:
			kept.append(word)
			take_next = False
		elif word in ('-include', '-isystem', '-I', '-D', '-U'):
			kept.append(word)
			take_next = True
		elif _KEEP.match(word):
			kept.append(word)
	return kept

def _in_file(cursor: Any, path: str) -> bool:
	location = cursor.extent.start
	return bool(location.file) and os.path.realpath(location.file.name) == path

def _literal_changes(spelling: str) -> List[str]:
	match = _LITERAL.match(spelling)
	if not match:
		return []
	digits, suffix = match.groups()
	value = int(digits, 16 if digits[:2].lower() == '0x' else 8 if
		    len(digits) > 1 and digits[0] == '0' else 10)
	hexadecimal = digits[:2].lower() == '0x'
	return [(f'{v:#x}' if hexadecimal else str(v)) + suffix
		for v in (value + 1, value - 1) if v >= 0]

class _Walker:
	"""The sites of one function definition."""

	def __init__(self, cindex: Any, text: bytes, path: str, source: str, function: str,
		     lines: Optional[Set[int]]) -> None:
		self.cindex, self.text, self.path = cindex, text, path
		self.source, self.function, self.lines = source, function, lines
		self.found: List[Site] = []

	def add(self, operator: str, start: int, end: int, original: str, replacement: str,
		line: int) -> None:
		if self.text[start:end].decode(errors='replace') != original:
			return  # not the function's own text (a macro brought it in)
		if self.lines is not None and line not in self.lines:
			return
		self.found.append(Site(self.function, self.source, operator, line, start, end,
				       original, replacement))

	def walk(self, cursor: Any) -> None:
		kinds = self.cindex.CursorKind
		for child in cursor.get_children():
			if not _in_file(child, self.path):
				continue
			if child.kind in (kinds.BINARY_OPERATOR, kinds.COMPOUND_ASSIGNMENT_OPERATOR):
				self.operator_sites(child)
			elif child.kind == kinds.INTEGER_LITERAL:
				tokens = list(child.get_tokens())
				if len(tokens) == 1:
					token = tokens[0]
					for new in _literal_changes(token.spelling):
						self.add('constant', token.extent.start.offset,
							 token.extent.end.offset, token.spelling, new,
							 token.location.line)
			elif child.kind == kinds.IF_STMT and self.spelled(child, 'if'):
				condition = next(child.get_children(), None)
				if condition is not None and _in_file(condition, self.path):
					start, end = condition.extent.start.offset, condition.extent.end.offset
					text = self.text[start:end].decode(errors='replace')
					self.add('negate', start, end, text, f'!({text})',
						 condition.extent.start.line)
			if child.kind in (kinds.COMPOUND_STMT, kinds.IF_STMT):
				# A call made as a statement: in a block, or an if's branch.
				statements = list(child.get_children())
				if child.kind == kinds.IF_STMT:
					statements = statements[1:]
				for statement in statements:
					if (statement.kind == kinds.CALL_EXPR and _in_file(statement, self.path) and
							self.spelled(statement, statement.spelling + '(')):
						start, end = statement.extent.start.offset, statement.extent.end.offset
						self.add('delete-call', start, end,
							 self.text[start:end].decode(errors='replace'), '(void)0',
							 statement.extent.start.line)
			if child.kind == kinds.CALL_EXPR:
				self.swap_sites(child)
			self.walk(child)

	def spelled(self, cursor: Any, word: str) -> bool:
		"""Whether the text at @cursor's start is @word: a statement a
		macro expanded to starts with the macro's name instead."""
		start = cursor.extent.start.offset
		return self.text[start:start + len(word)] == word.encode()

	def operator_sites(self, cursor: Any) -> None:
		children = list(cursor.get_children())
		if len(children) != 2:
			return
		after = children[0].extent.end.offset
		token = next((t for t in cursor.get_tokens() if t.extent.start.offset >= after), None)
		if token is None:
			return
		for operator, swaps in SWAPS.items():
			for new in swaps.get(token.spelling, []):
				self.add(operator, token.extent.start.offset, token.extent.end.offset,
					 token.spelling, new, token.location.line)

	def swap_sites(self, call: Any) -> None:
		args = list(call.get_arguments())
		for first, second in zip(args, args[1:]):
			if first.type.spelling != second.type.spelling:
				continue
			if not (_in_file(first, self.path) and _in_file(second, self.path)):
				continue
			a = (first.extent.start.offset, first.extent.end.offset)
			b = (second.extent.start.offset, second.extent.end.offset)
			text_a = self.text[a[0]:a[1]].decode(errors='replace')
			text_b = self.text[b[0]:b[1]].decode(errors='replace')
			if text_a == text_b or a[1] > b[0]:
				continue
			between = self.text[a[1]:b[0]].decode(errors='replace')
			if not re.match(r'^\s*,\s*$', between):
				continue  # not two arguments side by side in the text: a macro's
			original = text_a + between + text_b
			self.add('swap-args', a[0], b[1], original, text_b + between + text_a,
				 first.extent.start.line)

def generate(tree: str, functions: Sequence[Tuple[str, str]], commands: Dict[str, Dict[str, Any]],
	     reached: Optional[Dict[str, Set[int]]]=None) -> List[Site]:
	"""The sites of @functions ((name, source) pairs) in @tree; a header's
	functions are parsed in the first .c file of @commands that includes it
	(cpufeature.c for the extractors).  @reached: lines per source the
	suites reach; None: every line."""
	cindex = load_bindings()
	index = cindex.Index.create()
	by_source: Dict[str, List[str]] = {}
	for name, source in functions:
		by_source.setdefault(source, []).append(name)
	found: List[Site] = []
	for source, names in sorted(by_source.items()):
		path = os.path.realpath(os.path.join(tree, source))
		unit_source = source if source.endswith('.c') else 'arch/arm64/kernel/cpufeature.c'
		command = commands.get(os.path.realpath(os.path.join(tree, unit_source)))
		if command is None:
			raise Error(f'no compile command for {unit_source} in the build\'s '
				    'compile_commands.json: build the kernel first (tools/pan-kunit run)')
		unit = index.parse(os.path.join(tree, unit_source), args=clang_args(command),
				   options=0)
		with open(path, 'rb') as f:
			text = f.read()
		lines = None if reached is None else reached.get(source, set())
		for cursor in unit.cursor.walk_preorder():
			if (cursor.kind == cindex.CursorKind.FUNCTION_DECL and cursor.spelling in names and
					cursor.is_definition() and _in_file(cursor, path)):
				walker = _Walker(cindex, text, path, source, cursor.spelling, lines)
				walker.walk(cursor)
				found.extend(walker.found)
	return _numbered(found)

def _numbered(sites: List[Site]) -> List[Site]:
	"""The sites, each with its ordinal among its function's same changes."""
	seen: Dict[Tuple[str, str, str, str], int] = {}
	numbered = []
	for site in sorted(set(sites), key=lambda s: (s.source, s.start, s.operator, s.replacement)):
		key = (site.function, site.operator, site.original, site.replacement)
		seen[key] = seen.get(key, 0) + 1
		numbered.append(dataclasses.replace(site, ordinal=seen[key]))
	return numbered

def patch(tree: str, site: Site) -> str:
	"""@site as a mutant of mutants/ (see mutants.py): headers, then a
	git diff of its one change."""
	with open(os.path.join(tree, site.source), 'rb') as f:
		text = f.read()
	after = text[:site.start] + site.replacement.encode() + text[site.end:]
	diff = difflib.unified_diff(text.decode(errors='surrogateescape').splitlines(keepends=True),
				    after.decode(errors='surrogateescape').splitlines(keepends=True),
				    f'a/{site.source}', f'b/{site.source}', n=3)
	return (f'Subject: {site.node()}\nMust-Fail: {mutants.ANY_SUITE}\nOrigin: mutants --generate\n\n'
		f'{site.source}:{site.line}, in {site.function}().\n---\n'
		f'diff --git a/{site.source} b/{site.source}\n' + ''.join(diff))

def load_equivalent(path: str) -> Dict[str, str]:
	"""Claims of equivalence: a line per mutant, "NODE -- REASON" (NODE
	as Site.node() names it); # starts a comment."""
	claims: Dict[str, str] = {}
	try:
		with open(path) as f:
			for number, line in enumerate(f, 1):
				line = line.strip()
				if not line or line.startswith('#'):
					continue
				if ' -- ' not in line:
					raise Error(f'{path}:{number}: a claim is "NODE -- REASON"')
				node, reason = line.split(' -- ', 1)
				claims[node.strip()] = reason.strip()
	except FileNotFoundError:
		pass
	return claims

def sample(sites: Sequence[Site], size: Optional[int], seed: int) -> List[Site]:
	"""A seeded random sample of @size sites (all of them if None, or if
	there are fewer), in source order."""
	return mutants.draw(sites, size, seed, lambda s: (s.source, s.start))

def wilson(killed: int, total: int) -> Tuple[float, float]:
	"""The 95% Wilson score interval of killed/total, in percent."""
	if total == 0:
		return 0.0, 100.0
	z = 1.96
	p = killed / total
	centre = (p + z * z / (2 * total)) / (1 + z * z / total)
	spread = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
	return 100 * max(0.0, centre - spread), 100 * min(1.0, centre + spread)

def iter_lines(diff: str) -> Iterator[str]:
	"""The changed lines of a mutant's diff, for the survivors' report."""
	for line in diff.splitlines():
		if line.startswith(('+', '-')) and not line.startswith(('+++', '---')):
			yield line
