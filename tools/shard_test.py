#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the split of a command's work between shards
# (pan_kunit.matrix.shard): I/N and the CI's variables read, refused when
# wrong; over many work lists and numbers of shards, that the shards of
# one request partition its work exactly, the same on any machine and
# whatever the order of the list, balanced by cost; and, end to end with
# the fake kunit_tool, the shards of commands that take --shard.

import contextlib
import io
import json
import os
import random
import shutil
import subprocess
import unittest
from typing import Dict, List, Tuple
from unittest import mock

from pan_kunit import Error
from pan_kunit.commands import cli, sharding
from pan_kunit.host import gitcmd
from pan_kunit.matrix import cost, initramfs, shard
from pan_kunit.matrix.shard import Shard, Unit
from pan_kunit.trees import tree
from testlib import (USER_GIT_ENV, FakeKunitTestCase, TempDirTestCase, end_to_end, fake_qemu,
		     read, slow, test_data_path, write, setUpModule, tearDownModule)

class ParseTest(unittest.TestCase):

	def test_i_of_n(self) -> None:
		self.assertEqual(shard.parse('2/4'), Shard(2, 4))
		self.assertEqual(shard.parse(' 1/1 '), Shard(1, 1))
		self.assertEqual(str(Shard(3, 8)), '3/8')

	def test_anything_else_is_refused_with_why(self) -> None:
		for text, why in (('0/2', 'I counts from 1 to 2'), ('3/2', 'shard 3 of 2'),
				  ('x', 'is no shard I/N'), ('1/0', 'no shard of 0'), ('2', 'no shard'),
				  ('-1/2', 'no shard'), ('1/2/3', 'no shard'), ('', 'no shard')):
			with self.assertRaisesRegex(ValueError, why, msg=text):
				shard.parse(text)

class EnvironmentTest(unittest.TestCase):

	def test_gitlab_parallel(self) -> None:
		self.assertEqual(shard.from_environment({'CI_NODE_INDEX': '3', 'CI_NODE_TOTAL': '4'}),
				 (Shard(3, 4), 'CI_NODE_INDEX/CI_NODE_TOTAL'))
		# A GitLab job without `parallel`: the whole work.
		self.assertIsNone(shard.from_environment({'CI_NODE_TOTAL': '1'}))
		self.assertIsNone(shard.from_environment({}))

	def test_pan_kunit_shard_first(self) -> None:
		env = {'PAN_KUNIT_SHARD': '1/2', 'CI_NODE_INDEX': '3', 'CI_NODE_TOTAL': '4'}
		self.assertEqual(shard.from_environment(env), (Shard(1, 2), 'PAN_KUNIT_SHARD'))
		# --shard before either; 1/1 is the whole work.
		self.assertEqual(shard.chosen(Shard(2, 3), env), (Shard(2, 3), '--shard'))
		self.assertIsNone(shard.chosen(Shard(1, 1), env))
		self.assertIsNone(shard.chosen(None, {'PAN_KUNIT_SHARD': '1/1'}))

	def test_wrong_variables_are_named(self) -> None:
		for env, said in (({'PAN_KUNIT_SHARD': '5/4'}, 'PAN_KUNIT_SHARD=5/4'),
				  ({'CI_NODE_INDEX': '2'}, 'CI_NODE_TOTAL=(unset)'),
				  ({'CI_NODE_TOTAL': '3'}, 'CI_NODE_INDEX=(unset)'),
				  ({'CI_NODE_INDEX': '0', 'CI_NODE_TOTAL': '3'}, 'CI_NODE_INDEX=0')):
			with self.assertRaisesRegex(Error, said.replace('(', r'\(').replace(')', r'\)')):
				shard.from_environment(env)

def work_list(rng: random.Random, size: int, groups: int) -> List[Unit]:
	"""@size units of @groups groups, of the costs the commands give."""
	costs = [cost.mutant_cost(False), cost.mutant_cost(True), cost.group_cost(2),
		 cost.group_cost(2, boots=3), cost.group_cost(1, steps=6), 1.0, 0.0]
	return [Unit(f'k{rng.randrange(groups)}/u{n}', rng.choice(costs) * rng.choice((1, 1, 2)),
		     f'k{rng.randrange(groups)}') for n in range(size)]

