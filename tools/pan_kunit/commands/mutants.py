# SPDX-License-Identifier: GPL-2.0
#
# `pan-kunit mutants`: each known regression of mutants/VERSION/ (a patch whose
# header names the suites that must catch it, "Must-Fail: SUITE[, SUITE]")
# applied alone on the prepared tree in the worktree, built and booted.
# A mutant is killed when each of its suites that has landed fails a case
# (or the kernel crashes or hangs), survives when one does not, and is
# pending while none of its suites has landed.  An optional "Kill-On:
# CONFIG[, CONFIG]" names the QEMU configs it is written to die on: their
# kconfig group is built first.  A survivor of the PAN fault path is then
# judged by LKDTM's boots (mutants_lkdtm.py).

import difflib
import hashlib
import os
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple, TypeVar

from pan_kunit import Error, StrEnum
from pan_kunit.commands import mutants_lkdtm, steps
from pan_kunit.commands.boot_request import ReportRequest
from pan_kunit.commands.session import Session
from pan_kunit.commands.steps import BROKEN, Checker, Step, abbreviate, failed_cases
from pan_kunit.host import files, progress, summary
from pan_kunit.host.files import JsonObj
from pan_kunit.host.printer import Printer
from pan_kunit.kunit_tool.configs import QemuConfig
from pan_kunit.results import config_result, junit, kselftest_rows, terminal
from pan_kunit.trees import tree, worktree
from pan_kunit.trees.kernels import KernelSpec
from pan_kunit.trees.targets import Target
from pan_kunit.trees.tree import state_dir

# kunit.py exec's --timeout for a mutant: a mutant may hang the boot,
# and a healthy boot of the matrix takes seconds.
TIMEOUT = 120
# The files of the tree that headers are generated from.
HEADER_SOURCES = ('arch/arm64/tools/sysreg', 'arch/arm64/tools/cpucaps')

class MutantVerdict(StrEnum):
	"""What the check of a mutant found, as its row and its JSON say."""
	KILLED = 'killed'
	SURVIVED = 'survived'
	PENDING = 'pending'
	DOES_NOT_APPLY = 'does not apply'
	NOT_APPLICABLE = 'not applicable'  # in a tree of the user's: its text is not their code
	BUILD_FAILED = 'build failed'
	# Its objects are those of the tree without it (trivial compiler
	# equivalence): no test can tell them apart, and none need try.
	EQUIVALENT = 'equivalent'

class HeaderMutants(StrEnum):
	"""Which mutants to check by whether they change a header, each a
	build from scratch (Mutant.of_header()): CI leaves them out, and a
	run of its own, outside CI, takes them alone."""
	WITH = 'with'
	WITHOUT = 'without'    # --no-header-mutants
	ONLY = 'only'          # --only-header-mutants

	def wants(self, of_header: bool) -> bool:
		return (self == HeaderMutants.WITH or
			of_header == (self == HeaderMutants.ONLY))

	def option(self) -> str:
		return {HeaderMutants.WITH: '', HeaderMutants.WITHOUT: '--no-header-mutants',
			HeaderMutants.ONLY: '--only-header-mutants'}[self]

@dataclass
class MutantsRequest(ReportRequest):
	"""What `mutants` is asked."""
	only: List[str]        # the mutants to check, by name; none: all
	headers: HeaderMutants = HeaderMutants.WITH  # by whether they change one
	generate: bool = False  # generated ones (score.py), not mutants/'s
	sample: Optional[int] = None  # check this many, drawn with seed; None: all
	seed: int = 1

T = TypeVar('T')

# A Must-Fail: of generated mutants (mutagen.py): any suite, any case.
ANY_SUITE = '*'

_HEADER = re.compile(r'^([A-Za-z][A-Za-z-]*):[ \t]*(.*?)\s*$')
_DIFF_FILE = re.compile(r'^diff --git a/(\S+) b/')
# A plain diff (diff -u, no "diff --git" line) names its file here.
_NEW_FILE = re.compile(r'^\+\+\+ b/(\S+)')

