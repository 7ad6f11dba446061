# SPDX-License-Identifier: GPL-2.0
#
# The mutation score of the suites: `mutants --generate` generates mutants
# of the functions under test (mutagen.py), judges a seeded sample of them
# like the written ones (mutants.run()), and reports the score per
# function and per kernel with its 95% interval, and every survivor as a
# diff to triage: an equivalent mutant (claimed in mutants/VERSION/
# equivalent, with the reason) or a gap of the suites.

import dataclasses
import glob
import json
import os
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Set, Tuple

from pan_kunit import Error
from pan_kunit.commands import coverage, lcov, mutagen, mutants, mutants_report, sharding, steps
from pan_kunit.commands.boot_request import ReportRequest, write_reports
from pan_kunit.commands.mutants import HeaderMutants, MutantsRequest
from pan_kunit.commands.session import Session
from pan_kunit.commands.sharding import Sharding
from pan_kunit.commands.steps import Checker, Step
from pan_kunit.host import files, proc, summary
from pan_kunit.host.files import JsonObj
from pan_kunit.host.printer import Printer
from pan_kunit.matrix import cost
from pan_kunit.matrix.shard import Unit
from pan_kunit.results import junit, terminal
from pan_kunit.trees import worktree
from pan_kunit.trees.targets import Target
from pan_kunit.trees.tree import PREPARED_REF, state_dir

# The sample when --sample is not given: enough for a 95% interval of
# about +-6 points around 90%.
DEFAULT_SAMPLE = 100
# The score the suites are held to.
GOAL = 90.0
# The most survivors printed as diffs; the rest are in the JSON.
MAX_SHOWN = 20

@dataclass
class Score:
	killed: int
	survived: int
	dropped: int            # did not build: never counted
	equivalent: int = 0     # the same object code as the tree's: never counted

	def percent(self) -> float:
		judged = self.killed + self.survived
		return 100.0 * self.killed / judged if judged else 0.0

	def text(self) -> str:
		judged = self.killed + self.survived
		low, high = mutagen.wilson(self.killed, judged)
		return (f'{self.killed}/{judged} killed, {self.percent():.1f}% (95% interval '
			f'{low:.1f}-{high:.1f}%)' + (f', {self.dropped} did not build' if self.dropped else '')
			+ (f', {self.equivalent} equivalent (the same object code)'
			   if self.equivalent else ''))

# The kernel's own generator of compile_commands.json, from the .cmd files
# of a build directory.
GEN_COMPILE_COMMANDS = os.path.join('scripts', 'clang-tools', 'gen_compile_commands.py')

def _write_compile_commands(tree: str, build_dir: str) -> None:
	"""compile_commands.json in @build_dir, written by the tree's own
	scripts/clang-tools/gen_compile_commands.py: kunit.py's build makes it
	itself from 6.3 on, 6.1's does not."""
	out = os.path.join(build_dir, 'compile_commands.json')
	result = proc.run([sys.executable, os.path.join(tree, GEN_COMPILE_COMMANDS),
			   '-d', build_dir, '-o', out], cwd=tree, stderr=proc.To.MERGED)
	if result.returncode:
		raise Error(f'{GEN_COMPILE_COMMANDS} -d {build_dir} failed: '
			    f'{result.stdout.strip()[-500:]}')

def compile_commands(tree: str) -> Dict[str, Dict[str, object]]:
	"""The compile commands of the tree's builds (kunit.py's build writes
	compile_commands.json into each; where it did not, the kernel's
	generator does), by source's real path."""
	found: Dict[str, Dict[str, object]] = {}
	for vmlinux in sorted(glob.glob(state_dir(tree, 'build', '*', 'vmlinux'))):
		build_dir = os.path.dirname(vmlinux)
		if not os.path.exists(os.path.join(build_dir, 'compile_commands.json')):
			_write_compile_commands(tree, build_dir)
	for path in sorted(glob.glob(state_dir(tree, 'build', '*', 'compile_commands.json'))):
		try:
			with open(path) as f:
				entries = json.load(f)
		except (OSError, ValueError):
			continue
		for entry in entries:
			source = os.path.realpath(os.path.join(str(entry.get('directory', '')),
							       str(entry.get('file', ''))))
			found.setdefault(source, entry)
	return found

def reached(tree: str) -> Optional[Dict[str, Set[int]]]:
	"""The lines the suites ran in the tree's last `coverage` run, every
	config merged; None without one."""
	data = coverage.read_suites_only(state_dir(tree, coverage.COVERAGE_DIR), tree)
	return None if data is None else lcov.reached_lines(data)

