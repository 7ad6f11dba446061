#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the documentation: the README shows CI's test command as
# .ci/command holds it (the line .ci/run runs); every relative link of
# README.md and docs/*.md reaches a file, and a heading when it names
# one; they name no commit hash; docs/architecture.md lists every module
# of tools/pan_kunit/, and nothing else; every tools/pan_kunit/ path
# they name exists; and list's count of the suites in them is list's.

import glob
import os
import re
import unittest
from typing import Dict, List, Set, Tuple

from pan_kunit.kunit_tool import configs
from pan_kunit.kunit_tool.ktap import Case, CaseStatus
from pan_kunit.results import terminal
from pan_kunit.results.config_result import ConfigResult, Status, totals
from pan_kunit.trees import suites

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CI_COMMAND = os.path.join(REPO, '.ci', 'command')
README = os.path.join(REPO, 'README.md')
MARKER = '<!-- test-command'
ARCHITECTURE = os.path.join(REPO, 'docs', 'architecture.md')
PACKAGE = os.path.join(REPO, 'tools', 'pan_kunit')
# The line that opens the list of modules in docs/architecture.md.
MODULES_LIST = 'The modules of `tools/pan_kunit/`'

def read(path: str) -> str:
	with open(path) as f:
		return f.read()

def documents() -> List[str]:
	return [README] + sorted(glob.glob(os.path.join(REPO, 'docs', '*.md')))

def readme_test_command(text: str) -> List[str]:
	"""The lines of the ```sh block after the test-command marker, as
	the README shows them."""
	lines = text.splitlines()
	start = next(n for n, line in enumerate(lines) if line.startswith(MARKER))
	opening = next(n for n in range(start + 1, len(lines)) if lines[n] == '```sh')
	closing = next(n for n in range(opening + 1, len(lines)) if lines[n] == '```')
	return lines[opening + 1:closing]

def unfenced(text: str) -> str:
	"""@text without its fenced blocks, whose lines are no heading or link."""
	return re.sub(r'^```.*?^```$', '', text, flags=re.S | re.M)

def prose(text: str) -> str:
	"""@text without its fenced blocks and code spans."""
	return re.sub(r'`[^`\n]*`', '', unfenced(text))

def anchors(text: str) -> Set[str]:
	"""The anchors GitHub gives the headings of a Markdown file."""
	found: Set[str] = set()
	seen: Dict[str, int] = {}
	for heading in re.findall(r'^#{1,6} +(.*?) *#*$', unfenced(text), re.M):
		slug = re.sub(r'[^\w\- ]', '', heading.lower()).replace(' ', '-')
		found.add(slug if slug not in seen else f'{slug}-{seen[slug]}')
		seen[slug] = seen.get(slug, 0) + 1
	return found

def listed_modules(text: str) -> Set[str]:
	"""The files the list of modules of docs/architecture.md names, each
	`PATH.py` relative to tools/pan_kunit/, from MODULES_LIST to the next
	item of the layout's list."""
	start = text.index(MODULES_LIST)
	end = text.find('\n- ', start)
	return set(re.findall(r'`([\w/]+\.py)`', text[start:end if end >= 0 else len(text)]))

def package_modules() -> Set[str]:
	"""Every module of tools/pan_kunit/, relative to it, but the layers'
	__init__.py, which only say what their folder holds."""
	found = {os.path.relpath(path, PACKAGE)
		 for path in glob.glob(os.path.join(PACKAGE, '**', '*.py'), recursive=True)}
	return {path for path in found if os.path.dirname(path) == '' or
		os.path.basename(path) != '__init__.py'}

class CiCommandTest(unittest.TestCase):

	def test_one_line(self) -> None:
		self.assertEqual(len(read(CI_COMMAND).splitlines()), 1)

	def test_readme_shows_ci_command(self) -> None:
		self.assertEqual(readme_test_command(read(README)), read(CI_COMMAND).splitlines(),
				 'the README must show .ci/command, the line .ci/run runs')

	def test_marker_block(self) -> None:
		self.assertEqual(readme_test_command(
			'text\n<!-- test-command: x -->\n```sh\nA && B\n```\n```sh\nC\n```\n'), ['A && B'])

class SampleTest(unittest.TestCase):
	"""What the documents' samples of the tool's output count, as it
	counts it now."""

	def test_list_counts_the_suites_of_kunit(self) -> None:
		known = suites.known(REPO)
		counted = f'{sum(map(len, known.values()))} cases in {len(known)} suites of '
		for path in documents():
			for found in re.findall(r'suites \(([0-9]+ cases in [0-9]+ suites of )',
						read(path)):
				self.assertEqual(found, counted, path)

# The first line of a sample of run's table, whose configs and suites are
# named without PREFIX.
TABLE_HEAD = f'passed/failed/skipped, names without {terminal.PREFIX}:'

def table_samples(text: str) -> List[Tuple[int, List[str]]]:
	"""Each sample of run's table in @text, from TABLE_HEAD to the last
	line of its legend, with the width the prose before it names ("At N
	columns:"), else terminal.WIDTH."""
	found = []
	for match in re.finditer(re.escape(TABLE_HEAD) + r'\n(?:(?!```).+\n|\n(?=suite ))+', text):
		said = re.findall(r'At ([0-9]+) columns:', text[:match.start()][-200:])
		found.append((int(said[-1]) if said else terminal.WIDTH,
			      match.group(0).splitlines()))
	return found

