# SPDX-License-Identifier: GPL-2.0
#
# What a developer reads of a run's results (config_result.ConfigResult and
# the one model of leaves.py) on the terminal: the table of the configs,
# the failed cases with their logs and one line each next to the verdict,
# the skips by reason, the note of uncommitted edits, the totals, and the
# report that strings them together.  The JSON record (record.py) and JUnit
# (junit.py) are the files' renderings.

import os
import re
import shutil
import textwrap
from typing import Dict, List, Optional

from pan_kunit import StrEnum
from pan_kunit.host.files import read_text
from pan_kunit.host.printer import Printer
from pan_kunit.kunit_tool import ktap, ktap_lines
from pan_kunit.kunit_tool.ktap import CaseStatus
from pan_kunit.results.config_result import ConfigResult, Status, several_kernels, totals

# How much of the console print_report() shows for a config that did not pass.
CONSOLE_LOG_LINES = 40
# How many lines of a failed case's own log print_report() shows.
CASE_LOG_LINES = 15
# What print_report() calls a failed leaf, as kunit.py does.
FAILED_WORDS = {CaseStatus.FAIL: 'FAILED', CaseStatus.ERROR: 'CRASHED'}


# The files of a boot, as a record names them, and how print_report() does.
FILE_LABELS = {
	'console': 'console',
	'kunit_json': 'kunit_tool JSON',
	'parsed': 'parsed by kunit_parser',
	'record': 'record',
	'exec_log': 'kunit.py exec',
	'build_log': 'build log',
	'kselftest_console': 'kselftest console',
}


# The width the report keeps to off a terminal (a CI log, a file), so that
# a log reads the same whatever ran it: a terminal of 120 columns.
WIDTH = 120
# What the suites' and configs' names share, left out when the table is too
# wide with it.
PREFIX = 'arm64_'

# The table's row of the suites a console announced and never began (kunit_parser's
# leaves of no name, outside any suite).
NOT_BEGUN = '(suites not begun)'

def width(printer: Printer) -> int:
	"""The width the report keeps to: the terminal's (or $COLUMNS, as
	shutil reads it), else WIDTH."""
	if os.environ.get('COLUMNS') or printer.live:
		return shutil.get_terminal_size((WIDTH, 24)).columns
	return WIDTH

def table(results: List[ConfigResult], columns: int=WIDTH, booted: bool=True) -> List[str]:
	"""A column per config, or per (kernel, config) for several kernels,
	in @columns: as it is if it fits; else the suites and configs named
	without their common PREFIX, the CPU and time of each config in a
	legend under it, and the configs cut into tables of as many as fit.
	Not @booted (a saved console): no CPU and no time."""
	several = several_kernels(results)
	counts = [r.suites() for r in results]
	names = sorted(set().union(*counts))
	full = [['suite (passed/failed/skipped)'] + [r.title(several) for r in results]]
	full += [[NOT_BEGUN if name == ktap.UNNAMED else name] +
		 [c[name].cell() if name in c else '-' for c in counts] for name in names]
	full.append(['status'] + [r.status for r in results])
	full.append(['cpu'] + [r.cpu or '(default)' for r in results])
	full.append(['elapsed (s)'] + ['-' if r.elapsed is None else f'{r.elapsed:.1f}'
				      for r in results])
	if not booted:
		full = full[:-2]
	lines = align(full)
	if max(map(len, lines)) <= columns:
		return lines
	prefixed = [name for name in names if name != ktap.UNNAMED]
	rows = [['suite'] + [_short(r.name, [c.name for c in results], r.title(several))
			     for r in results]]
	kept = full[1:-2] if booted else full[1:]
	rows += [[_short(row[0], prefixed)] + row[1:] for row in kept]
	shortened = rows[0][1:] != full[0][1:] or rows[1:-1] != kept[:-1]
	out = ['passed/failed/skipped' + (f', names without {PREFIX}' if shortened else '') + ':']
	chunk: List[int] = []
	for i in range(1, len(results) + 1):
		if chunk and max(map(len, align([[row[0]] + [row[c] for c in chunk + [i]]
						 for row in rows]))) > columns:
			out += align([[row[0]] + [row[c] for c in chunk] for row in rows]) + ['']
			chunk = []
		chunk.append(i)
	out += align([[row[0]] + [row[c] for c in chunk] for row in rows])
	head = max(len(h) for h in rows[0][1:])
	for column, r in zip(rows[0][1:], results) if booted else []:
		out.append(f'  {column.ljust(head)}  cpu {r.cpu or "(default)"}, ' +
			   ('not booted' if r.elapsed is None else f'{r.elapsed:.1f} s'))
	return out

