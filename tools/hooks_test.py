#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Tests of what the patches of patches/VERSION/ hook in (pan_kunit.commands.hooks).

import functools
import os
import unittest
from typing import Dict, List, Optional

from pan_kunit import Error
from pan_kunit.commands import export, hooks
from pan_kunit.trees import kernels, sources
from pan_kunit.trees.suites import grouped
from testlib import REPO, VERSION, KERNEL, read, setUpModule, tearDownModule

def patch_changes(path: str) -> List[hooks.FileChange]:
	"""The changes of a patch file as hooks.changes() reads them from git
	diff -U0, with no tree: a change per hunk, whose context and removed
	lines stand for the old file."""
	found: List[hooks.FileChange] = []
	name = ''
	hunk: Optional[List[str]] = None
	lines = read(path).split('\n')
	for line in lines + ['-- ']:
		if hunk is not None and (line[:1] not in (' ', '+', '-') or line == '-- '):
			found.append(hunk_change(name, hunk))
			hunk = None
		if line.startswith('diff --git '):
			name = line.split(' b/', 1)[1]
		elif line.startswith('@@ '):
			hunk = []
		elif hunk is not None:
			hunk.append(line)
	return hooks.build_order(found)

def hunk_change(name: str, lines: List[str]) -> hooks.FileChange:
	old: List[bytes] = []
	found: List[hooks.Hunk] = []
	added: List[bytes] = []
	removed = 0
	for line in lines + [' ']:
		if line.startswith('+'):
			added.append(line[1:].encode() + b'\n')
			continue
		if line.startswith('-'):
			old.append(line[1:].encode() + b'\n')
			removed += 1
			continue
		if removed:
			found.append(hooks.Hunk(len(old) - removed, removed, [], [hooks.Item(added)]))
		elif added:
			found.append(hooks.Hunk(len(old), 0, *hooks.split_run(name, added)))
		added, removed = [], 0
		old.append(line[1:].encode() + b'\n')
	return hooks.FileChange(name, b''.join(old[:-1]), None, found)

@functools.lru_cache(maxsize=None)
def loaded(kernel: kernels.KernelSpec) -> sources.Sources:
	"""What the repo puts into @kernel's tree: read once for every test,
	as sources.load() applies the older kernels' compat patches with git
	(the tests only read it)."""
	return sources.load(REPO, kernel)

@functools.lru_cache(maxsize=None)
def suite_paths(kernel: kernels.KernelSpec) -> Dict[str, List[str]]:
	"""Each suite's files on @kernel."""
	return {s.name: s.paths for s in grouped(loaded(kernel))}

# export's kernel, whose series upstream gets.
NEWEST = kernels.newest(kernels.supported(REPO))