def results_of(sample: List[str]) -> List[ConfigResult]:
	"""The results a whole table sample shows: per config, its status,
	CPU and time, and per suite leaves of the counts of its cell."""
	rows = [line.split() for line in sample[1:] if line and not line.startswith('  ')]
	legend = {words[0]: words for words in
		  (re.split(r'\s+cpu |, ', line.strip()) for line in sample if line.startswith('  '))}
	names = rows[0][1:]
	results = []
	for column, name in enumerate(names, 1):
		cases = []
		for row in rows[1:-1]:
			for count, status in zip(row[column].split('/'),
						 (CaseStatus.PASS, CaseStatus.FAIL, CaseStatus.SKIP)):
				cases += [Case([terminal.PREFIX + row[0], f'{status}{i}'], status, [])
					  for i in range(int(count))]
		_, cpu, elapsed = legend[name]
		results.append(ConfigResult(terminal.PREFIX + name, cpu, '', '', Status(rows[-1][column]),
					    float(elapsed[:-2]), {}, None, '', '', cases=cases))
	return results

class TableSampleTest(unittest.TestCase):
	"""The samples of run's table are what run prints: the README's whole,
	of the suites and configs there are, and each cut one a part of the
	same table at the width its text names."""

	def test_the_readme_table_is_run_s(self) -> None:
		samples = table_samples(read(README))
		self.assertEqual(len(samples), 1, 'the README shows one table')
		width, sample = samples[0]
		results = results_of(sample)
		self.assertEqual(terminal.table(results, columns=width), sample)
		self.assertEqual(sorted(set().union(*(r.suites() for r in results))),
				 sorted(suites.known(REPO)))
		self.assertEqual([r.name for r in results], sorted(configs.available(REPO)))
		for r in results:
			self.assertEqual(r.cpu, configs.load(REPO, r.name, None).cpu, r.name)
		passed, failed, skipped = totals(results)
		self.assertIn(f'\nrun: {passed} passed, {failed} failed, {skipped} skipped\n',
			      read(README))

	def test_every_cut_sample_is_part_of_it(self) -> None:
		results = results_of(table_samples(read(README))[0][1])
		for path in documents():
			for width, sample in table_samples(read(path)):
				rendered = terminal.table(results, columns=width)
				shown = [line for line in sample if line != '...']
				it = iter(rendered)
				missing = [line for line in shown if line not in it]
				self.assertEqual(missing, [], f'{os.path.relpath(path, REPO)}: not in run\'s '
						 f'table at {width} columns:\n' + '\n'.join(rendered))

class LinkTest(unittest.TestCase):

	def test_relative_links(self) -> None:
		for document in documents():
			for target in re.findall(r'\]\(([^)\s]+)\)', prose(read(document))):
				if re.match(r'[a-z]+:', target):
					continue
				path, _, anchor = target.partition('#')
				full = os.path.normpath(os.path.join(os.path.dirname(document), path)) \
					if path else document
				name = os.path.relpath(document, REPO)
				self.assertTrue(os.path.exists(full), f'{name}: {target}: no such file')
				if anchor and full.endswith('.md'):
					self.assertIn(anchor, anchors(read(full)),
						      f'{name}: {target}: no such heading')

	def test_no_commit_hashes(self) -> None:
		"""The documentation describes a change; it does not name its
		commit, which a reader cannot see and a rebase renames."""
		for document in documents():
			hashes = [word for word in re.findall(r'(?<![\w.])[0-9a-f]{7,40}(?![\w.])',
							      read(document))
				  if re.search('[a-f]', word) and re.search('[0-9]', word)
				  and not word.startswith(('0b', '0x'))]
			self.assertEqual(hashes, [], os.path.relpath(document, REPO))

	def test_anchors(self) -> None:
		self.assertEqual(anchors('# A `b` c: d\n## A b c: d\n```\n# no\n```\n'),
				 {'a-b-c-d', 'a-b-c-d-1'})

class ModulesListTest(unittest.TestCase):

	def test_every_module_listed_by_folder(self) -> None:
		listed = listed_modules(read(ARCHITECTURE))
		self.assertEqual(sorted(package_modules() - listed), [],
				 'docs/architecture.md does not list these modules')
		self.assertEqual(sorted(listed - package_modules()), [],
				 'docs/architecture.md lists these, which do not exist')

	def test_the_list_is_read_as_written(self) -> None:
		text = ('- `tools/`: the tool.\n  ' + MODULES_LIST + ':\n  - `host/`:\n'
			'    - `host/proc.py`: x; `host/gitcmd.py`: y, of `Error`.\n'
			'- `.ci/`: not `a.py`.\n')
		self.assertEqual(listed_modules(text), {'host/proc.py', 'host/gitcmd.py'})

	def test_every_path_of_the_package_named_exists(self) -> None:
		for document in documents():
			for path in re.findall(r'tools/pan_kunit/([\w/]+\.py)', read(document)):
				name = os.path.relpath(document, REPO)
				self.assertTrue(os.path.isfile(os.path.join(PACKAGE, path)),
						f'{name}: tools/pan_kunit/{path}')

if __name__ == '__main__':
	unittest.main()