def _short(name: str, names: List[str], title: str='') -> str:
	"""@name without PREFIX, when every one of @names has it; @title (of
	several kernels: '6.1 arm64_pan') with it left out likewise."""
	title = title or name
	if names and all(n.startswith(PREFIX) for n in names):
		return title.replace(PREFIX, '', 1)
	return title

# How many failed cases print_report() shows with their own log; the
# others are in the list of failed cases after the table.
FULL_LOGS = 3

def print_failed(printer: Printer, result: ConfigResult, logs: int=FULL_LOGS) -> int:
	"""The first @logs failed or crashed leaves, SUITE.CASE[PARAM], with
	the lines of their own log (their EXPECTATION FAILED lines), as
	kunit.py prints them, and where the others' are; how many it showed."""
	# What kunit_parser made up for tests that never reported: shown if
	# it holds the kernel's last words (an oops), else stop_lines() says it.
	failed = [case for case in result.failed_cases()
		  if case.path[-1] != ktap.UNNAMED or case.log]
	for case in failed[:logs]:
		name = case.name() if case.path[-1] != ktap.UNNAMED else (
			f'{case.suite}, the case that never reported' if len(case.path) > 1 else
			'a suite that never began')
		printer.print(f'    [{FAILED_WORDS[case.status]}] {name}')
		for line in case.log[:CASE_LOG_LINES]:
			printer.print('        ' + line)
		if len(case.log) > CASE_LOG_LINES:
			printer.print(f'        ... {len(case.log) - CASE_LOG_LINES} more lines in '
				      f'{result.parsed_log or result.console_log}')
	if len(failed) > max(logs, 0):
		printer.print(f'    ... {len(failed) - max(logs, 0)} more failed cases, listed after the '
			      f'table; their logs: {result.parsed_log or result.console_log}')
	return min(len(failed), max(logs, 0))

def _never_reported(result: ConfigResult) -> Dict[str, int]:
	"""How many leaves of each suite ('': suites) kunit_parser made up for
	tests the console announced and never reported (a crash, a hang)."""
	found: Dict[str, int] = {}
	for case in result.failed_cases():
		if case.path[-1] == ktap.UNNAMED:
			suite = '.'.join(case.path[:-1])
			found[suite] = found.get(suite, 0) + 1
	return found

_FAILED_AT = re.compile(r'(?:EXPECTATION|ASSERTION) FAILED at (\S+)')

def failed_lines(result_list: List[ConfigResult]) -> List[str]:
	"""A line per failed or crashed leaf, and under it the file and
	line of its first failed expectation (never cut: an editor opens it
	from the tree; on a line of its own, so that the case's fits 80
	columns), and per config that did not pass without one: the list
	print_report() puts next to the verdict."""
	several = several_kernels(result_list)
	lines = []
	for result in result_list:
		failed = result.failed_cases()
		for case in failed:
			if case.path[-1] == ktap.UNNAMED:
				continue
			at = next((m.group(1) for m in map(_FAILED_AT.search, case.log) if m), '')
			lines.append(f'    {result.title(several)}: [{FAILED_WORDS[case.status]}] '
				     f'{case.name()}')
			lines += [f'        at {at}'] if at else []
		for suite, count in _never_reported(result).items():
			lines.append(f'    {result.title(several)}: [CRASHED] ' +
				     (f'{suite}: {count} cases never reported' if suite else
				      f'{count} suites never began'))
		if result.status != Status.PASS and not failed:
			lines.append(f'    {result.title(several)}: {result.status}')
	count = sum(not line.startswith('        at ') for line in lines)
	return ['', f'did not pass ({count}):'] + lines if lines else []

