# SPDX-License-Identifier: GPL-2.0
#
# What a config's boot gave: kunit_tool's JSON (see kunit_json.py) and the
# console log, the status pan-kunit derives from them, and the report over
# all configs.

import dataclasses
import json
import os
import re
import socket
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Tuple

from pan_kunit import Error, StrEnum, ktap, kunit_json, kunit_tool, leaves
from pan_kunit.ktap import CaseStatus
from pan_kunit.printer import Printer
from pan_kunit.tree import Kernel

JsonObj = kunit_json.JsonObj

class Status(StrEnum):
	"""A config's status: what its report line, its record's "status"
	and its JUnit testsuite's property say."""
	BUILD_ERROR = 'build_error'
	TIMEOUT = 'timeout'
	CRASH = 'crash'
	FAIL = 'fail'
	NO_TESTS = 'no_tests'
	PASS = 'pass'

# What a boot writes into its exec dir (plan.Outputs.exec_dir()): kunit_tool's
# console and JSON, what kunit_parser printed for the console, and the
# config's record.
CONSOLE = 'test.log'
KUNIT_JSON = 'kunit.json'
PARSED_LOG = 'parsed.log'
RECORD = 'results.json'
BOOT_FILES = (CONSOLE, KUNIT_JSON, PARSED_LOG, RECORD)

# How much of the console print_report() shows for a config that did not pass.
CONSOLE_LOG_LINES = 40
# Table row of a leaf test case that kunit_tool put outside any suite (its
# placeholder, named '', for a test that never reported).
UNNAMED = ktap.UNNAMED
# The arch every build is for (kunit.py's --arch).
ARCH = kunit_tool.ARCH

# The line kunit_tool's parser starts from (kunit_parser.KTAP_START and
# TAP_START); a console without one has no KTAP results at all.
KTAP_HEADER = re.compile(r'K?TAP version [0-9]+\s*$')

# What the console says beside its KTAP results; the one count of them.
param_skips = leaves.param_skips
skip_reasons = leaves.skip_reasons
Counts = leaves.Counts

def suite_counts(kunit: JsonObj, tallies: Optional[Dict[str, int]]=None) -> Dict[str, Counts]:
	"""Counts per suite of kunit_tool's JSON, with the skipped parameters
	of the console's 6.1 @tallies (param_skips()): see leaves.py."""
	return leaves.suite_counts(leaves.resolve(kunit_json.leaves(kunit), tallies or {}, {}))

@dataclass
class Exit:
	"""How one kunit.py exec ended."""
	returncode: int
	timed_out: bool  # pan-kunit's watchdog killed it
	elapsed: float
	# Of several boots (--run_isolated): the longest one's time.
	longest: Optional[float] = None

	def longest_boot(self) -> float:
		return self.elapsed if self.longest is None else self.longest

	def hit_timeout(self, timeout: int) -> bool:
		"""The watchdog killed it, or kunit.py stopped QEMU at its own
		--timeout, which comes first (for one of several boots: in it)."""
		return self.timed_out or self.longest_boot() >= timeout

def classify(kunit: Optional[JsonObj], console: Optional[str],
	     outcome: Exit, timeout: int) -> Status:
	"""The status of a config that was built, from its exec."""
	if outcome.hit_timeout(timeout):
		return Status.TIMEOUT
	if kunit is None or console is None or not any(
			KTAP_HEADER.search(line) for line in console.splitlines()):
		return Status.CRASH
	counts = Counts()
	for suite in suite_counts(kunit).values():
		counts.merge(suite)
	if counts.errors:
		return Status.CRASH
	# kunit.py exits 1 for zero tests too, so this comes before its exit code.
	if counts.total() == 0:
		return Status.NO_TESTS
	if counts.failed:
		return Status.FAIL
	if outcome.returncode != 0:
		return Status.CRASH
	return Status.PASS

def read_json(path: str) -> Optional[JsonObj]:
	try:
		with open(path) as f:
			data = json.load(f)
	except (OSError, ValueError):
		return None
	return data if isinstance(data, dict) else None

def read_text(path: str) -> Optional[str]:
	try:
		with open(path, errors='backslashreplace') as f:
			return f.read()
	except OSError:
		return None

def print_tail(printer: Printer, title: str, path: str, count: int) -> None:
	printer.print(f'--- {title}: last {count} lines of {path}')
	for line in (read_text(path) or '').splitlines()[-count:]:
		printer.print('    ' + line)

def _unknown_kernel() -> Kernel:
	return Kernel(version='', package=None, package_version=None, commit='', branch=None)