class SplitTest(unittest.TestCase):

	def test_shards_partition_every_list_the_same_whatever_its_order(self) -> None:
		rng = random.Random(40)
		for n in range(150):
			units = work_list(rng, rng.randrange(0, 60), rng.randrange(1, 4))
			setup = {f'k{g}': rng.choice((0.0, cost.kernel_setup(), cost.kernel_setup(True)))
				 for g in range(4)}
			total = rng.randrange(1, 13)
			shards = shard.split(units, total, setup)
			self.assertEqual(len(shards), total)
			keys = [u.key for s in shards for u in s]
			self.assertEqual(sorted(keys), sorted(u.key for u in units))  # each once
			for s in shards:  # in the order of the list (its keys are unique)
				held = {u.key for u in s}
				self.assertEqual(s, [u for u in units if u.key in held])
			shuffled = list(units)
			rng.shuffle(shuffled)
			self.assertEqual([{u.key for u in s} for s in shard.split(shuffled, total, setup)],
					 [{u.key for u in s} for s in shards])
			# pick() of one shard a list, a different one each time (each
			# pick is a split of its own: every shard of every list would
			# cost this test three times as many).
			index = 1 + n % total
			self.assertEqual(shard.pick(units, Shard(index, total), setup), shards[index - 1])

	def test_balanced_by_cost(self) -> None:
		# The longest-processing-time rule's bound: no shard costs more than
		# the shards' mean under the plain deal by more than one unit and
		# one group's setup; keeping groups together only lowers the top.
		rng = random.Random(4)
		for _ in range(150):
			units = work_list(rng, rng.randrange(1, 80), rng.randrange(1, 4))
			setup = {f'k{g}': rng.choice((0.0, cost.kernel_setup(True))) for g in range(4)}
			total = rng.randrange(1, 9)
			dealt = [shard.load(s, setup) for s in shard._deal(units, total, setup)]
			loads = [shard.load(s, setup) for s in shard.split(units, total, setup)]
			bound = max(u.cost for u in units) + max(setup.values())
			self.assertLessEqual(max(dealt) - min(dealt), bound + 1e-6)
			self.assertLessEqual(max(loads), max(dealt) + 1e-6)
			self.assertLessEqual(max(loads), sum(dealt) / total + bound + 1e-6)

	def test_a_header_mutant_weighs_more_than_a_c_one(self) -> None:
		units = [Unit('h', cost.mutant_cost(True))] + [
			Unit(f'c{n}', cost.mutant_cost(False)) for n in range(20)]
		one, two = shard.split(units, 2)
		self.assertEqual([u.key for u in one], ['h'])
		self.assertEqual(len(two), 20)

	def test_a_groups_setup_keeps_its_units_together_when_it_can(self) -> None:
		units = [Unit(f'{k}/m{n}', 15.0, k) for k in ('6.1', '7.3') for n in range(4)]
		shards = shard.split(units, 2, {'6.1': 600.0, '7.3': 600.0})
		self.assertEqual([{u.group for u in s} for s in shards], [{'6.1'}, {'7.3'}])

	def test_more_shards_than_units_leaves_some_empty(self) -> None:
		shards = shard.split([Unit('a', 1.0), Unit('b', 1.0)], 4)
		self.assertEqual([[u.key for u in s] for s in shards], [['a'], ['b'], [], []])

	def test_duplicate_keys_are_refused(self) -> None:
		with self.assertRaisesRegex(ValueError, 'units of the same key: a'):
			shard.split([Unit('a', 1.0), Unit('a', 2.0)], 2)

	def test_digest_of_a_list_whatever_its_order(self) -> None:
		self.assertEqual(shard.digest(['b', 'a']), shard.digest(['a', 'b']))
		self.assertNotEqual(shard.digest(['a']), shard.digest(['a', 'b']))

@end_to_end
class SourceTest(TempDirTestCase):
	"""What a report says its kernel's tree is (sharding.source())."""

	def test_base_and_head_with_one_git_each_alone_when_one_is_missing(self) -> None:
		self.copy_prepared_tree()
		head, head_tree = self.git('rev-parse', 'HEAD', 'HEAD^{tree}').split()
		with mock.patch.object(tree, 'git', wraps=tree.git) as git:
			found = sharding.source(self.tree)
		self.assertEqual(git.call_count, 1)
		self.assertEqual(found, {'base': self.git('rev-parse', tree.BASE_REF),
					 'base_tree': self.git('rev-parse', tree.BASE_REF + '^{tree}'),
					 'head': head, 'head_tree': head_tree})
		self.git('update-ref', '-d', tree.BASE_REF)
		self.assertEqual(sharding.source(self.tree), {'base': None, 'base_tree': None,
							      'head': head, 'head_tree': head_tree})