def edits_lines(result_list: List[ConfigResult]) -> List[str]:
	"""The note that the kernels were built with uncommitted edits."""
	lines = []
	for kernel in {r.kernel.package: r.kernel for r in result_list if r.kernel.dirty}.values():
		files = list(kernel.edits[:MAX_EDITS]) + (
			[f'{len(kernel.edits) - MAX_EDITS} more'] if len(kernel.edits) > MAX_EDITS else [])
		lines.append(f'note: {kernel.package or "the kernel"} was built with your uncommitted '
			     f'edits' + (f' in {", ".join(files)}' if files else ''))
	return lines

# How many files the note of uncommitted edits names.
MAX_EDITS = 10

class Shown(StrEnum):
	"""What print_report() prints: kunit.py's --summary and --failed."""
	ALL = 'all'          # failures, skips, the table, the totals
	FAILED = 'failed'    # failures, the totals
	SUMMARY = 'summary'  # the totals

def stop_lines(result: ConfigResult, known: Optional[Dict[str, List[str]]]=None) -> List[str]:
	"""Where the kernel of a boot that crashed or hung stopped, and what
	did not run (ktap_lines.stopped(); @known: the suites of the sources)."""
	if result.recorded is not None:
		return list(result.recorded.stopped)
	text = read_text(result.console_log) if result.status in (
		Status.CRASH, Status.TIMEOUT) and result.console_log else None
	stop = ktap_lines.stopped(text, known) if text else None
	return stop.lines() if stop else []

def last_words_lines(result: ConfigResult) -> List[str]:
	"""The kernel's panic line and backtrace of a boot that crashed, or
	that its console holds none (a kernel that died before its console
	started, and before earlycon, says nothing)."""
	if result.status != Status.CRASH or not result.console_log:
		return []
	text = read_text(result.console_log)
	if text is None:
		return []
	words = ktap_lines.last_words(text)
	if not words:
		return ['    the console holds no oops or panic of the kernel: see its last lines']
	return ["    the kernel's last words:"] + ['        ' + line for line in words]

def print_report(printer: Printer, result_list: List[ConfigResult], headed: bool=False,
		 shown: Shown=Shown.ALL, totals: bool=True,
		 known: Optional[Dict[str, List[str]]]=None, booted: bool=True) -> None:
	"""The failures of @result_list, a table of its configs, its skips
	and its total (or less: @shown; no total when the caller closes with
	its own tally): one kernel's, under a line naming it when @headed (run
	reports several kernels one by one), or several kernels' in one
	table.  @known: the suites of the sources, for what a crash did not
	run.  Not @booted (parse's saved console): no CPU, no time, no --json."""
	if headed and result_list and not several_kernels(result_list):
		kernel = result_list[0].kernel
		printer.print(f'=== {kernel.package or "?"} {kernel.package_version or kernel.version}')
	several = several_kernels(result_list)
	logs = FULL_LOGS
	for result in result_list if shown != Shown.SUMMARY else []:
		if result.status != Status.PASS:
			printer.print(f'{result.title(several)}: {result.status}')
			for line in stop_lines(result, known):
				printer.print(line)
			logs -= print_failed(printer, result, logs)
			for line in last_words_lines(result):
				printer.print(line)
			# A failed case says why; a crash, a hang or no tests at all, the console.
			if result.status not in (Status.FAIL, Status.BUILD_ERROR):
				log, title = ((result.console_log, 'console')
					      if result.has_log(result.console_log) else
					      (result.exec_log, 'kunit.py exec'))
				print_tail(printer, title, log, CONSOLE_LOG_LINES,
					   result.tail(log, CONSOLE_LOG_LINES))
			for key, path in result.files().items():
				if key != 'build_log' or result.status == Status.BUILD_ERROR:
					printer.print(f'    {FILE_LABELS[key]}: {path}')
	if shown == Shown.ALL:
		printer.print()
		columns = width(printer)
		for line in table(result_list, columns, booted):
			printer.print(line)
		for line in skip_lines(result_list, columns, booted):
			printer.print(line)
	# Next to the verdict: what did not pass, one line each, and the edits.
	for line in failed_lines(result_list) if shown != Shown.SUMMARY else []:
		printer.print(line)
	for line in edits_lines(result_list):
		printer.print(line)
	for line in total_lines(result_list) if totals else []:
		printer.print(line)