@dataclass
class Mutant:
	path: str
	name: str              # the file name without .patch
	subject: str
	must_fail: List[str]   # suites
	verdict: Optional[MutantVerdict] = None   # until it is checked
	detail: str = ''
	failures: Dict[str, List[str]] = field(default_factory=dict)  # config -> cases
	elapsed: float = 0.0
	logs: Optional[str] = None   # when it was built: as Step.logs
	files: List[str] = field(default_factory=list)  # what its diff changes
	kill_on: List[str] = field(default_factory=list)  # configs whose group goes first
	# "Boots: N": how many times a group that lets it survive is booted
	# again, for a regression whose effect depends on timing.
	boots: int = 1
	# What LKDTM's boots found, when they judged it (mutants_lkdtm.py).
	lkdtm: str = ''

	def pending_suites(self, landed: Set[str]) -> List[str]:
		"""Its Must-Fail: suites that have not landed (none for ANY_SUITE)."""
		return [s for s in self.must_fail if s not in landed and s != ANY_SUITE]

	def ok(self) -> bool:
		"""A written mutant whose object code is the tree's proves
		nothing: it fails; a generated one is left out of the score."""
		return self.verdict in (MutantVerdict.KILLED, MutantVerdict.PENDING,
					MutantVerdict.NOT_APPLICABLE) or (
			self.verdict == MutantVerdict.EQUIVALENT and self.must_fail == [ANY_SUITE])

	def objects(self) -> List[str]:
		"""The objects its diff changes, relative to a build directory;
		none when it changes anything but a .c file."""
		if not self.files or not all(f.endswith('.c') for f in self.files):
			return []
		return [f[:-len('.c')] + '.o' for f in self.files]

	def of_header(self) -> bool:
		"""Whether it changes a header, or a file headers are generated
		from (arch/arm64/tools/sysreg gives <asm/sysreg-defs.h>, cpucaps
		<asm/cpucap-defs.h>): nearly every object includes
		<asm/cpufeature.h>, <asm/uaccess.h> or <asm/alternative-macros.h>,
		so its build is a build from scratch (minutes, not seconds)."""
		return any(f.endswith('.h') or f in HEADER_SOURCES for f in self.files)

	def to_json(self) -> JsonObj:
		return {'name': self.name, 'path': self.path, 'subject': self.subject,
			'must_fail': self.must_fail, 'verdict': self.verdict, 'detail': self.detail,
			'failed_cases': self.failures, 'elapsed': round(self.elapsed, 1),
			'logs': self.logs, 'files': self.files, 'lkdtm': self.lkdtm}

	@classmethod
	def of_json(cls, data: JsonObj) -> 'Mutant':
		"""The mutant of its record (to_json()), on any machine."""
		return cls(data['path'], data['name'], data['subject'], list(data['must_fail']),
			   MutantVerdict(data['verdict']) if data.get('verdict') else None,
			   data.get('detail') or '', dict(data.get('failed_cases') or {}),
			   data.get('elapsed') or 0.0, data.get('logs'), list(data.get('files') or []),
			   lkdtm=data.get('lkdtm') or '')

def baseline_logs(wt: str) -> str:
	return state_dir(wt, 'baseline')

def mutant_logs(wt: str, mutant: Mutant) -> str:
	return state_dir(wt, 'mutants', mutant.name)

def load_mutant(path: str) -> Mutant:
	headers: Dict[str, str] = {}
	files: List[str] = []
	try:
		with open(path, errors='backslashreplace') as f:
			in_header = True
			for line in f:
				if line.startswith(('---', 'diff --git')):
					in_header = False
				diff = _DIFF_FILE.match(line) or _NEW_FILE.match(line)
				if diff and diff.group(1) not in files:
					files.append(diff.group(1))
				match = _HEADER.match(line)
				if in_header and match and not line[0].isspace():
					headers.setdefault(match.group(1).lower(), match.group(2))
	except OSError as e:
		raise Error(f'cannot read {path}: {e.strerror}')
	must_fail = [s.strip() for s in headers.get('must-fail', '').split(',') if s.strip()]
	kill_on = [s.strip() for s in headers.get('kill-on', '').split(',') if s.strip()]
	boots_text = headers.get('boots', '1').split()[0] if headers.get('boots') else '1'
	if not boots_text.isdigit() or not 1 <= int(boots_text) <= 5:
		raise Error(f'{path}: "Boots: {headers.get("boots")}": a number of boots, 1 to 5, '
			    'then why')
	if not headers.get('subject') or not must_fail:
		raise Error(f'{path}: a mutant needs "Subject:" and "Must-Fail: SUITE[, SUITE]" '
			    'lines above its diff')
	if not files:
		# What it changes decides whether it is a header mutant (a build
		# from scratch, left out by --no-header-mutants) and which
		# objects the equivalence check compares.
		raise Error(f'{path}: no file changed: a mutant needs a diff ("diff --git a/PATH '
			    'b/PATH" or "+++ b/PATH" lines)')
	name = os.path.basename(path)
	return Mutant(path=path, name=name[:-len('.patch')] if name.endswith('.patch') else name,
		      subject=headers['subject'], must_fail=must_fail, files=files,
		      kill_on=kill_on, boots=int(boots_text))

