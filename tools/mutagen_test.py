#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of pan_kunit.commands.mutagen and pan_kunit.commands.score: the places each operator
# finds in a small C fixture (test_data/mutagen/sample.c) with libclang,
# the patches, the sample, the score and its interval, and that a mutant
# that does not build is dropped, not counted.

import operator
import os
import shutil
import subprocess
import tempfile
import unittest
from typing import Dict, List

from pan_kunit import Error
from pan_kunit.commands import mutagen, mutants, score
from testlib import end_to_end

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'test_data', 'mutagen')

def commands(directory: str) -> Dict[str, Dict[str, object]]:
	source = os.path.realpath(os.path.join(directory, 'sample.c'))
	return {source: {'directory': directory, 'file': 'sample.c',
			 'arguments': ['gcc', '-c', '-O2', '-fconserve-stack', 'sample.c']}}

class GenerateTest(unittest.TestCase):
	fixture_sites: List[mutagen.Site]

	@classmethod
	def setUpClass(cls) -> None:
		# The sites of the fixture, found once for the tests (libclang's
		# parse was most of their time): each test has copies, and a
		# directory of its own where the fixture's sites are the same
		# (a site's source is relative to the tree).
		with tempfile.TemporaryDirectory(prefix='pan-kunit-mutagen-') as tmp:
			shutil.copy(os.path.join(FIXTURE, 'sample.c'), tmp)
			cls.fixture_sites = mutagen.generate(tmp, [('sample', 'sample.c')], commands(tmp))

	def setUp(self) -> None:
		self.tmp = tempfile.mkdtemp(prefix='pan-kunit-mutagen-')
		self.addCleanup(shutil.rmtree, self.tmp)
		shutil.copy(os.path.join(FIXTURE, 'sample.c'), self.tmp)
		self.sites = list(self.fixture_sites)  # frozen: copies of the list suffice

	def changes(self, operator: str) -> List[str]:
		return [f'{s.original} -> {s.replacement} @{s.line}' for s in self.sites
			if s.operator == operator]

	def test_each_operator(self) -> None:
		self.assertEqual(self.changes('relational'), [
			'>= -> < @20', '>= -> > @20', '!= -> == @20', '< -> <= @22', '< -> > @22'])
		self.assertEqual(self.changes('logical'), ['&& -> || @20', '|| -> && @22'])
		self.assertEqual(self.changes('bitwise'), ['|= -> &= @23', '^ -> | @24', '& -> | @24'])
		self.assertEqual(self.changes('shift'), ['<< -> >> @23'])
		self.assertEqual(self.changes('constant'), [
			'0x10 -> 0x11 @18', '0x10 -> 0xf @18', '0 -> 1 @20', '3 -> 2 @22', '3 -> 4 @22',
			'2 -> 1 @23', '2 -> 3 @23', '1 -> 0 @24', '1 -> 2 @24'])
		self.assertEqual(self.changes('negate'), [
			'val >= min && bits != 0 -> !(val >= min && bits != 0) @20',
			'LIMIT(val) || bits < 3 -> !(LIMIT(val) || bits < 3) @22'])
		self.assertEqual(self.changes('delete-call'), ['note(val) -> (void)0 @21'])
		self.assertEqual(self.changes('swap-args'), ['val, min -> min, val @25'])
		self.assertEqual({s.function for s in self.sites}, {'sample'})

	def test_names_are_unique(self) -> None:
		# Two changes of one place: >= to < and to >.
		names = [s.name() for s in self.sites]
		self.assertEqual(len(set(names)), len(names), names)

	def test_nothing_a_macro_brings_in(self) -> None:
		# LIMIT()'s > and 7 are the macro's text, not sample()'s.
		self.assertFalse([s for s in self.sites if s.original in ('>', '7')])
		self.assertFalse([s for s in self.sites if s.line < 16])  # helper(), note()

	def test_no_statement_of_a_macro(self) -> None:
		# CHECK() expands to an if and a call: neither is expanded()'s text;
		# the 0 of its argument is.
		sites = mutagen.generate(self.tmp, [('expanded', 'sample.c')], commands(self.tmp))
		self.assertFalse([s for s in sites if s.operator in ('negate', 'delete-call')], sites)
		self.assertIn(('constant', '0'), [(s.operator, s.original) for s in sites])

	def test_only_the_lines_reached(self) -> None:
		sites = mutagen.generate(self.tmp, [('sample', 'sample.c')], commands(self.tmp),
					 {'sample.c': {23}})
		self.assertEqual({s.line for s in sites}, {23})

	@end_to_end
	def test_patches_apply_and_compile_or_not(self) -> None:
		subprocess.run(['git', 'init', '-q', self.tmp], check=True)
		for site in self.sites:
			text = mutagen.patch(self.tmp, site)
			self.assertTrue(text.startswith(f'Subject: {site.node()}\nMust-Fail: *\n'), text)
			path = os.path.join(self.tmp, 'm.patch')
			with open(path, 'w') as f:
				f.write(text)
			mutant = mutants.load_mutant(path)
			self.assertEqual((mutant.must_fail, mutant.files), (['*'], ['sample.c']))
			applied = subprocess.run(['git', '-C', self.tmp, 'apply', '--check', path],
						 stderr=subprocess.PIPE, text=True)
			self.assertEqual(applied.returncode, 0, applied.stderr + text)

	def test_node_survives_lines_moving(self) -> None:
		path = os.path.join(self.tmp, 'sample.c')
		with open(path) as f:
			text = f.read()
		with open(path, 'w') as f:
			f.write('/* a new first line */\n' + text)
		moved = mutagen.generate(self.tmp, [('sample', 'sample.c')], commands(self.tmp))
		self.assertEqual([s.node() for s in moved], [s.node() for s in self.sites])
		self.assertNotEqual([s.line for s in moved], [s.line for s in self.sites])

