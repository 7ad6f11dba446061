# SPDX-License-Identifier: GPL-2.0
#
# `merge FILE...`: the --json results of the shards of one request (each a
# `--shard I/N` of run, lkdtm, bisect or mutants, on any machine) become
# the one result of the request: the report, JSON, JUnit, closing tally and
# exit status an unsharded run of it gives.  What each shard's --json says
# of itself (sharding.py) is checked first, and a merge of anything but
# every shard of one request is refused with what is wrong (exit 2):
# shards of different requests (command, kernels, options: --seed ...), of
# different commits of pan-kunit or trees of a kernel, of different
# numbers of shards, a shard given twice or missing, units in no shard or
# in two, a shard whose file lacks the results of one of its units (it
# stopped before the end).
#
# Timings differ from an unsharded run's: a kernel's time is its slowest
# shard's (the wall time of shards run at once).  A line per shard, before
# the reports, says each shard's time and what its builds took from ccache,
# the remote store's hits among them (remote_cache.py).

import json
from dataclasses import dataclass, replace
from typing import Any, Callable, Dict, List, Optional, Set, Tuple, TypeVar

from pan_kunit import Error
from pan_kunit.commands import lkdtm, mutagen, mutants_report, run, score, series_bisect
from pan_kunit.commands.boot_request import ReportRequest
from pan_kunit.commands.mutants import Mutant
from pan_kunit.commands.steps import Step
from pan_kunit.host import files, progress, summary
from pan_kunit.host.files import JsonObj
from pan_kunit.host.printer import Printer
from pan_kunit.kunit_tool import kunit_py
from pan_kunit.matrix import remote_cache, shard
from pan_kunit.results import record, terminal
from pan_kunit.trees import kernels, suites

# What one kernel's merged report is, for _close_each().
R = TypeVar('R')

# The commands whose shards merge (coverage writes no --json).
COMMANDS = ('run', 'lkdtm', 'bisect', 'mutants')

@dataclass
class MergeRequest:
	"""What `merge` is asked: the shards' files, and where its own go."""
	files: List[str]
	json: Optional[str] = None
	junit: Optional[str] = None

@dataclass
class ShardFile:
	"""One shard's --json, as read."""
	path: str
	data: JsonObj
	index: int
	total: int
	units: List[str]

	def name(self) -> str:
		return f'shard {self.index}/{self.total} ({self.path})'

	def command(self) -> str:
		return str(self.data['request'].get('command'))

	def generated(self) -> bool:
		return bool(self.data['request'].get('options', {}).get('generate'))

	def kernels(self) -> List[JsonObj]:
		"""Its report per kernel: a list when it had several kernels, the
		document itself when one, none when the shard had no work."""
		if 'kernels' in self.data:
			return list(self.data['kernels'])
		return [self.data] if 'kernel' in self.data else []

def read(path: str) -> ShardFile:
	"""The shard of @path, refused (Error) when it is no shard's --json."""
	try:
		with open(path) as f:
			data = json.load(f)
	except OSError as e:
		raise Error(f'{path}: cannot read it: {e.strerror}')
	except ValueError as e:
		raise Error(f'{path}: not JSON: {e}')
	if not isinstance(data, dict) or not all(isinstance(data.get(k), dict)
						 for k in ('request', 'work', 'shard')):
		raise Error(f'{path}: not the --json of a command of this pan-kunit (it has no '
			    'request, work and shard): run the shards with --json FILE')
	given = data['shard']
	try:
		return ShardFile(path, data, int(given['index']), int(given['total']),
				 [str(u) for u in given['units']])
	except (KeyError, TypeError, ValueError):
		raise Error(f'{path}: its "shard" names no shard I/N and its units')

def _differs(first: JsonObj, other: JsonObj) -> Optional[str]:
	"""What of the request @other differs from @first, as an option says
	it; None when they are one request."""
	for key in ('command', 'kernels'):
		if first.get(key) != other.get(key):
			return f'{key} {other.get(key)!r}, not {first.get(key)!r}'
	mine, theirs = first.get('options') or {}, other.get('options') or {}
	for key in sorted(set(mine) | set(theirs)):
		if mine.get(key) != theirs.get(key):
			return f'--{key} {theirs.get(key)!r}, not {mine.get(key)!r}'
	return None