def names(directory: str) -> List[str]:
	"""The names of the mutants in @directory (NAME of NAME.patch)."""
	try:
		return sorted(n[:-len('.patch')] for n in os.listdir(directory) if n.endswith('.patch'))
	except OSError as e:
		raise Error(f'cannot list the mutants in {directory}: {e.strerror}')

def load(directory: str, only: List[str]) -> List[Mutant]:
	mutants = [load_mutant(os.path.join(directory, n + '.patch')) for n in names(directory)]
	unknown = sorted(set(only) - {m.name for m in mutants})
	if unknown:
		raise Error(f'unknown --only {", ".join(unknown)}; the mutants in {directory} are: '
			    f'{", ".join(m.name for m in mutants)}')
	return [m for m in mutants if not only or m.name in only]

def judge(mutant: Mutant, configs: List[config_result.ConfigResult], landed: Set[str]) -> None:
	"""Killed when every landed Must-Fail suite has a failing case (on
	some config), or when the kernel crashed or hung."""
	mutant.failures = {r.name: failed_cases(r) for r in configs if failed_cases(r)}
	broken = [f'{r.name}: {r.status}' for r in configs if r.status in BROKEN]
	failed_suites = {kselftest_rows.suite_of(c) for cases in mutant.failures.values() for c in cases}
	if mutant.must_fail == [ANY_SUITE]:
		wanted = sorted(failed_suites)
		missed = [] if failed_suites else ['any suite']
	else:
		wanted = [s for s in mutant.must_fail if s in landed]
		missed = [s for s in wanted if s not in failed_suites]
	caught = {config: [c for c in cases if kselftest_rows.suite_of(c) in wanted]
		  for config, cases in mutant.failures.items()}
	failed = [f'{config}: {len(cases)} failed: {abbreviate(cases)}'
		  for config, cases in sorted(caught.items()) if cases]
	if any(r.status == config_result.Status.BUILD_ERROR for r in configs):
		mutant.verdict, mutant.detail = MutantVerdict.BUILD_FAILED, '; '.join(broken)
	elif broken:
		# The cases that failed before the kernel crashed or hung, if any.
		mutant.verdict = MutantVerdict.KILLED
		mutant.detail = '; '.join(failed + ['then ' + b for b in broken] if failed else broken)
	elif not missed:
		mutant.verdict = MutantVerdict.KILLED
		mutant.detail = '; '.join(failed)
	else:
		mutant.verdict = MutantVerdict.SURVIVED
		others = sorted({c for cases in mutant.failures.values() for c in cases})
		mutant.detail = ('no case of ' + ', '.join(missed) + ' failed' +
				 (f'; failed: {abbreviate(others)}' if others else ''))
	pending = mutant.pending_suites(landed)
	if pending:
		mutant.detail += f' (not landed yet: {", ".join(pending)})'

def check_kill_on(mutant: Mutant, config_names: List[str]) -> None:
	"""Refuses a Kill-On: that names no QEMU config of the repo."""
	unknown = [c for c in mutant.kill_on if c not in config_names]
	if unknown:
		raise Error(f'{mutant.path}: Kill-On: names {", ".join(unknown)}, which is no QEMU '
			    f'config; the configs are: {", ".join(config_names)}')