class SampleAndScoreTest(unittest.TestCase):

	def site(self, n: int, function: str='f') -> mutagen.Site:
		return mutagen.Site(function, 'x.c', 'constant', n, n, n + 1, '1', '2', 1)

	def test_seeded_sample(self) -> None:
		sites = [self.site(n) for n in range(50)]
		one = mutagen.sample(sites, 10, seed=7)
		self.assertEqual(one, mutagen.sample(sites, 10, seed=7))
		self.assertNotEqual(one, mutagen.sample(sites, 10, seed=8))
		self.assertEqual(len(one), 10)
		self.assertEqual(one, sorted(one, key=operator.attrgetter('start')))
		self.assertEqual(mutagen.sample(sites, None, seed=7), sites)
		self.assertEqual(mutagen.sample(sites, 80, seed=7), sites)

	def test_wilson_interval(self) -> None:
		low, high = mutagen.wilson(90, 100)
		self.assertAlmostEqual(low, 82.6, places=1)
		self.assertAlmostEqual(high, 94.5, places=1)
		self.assertEqual(mutagen.wilson(0, 0), (0.0, 100.0))

	def test_a_mutant_that_does_not_build_is_dropped(self) -> None:
		verdicts = [mutants.MutantVerdict.KILLED, mutants.MutantVerdict.SURVIVED,
			    mutants.MutantVerdict.BUILD_FAILED, mutants.MutantVerdict.KILLED]
		judged = []
		for verdict in verdicts:
			mutant = mutants.Mutant('p', 'n', 's', ['*'])
			mutant.verdict = verdict
			judged.append(mutant)
		sites = [self.site(1, 'f'), self.site(2, 'f'), self.site(3, 'g'), self.site(4, 'g')]
		per, total = score.scores(sites, judged)
		self.assertEqual((total.killed, total.survived, total.dropped), (2, 1, 1))
		self.assertEqual((per['g'].killed, per['g'].survived, per['g'].dropped), (1, 0, 1))
		self.assertAlmostEqual(total.percent(), 200 / 3)
		self.assertIn('2/3 killed, 66.7%', total.text())
		self.assertIn('1 did not build', total.text())

	def test_a_mutant_of_the_same_object_code_is_equivalent_not_scored(self) -> None:
		with tempfile.TemporaryDirectory() as tmp:
			group_a, group_b = os.path.join(tmp, 'a'), os.path.join(tmp, 'b')
			for build_dir, code in ((group_a, b'original'), (group_b, b'original')):
				os.makedirs(os.path.join(build_dir, 'arch'))
				with open(os.path.join(build_dir, 'arch', 'f.o'), 'wb') as f:
					f.write(code)
			before = mutants.object_hashes([group_a, group_b], ['arch/f.o'])
			mutant = mutants.Mutant('p', 'n', 's', [mutants.ANY_SUITE], files=['arch/f.c'])
			self.assertEqual(mutants.same_objects(mutant, before, [group_a]), 'arch/f.o')
			with open(os.path.join(group_a, 'arch', 'f.o'), 'wb') as f:
				f.write(b'mutated')
			self.assertEqual(mutants.same_objects(mutant, before, [group_a]), '')
			# A header's mutant changes most objects: never called equivalent.
			header = mutants.Mutant('p', 'n', 's', [mutants.ANY_SUITE], files=['arch/f.h'])
			self.assertEqual(mutants.same_objects(header, before, [group_b]), '')
		generated = mutants.Mutant('p', 'n', 's', [mutants.ANY_SUITE])
		written = mutants.Mutant('p', 'n', 's', ['arm64_pan'])
		for mutant in (generated, written):
			mutant.verdict = mutants.MutantVerdict.EQUIVALENT
		# A written mutant that compiles to the tree's code proves nothing.
		self.assertEqual((generated.ok(), written.ok()), (True, False))
		killed = mutants.Mutant('p', 'n', 's', ['*'], verdict=mutants.MutantVerdict.KILLED)
		per, total = score.scores([self.site(1), self.site(2)], [generated, killed])
		self.assertEqual((total.killed, total.survived, total.equivalent), (1, 0, 1))
		self.assertIn('1/1 killed', total.text())
		self.assertIn('1 equivalent (the same object code)', total.text())

	def test_any_suite_kills_a_generated_mutant(self) -> None:
		mutant = mutants.Mutant('p', 'n', 's', [mutants.ANY_SUITE])
		self.assertEqual(mutant.pending_suites(set()), [])

	def test_equivalence_claims(self) -> None:
		with tempfile.NamedTemporaryFile('w', suffix='.txt', delete=False) as f:
			f.write('# claims\nf: constant `1` -> `2` #1 -- the same object code\n')
		self.addCleanup(os.unlink, f.name)
		self.assertEqual(mutagen.load_equivalent(f.name),
				 {'f: constant `1` -> `2` #1': 'the same object code'})
		self.assertEqual(mutagen.load_equivalent(f.name + '.missing'), {})
		with open(f.name, 'w') as g:
			g.write('no reason here\n')
		with self.assertRaises(Error):
			mutagen.load_equivalent(f.name)

	@end_to_end
	def test_compile_commands_written_where_kunit_py_did_not(self) -> None:
		# 6.1's kunit.py builds no compile_commands.json: the tree's
		# generator writes it from the build's .cmd files.
		with tempfile.TemporaryDirectory() as tmp:
			tree = os.path.join(tmp, 'tree')
			shutil.copytree(os.path.join(FIXTURE, 'gen_tree'), tree)
			build = os.path.join(tree, '.pan-kunit', 'build', 'k1')
			os.makedirs(build)
			for name in ('vmlinux', '.fault.o.cmd'):
				open(os.path.join(build, name), 'w').close()
			found = score.compile_commands(tree)
			self.assertEqual(list(found), [os.path.realpath(os.path.join(build, 'fault.c'))])
			self.assertTrue(os.path.isfile(os.path.join(build, 'compile_commands.json')))
			os.unlink(os.path.join(build, '.fault.o.cmd'))
			os.unlink(os.path.join(build, 'compile_commands.json'))
			with self.assertRaisesRegex(Error, 'gen_compile_commands.py -d .* failed: '
						    'no .cmd files'):
				score.compile_commands(tree)

	def test_clang_gets_no_gcc_only_flag(self) -> None:
		args = mutagen.clang_args({'arguments': [
			'gcc', '-nostdinc', '-I./include', '-include', 'k.h', '-D__KERNEL__', '-std=gnu11',
			'-fconserve-stack', '-mstack-protector-guard=sysreg', '--param=x=1', '-O2',
			'-c', '-o', 'a.o', 'a.c']})
		self.assertEqual(args[2:], ['-nostdinc', '-I./include', '-include', 'k.h',
					    '-D__KERNEL__', '-std=gnu11'])
		self.assertEqual(args[0], '--target=aarch64-linux-gnu')

if __name__ == '__main__':
	unittest.main()
