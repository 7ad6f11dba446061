#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the pipeline files of ci/ (docs/ci.md): GitLab CI's and GitHub
# Actions', which run the whole proof in shards and merge it.  Each is
# parsed (with python3-yaml when it is installed, else with the minimal
# parser below, which the tests check against python3-yaml where both
# are), its every pan-kunit command parsed as the tool parses it, and, end
# to end, the commands of its shard and merge jobs run in order against
# the fake kunit.py, each shard with the variables its CI system gives it:
# each merge must give the tally and exit status of the unsharded command
# (but mutants --generate, which the fake source cannot run).

import glob
import importlib
import os
import re
import shlex
import shutil
import unittest
from typing import Any, Dict, Iterator, List, Optional, Tuple
from unittest import mock

from pan_kunit.commands import cli
from pan_kunit.kunit_tool.ktap import Case, CaseStatus
from pan_kunit.matrix import initramfs, kselftests
from testlib import REPO, FakeKunitTestCase, slow, test_data_path, setUpModule, tearDownModule

GITLAB = os.path.join(REPO, 'ci', 'gitlab-ci.yml')
GITHUB = os.path.join(REPO, 'ci', 'github-actions.yml')
# The commands whose shards a pipeline runs and merges, by the name of
# their files (generated: mutants --generate).
SHARDED = ('run', 'lkdtm', 'bisect', 'mutants', 'generated')
# What a job runs beside pan-kunit's commands: the packages pan-kunit needs
# to start, and the directories of its files.
OTHER_LINES = re.compile(r'^(apt-get .*|mkdir -p \S+)$')

def fake_kselftests(plan: Any, init: str, built: Dict[str, Any], results: List[Any],
		    progress: Any, pass_fds: Any=()) -> None:
	"""kselftests.run() for `run --kselftests` with the fake kunit.py: a
	row of one passed kselftest case for each config that built, which the
	shards' merge must count as the unsharded run does."""
	for result in results:
		if result.name in built:
			result.add_kselftests([Case(['kselftest.arm64.pan', 'pan/faults', 'a_case'],
						    CaseStatus.PASS, [])], '')

def _scalar(text: str) -> Any:
	text = text.strip()
	if text.startswith('[') and text.endswith(']'):
		return [_scalar(t) for t in text[1:-1].split(',') if t.strip()]
	if len(text) > 1 and text[0] == text[-1] and text[0] in '"\'':
		return text[1:-1]
	if text.isdigit():
		return int(text)
	return {'true': True, 'false': False}.get(text, text)

def _lines(text: str) -> List[Tuple[int, str]]:
	"""The lines of YAML @text that hold something: (indent, text)."""
	found = []
	for line in text.splitlines():
		if line.strip() and not line.lstrip().startswith('#'):
			found.append((len(line) - len(line.lstrip(' ')), line.strip()))
	return found

_KEY = re.compile(r'^([^\s:\[\]{}][^:]*?):(?:\s+(.*))?$')

def minimal_yaml(text: str) -> Any:
	"""The block mappings, block sequences, flow sequences of scalars and
	plain or quoted scalars that ci/'s files are written in (no anchors,
	no multi-line strings); YAML 1.1's `on:` is the key True, as
	python3-yaml reads it."""
	lines = _lines(text)
	def block(i: int, indent: int) -> Tuple[Any, int]:
		if lines[i][1].startswith('- ') or lines[i][1] == '-':
			items = []
			while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith('-'):
				rest = lines[i][1][1:].strip()
				if _KEY.match(rest):  # a mapping, its first key on the dash's line
					lines[i] = (indent + 2, rest)
					value, i = block(i, indent + 2)
				else:
					value, i = _scalar(rest), i + 1
				items.append(value)
			return items, i
		mapping: Dict[Any, Any] = {}
		while i < len(lines) and lines[i][0] == indent and not lines[i][1].startswith('- '):
			match = _KEY.match(lines[i][1])
			if not match:
				raise ValueError(f'not a key: {lines[i][1]!r}')
			key: Any = {'on': True}.get(match.group(1), match.group(1))
			if match.group(2):
				mapping[key], i = _scalar(match.group(2)), i + 1
			elif i + 1 < len(lines) and lines[i + 1][0] > indent:
				mapping[key], i = block(i + 1, lines[i + 1][0])
			else:
				mapping[key], i = None, i + 1
		return mapping, i
	value, end = block(0, 0)
	if end != len(lines):
		raise ValueError(f'left unread: {lines[end][1]!r}')
	return value

def load(path: str) -> Any:
	with open(path) as f:
		text = f.read()
	yaml = python3_yaml()
	return yaml.safe_load(text) if yaml else minimal_yaml(text)

def python3_yaml() -> Any:
	"""The module yaml of python3-yaml, or None when it is not installed
	(imported by name: mypy need not have its stubs)."""
	try:
		return importlib.import_module('yaml')
	except ImportError:
		return None