def group_order(groups: List[List[QemuConfig]], mutant: Mutant) -> List[List[QemuConfig]]:
	"""@groups (largest first), those of the mutant's Kill-On: configs
	before the others."""
	return sorted(groups, key=lambda group: not any(c.name in mutant.kill_on for c in group))

def object_hashes(build_dirs: Sequence[str], objects: Sequence[str]) -> Dict[str, str]:
	"""The sha256 of each of @objects in each of @build_dirs that has it,
	by path."""
	found = {}
	for build_dir in build_dirs:
		for obj in objects:
			path = os.path.join(build_dir, obj)
			try:
				with open(path, 'rb') as f:
					found[path] = hashlib.sha256(f.read()).hexdigest()
			except OSError:
				pass
	return found

def same_objects(mutant: Mutant, before: Dict[str, str], build_dirs: Sequence[str]) -> str:
	"""The objects of @mutant, built in @build_dirs, when each is the one
	the tree built without it (@before); '' when any differs or is not
	known."""
	objects = mutant.objects()
	now = object_hashes(build_dirs, objects)
	if not objects or not now or any(before.get(path) != digest for path, digest in now.items()):
		return ''
	return ', '.join(sorted(objects))

def judge_by_groups(checker: Checker, wt: str, mutant: Mutant, number: int,
		    landed: Set[str], before: Optional[Dict[str, str]]=None,
		    lkdtm: Optional[mutants_lkdtm.Baseline]=None) -> float:
	"""Builds and boots one kconfig group after the other, the group of
	a Kill-On: config first, else the largest, and stops at the first that
	kills the mutant: a mutant of a widely included header then rebuilds
	one kernel, not every group's, and one that only a config of another
	group can kill costs no build of the first.  A mutant that survives
	has been judged on the whole matrix.  Returns the seconds the steps
	took."""
	results_so_far: List[config_result.ConfigResult] = []
	elapsed = 0.0
	mutant.logs = mutant_logs(wt, mutant)
	# The same objects in every group's build: a change a configuration
	# compiles away (a branch under IS_ENABLED(CONFIG_...)) is not
	# equivalent while another group's build keeps it.
	same_in_all = bool(before)
	for index, group in enumerate(group_order(checker.groups(), mutant)):
		for boot in range(1, mutant.boots + 1):
			step = Step(number, None)
			checker.run_step(wt, step, mutant.logs, group, fresh=index == 0 and boot == 1)
			elapsed += step.elapsed
			judge(mutant, results_so_far + step.configs, landed)
			same = before and same_objects(mutant, before, checker.build_dirs(wt, group))
			same_in_all = same_in_all and bool(same)
			if mutant.verdict != MutantVerdict.SURVIVED or same:
				break
		results_so_far.extend(step.configs)
		if mutant.boots > 1:
			mutant.detail += (f' (boot {boot} of up to {mutant.boots})'
					  if mutant.verdict != MutantVerdict.SURVIVED else
					  f' (in none of {mutant.boots} boots)')
		if mutant.verdict != MutantVerdict.SURVIVED:
			break
	if same_in_all and mutant.verdict == MutantVerdict.SURVIVED:
		mutant.verdict = MutantVerdict.EQUIVALENT
		mutant.detail = (f'{", ".join(mutant.objects())}: the same object code as without it, '
				 'in every kconfig group')
		return elapsed
	booted = {r.name for r in results_so_far}
	unbooted = [c.name for c in checker.matrix if c.name not in booted]
	if unbooted:
		mutant.detail += f' ({", ".join(unbooted)}: not needed, not built)'
	if lkdtm and mutant.verdict == MutantVerdict.SURVIVED and mutants_lkdtm.touches(mutant.files):
		elapsed += judge_by_lkdtm(checker, wt, mutant, lkdtm)
	return elapsed