@end_to_end
class AboutTest(TempDirTestCase):
	"""What a report says ran it (sharding.about())."""

	def test_commit_and_edits_with_one_git(self) -> None:
		repo = os.path.join(self.tmp, 'pan-kunit')
		def git(*args: str) -> str:
			return subprocess.run(['git', '-C', repo] + list(args), check=True, text=True,
					      stdout=subprocess.PIPE,
					      env=dict(os.environ, **USER_GIT_ENV)).stdout.strip()
		def about() -> Tuple[object, object]:
			with mock.patch.object(sharding, 'QEMU', fake_qemu()):
				found = sharding.about(repo)
			self.assertEqual(found['qemu'], "QEMU emulator version 10.0.2 (the tests' stand-in)")
			return found['commit'], found['dirty']
		os.mkdir(repo)
		self.assertEqual(about(), (None, None))  # no repository
		git('init', '-q')
		self.assertEqual(about(), (None, None))  # no commit yet
		write(os.path.join(repo, 'tracked'), 'one\n')
		git('add', 'tracked')
		git('commit', '-q', '-m', 'one')
		with mock.patch.object(gitcmd, 'run', wraps=gitcmd.run) as run:
			self.assertEqual(about(), (git('rev-parse', 'HEAD'), False))
		self.assertEqual(run.call_count, 1)
		write(os.path.join(repo, 'untracked'), 'mine\n')
		self.assertEqual(about(), (git('rev-parse', 'HEAD'), False))
		write(os.path.join(repo, 'tracked'), 'two\n')
		self.assertEqual(about(), (git('rev-parse', 'HEAD'), True))
		git('checkout', '-q', '--detach')
		self.assertEqual(about(), (git('rev-parse', 'HEAD'), True))
		git('add', 'tracked')  # staged, not committed
		self.assertEqual(about(), (git('rev-parse', 'HEAD'), True))