def check(found: List[ShardFile]) -> List[ShardFile]:
	"""@found in shard order, when they are every shard of one request;
	else an Error that names what is wrong."""
	if not found:
		raise Error('no file to merge: give the --json FILE of every shard')
	first = found[0]
	if first.command() not in COMMANDS:
		raise Error(f'{first.path}: a result of {first.command()}, whose shards do not merge '
			    f'(merge takes {", ".join(COMMANDS)})')
	for other in found[1:]:
		differs = _differs(first.data['request'], other.data['request'])
		if differs:
			raise Error(f'{other.path} and {first.path} are shards of different requests: '
				    f'{other.path} has {differs}')
		if other.total != first.total:
			raise Error(f'{other.path} is shard {other.index}/{other.total} and {first.path} '
				    f'{first.index}/{first.total}: shards of different splits')
		if (other.data['work'].get('digest'), other.data['work'].get('units')) != (
				first.data['work'].get('digest'), first.data['work'].get('units')):
			raise Error(f'{other.path} and {first.path} split different work lists '
				    f'({other.data["work"].get("units")} and '
				    f'{first.data["work"].get("units")} units): different sources or mutants')
	commits = {f.path: (f.data.get('pan_kunit') or {}).get('commit') for f in found}
	known = {c for c in commits.values() if c}
	if len(known) > 1:
		raise Error('shards of different commits of pan-kunit: ' + ', '.join(
			f'{path} at {(commit or "?")[:12]}' for path, commit in commits.items()))
	_check_sources(found)
	by_index: Dict[int, ShardFile] = {}
	for f in found:
		if f.index in by_index:
			raise Error(f'shard {f.index}/{f.total} given twice: {by_index[f.index].path} '
				    f'and {f.path}')
		by_index[f.index] = f
	missing = [i for i in range(1, first.total + 1) if i not in by_index]
	if missing:
		raise Error(', '.join(f'shard {i}/{first.total}' for i in missing) +
			    f' missing: merge needs all {first.total} (given: ' +
			    ', '.join(f'{i}/{first.total} {by_index[i].path}' for i in sorted(by_index)) +
			    ')')
	ordered = [by_index[i] for i in sorted(by_index)]
	_check_units(ordered)
	return ordered

def _check_sources(found: List[ShardFile]) -> None:
	"""Refuses shards that checked different trees of one kernel: by the
	git trees of the base and the head, which two machines' setups of one
	tarball and series share (their commits differ by the time)."""
	seen: Dict[Tuple[str, str], Tuple[str, Any]] = {}
	for f in found:
		for report in f.kernels():
			source = report.get('source') or {}
			for name in ('base_tree', 'head_tree'):
				value = source.get(name)
				if not value:
					continue
				key = (str(report.get('kernel')), name)
				if key in seen and seen[key][1] != value:
					raise Error(f'kernel {key[0]}: {f.path} checked the tree {value[:12]} '
						    f'and {seen[key][0]} {str(seen[key][1])[:12]} '
						    f'({name[:-len("_tree")]}): shards of different sources')
				seen.setdefault(key, (f.path, value))

def reported(f: ShardFile) -> Set[str]:
	"""The keys of the units whose results @f holds."""
	found: Set[str] = set()
	for report in f.kernels():
		kernel = report.get('kernel')
		if f.command() == 'mutants':
			for m in report.get('mutants') or []:
				name = mutagen.Site(**m['site']).name() if f.generated() else m['name']
				if m.get('verdict'):
					found.add(f'{kernel}/{name}')
			continue
		configs = (report.get('configs') or [] if f.command() != 'bisect' else
			   (report.get('steps') or [{}])[0].get('configs') or [])
		names = {c.get('name') for c in configs}
		for unit in f.units:  # KERNEL/CONFIG+CONFIG: a kconfig group
			of, _, group = unit.partition('/')
			if of == kernel and all(m in names for m in group.split('+')):
				found.add(unit)
	return found

def _check_units(ordered: List[ShardFile]) -> None:
	"""Refuses shards whose units do not partition the request's work, or
	whose file lacks the results of one of its units."""
	keys = [str(k) for k in ordered[0].data['work'].get('keys') or []]
	owner: Dict[str, str] = {}
	for f in ordered:
		for unit in f.units:
			if unit in owner:
				raise Error(f'{unit} is in {owner[unit]} and in {f.name()}: not shards of '
					    'one split')
			owner[unit] = f.name()
	if keys and sorted(owner) != sorted(keys):
		lost = sorted(set(keys) - set(owner))
		raise Error(f'{", ".join(lost[:5]) or "a unit"} of the work is in no shard')
	if shard.digest(list(owner)) != ordered[0].data['work'].get('digest'):
		raise Error('the shards\' units are not the work their files name (its digest)')
	for f in ordered:
		lacking = [u for u in f.units if u not in reported(f)]
		if lacking:
			raise Error(f'{f.name()} holds no result of {", ".join(lacking[:5])}'
				    f'{" ..." if len(lacking) > 5 else ""}: it stopped before the end; '
				    'run that shard again')

