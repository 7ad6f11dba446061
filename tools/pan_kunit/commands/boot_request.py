# SPDX-License-Identifier: GPL-2.0
#
# What every command that builds and boots the matrix is asked, as
# kunit.py's KunitRequest and its kin are: the configs, kunit.py's timeout
# and the options passed on to it (BootRequest, all that lkdtm and
# coverage take), and the files a command that reports results writes
# them into (ReportRequest, of run, bisect and mutants).  Each command's
# own request extends one of them, in the command's module; cli.py makes
# them of the command line.  And the refusal of their filters before any
# work, which run, coverage and bisect share.

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import List, Optional, Protocol, Sequence

from pan_kunit import Error
from pan_kunit.host import files
from pan_kunit.host.files import JsonObj
from pan_kunit.kunit_tool.kunit_py import KunitOptions
from pan_kunit.results import junit
from pan_kunit.trees import kernels, suites
from pan_kunit.trees.targets import Target

@dataclass
class BootRequest:
	"""A command that builds and boots the matrix (lkdtm takes only this)."""
	configs: List[str]     # --config: the QEMU configs by name; none: all
	timeout: int           # kunit.py exec's --timeout
	jobs: int              # make jobs per build
	options: KunitOptions  # kunit.py's that are passed on (none: lkdtm, export)

@dataclass
class ReportRequest(BootRequest):
	"""One that also writes its results into files."""
	json: Optional[str]
	junit: Optional[str]

class KernelReport(Protocol):
	"""What a command reports of one kernel, as its files hold it."""
	def to_json(self) -> JsonObj: ...
	def junit_suites(self, several: bool) -> List[ET.Element]: ...

def write_reports(request: ReportRequest, title: str, reports: Sequence[KernelReport],
		  record: JsonObj) -> None:
	"""The --json and --junit files of @reports, of a run or of a merge:
	one kernel's report beside @record (what the command says of
	itself), or several kernels', in a list; @title names JUnit's
	document."""
	several = len(reports) > 1
	if request.json:
		found = [r.to_json() for r in reports]
		files.write_json(request.json, dict(record, kernels=found) if several else
				 dict(record, **(found[0] if found else {})), '--json')
	if request.junit:
		junit.write(request.junit, junit.document(title, [
			suite for r in reports for suite in r.junit_suites(several)]))

def check_filters(options: KunitOptions, target_list: List[Target], repo: str) -> None:
	"""Refuses a filter_glob that names none of the suites and cases of
	the repo's sources (unless a --kconfig_add may build others), and
	--filter for a kernel without KUnit attributes: its kernel would
	ignore kunit.filter= and run every case."""
	if not options.kconfig_add:
		suites.check_glob(options.filter_glob, suites.known(repo))
	attribute_filter = options.filter
	if not attribute_filter:
		return
	lacking = [t.kernel.name for t in target_list if not kernels.has_kunit_attributes(t.kernel)]
	if lacking:
		raise Error(f'--filter {attribute_filter!r}: the kernel {", ".join(lacking)} has no '
			    'KUnit attributes (lib/kunit/attributes.c, 6.6 and later) and would run '
			    'every case; leave out --filter, or that kernel (--kernel)')