class HooksTest(unittest.TestCase):
	"""What the patches of patches/VERSION/ hook in, and their cut per suite."""

	def setUp(self) -> None:
		self.symbols: Dict[str, str] = {}
		self.suites = dict(suite_paths(KERNEL))

	def changes(self, patch: str, kernel: kernels.KernelSpec=KERNEL) -> List[hooks.FileChange]:
		changes = patch_changes(os.path.join(REPO, kernel.patches_dir(), patch))
		hooks.assign(changes, suite_paths(kernel), self.symbols)
		return changes

	def test_every_suite_comes_with_the_patch_that_hooks_it_in(self) -> None:
		for kernel in kernels.supported(REPO):
			with self.subTest(kernel=kernel.name):
				self.symbols = {}
				wanted = loaded(kernel)
				suites = {s.name for s in grouped(wanted)}
				cuts = {name: hooks.hooked(self.changes(name, kernel), name, suites)
					for name in wanted.patches}
				# 7.3's hooks of cpufeature.c and its split of
				# update_cpu_features() are patches of their own, as
				# upstream takes them; 6.12 and 6.1 add them with the suites.
				own_hooks: List[List[str]] = [[], []] if kernel == NEWEST else []
				self.assertEqual([cut for _, cut in sorted(cuts.items())], [
					[],   # the fix of the SW TTBR0 PAN exit
					['arm64_cpufeature_field', 'arm64_cpufeature_match'],
					['arm64_alternative', 'arm64_alternative_apply'],
					[],   # the refactor
					# The static stubs of the ASID size check of a late
					# CPU, in context.c: hooks, whatever suite their
					# comment names.
					[]] + own_hooks + [
					# In the order of their Kconfig entries.
					['arm64_cpufeature_sanitise', 'arm64_cpufeature_ftr_bits',
					 'arm64_cpufeature_override', 'arm64_cpucap_passes',
					 'arm64_cpucap_table'],
					# In the order of their Kconfig entries.
					['arm64_pan_detect', 'arm64_pan_enable', 'arm64_pan_hotplug',
					 'arm64_pan_resume', 'arm64_pan_uaccess', 'arm64_pan_uaccess_fault',
					 'arm64_pan_exec_only', 'arm64_pan_saved_ttbr0',
					 'arm64_pan_fault'],
					['arm64_cpucap_hwcaps']])
				self.assertEqual(self.symbols, {
					'ARM64_CPUFEATURE_FIELD_KUNIT_TEST': 'arm64_cpufeature_field',
					'ARM64_CPUFEATURE_MATCH_KUNIT_TEST': 'arm64_cpufeature_match',
					'ARM64_ALTERNATIVE_KUNIT_TEST': 'arm64_alternative',
					'ARM64_ALTERNATIVE_APPLY_KUNIT_TEST': 'arm64_alternative_apply',
					'ARM64_CPUFEATURE_SANITISE_KUNIT_TEST': 'arm64_cpufeature_sanitise',
					'ARM64_CPUFEATURE_FTR_BITS_KUNIT_TEST': 'arm64_cpufeature_ftr_bits',
					'ARM64_CPUFEATURE_OVERRIDE_KUNIT_TEST': 'arm64_cpufeature_override',
					'ARM64_CPUCAP_PASSES_KUNIT_TEST': 'arm64_cpucap_passes',
					'ARM64_CPUCAP_TABLE_KUNIT_TEST': 'arm64_cpucap_table',
					'ARM64_PAN_DETECT_KUNIT_TEST': 'arm64_pan_detect',
					'ARM64_PAN_ENABLE_KUNIT_TEST': 'arm64_pan_enable',
					'ARM64_PAN_HOTPLUG_KUNIT_TEST': 'arm64_pan_hotplug',
					'ARM64_PAN_RESUME_KUNIT_TEST': 'arm64_pan_resume',
					'ARM64_PAN_UACCESS_KUNIT_TEST': 'arm64_pan_uaccess',
					'ARM64_PAN_UACCESS_FAULT_KUNIT_TEST': 'arm64_pan_uaccess_fault',
					'ARM64_PAN_EXEC_ONLY_KUNIT_TEST': 'arm64_pan_exec_only',
					'ARM64_PAN_SAVED_TTBR0_KUNIT_TEST': 'arm64_pan_saved_ttbr0',
					'ARM64_PAN_FAULT_KUNIT_TEST': 'arm64_pan_fault',
					'ARM64_CPUCAP_HWCAPS_KUNIT_TEST': 'arm64_cpucap_hwcaps'})

	def test_0007_gives_each_pan_suite_its_paragraph_and_symbol(self) -> None:
		pan = ['arm64_pan_detect', 'arm64_pan_enable', 'arm64_pan_hotplug',
		       'arm64_pan_resume', 'arm64_pan_uaccess', 'arm64_pan_uaccess_fault', 'arm64_pan_exec_only',
		       'arm64_pan_saved_ttbr0', 'arm64_pan_fault']
		for kernel in kernels.supported(REPO):
			with self.subTest(kernel=kernel.name):
				self.symbols = {}
				wanted = loaded(kernel)
				(patch,) = [p for p in wanted.patches if 'KUnit-hook-for-PAN-tests' in p]
				changes = self.changes(os.path.basename(patch), kernel)
				# A symbol each: each patch of the cut names its own.
				self.assertEqual({name: symbols for name, symbols in
						  export._item_symbols(changes).items() if name in pan},
						 {name: {name.upper() + '_KUNIT_TEST'}
						  for name in pan})
				found = {s.name: s for s in grouped(wanted)}
				patterns = hooks.file_patterns({name: found[name].paths for name in pan})
				mail = export.mailinfo(patch)
				own = {name: export._own_paragraphs(mail, patterns, self.symbols, name)
				       for name in pan}
				# Why the patch exists goes with the first suite, and each suite's
				# own paragraph with it: a paragraph that names none is lost.
				self.assertEqual([len(own[name]) for name in pan], [1] * len(pan))
				self.assertTrue(own['arm64_pan_detect'][0].startswith('PAN is set up'))
				for name in pan[1:]:
					(c_file,) = [p for p in found[name].paths if p.endswith('.c')]
					self.assertTrue(own[name][0].startswith(
						'tests/' + os.path.basename(c_file)), own[name])

	def first_cut(self, change: hooks.FileChange, later: str) -> str:
		data = change.render(lambda item: later not in item.suites)
		assert data is not None
		return data.decode()

	def test_0002_cut_field_then_match(self) -> None:
		makefile, tests_makefile, kconfig, cpufeature = self.changes(
			'0002-arm64-cpufeature-add-KUnit-hooks-for-ID-field-and-ca.patch')
		self.assertEqual([sorted(i.suites) for i in kconfig.items()],
				 [['arm64_cpufeature_field'], ['arm64_cpufeature_match']])
		first = self.first_cut(kconfig, 'arm64_cpufeature_match')
		self.assertTrue(first.startswith('\tdepends on m\n\ttristate "Relocation testing module"\n'
						 '\nconfig ARM64_CPUFEATURE_FIELD_KUNIT_TEST\n'), first)
		# The help text's blank lines are the entry's; the run's last
		# blank line still closes it.
		self.assertTrue(first.endswith('\t  refer to the KUnit documentation in '
					       'Documentation/dev-tools/kunit/.\n\n\t  If unsure, say N.\n'
					       '\nsource "drivers/hwtracing/coresight/Kconfig"\n'), first)
		self.assertNotIn('MATCH', first)
		# The suites' directory comes with the first suite, and its
		# Makefile with its first line (and SPDX header).
		self.assertIn('+= tests/\n', self.first_cut(makefile, 'arm64_cpufeature_match'))
		self.assertEqual(self.first_cut(tests_makefile, 'arm64_cpufeature_match'),
				 '# SPDX-License-Identifier: GPL-2.0\n\n'
				 'obj-$(CONFIG_ARM64_CPUFEATURE_FIELD_KUNIT_TEST)\t+= cpufeature_field_kunit.o\n')
		self.assertEqual(self.first_cut(cpufeature, 'arm64_cpufeature_match'),
				 (cpufeature.old or b'').decode())

	def test_hooks_of_the_code_under_test_are_no_suites(self) -> None:
		# The static helpers of verify_local_cpu_caps() and the lines they
		# replace, and the split of update_cpu_features(), whose comments
		# name the passes' and the sanitise suite's files, are hooks; so
		# is the ASID size check's, in context.c. Only an #include of a
		# suite's file is a suite's.
		for kernel in kernels.supported(REPO):
			with self.subTest(kernel=kernel.name):
				self.symbols = {}
				wanted = loaded(kernel)
				changes = {os.path.basename(p): self.changes(os.path.basename(p), kernel)
					   for p in wanted.patches}
				def items(text: bytes) -> List[hooks.Item]:
					# In C: a Kconfig help text may name a hook.
					found = [i for c in changes.values() for f in c
						 if f.path.endswith(('.c', '.h')) for i in f.items()
						 if text in b''.join(i.lines)]
					self.assertTrue(found, text)
					return found
				for text in (b'late_cpu_refuse(', b'__update_cpu_features(',
					     b'asid_bits_refuse(', b'asid_bits_kunit_hooks'):
					self.assertEqual({(i.hook, frozenset(i.suites)) for i in items(text)},
							 {(True, frozenset())}, text)
				(include,) = items(b'#include "tests/cpucap_passes_kunit.c"')
				self.assertEqual((include.hook, include.suites),
						 (False, {'arm64_cpucap_passes'}))
				with_hooks = sorted(name[:4] for name, found in changes.items()
						    if hooks.hook_lines(found))
				# What changes the code itself: the fix of entry.S, the
				# refactor, the ASID stubs and the stubs of cpufeature.c
				# and, in 7.3, the split of update_cpu_features(), there
				# each a patch that adds no suite.
				self.assertEqual(with_hooks, ['0001', '0004', '0005', '0006'] +
						 (['0007'] if kernel == NEWEST else []))
				mixed = [name[:4] for name, found in changes.items()
					 if hooks.hook_lines(found) and hooks.hooked(found, name, {
						 s.name for s in grouped(wanted)})]
				self.assertEqual(mixed, [] if kernel == NEWEST else ['0006'])

	def test_0008_cut_passes_then_table(self) -> None:
		changes = self.changes('0008-arm64-cpufeature-Add-KUnit-tests-for-the-capability-.patch',
				       NEWEST)
		kconfig, cpufeature = changes[0], changes[-1]
		first = self.first_cut(cpufeature, 'arm64_cpucap_table')
		# The blank line before each #ifdef goes with it: none is left at
		# the end. The #includes are in the order of the Kconfig entries,
		# so that each suite's patch adds its own at the end of the file.
		self.assertTrue(first.endswith('#include "tests/cpufeature_match_kunit.c"\n#endif\n'
					       '\n#ifdef CONFIG_ARM64_CPUFEATURE_SANITISE_KUNIT_TEST\n'
					       '#include "tests/cpufeature_sanitise_kunit.c"\n#endif\n'
					       '\n#ifdef CONFIG_ARM64_CPUFEATURE_FTR_BITS_KUNIT_TEST\n'
					       '#include "tests/cpufeature_ftr_bits_kunit.c"\n#endif\n'
					       '\n#ifdef CONFIG_ARM64_CPUFEATURE_OVERRIDE_KUNIT_TEST\n'
					       '#include "tests/cpufeature_override_kunit.c"\n#endif\n'
					       '\n#ifdef CONFIG_ARM64_CPUCAP_PASSES_KUNIT_TEST\n'
					       '#include "tests/cpucap_passes_kunit.c"\n#endif\n'),
				first)
		first = self.first_cut(kconfig, 'arm64_cpucap_table')
		self.assertIn('config ARM64_CPUCAP_PASSES_KUNIT_TEST', first)
		self.assertNotIn('TABLE', first)
		self.assertTrue(first.endswith('If unsure, say N.\n\nsource "drivers/hwtracing/coresight/'
					       'Kconfig"\n'), first)

	def test_items_of_each_kind_of_file(self) -> None:
		def items(path: str, text: str) -> List[str]:
			lead, found = hooks.split_run(path, [l.encode() for l in hooks_lines(text)])
			return [b''.join(i.lines).decode() for i in found]
		self.assertEqual(items('arch/arm64/kernel/Makefile',
				       'obj-$(CONFIG_A) += a.o \\\n\t\t   a_asm.o\nobj-y += b.o\n'),
				 ['obj-$(CONFIG_A) += a.o \\\n\t\t   a_asm.o\n', 'obj-y += b.o\n'])
		self.assertEqual(items('arch/arm64/kernel/foo.c',
				       '#ifdef CONFIG_A\n#include "a.c"\n#endif\n'
				       'static int f(void)\n{\n\treturn 0;\n}\n'),
				 ['#ifdef CONFIG_A\n#include "a.c"\n#endif\n',
				  'static int f(void)\n{\n\treturn 0;\n}\n'])
		self.assertEqual(items('arch/arm64/Kconfig', 'if A\nconfig B\n\tbool\nendif\n'
				       'config C\n\thelp\n\t  c\n\n\t  d\n'),
				 ['if A\nconfig B\n\tbool\nendif\n', 'config C\n\thelp\n\t  c\n\n\t  d\n'])

	def test_a_line_that_hooks_in_two_suites_is_refused(self) -> None:
		change = hooks.FileChange('arch/arm64/kernel/Makefile', b'', None, [hooks.Hunk(
			0, 0, *hooks.split_run('arch/arm64/kernel/Makefile', [
				b'obj-$(CONFIG_X) += cpucap_passes_kunit.o cpucap_table_kunit.o\n']))])
		hooks.assign([change], self.suites, self.symbols)
		with self.assertRaisesRegex(Error, r'x.patch: one change to arch/arm64/kernel/Makefile '
					    'hooks in both arm64_cpucap_passes and arm64_cpucap_table'):
			hooks.hooked([change], 'x.patch', set(self.suites))

def hooks_lines(text: str) -> List[str]:
	return [l + '\n' for l in text.split('\n')[:-1]]


if __name__ == '__main__':
	unittest.main()