def gitlab_jobs(doc: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
	"""The jobs of a .gitlab-ci.yml, each with what it `extends`."""
	jobs = {}
	for name, job in doc.items():
		if name.startswith('.') or not isinstance(job, dict) or 'script' not in job:
			continue
		base = doc.get(job.get('extends', ''), {})
		jobs[name] = dict(base, **job)
	return jobs

def gitlab_commands(doc: Dict[str, Any]) -> Iterator[Tuple[str, str, Optional[int], Dict[str, str]]]:
	"""(stage, job, total shards or None, variables) of each job, then each
	line of its script: (stage, line, None, variables) as a job runs it."""
	for name, job in gitlab_jobs(doc).items():
		total = job.get('parallel')
		for index in range(1, (total or 1) + 1):
			env = {'CI_NODE_INDEX': str(index), 'CI_NODE_TOTAL': str(total)} if total else {}
			for line in job['script']:
				yield job['stage'], name, total, dict(env, LINE=line)

def github_commands(doc: Dict[str, Any]) -> Iterator[Tuple[str, str, Optional[int], Dict[str, str]]]:
	"""As gitlab_commands(), of a GitHub Actions workflow: each job of each
	combination of its matrix, its steps' `run` lines whose `if` holds."""
	for name, job in doc['jobs'].items():
		matrix = (job.get('strategy') or {}).get('matrix') or {}
		combinations: List[Dict[str, Any]] = [{}]
		for key, values in matrix.items():
			combinations = [dict(c, **{key: v}) for c in combinations for v in values]
		for combination in combinations:
			def expand(text: str) -> str:
				return re.sub(r'\$\{\{\s*matrix\.(\w+)\s*\}\}',
					      lambda m: str(combination[m.group(1)]), text)
			env = {k: expand(str(v)) for k, v in (job.get('env') or {}).items()}
			total = len(matrix['shard']) if 'shard' in matrix else None
			for step in job['steps']:
				if 'run' not in step:
					continue
				condition = step.get('if')
				if condition:
					match = re.fullmatch(r"matrix\.(\w+) == '(\w+)'", condition)
					assert match, f'{name}: an if this test cannot judge: {condition}'
					if str(combination[match.group(1)]) != match.group(2):
						continue
				yield name, name, total, dict(env, LINE=expand(step['run']))

def words(line: str, env: Dict[str, str], globs: bool=True) -> Tuple[List[str], bool]:
	"""The words of a pan-kunit command line, its variables and globs
	expanded as a shell would, and whether it accepts exit 1 (`|| test
	$? = 1`: a shard whose tests fail)."""
	accepts = line.endswith('|| test $? = 1')
	line = line[:-len('|| test $? = 1')].strip() if accepts else line
	found = []
	for word in shlex.split(line):
		word = re.sub(r'\$(\w+)', lambda m: env[m.group(1)], word)
		found += sorted(glob.glob(word)) if globs and '*' in word else [word]
	return found, accepts

class PipelineFilesTest(unittest.TestCase):

	def test_ci_runs_every_layer_of_the_selftest(self) -> None:
		# .ci/run's command, as the pipelines' selftest job (below): the
		# slow layer runs in CI, not in a developer's `selftest`.
		with open(os.path.join(REPO, '.ci', 'command')) as f:
			stages = [s.strip() for s in f.read().split('&&')]
		self.assertEqual([s for s in stages if ' selftest' in s],
				 ['tools/pan-kunit selftest --all'])

	def test_the_minimal_parse_is_python3_yamls(self) -> None:
		yaml = python3_yaml()
		if yaml is None:
			self.skipTest('python3-yaml is not installed: nothing to check the minimal parse '
				      'against')
		for path in (GITLAB, GITHUB):
			with open(path) as f:
				text = f.read()
			self.assertEqual(minimal_yaml(text), yaml.safe_load(text), path)

	def test_every_command_is_sharded_then_merged(self) -> None:
		for path, commands in ((GITLAB, gitlab_commands), (GITHUB, github_commands)):
			sharded: Dict[str, int] = {}
			merged = set()
			selftests = []
			for stage, job, total, env in commands(load(path)):
				line = env.pop('LINE')
				if OTHER_LINES.match(line):
					continue
				argv, accepts = words(line, env, globs=False)
				self.assertEqual(argv[0], 'tools/pan-kunit', line)
				if argv[1] == 'setup':
					continue
				cli.parse_args(argv[1:])  # a wrong option: SystemExit
				if argv[1] == 'selftest':
					selftests.append(line)
					continue
				if argv[1] == 'merge':
					merged.add(re.sub(r'^results/(\w+)-.*', r'\1', shlex.split(line)[2]))
					continue
				name = 'generated' if '--generate' in argv else argv[1]
				self.assertIsNotNone(total, f'{path}: {line} runs unsharded')
				# Each shard its own file, named by its index.
				index = env.get('CI_NODE_INDEX') or env.get('PAN_KUNIT_SHARD', '').split('/')[0]
				self.assertEqual(argv[argv.index('--json') + 1], f'results/{name}-{index}.json',
						 line)
				sharded[name] = total or 0
				if 'PAN_KUNIT_SHARD' in env:
					self.assertRegex(env['PAN_KUNIT_SHARD'], rf'^[0-9]+/{total}$')
			# Every layer of the selftest, the slow one too, unsharded.
			self.assertEqual(selftests, ['tools/pan-kunit selftest --all'], path)
			self.assertEqual(sorted(sharded), sorted(SHARDED), path)
			self.assertEqual(sorted(merged), sorted(SHARDED), path)
			self.assertEqual(set(sharded.values()), {4}, path)

@slow
class PipelineRunTest(FakeKunitTestCase):
	"""The pipelines' shards and merges, run with the fake kunit.py: of
	the slow layer, as it runs every command of both pipelines."""

	def setUp(self) -> None:
		super().setUp()
		# The configs whose baseline passes (mutants refuses any other) and
		# that end quickly (hang_pan waits for its timeout), and the fake
		# tree's mutants.
		for name in ('hang_pan', 'crash_pan', 'builderror_pan', 'fail_pan'):
			os.unlink(os.path.join(self.repo, 'qemu_configs', name + '.py'))
		shutil.copytree(test_data_path('mutants'), os.path.join(self.repo, 'mutants', '6.1'))
		self.work = os.path.join(self.tmp, 'work')
		os.mkdir(self.work)
		cwd = os.getcwd()
		os.chdir(self.work)
		self.addCleanup(os.chdir, cwd)
		# mutants --generate needs the kernel's compile_commands.json, which
		# the fake source cannot make (it has no scripts/clang-tools/):
		# its shards are parsed (PipelineFilesTest), not run, and
		# mutagen_test and score's tests run the generation.
		self.generates = False

	def pan_kunit(self, argv: List[str], env: Dict[str, str]) -> Tuple[int, str]:
		cpio = os.path.join(self.tmp, 'initramfs.cpio')
		clean = {k: v for k, v in os.environ.items() if k not in (
			'PAN_KUNIT_SHARD', 'CI_NODE_INDEX', 'CI_NODE_TOTAL')}
		with mock.patch.dict(os.environ, dict(clean, **env), clear=True), \
		     mock.patch.object(initramfs, 'pack', return_value=cpio), \
		     mock.patch.object(kselftests, 'run', fake_kselftests):
			return self.cli_main(*argv)

	def run_pipeline(self, path: str, commands: Any) -> Dict[str, Tuple[int, str]]:
		"""Runs the shards' and the merges' commands of @path, in order;
		each merge's exit status and output, by command."""
		shutil.rmtree(os.path.join(self.work, 'results'), ignore_errors=True)
		merges = {}
		for stage, job, total, env in sorted(commands(load(path)),
						     key=lambda c: 'merge' in c[3]['LINE']):
			line = env.pop('LINE')
			if line.startswith('mkdir -p '):
				os.makedirs(line.split()[2], exist_ok=True)
				continue
			if OTHER_LINES.match(line) or re.match(r'tools/pan-kunit (setup|selftest --all)$', line):
				continue
			argv, accepts = words(line, env)
			if not self.generates and ('--generate' in argv or 'results/generated-' in line):
				continue
			status, output = self.pan_kunit(argv[1:], env)
			if argv[1] == 'merge':
				merges[shlex.split(line)[2].split('/')[1].split('-')[0]] = (status, output)
			else:
				self.assertIn(status, (0, 1) if accepts or total else (0,),
					      f'{path}: {line} {env}:\n{output}')
		return merges

	def test_each_merge_is_the_unsharded_command(self) -> None:
		unsharded = {}
		for stage, job, total, env in gitlab_commands(load(GITLAB)):
			line = env['LINE']
			if not total or not line.startswith('tools/pan-kunit'):
				continue
			argv, _ = words(line, dict(env, CI_NODE_INDEX='all'))
			name = 'generated' if '--generate' in argv else argv[1]
			if name in unsharded or (name == 'generated' and not self.generates):
				continue
			os.makedirs('results', exist_ok=True)
			unsharded[name] = self.pan_kunit(argv[1:], {})
		for path, commands in ((GITLAB, gitlab_commands), (GITHUB, github_commands)):
			merges = self.run_pipeline(path, commands)
			self.assertEqual(sorted(merges), sorted(unsharded), path)
			for name, (status, output) in merges.items():
				alone_status, alone = unsharded[name]
				tally = re.compile(r'^(?:run|lkdtm|bisect|mutants): [0-9]+ passed.*$', re.M)
				self.assertEqual((status, tally.findall(output)),
						 (alone_status, tally.findall(alone)), f'{path}: {name}:\n{output}')
				self.assertIn(f'merge: 4 shards of ', output)

if __name__ == '__main__':
	unittest.main()
