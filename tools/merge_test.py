#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of `tools/pan-kunit merge` (commands/merge.py): the shards of a
# request merged into the report, JSON, JUnit, tally and exit status of
# the unsharded run, and the refusals of anything but every shard of one
# request.  The fixtures of test_data/merge/ are the --json files of the
# fake kunit_tool's runs (MergeEndToEndTest makes such files afresh):
# run-all.json is the unsharded run of four configs, run-1.json and
# run-2.json its two shards; mutants-*.json the same of the six mutants of
# test_data/mutants on pass_pan.

import contextlib
import io
import json
import os
import re
import shutil
import unittest
import xml.etree.ElementTree as ET
from typing import Any, Dict, List, Tuple
from unittest import mock

from pan_kunit import Error
from pan_kunit.commands import merge, mutagen, score
from pan_kunit.commands.mutants import Mutant, MutantVerdict
from pan_kunit.commands.steps import Step
from pan_kunit.matrix import initramfs, shard
from testlib import (FakeKunitTestCase, read, write, test_data_path, plain_printer,
		     TempDirTestCase, slow, setUpModule, tearDownModule)

FIXTURES = test_data_path('merge')

def fixture(name: str) -> str:
	return os.path.join(FIXTURES, name)  # as it is, when @name is a path

def merged(repo: str, *paths: str, **files: str) -> Tuple[int, str]:
	"""merge of @paths: its exit status (2 for a refusal) and output."""
	out = io.StringIO()
	with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
		try:
			status = merge.run_merge(plain_printer(), merge.MergeRequest(
				list(paths), files.get('json'), files.get('junit')), repo)
		except Error as e:
			print(f'pan-kunit: error: {e}')
			status = 2
	return status, out.getvalue()

def report(output: str) -> List[str]:
	"""The lines of @output after merge's own lines about the shards."""
	lines = output.splitlines()
	while lines and (lines[0].startswith('merge: ') or lines[0].startswith('  ')):
		lines.pop(0)
	return lines

def untimed(lines: List[str]) -> List[str]:
	"""@lines but the boots' times: the table's row of them, or, in a
	narrow terminal, the end of each config's line in the legend."""
	return [re.sub(r', [0-9.]+ s$', ', N s', line) for line in lines
		if not line.startswith('elapsed')]

def junit_cases(path: str) -> List[Tuple[str, str, str, List[str]]]:
	"""Each testcase of a JUnit file: its suite, name, and its outcome's
	tags and messages; not its times."""
	found = []
	for suite in ET.parse(path).getroot().iter('testsuite'):
		for case in suite.findall('testcase'):
			found.append((suite.get('name') or '', case.get('name') or '',
				      ','.join(sorted(c.tag for c in case)),
				      sorted((c.get('message') or '') for c in case)))
	return found

