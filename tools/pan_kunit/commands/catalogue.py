# SPDX-License-Identifier: GPL-2.0
#
# docs/suites.md, the catalogue of the suites, from what the suites say
# of themselves, not a second copy: each suite as export groups its
# files (suites.grouped()), the header comment of its C file and of the header it shares,
# the Kconfig entries of the newest series that build it (cut from the
# patches by hooks.split_run(), as export cuts them), and its .init,
# .exit and cases, each with the comment above its function.
# catalogue_test.py fails while docs/suites.md is not what this prints.

import os
import re
import sys
from typing import Dict, List, Sequence, Tuple

from pan_kunit.commands import hooks
from pan_kunit.trees import kernels, sources, suites

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
	os.path.abspath(__file__)))))
OUTPUT = os.path.join('docs', 'suites.md')
COMMAND = 'cd tools && python3 -m pan_kunit.commands.catalogue > ../docs/suites.md'
_SECTION = re.compile(r'^diff --git a/\S+ b/(\S+)\n', re.M)
_PROMPT = re.compile(r'^\s+(?:bool|tristate|def_bool|def_tristate)\s+(?:"(.*)")?')
_HOOK = re.compile(r'\.(init|exit|suite_init|suite_exit)\s*=\s*(\w+)')
_BOILERPLATE = ('For more information on KUnit', 'If unsure, say N.')
_CODE = re.compile(r'[_*<>=]|\(\)|->')
_WORD = re.compile(r'([(\["\']*)(.*?)((?:\'s)?[.,;:!?)\]"\']*)')
_MARKUP = re.compile(r'([-+*>#]|\d+[.)])(\s|$)')  # what would open a list or a quote

# A Kconfig entry: what to say after its name (its prompt, what it
# depends on) and its help lines.
Kconfig = Tuple[str, List[str]]

def _added(patch_text: str) -> List[Tuple[str, List[bytes]]]:
	"""The runs of added lines of a patch, with the file of each."""
	sections = _SECTION.split(patch_text)
	return [(path, [line[1:].encode() + b'\n' for line in run.splitlines()])
		for path, body in zip(sections[1::2], sections[2::2])
		for run in re.findall(r'(?:^\+(?!\+\+ ).*\n)+', body, re.M)]

def _kconfig(text: str) -> Kconfig:
	lines = text.splitlines()
	prompt = next((m.group(1) or '' for m in map(_PROMPT.match, lines) if m), '')
	depends = [l.strip()[len('depends on '):] for l in lines if l.strip().startswith('depends on ')]
	said = ([f'"{prompt}"'] if prompt else []) + [f'depends on `{d}`' for d in depends]
	start = next((n + 1 for n, l in enumerate(lines) if l.strip() == 'help'), len(lines))
	paragraphs = re.split(r'\n\s*\n', '\n'.join(l.strip() for l in lines[start:]))
	kept = [p for p in paragraphs if p.strip() and not p.startswith(_BOILERPLATE)]
	return (f' ({"; ".join(said)})' if said else ''), '\n\n'.join(kept).splitlines()

def hook_symbols(patches: Sequence[str], every: List[suites.Suite]
		 ) -> Tuple[Dict[str, List[str]], Dict[str, Kconfig]]:
	"""Per suite of @every, the symbols of its hook lines (its object, its
	#include), and every Kconfig entry the patches add."""
	patterns = hooks.file_patterns({s.name: s.paths for s in every})
	built: Dict[str, List[str]] = {s.name: [] for s in every}
	entries: Dict[str, Kconfig] = {}
	for patch in patches:
		with open(patch, errors='replace') as f:
			runs = _added(f.read())
		for path, run in runs:
			for item in hooks.split_run(path, run)[1]:
				text = hooks.text_of(item.lines)
				symbols = sorted(hooks.symbols_of(path, text))
				if hooks.file_kind(path) == hooks.FileKind.KCONFIG:
					entries.update((s, _kconfig(text)) for s in symbols)
					continue
				for name, pattern in patterns.items():
					if pattern.search(text):
						built[name] += [s for s in symbols if s not in built[name]]
	return built, entries

def comment_lines(comment: str) -> List[str]:
	"""A /* */ comment's text, without the marks and the blank edges."""
	lines = [re.sub(r'^\s*\*( |$)', '', l).rstrip() for l in comment.splitlines()]
	return '\n'.join(lines).strip('\n').splitlines()

def header_comment(text: str) -> List[str]:
	"""The first /* */ comment but an SPDX line's."""
	found = re.search(r'/\*(?!\s*SPDX-)(.*?)\*/', text, re.S)
	return comment_lines(found.group(1)) if found else []

def comment_above(text: str, function: str) -> List[str]:
	"""The comment right above the first definition of @function with one."""
	for found in re.finditer(rf'^static (?:inline )?\w+ (?:__init )?{function}\(', text, re.M):
		before = text[:found.start()].rstrip()
		start = before.rfind('/*')
		if before.endswith('*/') and (start == 0 or before[start - 1] == '\n'):
			return comment_lines(before[start + 2:-2])
	return []