def judge_by_lkdtm(checker: Checker, wt: str, mutant: Mutant,
		   base: mutants_lkdtm.Baseline) -> float:
	"""Boots LKDTM on the kernels of @mutant, which survived every
	suite: killed when a boot that was ok on the baseline (@base) is not.
	Returns the seconds the boots took."""
	start = time.monotonic()
	assert mutant.logs is not None
	verdicts = mutants_lkdtm.boot_step(checker, wt, mutant.logs, base.cpio)
	killed = mutants_lkdtm.killed_on(base, verdicts)
	if killed:
		mutant.verdict = MutantVerdict.KILLED
		mutant.detail = f'LKDTM: {"; ".join(killed)} (KUnit: {mutant.detail})'
		mutant.lkdtm = ('survived KUnit; LKDTM: killed on ' +
				', '.join(k.split(':')[0] for k in killed))
	else:
		mutant.detail += f'; LKDTM: {len(base.ok)} boots ok'
		mutant.lkdtm = f'LKDTM: {len(base.ok)} boots ok'
	return time.monotonic() - start

def kselftest_collections(found: Sequence[Mutant]) -> List[str]:
	"""The kselftest collections the Must-Fail: of @found name."""
	return sorted({s[len(kselftest_rows.PREFIX):] for m in found for s in m.must_fail
		       if kselftest_rows.is_kselftest(s)})

def kselftests_of(mutant: Mutant, init: Optional[str]) -> Tuple[Optional[str], List[str]]:
	"""What a mutant's step boots of the kselftests: the init (@init, the
	baseline's) and the collections its Must-Fail: names; none when it
	names none, as a mutant is judged by its suites alone."""
	own = kselftest_collections([mutant])
	return (init if own else None), own

def run(checker: Checker, mutants: List[Mutant], own_tree: bool=False) -> Step:
	"""Checks the prepared tree (the baseline, which must pass), then each
	mutant applied alone on it.  Returns the baseline.  In a tree of the
	user's own (@own_tree), a mutant that does not apply is of code their
	tree does not hold: not applicable, not a failure."""
	shown = checker.progress
	# The baseline boots every collection a mutant names; each mutant's
	# step those it names (kselftests_of()).
	baseline_init, baseline_only = checker.kselftest_init, checker.kselftest_only
	wt = worktree.checkout(shown.printer, checker.tree, tree.PREPARED_REF)
	baseline = Step(0, None)
	shown.task('baseline (the prepared tree)')
	shown.printer.print('baseline (the prepared tree): building and booting '
			    f'{len(checker.matrix)} configs, which must pass before any mutant is '
			    'judged ...')
	checker.run_step(wt, baseline, baseline_logs(wt))
	shown.printer.print(f'baseline (the prepared tree): {baseline.verdict()} '
			    f'({baseline.elapsed:.1f} s; logs: {baseline.logs})')
	not_passing = [f'{r.name}: {r.status}' for r in baseline.configs
		       if r.status != config_result.Status.PASS]
	if not_passing:
		terminal.print_report(shown.printer, baseline.configs)
		raise Error('the baseline does not pass (' + ', '.join(not_passing) + '); a mutant '
			    'is only killed by a suite that passes without it')
	landed = set().union(*[set(r.suites()) for r in baseline.configs])
	before = object_hashes(checker.build_dirs(wt, checker.matrix),
			       sorted({o for m in mutants for o in m.objects()}))
	# The baseline, and the mutants that are not pending, build and boot.
	checked = [m for m in mutants if len(m.pending_suites(landed)) < len(m.must_fail)]
	lkdtm = mutants_lkdtm.baseline(checker, wt, baseline_logs(wt), [m.files for m in checked])
	eta = progress.Eta(1 + len(checked))
	eta.done(baseline.elapsed + (lkdtm.elapsed if lkdtm else 0.0))
	for number, mutant in enumerate(mutants, 1):
		start = time.monotonic()
		pending = mutant.pending_suites(landed)
		if len(pending) == len(mutant.must_fail):
			mutant.verdict = MutantVerdict.PENDING
			mutant.detail = f'not landed yet: {", ".join(pending)}'
		else:
			worktree.reset(wt, tree.PREPARED_REF)
			result = tree.git(wt, 'apply', mutant.path, check=False)
			if result.returncode != 0:
				mutant.verdict = (MutantVerdict.NOT_APPLICABLE if own_tree else
						  MutantVerdict.DOES_NOT_APPLY)
				mutant.detail = ('its code is not in your tree: ' if own_tree else '') + \
					result.stderr.strip()
				eta.skip()
			else:
				shown.task(f'mutant {number}/{len(mutants)} {mutant.name}', eta.text())
				checker.kselftest_init, checker.kselftest_only = kselftests_of(
					mutant, baseline_init)
				elapsed = judge_by_groups(checker, wt, mutant, number, landed, before,
							  lkdtm)
				eta.done(elapsed)
		mutant.elapsed = time.monotonic() - start
		left = eta.text()
		logs = f'; logs: {mutant.logs}' if mutant.logs else ''
		judged_by = f'; {mutant.lkdtm}' if mutant.lkdtm else ''
		shown.printer.print(f'mutant {number}/{len(mutants)} {mutant.name}: '
				    f'{mutant.verdict}{judged_by} ({mutant.elapsed:.1f} s{logs})' +
				    (f'; {left}' if left else ''))
	shown.task('')
	checker.kselftest_init, checker.kselftest_only = baseline_init, baseline_only
	worktree.reset(wt, tree.PREPARED_REF)
	return baseline