def notes(printer: Printer, ordered: List[ShardFile]) -> JsonObj:
	"""A line per shard, its time and its ccache counters, and the line of
	them all; what the merge's --json says of its shards."""
	first = ordered[0]
	request = first.data['request']
	printer.print(f'merge: {len(ordered)} shards of {request["command"]} of '
		      f'{", ".join(request.get("kernels") or [])} ({first.data["work"].get("units")} '
		      'units)')
	for f in ordered:
		printer.print(f'  {f.name()}: {len(f.units)} units, '
			      f'{progress.duration(float(f.data.get("elapsed") or 0.0))}; '
			      f'{remote_cache.line(f.data.get("ccache"))}')
	elapsed = [float(f.data.get('elapsed') or 0.0) for f in ordered]
	cache = remote_cache.total([f.data.get('ccache') for f in ordered])
	printer.print(f'  the slowest shard took {progress.duration(max(elapsed))}, all of them '
		      f'{progress.duration(sum(elapsed))}; {remote_cache.line(cache)}')
	return {'request': request, 'work': first.data['work'],
		'shard': {'index': 1, 'total': 1, 'said_by': 'merge',
			  'units': [u for f in ordered for u in f.units]},
		'pan_kunit': first.data.get('pan_kunit'), 'elapsed': round(max(elapsed), 1),
		'ccache': cache,
		'shards': [{'file': f.path, 'index': f.index, 'total': f.total, 'units': len(f.units),
			    'elapsed': f.data.get('elapsed'), 'ccache': f.data.get('ccache')}
			   for f in ordered]}

def _per_kernel(ordered: List[ShardFile]) -> List[Tuple[str, List[JsonObj]]]:
	"""Each kernel of the request (as --kernel lists them, oldest first)
	that a shard reported, with its shards' reports, in shard order."""
	found = []
	for kernel in ordered[0].data['request'].get('kernels') or []:
		reports = [r for f in ordered for r in f.kernels() if r.get('kernel') == kernel]
		if reports:
			found.append((kernel, reports))
	return found

def _heading(printer: Printer, several: bool, kernel: str, tree: str) -> None:
	"""The line targets.each() heads each kernel's report with."""
	if several:
		spec = kernels.by_name(kernel)
		printer.print(f'=== {spec.package if spec else kernel}: {tree}')

def _run(printer: Printer, request: ReportRequest, repo: str, ordered: List[ShardFile],
	 document: JsonObj) -> int:
	per = _per_kernel(ordered)
	merged = []
	for kernel, reports in per:
		configs = sorted((c for r in reports for c in r.get('configs') or []),
				 key=lambda c: str(c['name']))
		merged.append(dict(reports[0], configs=configs))
	results = [[record.config_result_of(c) for c in r['configs']] for r in merged]
	for kernel_results in reversed(results):  # run reports the newest first
		terminal.print_report(printer, kernel_results, headed=len(per) > 1,
				      totals=False, known=suites.known(repo))
	return run.finish(printer, request, [r for k in results for r in k], len(per) > 1,
			  dict(document, kernels=merged))

def _close_each(printer: Printer, ordered: List[ShardFile],
		combine: Callable[[str, List[JsonObj]], Tuple[R, str]],
		close: Callable[[R], int]) -> Tuple[List[R], int]:
	"""Each kernel's shard reports made one by @combine (from the kernel
	and its reports: the report and its tree), headed as targets.each()
	heads it and closed by @close: the merged reports, oldest kernel
	first, and the worst status."""
	per = _per_kernel(ordered)
	merged: List[R] = []
	status = 0
	for kernel, reports in per:
		report, tree = combine(kernel, reports)
		merged.append(report)
		_heading(printer, len(per) > 1, kernel, tree)
		status = max(status, close(report))
	return merged, status

def _lkdtm(printer: Printer, request: ReportRequest, ordered: List[ShardFile],
	   document: JsonObj) -> int:
	def combine(_kernel: str, reports: List[JsonObj]) -> Tuple[JsonObj, str]:
		report = dict(reports[0], configs=sorted((c for r in reports for c in r['configs']),
							 key=lambda c: str(c['name'])))
		return report, str(report.get('tree') or '')
	def close(report: JsonObj) -> int:
		rows, verdicts = lkdtm.read_report(report)
		return lkdtm.close(printer, rows, verdicts)
	merged, status = _close_each(printer, ordered, combine, close)
	if request.json:
		files.write_json(request.json, dict(document, kernels=merged), '--json')
	return status