class MergeFixturesTest(TempDirTestCase):
	"""merge of the fixtures' shards, and its refusals."""

	def edited(self, name: str, edit: Any) -> str:
		"""A copy of the fixture @name, changed by @edit(data)."""
		data = json.loads(read(fixture(name)))
		edit(data)
		path = os.path.join(self.tmp, 'edited-' + name)
		write(path, json.dumps(data))
		return path

	def test_run_shards_give_the_unsharded_report(self) -> None:
		# In a narrow terminal too, where the times are in the legend.
		for columns in ('80', '120'):
			with self.subTest(columns=columns), \
			     mock.patch.dict(os.environ, {'COLUMNS': columns}):
				self.shards_give_the_unsharded_report()

	def shards_give_the_unsharded_report(self) -> None:
		files = {k: os.path.join(self.tmp, f'merged.{k}') for k in ('json', 'junit')}
		status, output = merged(self.repo, fixture('run-2.json'), fixture('run-1.json'),
					**files)
		alone = {k: os.path.join(self.tmp, f'alone.{k}') for k in ('json', 'junit')}
		status_alone, output_alone = merged(self.repo, fixture('run-all.json'), **alone)
		self.assertEqual((status, status_alone), (1, 1), output)
		self.assertIn('merge: 2 shards of run of 6.1 (3 units)', output)
		self.assertIn('  shard 1/2 (', output)
		# The same report but for the times (the slowest shard's).
		self.assertEqual(untimed(report(output)), untimed(report(output_alone)))
		self.assertEqual(report(output)[-1], 'run: 21 passed, 1 failed, 3 skipped')
		self.assertEqual(junit_cases(files['junit']), junit_cases(alone['junit']))
		data, unsharded = json.loads(read(files['json'])), json.loads(read(fixture('run-all.json')))
		self.assertEqual([[(c['name'], c['status'], c['leaves']) for c in k['configs']]
				  for k in data['kernels']],
				 [[(c['name'], c['status'], c['leaves']) for c in k['configs']]
				  for k in unsharded['kernels']])
		self.assertEqual((data['shard']['total'], data['work'], data['request']),
				 (1, unsharded['work'], unsharded['request']))
		self.assertEqual([s['index'] for s in data['shards']], [1, 2])

	def test_mutants_shards_give_the_unsharded_verdicts(self) -> None:
		files = {k: os.path.join(self.tmp, f'merged.{k}') for k in ('json', 'junit')}
		status, output = merged(self.repo, fixture('mutants-1.json'), fixture('mutants-2.json'),
					**files)
		alone = os.path.join(self.tmp, 'alone.junit')
		status_alone, output_alone = merged(self.repo, fixture('mutants-all.json'), junit=alone)
		self.assertEqual(status, status_alone)
		self.assertIn('mutants: 2 passed, 3 failed', output)
		# The table and the tally; the closing line's times are the slowest
		# shard's.
		table = [line for line in report(output) if not line.startswith('mutants took')]
		self.assertEqual(table, [line for line in report(output_alone)
					 if not line.startswith('mutants took')])
		unsharded = json.loads(read(fixture('mutants-all.json')))
		data = json.loads(read(files['json']))
		self.assertEqual([(m['name'], m['verdict']) for m in data['mutants']],
				 [(m['name'], m['verdict']) for m in unsharded['mutants']])
		self.assertEqual(junit_cases(files['junit']), junit_cases(alone))

	def test_a_missing_shard_is_named(self) -> None:
		status, output = merged(self.repo, fixture('run-2.json'))
		self.assertEqual(status, 2)
		self.assertIn('shard 1/2 missing: merge needs all 2 (given: 2/2 ', output)

	def test_a_shard_given_twice(self) -> None:
		status, output = merged(self.repo, fixture('run-1.json'), fixture('run-1.json'),
					fixture('run-2.json'))
		self.assertEqual(status, 2)
		self.assertIn('shard 1/2 given twice', output)

	def test_shards_of_different_requests_seeds_or_commits(self) -> None:
		def seed(data: Dict[str, Any]) -> None:
			data['request']['options']['seed'] = 2
		def commit(data: Dict[str, Any]) -> None:
			data['pan_kunit']['commit'] = f'{data["shard"]["index"]}' * 40
		def kernels(data: Dict[str, Any]) -> None:
			data['request']['kernels'] = ['6.1', '7.3']
		def tree(data: Dict[str, Any]) -> None:
			data['kernels'][0]['source']['head_tree'] = 'e' * 40
		def split(data: Dict[str, Any]) -> None:
			data['shard']['total'] = 3
		for name, edit, why in (
				('mutants-2.json', seed, 'has --seed 2, not 1'),
				('mutants-2.json', commit, 'shards of different commits of pan-kunit'),
				('run-2.json', kernels, "has kernels ['6.1', '7.3'], not ['6.1']"),
				('run-2.json', tree, 'shards of different sources'),
				('run-2.json', split, 'shards of different splits')):
			first = name.replace('-2', '-1')
			if edit is commit:
				first = self.edited(first, edit)
			status, output = merged(self.repo, fixture(first), self.edited(name, edit))
			self.assertEqual(status, 2, output)
			self.assertIn(why, output)
		status, output = merged(self.repo, fixture('run-1.json'), fixture('mutants-2.json'))
		self.assertEqual(status, 2)
		self.assertIn("shards of different requests", output)

	def test_a_shard_that_stopped_half_way(self) -> None:
		def stopped(data: Dict[str, Any]) -> None:
			data['kernels'][0]['configs'] = data['kernels'][0]['configs'][:1]
		status, output = merged(self.repo, fixture('run-1.json'),
					self.edited('run-2.json', stopped))
		self.assertEqual(status, 2, output)
		self.assertIn('holds no result of 6.1/', output)
		self.assertIn('it stopped before the end', output)

	def test_what_is_no_shard(self) -> None:
		empty = os.path.join(self.tmp, 'empty.json')
		write(empty, '{"kernels": []}')
		broken = os.path.join(self.tmp, 'broken.json')
		write(broken, '{')
		for path, why in ((empty, 'not the --json of a command of this pan-kunit'),
				  (broken, 'not JSON'), (os.path.join(self.tmp, 'none'), 'cannot read')):
			status, output = merged(self.repo, path)
			self.assertEqual(status, 2)
			self.assertIn(why, output)