@slow
class ShardedCommandTest(FakeKunitTestCase):
	"""--shard and the CI's variables, end to end: of the slow layer, as
	each test runs a command's every shard."""

	def pan_kunit(self, *argv: str, env: Dict[str, str]={}) -> Tuple[int, str]:
		cpio = os.path.join(self.tmp, 'initramfs.cpio')
		with mock.patch.dict(os.environ, env), \
		     mock.patch.object(initramfs, 'pack', return_value=cpio):
			return self.cli_main('--tree', self.tree, *argv)

	def json(self, name: str) -> Tuple[str, Dict[str, object]]:
		path = os.path.join(self.tmp, name + '.json')
		return path, (json.loads(read(path)) if os.path.exists(path) else {})

	def test_each_shard_builds_its_kconfig_groups_and_no_other(self) -> None:
		configs = ['--config=builderror_pan', '--config=pass_pan', '--config=skip_nopan',
			   '--config=pass_ttbr0']
		units, names = [], []
		for index in (1, 2):
			path, _ = self.json(f'run-{index}')
			status, output = self.pan_kunit('run', *configs, '--shard', f'{index}/2',
							'--json', path)
			self.assertNotEqual(status, 2, output)
			data = json.loads(read(path))
			self.assertEqual((data['shard']['index'], data['shard']['total'],
					  data['work']['units']), (index, 2, 3))
			units += data['shard']['units']
			names += [c['name'] for k in data['kernels'] for c in k['configs']]
		self.assertEqual(sorted(units), ['6.1/builderror_pan', '6.1/pass_pan+skip_nopan',
						 '6.1/pass_ttbr0'])
		self.assertEqual(sorted(names), ['builderror_pan', 'pass_pan', 'pass_ttbr0',
						 'skip_nopan'])
		self.assertEqual(sorted(b[1] for b in self.traced('build')),
				 ['builderror_pan', 'pass_pan', 'pass_ttbr0'])
		# lkdtm splits the same way, and says so in its own JSON.
		path, _ = self.json('lkdtm')
		status, output = self.pan_kunit('lkdtm', *configs[1:], '--shard', '1/2', '--json', path)
		self.assertEqual(status, 0, output)
		data = json.loads(read(path))
		(kernel,) = data['kernels']
		self.assertEqual([(c['name'], [b['ok'] for b in c['boots']]) for c in kernel['configs']],
				 [('pass_pan', [True] * 3), ('skip_nopan', [True] * 3)])
		self.assertEqual(data['shard']['units'], ['6.1/pass_pan+skip_nopan'])

	def test_mutants_and_bisect_shards(self) -> None:
		shutil.copytree(test_data_path('mutants'), os.path.join(self.repo, 'mutants', '6.1'))
		found: List[str] = []
		for index in (1, 2):
			path, _ = self.json(f'mutants-{index}')
			status, output = self.pan_kunit('mutants', '--config', 'pass_pan', '--shard',
							f'{index}/2', '--json', path)
			self.assertNotEqual(status, 2, output)
			data = json.loads(read(path))
			checked = [m['name'] for m in data['mutants']]
			self.assertEqual(data['shard']['units'], [f'6.1/{name}' for name in checked])
			self.assertIn(f'shard {index}/2 (--shard): {len(checked)} of 6 mutants', output)
			self.assertEqual(data['request']['options']['seed'], 1)
			found += checked
		self.assertEqual(sorted(found), ['crash', 'half', 'killed', 'pending', 'stale',
						 'survived'])
		# bisect's shards: each its kconfig group, at every step.
		builds = len(self.traced('build'))
		for index in (1, 2):
			path, _ = self.json(f'bisect-{index}')
			status, output = self.pan_kunit('bisect', '--config', 'pass_pan', '--config',
							'pass_ttbr0', '--shard', f'{index}/2', '--json', path)
			self.assertEqual(status, 0, output)
			data = json.loads(read(path))
			self.assertEqual([[c['name'] for c in step['configs']] for step in data['steps']],
					 [data['shard']['units'][0].split('/')[1].split('+')] * 3)
		self.assertEqual(sorted(b[1] for b in self.traced('build')[builds:]),
				 ['pass_pan'] * 3 + ['pass_ttbr0'] * 3)

	def test_a_shard_of_no_work(self) -> None:
		path, _ = self.json('empty')
		status, output = self.pan_kunit('run', '--config', 'pass_pan', '--shard', '2/2',
						'--json', path)
		self.assertEqual(status, 0, output)
		self.assertIn('shard 2/2 (--shard): 0 of 1 kconfig groups', output)
		self.assertEqual(self.traced('build'), [])
		self.assertEqual(json.loads(read(path))['kernels'], [])

	def test_the_ci_variables_choose_the_shard(self) -> None:
		path, _ = self.json('ci')
		for env, said in (({'CI_NODE_INDEX': '2', 'CI_NODE_TOTAL': '3'},
				   'CI_NODE_INDEX/CI_NODE_TOTAL'),
				  ({'PAN_KUNIT_SHARD': '2/3', 'CI_NODE_INDEX': '1', 'CI_NODE_TOTAL': '2'},
				   'PAN_KUNIT_SHARD')):
			status, output = self.pan_kunit('run', '--config', 'pass_pan', '--config',
							'pass_ttbr0', '--json', path, env=env)
			self.assertEqual(status, 0, output)
			self.assertIn(f'shard 2/3 ({said}): 1 of 2 kconfig groups', output)
			data = json.loads(read(path))
			self.assertEqual((data['shard']['index'], data['shard']['total'],
					  data['shard']['said_by']), (2, 3, said))
		# --shard comes first; 1/1 is all of the work.
		status, output = self.pan_kunit('run', '--config', 'pass_pan', '--shard', '1/1',
						env={'CI_NODE_INDEX': '2', 'CI_NODE_TOTAL': '3'})
		self.assertEqual(status, 0, output)
		self.assertNotIn('shard ', output)

	def test_bad_shards_are_refused_before_any_work(self) -> None:
		for command in ('run', 'lkdtm', 'coverage'):
			for given, why in (('0/2', "'0/2': shard 0 of 2; I counts from 1 to 2"),
					   ('3/2', "'3/2': shard 3 of 2"), ('x', "'x' is no shard I/N")):
				err = io.StringIO()
				with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as e:
					cli.parse_args([command, '--shard', given])
				self.assertEqual(e.exception.code, 2)
				self.assertIn(f'argument --shard: {why}', err.getvalue())
		for env, why in (({'PAN_KUNIT_SHARD': '5/4'}, 'PAN_KUNIT_SHARD=5/4: '),
				 ({'CI_NODE_INDEX': '2'}, 'CI_NODE_INDEX=2 and CI_NODE_TOTAL=(unset)')):
			status, output = self.pan_kunit('run', env=env)
			self.assertEqual(status, 2, output)
			self.assertIn(f'pan-kunit run: error: {why}', output)
		self.assertEqual(self.traced('build'), [])

if __name__ == '__main__':
	unittest.main()
