# SPDX-License-Identifier: GPL-2.0
#
# The one result model of a config's boot: its status (Status), how its
# kunit.py exec ended (Exit), and its ConfigResult, whose leaves (leaves.py)
# every rendering counts from: the terminal's report (terminal.py), the JSON
# record (record.py) and JUnit (junit.py).  The status is derived from
# kunit_tool's JSON (kunit_json.py), the console and the exit, as
# classify() says.

import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from pan_kunit import StrEnum
from pan_kunit.host.files import JsonObj, read_text
from pan_kunit.kunit_tool import ktap, ktap_lines
from pan_kunit.results import kunit_json, leaves
from pan_kunit.results.leaves import Counts
from pan_kunit.trees.tree import Kernel
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

# Table row of a leaf test case that kunit_tool put outside any suite (its
# placeholder, named '', for a test that never reported).
UNNAMED = ktap.UNNAMED

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

def suite_counts(kunit: JsonObj, tallies: Optional[Dict[str, int]]=None) -> Dict[str, Counts]:
	"""Counts per suite of kunit_tool's JSON, with the skipped parameters
	of the console's 6.1 @tallies (ktap_lines.param_skips()): see leaves.py."""
	return leaves.suite_counts(leaves.resolve(kunit_json.leaves(kunit), tallies or {}, {}))

def classify(kunit: Optional[JsonObj], console: Optional[str],
	     outcome: Exit, timeout: int) -> Status:
	"""The status of a config that was built, from its exec."""
	if outcome.hit_timeout(timeout):
		return Status.TIMEOUT
	if kunit is None or console is None or not any(
			ktap_lines.KTAP_HEADER.search(line) for line in console.splitlines()):
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

@dataclass
class Recorded:
	"""What a config's record (record.py) holds of a boot whose files
	stayed on the machine that booted it (a shard's, read back by merge):
	the paths of its files there, the last lines of the logs a report
	shows of a config that did not pass, and where a crashed or hung
	kernel stopped (terminal.stop_lines())."""
	files: Dict[str, str]
	tails: Dict[str, List[str]] = field(default_factory=dict)
	stopped: List[str] = field(default_factory=list)

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
	record: str = ''                # record.config_record(), written by boots.py
	build_log: str = ''
	# Skipped parameters per SUITE.CASE, from the console (ktap_lines.param_skips()).
	param_skips: Dict[str, int] = field(default_factory=dict)
	# Read back from a record: what it holds of the boot's files.
	recorded: Optional[Recorded] = None
	# The leaves of the config's kselftest boot, if it had one
	# (kselftest_rows.rows(): suites kselftest.arm64.COLLECTION), and its console.
	kselftests: List[ktap.Case] = field(default_factory=list)
	kselftest_console: str = ''

	def leaves(self) -> List[ktap.Case]:
		"""The one model of this boot's results (leaves.py): its leaf
		cases, parsed from the console or else read from kunit_tool's
		JSON, each skip with its reason, 6.1's skipped parameters
		counted; then those of its kselftest boot."""
		return leaves.resolve(self.cases or kunit_json.leaves(self.kunit),
				      self.param_skips, self.skip_reasons) + self.kselftests

	def add_kselftests(self, found: List[ktap.Case], console: str) -> None:
		"""Adds the leaves of the config's kselftest boot (@found, read
		from @console): a config that passed fails when one of them did."""
		self.kselftests = list(found)
		self.kselftest_console = console
		if self.status == Status.PASS and any(case.failed() for case in found):
			self.status = Status.FAIL

	def suites(self) -> Dict[str, Counts]:
		return leaves.suite_counts(self.leaves())

	def title(self, kernels: bool=False) -> str:
		"""The config's name; with @kernels (a report of several), its
		kernel's too: '6.12 arm64_pan'."""
		if not kernels or not self.kernel.package:
			return self.name
		return f'{self.kernel.package[len("linux-source-"):]} {self.name}'

	def totals(self) -> Counts:
		return total(self.suites())

	def failed_cases(self) -> List[ktap.Case]:
		return [case for case in self.leaves() if case.failed()]

	def files(self) -> Dict[str, str]:
		"""The files of this boot and of its build that exist (only the
		boot itself writes them: see boots.clear_boot()), by
		terminal.FILE_LABELS key."""
		if self.recorded is not None:
			return dict(self.recorded.files)
		paths = {'console': self.console_log, 'kunit_json': self.kunit_json,
			 'parsed': self.parsed_log, 'record': self.record,
			 'exec_log': self.exec_log, 'build_log': self.build_log,
			 'kselftest_console': self.kselftest_console}
		return {key: path for key, path in paths.items()
			if path and (key == 'record' or os.path.exists(path))}

	def has_log(self, path: str) -> bool:
		"""Whether the log @path of this boot is there to be shown."""
		if self.recorded is not None:
			return path in self.recorded.tails
		return bool(path) and os.path.exists(path)

	def tail(self, path: str, count: int) -> List[str]:
		"""The last @count lines of the log @path of this boot."""
		if self.recorded is not None:
			return self.recorded.tails.get(path, [])[-count:]
		return (read_text(path) or '').splitlines()[-count:]

def total(suites: Dict[str, Counts]) -> Counts:
	"""The sum of the counts of @suites."""
	counts = Counts()
	for suite in suites.values():
		counts.merge(suite)
	return counts

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