def skip_lines(result_list: List[ConfigResult], width: int=WIDTH, files: bool=True) -> List[str]:
	"""The skipped cases grouped by reason, most frequent first: a line
	with the count and the reason, then where (config: cases), cut to
	@width; a case alone that does not fit on its config's line has a
	line of its own, whole if it fits, else cut at its start (the end of
	its name, its parameter, is what tells it from the others).  Every case with its reason is in the
	JSON and JUnit files (of a run: @files)."""
	several = several_kernels(result_list)
	by_reason: Dict[str, Dict[str, List[str]]] = {}
	for result in result_list:
		for leaf in result.leaves():
			if leaf.status == CaseStatus.SKIP:
				by_reason.setdefault(leaf.reason or NO_REASON, {}).setdefault(
					result.title(several), []).append(_skip_name(leaf))
	if not by_reason:
		return []
	lines = ['', 'skipped, by reason' +
		 (' (each case with its reason: --json, --junit):' if files else ':')]
	order = sorted(by_reason.items(), key=lambda item: (-sum(map(len, item[1].values())), item[0]))
	for reason, where in order:
		count = sum(len(cases) for cases in where.values())
		lines.append(cut(f'{count:>4}  {reason}', width))
		for config, cases in where.items():
			line = f'        {config}: {", ".join(dict.fromkeys(cases))}'
			if len(line) > width and len(set(cases)) == 1:
				lines += [f'        {config}:', cut_start(f'          {cases[0]}', width)]
			else:
				lines.append(cut(line, width))
	return lines

# The reason of a skip whose SKIP line gives none.
NO_REASON = '(no reason given)'

def _skip_name(leaf: ktap.Case) -> str:
	"""SUITE.CASE[.PARAM]; the skipped parameters 6.1 does not name
	(leaves.py) as one: SUITE.CASE[N unnamed]."""
	unnamed = re.fullmatch(r'\(skipped [0-9]+ of ([0-9]+)\)', leaf.path[-1])
	if unnamed:
		return f'{".".join(leaf.path[:-1])}[{unnamed.group(1)} unnamed]'
	return leaf.key()

def cut(line: str, width: int) -> str:
	return line if len(line) <= width else line[:width - 4] + ' ...'

def cut_start(line: str, width: int) -> str:
	"""@line in @width, its indentation and its end kept."""
	if len(line) <= width:
		return line
	indent = len(line) - len(line.lstrip())
	return line[:indent] + '... ' + line[len(line) - (width - indent - 4):]

def fold(line: str, width: int, sep: str='; ') -> List[str]:
	"""@line in lines of @width at most, losing nothing: broken after each
	@sep that would overflow, the rest indented under its start by four
	more; a part too long alone is wrapped at its spaces."""
	indent = ' ' * (len(line) - len(line.lstrip()) + 4)
	parts = line.split(sep)
	lines = [parts[0]]
	for part in parts[1:]:
		joined = lines[-1] + sep + part
		lines[-1:] = [joined] if len(joined) <= width else [lines[-1] + sep.rstrip(),
								   indent + part]
	folded: List[str] = []
	for text in lines:
		folded += [text] if len(text) <= width else textwrap.wrap(
			text, width, subsequent_indent=indent, break_on_hyphens=False)
	return folded

def align(rows: List[List[str]]) -> List[str]:
	"""The rows as lines, each column padded to its widest cell."""
	widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
	return ['  '.join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
		for row in rows]

def total_line(results: List[ConfigResult]) -> str:
	passed, failed, skipped = totals(results)
	return f'total: {passed} passed, {failed} failed, {skipped} skipped'

def total_lines(results: List[ConfigResult]) -> List[str]:
	"""total_line(), or one per kernel for several: 'total 6.12: ...'."""
	if not several_kernels(results):
		return [total_line(results)]
	packages = list(dict.fromkeys(r.kernel.package for r in results))
	return [total_line([r for r in results if r.kernel.package == p]).replace(
		'total:', f'total {(p or "?")[len("linux-source-"):]}:', 1) for p in packages]

def print_tail(printer: Printer, title: str, path: str, count: int,
	       lines: Optional[List[str]]=None) -> None:
	"""The last @count lines of the log @path (or @lines, those read
	already), under a line that names it."""
	printer.print(f'--- {title}: last {count} lines of {path}')
	for line in (read_text(path) or '').splitlines()[-count:] if lines is None else lines:
		printer.print('    ' + line)