def write_mutants(tree: str, sites: Sequence[mutagen.Site], seed: int) -> List[mutants.Mutant]:
	out = state_dir(tree, 'generated', f'seed-{seed}')
	os.makedirs(out, exist_ok=True)
	for old in glob.glob(os.path.join(out, '*.patch')):
		os.unlink(old)
	found = []
	for site in sites:
		path = os.path.join(out, site.name() + '.patch')
		with open(path, 'w') as f:
			f.write(mutagen.patch(tree, site))
		found.append(mutants.load_mutant(path))
	return found

def scores(sites: Sequence[mutagen.Site],
	   judged: Sequence[mutants.Mutant]) -> Tuple[Dict[str, Score], Score]:
	"""The score of each function, and of them all."""
	per: Dict[str, Score] = {}
	total = Score(0, 0, 0)
	for site, mutant in zip(sites, judged):
		for score in (per.setdefault(site.function, Score(0, 0, 0)), total):
			if mutant.verdict == mutants.MutantVerdict.KILLED:
				score.killed += 1
			elif mutant.verdict == mutants.MutantVerdict.SURVIVED:
				score.survived += 1
			elif mutant.verdict == mutants.MutantVerdict.EQUIVALENT:
				score.equivalent += 1
			else:
				score.dropped += 1
	return per, total

def print_report(printer: Printer, kernel: str, sites: Sequence[mutagen.Site],
		 judged: Sequence[mutants.Mutant], per: Dict[str, Score], total: Score,
		 diffs: Optional[Dict[str, str]]=None) -> None:
	"""The table of @per, the score, and each survivor's diff: its
	patch's, else (read back from a shard's record) of @diffs, by name."""
	printer.print()
	rows = [['function', 'killed/judged', 'score', 'did not build', 'equivalent']]
	for function, score in sorted(per.items()):
		judged_count = score.killed + score.survived
		rows.append([function, f'{score.killed}/{judged_count}',
			     f'{score.percent():.0f}%' if judged_count else '-', str(score.dropped),
			     str(score.equivalent)])
	for line in terminal.align(rows):
		printer.print(line)
	printer.print(f'mutation score of {kernel}: {total.text()}; the goal is {GOAL:.0f}%'
		      + ('' if total.killed + total.survived >= 30 else
			 ' (a sample this small says little per function)'))
	survivors = [(s, m) for s, m in zip(sites, judged) if m.verdict == mutants.MutantVerdict.SURVIVED]
	for site, mutant in survivors[:MAX_SHOWN]:
		printer.print(f'survived: {site.node()}  ({site.source}:{site.line})')
		diff = (diffs or {}).get(mutant.name) or files.read_text(mutant.path) or ''
		for line in mutagen.iter_lines(diff):
			printer.print('    ' + line)
	if len(survivors) > MAX_SHOWN:
		printer.print(f'... and {len(survivors) - MAX_SHOWN} more survivors (their patches: '
			      f'{os.path.dirname(survivors[0][1].path)})')
	if survivors:
		printer.print('triage each: equivalent (the same object code, or a reason) goes '
			      'into mutants/VERSION/equivalent as "NODE -- REASON"; any other is a gap '
			      'for a case')

@dataclass
class KernelReport:
	"""The generated mutants judged on one kernel: the sites of the
	sample (this shard's), their mutants, the baseline; of a run, or read
	back from a shard's record (of_json())."""
	kernel: str
	tree: str
	seed: int
	baseline: Step
	sites: List[mutagen.Site]
	judged: List[mutants.Mutant]
	elapsed: float
	index: List[int] = dataclasses.field(default_factory=list)  # of each in the whole sample
	source: JsonObj = dataclasses.field(default_factory=dict)
	diffs: Dict[str, str] = dataclasses.field(default_factory=dict)  # read back: survivors'

	def score(self) -> Tuple[Dict[str, Score], Score]:
		return scores(self.sites, self.judged)

	def to_json(self) -> JsonObj:
		_, total = self.score()
		return {'tree': self.tree, 'kernel': self.kernel, 'seed': self.seed,
			'score': {'killed': total.killed, 'survived': total.survived,
				  'did_not_build': total.dropped},
			'baseline': self.baseline.to_json(), 'source': self.source,
			'elapsed': round(self.elapsed, 1),
			'mutants': [dict(m.to_json(), node=s.node(), function=s.function,
					 operator=s.operator, site=dataclasses.asdict(s), index=n,
					 diff=self.diffs.get(m.name) or (files.read_text(m.path) if
						m.verdict == mutants.MutantVerdict.SURVIVED else None))
				    for s, m, n in zip(self.sites, self.judged, self.index)]}

	@classmethod
	def of_json(cls, data: JsonObj) -> 'KernelReport':
		found = data['mutants']
		return cls(data['kernel'], data['tree'], data['seed'],
			   steps.step_of_json(data['baseline']),
			   [mutagen.Site(**m['site']) for m in found],
			   [mutants.Mutant.of_json(m) for m in found], data['elapsed'],
			   [m['index'] for m in found], data['source'],
			   {m['name']: m['diff'] for m in found if m.get('diff')})

	def junit_suites(self, several: bool) -> List[ET.Element]:
		return [junit.checks_suite(f'mutants/{self.kernel}' if several else 'mutants',
					   [mutants_report.junit_check(m) for m in self.judged])]