class GeneratedMergeTest(TempDirTestCase):
	"""The shards of a generated sample, which the fake source cannot make
	(no compile_commands.json): reports made here, merged."""

	def test_a_sample_merged_in_its_order_with_its_score(self) -> None:
		sites = [mutagen.Site('has_cpuid_feature', 'arch/arm64/kernel/cpufeature.c',
				      'relational', 10 + n, 100 * n, 100 * n + 2, '>=', '>', 0)
			 for n in range(5)]
		verdicts = [MutantVerdict.KILLED, MutantVerdict.SURVIVED, MutantVerdict.KILLED,
			    MutantVerdict.BUILD_FAILED, MutantVerdict.SURVIVED]
		judged = [Mutant(f'/gone/{s.name()}.patch', s.name(), 'a change', ['arm64_x'], v,
				 f'{v} on arm64_pan') for s, v in zip(sites, verdicts)]
		diffs = {m.name: f'--- a/x\n+++ b/x\n-{n} >=\n+{n} >\n' for n, m in enumerate(judged)
			 if m.verdict == MutantVerdict.SURVIVED}
		def of(index: List[int]) -> score.KernelReport:
			return score.KernelReport('7.3', '/tree', 1, Step(0, None), [sites[i] for i in index],
						  [judged[i] for i in index], 5.0 + len(index), index, {},
						  {judged[i].name: diffs[judged[i].name] for i in index
						   if judged[i].name in diffs})
		keys = [f'7.3/{s.name()}' for s in sites]
		paths = []
		for number, index in ((1, [0, 2, 3]), (2, [1, 4])):
			paths.append(os.path.join(self.tmp, f'generated-{number}.json'))
			write(paths[-1], json.dumps(dict(of(index).to_json(), **{
				'request': {'command': 'mutants', 'kernels': ['7.3'],
					    'options': {'generate': True, 'seed': 1, 'sample': 5}},
				'work': {'units': 5, 'digest': shard.digest(keys), 'keys': keys},
				'shard': {'index': number, 'total': 2, 'units': [keys[i] for i in index]},
				'pan_kunit': {'commit': None}, 'elapsed': 7.0, 'ccache': None})))
		out = os.path.join(self.tmp, 'merged.json')
		status, output = merged(self.repo, paths[1], paths[0], json=out)
		alone = io.StringIO()
		with contextlib.redirect_stdout(alone):
			alone_status = score.close(plain_printer(), of([0, 1, 2, 3, 4]))
		self.assertEqual((status, report(output)), (alone_status, alone.getvalue().splitlines()))
		self.assertIn('mutants: 2 passed, 2 failed', output)
		data = json.loads(read(out))
		self.assertEqual([(m['name'], m['verdict'], m['index']) for m in data['mutants']],
				 [(m.name, m.verdict, n) for n, m in enumerate(judged)])
		self.assertEqual(data['score'], {'killed': 2, 'survived': 2, 'did_not_build': 1})