def _merge_steps(reports: List[series_bisect.KernelReport]) -> List[Step]:
	"""The steps of the kconfig groups of each shard, as one run's: each
	step with every shard's configs."""
	counts = {len(r.steps) for r in reports}
	if len(counts) > 1:
		raise Error(f'kernel {reports[0].kernel}: the shards checked {sorted(counts)} steps: '
			    'shards of different series')
	merged = []
	for number, first in enumerate(reports[0].steps):
		those = [r.steps[number] for r in reports]
		merged.append(replace(
			first, configs=sorted((c for s in those for c in s.configs), key=lambda c: str(c.name)),
			regressions=[line for s in those for line in s.regressions],
			left_out=sorted({n for s in those for n in s.left_out}),
			elapsed=max(s.elapsed for s in those)))
	return merged

def _bisect(printer: Printer, request: ReportRequest, ordered: List[ShardFile],
	    document: JsonObj) -> int:
	def combine(_kernel: str,
		    reports: List[JsonObj]) -> Tuple[series_bisect.KernelReport, str]:
		found = [series_bisect.KernelReport.of_json(r) for r in reports]
		return replace(found[0], steps=_merge_steps(found),
			       elapsed=max(r.elapsed for r in found)), found[0].tree
	def close(report: series_bisect.KernelReport) -> int:
		done, tally = series_bisect.conclude(printer, report)
		summary.report(printer, tally)
		return done
	merged, status = _close_each(printer, ordered, combine, close)
	series_bisect.write_files(request, merged, document)
	return status

def _written(printer: Printer, request: ReportRequest, ordered: List[ShardFile],
	     document: JsonObj) -> int:
	keys = [str(k) for k in ordered[0].data['work'].get('keys') or []]
	def combine(kernel: str,
		    reports: List[JsonObj]) -> Tuple[mutants_report.KernelReport, str]:
		found = [mutants_report.KernelReport.of_json(r) for r in reports]
		def place(m: Mutant) -> Tuple[int, str]:
			key = f'{kernel}/{m.name}'
			return (keys.index(key) if key in keys else len(keys), m.name)
		return replace(found[0], mutants=sorted((m for r in found for m in r.mutants),
							key=place),
			       elapsed=max(r.elapsed for r in found)), found[0].tree
	merged, status = _close_each(printer, ordered, combine,
				     lambda r: mutants_report.close(printer, r))
	mutants_report.write_files(request, merged, document)
	return status

def _generated(printer: Printer, request: ReportRequest, ordered: List[ShardFile],
	       document: JsonObj) -> int:
	def combine(_kernel: str, reports: List[JsonObj]) -> Tuple[score.KernelReport, str]:
		found = [score.KernelReport.of_json(r) for r in reports]
		rows = sorted(((n, s, m) for r in found for n, s, m in zip(r.index, r.sites, r.judged)),
			      key=lambda row: row[0])
		return replace(found[0], index=[n for n, _, _ in rows], sites=[s for _, s, _ in rows],
			       judged=[m for _, _, m in rows], elapsed=max(r.elapsed for r in found),
			       diffs={k: v for r in found for k, v in r.diffs.items()}), found[0].tree
	merged, status = _close_each(printer, ordered, combine,
				     lambda r: score.close(printer, r))
	score.write_files(request, merged, document)
	return status

def run_merge(printer: Printer, request: MergeRequest, repo: str) -> int:
	"""Checks and merges the shards of @request; the exit status of the
	unsharded run of their request."""
	record.check_destinations(request.json, request.junit)
	ordered = check([read(path) for path in request.files])
	if ordered[0].command() == 'lkdtm' and request.junit:
		raise Error('--junit: lkdtm writes no JUnit, nor does a merge of its shards')
	files_request = ReportRequest(configs=[], timeout=0, jobs=1, options=kunit_py.KunitOptions(),
				      json=request.json, junit=request.junit)
	document = notes(printer, ordered)
	command = ordered[0].command()
	merges: Dict[str, Callable[[], int]] = {
		'run': lambda: _run(printer, files_request, repo, ordered, document),
		'lkdtm': lambda: _lkdtm(printer, files_request, ordered, document),
		'bisect': lambda: _bisect(printer, files_request, ordered, document),
		'mutants': lambda: (_generated if ordered[0].generated() else _written)(
			printer, files_request, ordered, document),
	}
	return merges[command]()