def run(checker: Checker, repo: str, kernel: str, functions: Sequence[Tuple[str, str]],
	request: MutantsRequest, own_tree: bool=False,
	shard: Optional[Sharding]=None) -> KernelReport:
	"""Generates, samples, judges and reports the mutants of @functions
	on the checker's tree (of the sample, @shard's); its report."""
	tree = checker.tree
	commands = compile_commands(tree)
	if not commands:
		raise Error(f'no build of {tree} has a compile_commands.json yet: run '
			    f'tools/pan-kunit run --kernel {kernel} first')
	lines = reached(tree)
	sites = mutagen.generate(tree, functions, commands, lines)
	claims = mutagen.load_equivalent(os.path.join(repo, 'mutants', kernel, mutagen.EQUIVALENT))
	candidates = [s for s in sites if s.node() not in claims and
		      request.headers.wants(not s.source.endswith('.c'))]
	chosen = mutagen.sample(candidates, request.sample, request.seed)
	in_headers = sum(not s.source.endswith('.c') for s in sites)
	printer = checker.progress.printer
	printer.print(f'generated {len(sites)} mutants of {len(functions)} functions of {kernel} '
		      f'({in_headers} in header inlines' +
		      {HeaderMutants.WITH: '', HeaderMutants.WITHOUT: ', left out',
		       HeaderMutants.ONLY: ', alone checked'}[request.headers] + '; '
		      + ('on the lines the last coverage run reached' if lines is not None else
			 'on every line: no coverage run yet') + f'); {len(sites) - len(candidates)} '
		      f'claimed equivalent or left out; checking {len(chosen)} (seed {request.seed})')
	units = [Unit(f'{kernel}/{s.name()}', cost.mutant_cost(not s.source.endswith('.c')), kernel)
		 for s in chosen]
	mine = {u.key for u in (shard or Sharding()).take(printer, units,
							   f'generated mutants of {kernel}')}
	index = [n for n, s in enumerate(chosen) if f'{kernel}/{s.name()}' in mine]
	chosen = [chosen[n] for n in index]
	start = time.monotonic()
	judged = write_mutants(tree, chosen, request.seed)
	baseline = mutants.run(checker, judged, own_tree=own_tree)
	return KernelReport(kernel, tree, request.seed, baseline, chosen, judged,
			    time.monotonic() - start, index)

def close(printer: Printer, report: KernelReport) -> int:
	"""A kernel's score: its table, the survivors and the tally; its
	exit status."""
	per, total = report.score()
	print_report(printer, report.kernel, report.sites, report.judged, per, total, report.diffs)
	summary.report(printer, summary.Tally('mutants', total.killed, total.survived))
	return 0 if total.percent() >= GOAL else 1

def write_files(request: ReportRequest, reports: List[KernelReport], record: JsonObj) -> None:
	"""The --json and --junit files of @reports, of a run or of a merge."""
	write_reports(request, 'pan-kunit mutants --generate', reports, record)

def run_generated(session: Session, request: MutantsRequest, target: Target, repo: str,
		  reports: Optional[List[KernelReport]]=None) -> int:
	"""mutants --generate: the mutation score of the suites on a kernel
	(of the command's shard of its sample); its report into @reports."""
	assert request.generate
	session.prepare(target, repo, 'mutants')
	with worktree.locked(session.printer, target.tree):
		checker = steps.checker(session, request, target, repo)
		functions = [(f.name, f.source) for f in coverage.FUNCTIONS
			     if not f.kernels or target.kernel.name in f.kernels]
		report = run(checker, repo, target.kernel.name, functions, request,
			     own_tree=target.user is not None, shard=session.sharding)
		report.source = sharding.source(target.tree, PREPARED_REF)
	if reports is not None:
		reports.append(report)
	return close(session.printer, report)