def _code(word: str) -> str:
	"""A C name, an expression or a header as a code span."""
	parts = _WORD.fullmatch(word)
	assert parts  # every part may be empty
	lead, core, tail = parts.groups()
	for opening, closing in (('(', ')'), ('[', ']')):
		if core.count(opening) > core.count(closing) and tail.startswith(closing):
			core, tail = core + closing, tail[1:]
	if len(core) < 2 or '`' in word or not _CODE.search(core):
		return word
	return f'{lead}`{core}`{tail}'

def markdown(lines: List[str], indent: str='') -> List[str]:
	"""Comment lines as wrapped Markdown: paragraphs, "- " lists, code spans."""
	blocks: List[List[str]] = []
	for line in lines:
		in_item = bool(blocks and blocks[-1] and blocks[-1][0].startswith('- '))
		if not line.strip():
			blocks.append([])
		elif line.startswith('- ') or not blocks or (in_item and not line.startswith('  ')):
			blocks.append([line])
		else:
			blocks[-1].append(line)
	out: List[str] = []
	after_item = False
	for block in [b for b in blocks if b]:
		item = block[0].startswith('- ')
		if out and not (item and after_item):
			out.append(indent.rstrip())
		after_item = item
		words = ' '.join(block)[2 if item else 0:].split()
		text = suites.wrap(' '.join(map(_code, words)), 72 - len(indent) - 2 * item)
		for n, line in enumerate(text.splitlines()):
			line = re.sub(r'^(\d*)(\D)', r'\1\\\2', line) if _MARKUP.match(line) else line
			out.append(indent + ('- ' if item and n == 0 else '  ' if item else '') + line)
	return out + [''] if out else []

def _cases(text: str) -> List[Tuple[str, str]]:
	"""The kunit_case array's cases, each with its note: parameterised."""
	found = suites.CASES_ARRAY.search(text)
	return [(case.group(2), ' (parameterised)' if case.group(1) == '_PARAM' else '')
		for case in suites.CASE.finditer(found.group(1) if found else '')]

def suite_markdown(suite: suites.Suite, source: sources.Sources, built: List[str],
		   entries: Dict[str, Kconfig], said: List[str]) -> List[str]:
	"""A suite's section; @said: the headers, symbols and functions told."""
	def once(key: str, label: str, body: List[str]) -> List[str]:
		if key in said:
			return [label + ', as above.', '']
		said.append(key)
		return [label + ':', ''] + (body or ['  (no comment)', ''])

	text = source.suites[next(p for p in suite.paths if p.endswith('.c'))].decode(errors='replace')
	shared = ''.join(source.suites[p].decode(errors='replace') for p in suite.shared)
	out = [f'## {suite.name}', '',
	       'Files: ' + ', '.join(f'`kunit/{p}`' for p in suite.shared + suite.paths) + '.', '']
	out += markdown(header_comment(text))
	for path in suite.shared:
		out += once(path, f'`{os.path.basename(path)}`', markdown(header_comment(shared), '> '))
	for symbol in built + sorted(s for s in entries if f'CONFIG_{s}' in text and s not in built):
		about, help_lines = entries.get(symbol, ('', []))
		out += once(symbol, f'`CONFIG_{symbol}`{about}', markdown(help_lines, '> '))
	suite_struct = suites.SUITE_STRUCT.search(text)
	for hook, function in _HOOK.findall(suite_struct.group(1) if suite_struct else ''):
		out += once(function, f'`.{hook}`, `{function}()`',
			    markdown(comment_above(text + shared, function), '  '))
	out += ['Cases:', '']
	for name, notes in _cases(text):
		out += [f'- `{name}`{notes}', ''] + markdown(comment_above(text, name), '  ')
	return out

def catalogue(repo: str=REPO) -> str:
	"""docs/suites.md as the suites say it now."""
	kernel = kernels.newest(kernels.supported(repo))
	source = sources.load(repo, kernel)
	every = suites.grouped(source)
	built, entries = hook_symbols(source.patches, every)
	out = ['# The suites', '', f'<!-- Written by `{COMMAND}`:',
	       '     edit the suites\' comments and Kconfig help, not this file. -->', '']
	out += suites.wrap(
		'Each suite in its own words: its header comment, the help of the Kconfig entries '
		f'of `{kernel.series()}` that build it (less KUnit\'s closing "For more information '
		'..." and "If unsure, say N."), and the comment above its `.init`, `.exit` and '
		'each case. Back to the [map](index.md).').splitlines() + ['']
	said: List[str] = []
	for suite in every:
		out += suite_markdown(suite, source, built[suite.name], entries, said)
	return '\n'.join(out).rstrip('\n') + '\n'

if __name__ == '__main__':
	if sys.argv[1:]:
		sys.exit(f'usage: {COMMAND}')
	sys.stdout.write(catalogue())