def of_kernel(printer: Printer, request: MutantsRequest, kernel: KernelSpec, repo: str,
	      kernel_list: Sequence[KernelSpec]) -> List[Mutant]:
	"""@kernel's mutants (mutants/VERSION/), or those of --only that it
	has; a name of --only is refused when no kernel of @kernel_list has it."""
	directory = os.path.join(repo, kernel.mutants_dir())
	if not request.only:
		return _sampled(printer, request, kernel, _headers_left_out(printer, request, kernel,
								 load(directory, [])))
	known = {k.name: names(os.path.join(repo, k.mutants_dir())) for k in kernel_list}
	unknown = sorted(set(request.only) - {n for found in known.values() for n in found})
	if unknown:
		every = sorted({n for found in known.values() for n in found})
		hints = []
		for name in unknown:
			close = difflib.get_close_matches(name, every, n=3, cutoff=0.5)
			hints.append(f'--only {name}: no such mutant' +
				     (f'; did you mean {" or ".join(close)}?' if close else ''))
		raise Error('; '.join(hints) + ' (tools/pan-kunit list names every mutant of ' +
			    ', '.join(os.path.join(repo, 'mutants', k) for k in known) + ')')
	here = [n for n in request.only if n in names(directory)]
	return _headers_left_out(printer, request, kernel, load(directory, here) if here else [])

def draw(items: Sequence[T], size: Optional[int], seed: int,
	 order: Callable[[T], Any]) -> List[T]:
	"""A seeded random sample of @size of @items, in @order; all of them,
	as they are, if @size is None or not below their number. The same
	@items, @size and @seed draw the same sample."""
	if size is None or size >= len(items):
		return list(items)
	return sorted(random.Random(seed).sample(list(items), size), key=order)

def _sampled(printer: Printer, request: MutantsRequest, kernel: KernelSpec,
	     found: List[Mutant]) -> List[Mutant]:
	"""@found, or a seeded random sample of --sample N of them, by name."""
	if request.sample is None or request.sample >= len(found):
		return found
	by_name: Callable[[Mutant], str] = lambda m: m.name
	chosen = draw(sorted(found, key=by_name), request.sample, request.seed, by_name)
	printer.print(f'mutants of {kernel.name}: checking {len(chosen)} of {len(found)}, drawn with '
		      f'seed {request.seed} (--sample {request.sample} --seed {request.seed}); '
		      'without --sample, all')
	return chosen

def _headers_left_out(printer: Printer, request: MutantsRequest, kernel: KernelSpec,
		      found: List[Mutant]) -> List[Mutant]:
	"""@found, less the mutants of headers with --no-header-mutants, or
	the others with --only-header-mutants."""
	left_out = [m.name for m in found if not request.headers.wants(m.of_header())]
	if left_out:
		printer.print(f'mutants of {kernel.name}: left out, as they change ' +
			      ('a header' if request.headers == HeaderMutants.WITHOUT else 'no header') +
			      f' ({request.headers.option()}): {", ".join(left_out)}')
	return [m for m in found if request.headers.wants(m.of_header())]