@dataclass
class ConfigResult:
	name: str
	cpu: str
	qemu_config: str
	build_dir: str
	status: Status
	elapsed: Optional[float]        # of kunit.py exec; None if not built
	skip_reasons: Dict[str, str]
	kunit: Optional[JsonObj]
	console_log: str                # kunit_tool's test.log
	exec_log: str                   # what kunit.py exec printed
	kconfig: str = ''               # the QEMU config's (QemuConfig.kconfig)
	kernel: Kernel = field(default_factory=_unknown_kernel)
	# The leaf cases, parsed from the console by the tree's kunit_parser.
	cases: List[ktap.Case] = field(default_factory=list)
	kunit_json: str = ''            # kunit_tool's JSON
	parsed_log: str = ''            # what kunit_parser printed for the console
	record: str = ''                # to_json(), written by boots.py
	build_log: str = ''
	# Skipped parameters per SUITE.CASE, from the console (param_skips()).
	param_skips: Dict[str, int] = field(default_factory=dict)

	def leaves(self) -> List[ktap.Case]:
		"""The one model of this boot's results (leaves.py): its leaf
		cases, parsed from the console or else read from kunit_tool's
		JSON, each skip with its reason, 6.1's skipped parameters
		counted."""
		return leaves.resolve(self.cases or kunit_json.leaves(self.kunit),
				      self.param_skips, self.skip_reasons)

	def suites(self) -> Dict[str, Counts]:
		return leaves.suite_counts(self.leaves())

	def title(self, kernels: bool=False) -> str:
		"""The config's name; with @kernels (a report of several), its
		kernel's too: '6.12 arm64_pan'."""
		if not kernels or not self.kernel.package:
			return self.name
		return f'{self.kernel.package[len("linux-source-"):]} {self.name}'

	def totals(self) -> Counts:
		return _total(self.suites())

	def failed_cases(self) -> List[ktap.Case]:
		return [case for case in self.leaves() if case.failed()]

	def files(self) -> Dict[str, str]:
		"""The files of this boot and of its build that exist (only the
		boot itself writes them: see boots.clear_boot()), by FILE_LABELS
		key."""
		paths = {'console': self.console_log, 'kunit_json': self.kunit_json,
			 'parsed': self.parsed_log, 'record': self.record,
			 'exec_log': self.exec_log, 'build_log': self.build_log}
		return {key: path for key, path in paths.items()
			if path and (key == 'record' or os.path.exists(path))}

	def to_json(self) -> JsonObj:
		"""The config's record: kunit_tool's JSON (kunit_json.py), a
		KernelCI test group, with the fields that kunit_tool leaves empty
		or fixes (kernel, git_branch, ...) filled in on every group, and
		pan-kunit's own fields beside them on the top group."""
		common = {'arch': ARCH, 'defconfig': self.name, 'build_environment': self.build_dir,
			  'lab_name': socket.gethostname(), 'kernel': self.kernel.version or None,
			  'job': None, 'git_branch': self.kernel.branch,
			  'git_commit': self.kernel.commit or None, 'git_dirty': self.kernel.dirty}
		found = self.leaves()
		said: Dict[Tuple[str, ...], List[JsonObj]] = {}
		for leaf in found:
			said.setdefault(tuple(leaf.path[:-1]), []).append(
				{'name': leaf.path[-1], 'status': leaf.status})
		record: JsonObj = {'name': self.name,
				   **_kernelci_group(self.kunit or {}, common, said, ())}
		record['name'] = self.name  # kunit_tool's is "KUnit Test Group"
		record.update({
			'status': self.status, 'cpu': self.cpu, 'qemu_config': self.qemu_config,
			'kconfig': self.kconfig.splitlines(),
			'debian_package': self.kernel.package,
			'debian_version': self.kernel.package_version,
			'elapsed': self.elapsed,
			'counts': dataclasses.asdict(_total(leaves.suite_counts(found))),
			'skip_reasons': {leaf.key(): leaf.reason for leaf in found
					 if leaf.status == CaseStatus.SKIP},
			'failures': [{'name': case.name(), 'status': case.status, 'log': case.log}
				     for case in self.failed_cases()],
			'files': self.files()})
		return record

def _total(suites: Dict[str, Counts]) -> Counts:
	counts = Counts()
	for suite in suites.values():
		counts.merge(suite)
	return counts

def _kernelci_group(group: JsonObj, common: JsonObj, said: Dict[Tuple[str, ...], List[JsonObj]],
		    path: Tuple[str, ...]) -> JsonObj:
	"""A copy of a group of kunit_tool's JSON at @path, and of its
	sub_groups, with @common's fields, and its leaves as the model (@said:
	ConfigResult.leaves() by the path of their group) has them where
	kunit_tool's differ (6.1's skipped parameters)."""
	copy = dict(group)
	copy['sub_groups'] = [_kernelci_group(g, common, said, path + (g.get('name') or UNNAMED,))
			      for g in group.get('sub_groups', [])]
	cases = list(group.get('test_cases', []))
	model = said.get(path)
	if model is not None and [(c.get('name') or UNNAMED, c.get('status')) for c in cases] != [
			(c['name'], c['status']) for c in model]:
		cases = model
	copy['test_cases'] = cases
	copy.update(common)
	return copy

def align(rows: List[List[str]]) -> List[str]:
	"""The rows as lines, each column padded to its widest cell."""
	widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
	return ['  '.join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
		for row in rows]

def several_kernels(results: List[ConfigResult]) -> bool:
	return len({r.kernel.package for r in results}) > 1

def totals(results: List[ConfigResult]) -> Tuple[int, int, int]:
	"""Passed, failed and skipped leaves over all configs.  Failed counts
	failed and crashed leaves, plus one for each config that did not pass
	without a failed leaf to show for it."""
	passed = failed = skipped = 0
	for result in results:
		counts = result.totals()
		passed += counts.passed
		skipped += counts.skipped
		failed += counts.failed + counts.errors
		if result.status != Status.PASS and counts.failed + counts.errors == 0:
			failed += 1
	return passed, failed, skipped

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

def report(tree: str, head: str, results: List[ConfigResult]) -> JsonObj:
	return {'tree': tree, 'head': head, 'configs': [r.to_json() for r in results]}

def write_json(path: str, data: JsonObj, option: str='') -> None:
	"""Writes @data to @path, the FILE of @option (e.g. --json), if any."""
	try:
		with open(path, 'w') as f:
			json.dump(data, f, indent=4)
			f.write('\n')
	except OSError as e:
		raise Error(f'cannot write {option + " " if option else ""}{path}: {e.strerror}')