@slow
class MergeEndToEndTest(FakeKunitTestCase):
	"""Shards run with the fake kunit_tool, then merged by the command:
	of the slow layer, as each test runs a command's every shard."""

	def pan_kunit(self, *argv: str) -> Tuple[int, str]:
		cpio = os.path.join(self.tmp, 'initramfs.cpio')
		with mock.patch.object(initramfs, 'pack', return_value=cpio):
			return self.cli_main('--tree', self.tree, *argv)

	def test_run_shards_merged_as_the_unsharded_run(self) -> None:
		configs = ['--config=builderror_pan', '--config=pass_pan', '--config=skip_nopan',
			   '--config=pass_ttbr0']
		path = {name: os.path.join(self.tmp, name) for name in (
			'all.json', 'all.xml', '1.json', '2.json', 'merged.json', 'merged.xml')}
		status_alone, output_alone = self.pan_kunit('run', *configs, '--json', path['all.json'],
							    '--junit', path['all.xml'])
		for index in (1, 2):
			status, output = self.pan_kunit('run', *configs, '--shard', f'{index}/2', '--json',
							path[f'{index}.json'])
			self.assertNotEqual(status, 2, output)
		status, output = self.pan_kunit('merge', path['2.json'], path['1.json'], '--json',
						path['merged.json'], '--junit', path['merged.xml'])
		self.assertEqual(status, status_alone, output)
		# The unsharded run's report ends its output, but for its times.
		self.assertEqual(untimed(report(output)),
				 untimed(output_alone.splitlines()[-len(report(output)):]))
		self.assertIn('elapsed', '\n'.join(report(output)))
		self.assertEqual(junit_cases(path['merged.xml']), junit_cases(path['all.xml']))
		# A shard of the request missing: exit 2, named.
		status, output = self.pan_kunit('merge', path['2.json'])
		self.assertEqual(status, 2)
		self.assertIn('pan-kunit merge: error: shard 1/2 missing', output)
		if os.environ.get('PAN_KUNIT_MERGE_FIXTURES'):  # how test_data/merge/ was made
			for name in ('all', '1', '2'):
				shutil.copyfile(path[f'{name}.json'], os.path.join(
					os.environ['PAN_KUNIT_MERGE_FIXTURES'], f'run-{name}.json'))

	def test_mutant_shards_merged_as_the_unsharded_run(self) -> None:
		shutil.copytree(test_data_path('mutants'), os.path.join(self.repo, 'mutants', '6.1'))
		path = {name: os.path.join(self.tmp, name) for name in (
			'all.json', '1.json', '2.json', 'merged.json')}
		status_alone, output_alone = self.pan_kunit('mutants', '--config', 'pass_pan',
							    '--json', path['all.json'])
		for index in (1, 2):
			status, output = self.pan_kunit('mutants', '--config', 'pass_pan', '--shard',
							f'{index}/2', '--json', path[f'{index}.json'])
			self.assertNotEqual(status, 2, output)
		status, output = self.pan_kunit('merge', path['1.json'], path['2.json'], '--json',
						path['merged.json'])
		self.assertEqual(status, status_alone, output)
		self.assertEqual([(m['name'], m['verdict']) for m in
				  json.loads(read(path['merged.json']))['mutants']],
				 [(m['name'], m['verdict']) for m in
				  json.loads(read(path['all.json']))['mutants']])
		tally = [line for line in output_alone.splitlines() if line.startswith('mutants: ')]
		self.assertEqual(report(output)[-1], tally[-1])
		if os.environ.get('PAN_KUNIT_MERGE_FIXTURES'):
			for name in ('all', '1', '2'):
				shutil.copyfile(path[f'{name}.json'], os.path.join(
					os.environ['PAN_KUNIT_MERGE_FIXTURES'], f'mutants-{name}.json'))

	def test_bisect_and_lkdtm_shards_merged_as_the_unsharded_run(self) -> None:
		configs = ['--config', 'pass_pan', '--config', 'pass_ttbr0']
		for command in ('bisect', 'lkdtm'):
			path = {name: os.path.join(self.tmp, f'{command}-{name}') for name in (
				'all.json', 'all.xml', '1.json', '2.json', 'merged.json', 'merged.xml')}
			junit = ['--junit', path['all.xml']] if command == 'bisect' else []
			status_alone, output_alone = self.pan_kunit(command, *configs, '--json',
								    path['all.json'], *junit)
			for index in (1, 2):
				status, output = self.pan_kunit(command, *configs, '--shard', f'{index}/2',
								'--json', path[f'{index}.json'])
				self.assertNotEqual(status, 2, output)
			junit = ['--junit', path['merged.xml']] if command == 'bisect' else []
			status, output = self.pan_kunit('merge', path['1.json'], path['2.json'], '--json',
							path['merged.json'], *junit)
			self.assertEqual(status, status_alone, output)
			lines = [l for l in report(output) if not l.startswith('bisect took')]
			self.assertEqual(lines, [l for l in output_alone.splitlines()[-len(report(output)):]
						 if not l.startswith('bisect took')])
			if command == 'bisect':
				self.assertEqual(junit_cases(path['merged.xml']), junit_cases(path['all.xml']))
				self.assertEqual([[c['name'] for c in s['configs']] for s in
						  json.loads(read(path['merged.json']))['steps']],
						 [['pass_pan', 'pass_ttbr0']] * 3)
		# lkdtm has no JUnit to merge into.
		status, output = self.pan_kunit('merge', path['1.json'], path['2.json'], '--junit',
						os.path.join(self.tmp, 'x.xml'))
		self.assertEqual(status, 2)
		self.assertIn('lkdtm writes no JUnit', output)

if __name__ == '__main__':
	unittest.main()
