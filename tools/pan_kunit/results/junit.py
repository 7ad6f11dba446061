# SPDX-License-Identifier: GPL-2.0
#
# Results as JUnit XML, which GitLab and Jenkins show natively: one
# <testsuite> per (kernel, config, suite), named KERNEL/CONFIG/SUITE (KERNEL:
# linux-VERSION, the Makefile's), one <testcase> per leaf case (name CASE or
# CASE.PARAM, classname CONFIG.SUITE, so that the same case of two configs
# stays two), with <failure> (the case's own log), <error> (a crashed case)
# or <skipped message=REASON>.  A config that did not build, crashed, hung
# or ran no test also gets a testsuite of its own whose one testcase has an
# <error>; one that failed with no case parsed, a <failure>.  Each testsuite
# has its config's properties (git_dirty: built with uncommitted edits) and
# the time of its boot (KUnit times no case).

import re
import socket
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Dict, List, Optional

from pan_kunit import Error, StrEnum
from pan_kunit.host import files
from pan_kunit.kunit_tool.ktap import CaseStatus
from pan_kunit.results import config_result, terminal
from pan_kunit.results.config_result import Status

# The testcase of a config's own testsuite, and its error message, by status.
CONFIG_ERRORS = {
	Status.BUILD_ERROR: ('build', 'the kernel did not build'),
	Status.CRASH: ('boot', 'the kernel crashed, or kunit.py failed'),
	Status.TIMEOUT: ('boot', 'the boot hung and was killed at the timeout'),
	Status.NO_TESTS: ('boot', 'no test ran'),
}
# How much of a log an <error> of a config holds.
LOG_LINES = terminal.CONSOLE_LOG_LINES
# What XML 1.0 cannot hold, even escaped; a console may (colours, NULs).
_NOT_XML = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]')

def _xml(text: str) -> str:
	return _NOT_XML.sub('\ufffd', text)

def _testsuite(name: str, properties: Dict[str, Optional[str]]) -> ET.Element:
	suite = ET.Element('testsuite', name=name, hostname=socket.gethostname())
	props = ET.SubElement(suite, 'properties')
	for key, value in properties.items():
		if value:
			ET.SubElement(props, 'property', name=key, value=value)
	return suite

def _count(suite: ET.Element) -> ET.Element:
	cases = suite.findall('testcase')
	suite.set('tests', str(len(cases)))
	for tag, attribute in (('failure', 'failures'), ('error', 'errors'),
			       ('skipped', 'skipped')):
		suite.set(attribute, str(sum(case.find(tag) is not None for case in cases)))
	return suite

# A config's testcase when it failed and no case of it was parsed.
NO_CASE_FAILED = ('boot', 'kunit.py reported a failure, and no case was parsed')
# A config's testcase when it ran no test and was expected to (see
# config_suites()'s @no_tests_expected).
NO_TESTS_EXPECTED = 'no test ran, as expected: no suite is hooked in yet'

def kernel_name(result: config_result.ConfigResult) -> str:
	"""KERNEL of the testsuites' names: linux-VERSION (the Makefile's)."""
	return f'linux-{result.kernel.version}' if result.kernel.version else 'linux'

def config_suites(result: config_result.ConfigResult, label: Optional[str]=None,
		  no_tests_expected: bool=False) -> List[ET.Element]:
	"""The testsuites of one config's boot, named [LABEL/]KERNEL/CONFIG/SUITE
	(LABEL: a step or the baseline of a check).  With @no_tests_expected,
	a config that ran no test gets a skipped testcase, not an error."""
	prefix = f'{label}/' if label else ''
	prefix += f'{kernel_name(result)}/'
	properties = {'kernel': result.kernel.version, 'debian_version': result.kernel.package_version,
		      'git_commit': result.kernel.commit, 'git_branch': result.kernel.branch,
		      'git_dirty': 'true' if result.kernel.dirty else None,
		      'config': result.name, 'cpu': result.cpu, 'qemu_config': result.qemu_config,
		      'status': result.status.value}
	suites: Dict[str, ET.Element] = {}
	for case in result.leaves():
		suite = suites.get(case.suite)
		if suite is None:
			suite = suites[case.suite] = _testsuite(f'{prefix}{result.name}/{case.suite}',
								 properties)
		name = '.'.join(case.path[1:]) or case.suite
		testcase = ET.SubElement(suite, 'testcase', classname=f'{result.name}.{case.suite}',
					 name=name)
		log = _xml('\n'.join(case.log))
		first = _xml(case.log[0].strip()) if case.log else ''
		if case.status == CaseStatus.FAIL:
			failure = ET.SubElement(testcase, 'failure', type=CaseStatus.FAIL.value,
						message=first or 'failed')
			failure.text = log
		elif case.status == CaseStatus.ERROR:
			error = ET.SubElement(testcase, 'error', type=CaseStatus.ERROR.value,
					      message=first or 'crashed before reporting')
			error.text = log
		elif case.status == CaseStatus.SKIP:
			skipped = ET.SubElement(testcase, 'skipped')
			if case.reason:
				skipped.set('message', _xml(case.reason))
	found = [_count(suite) for suite in suites.values()]
	if no_tests_expected and result.status == Status.NO_TESTS:
		suite = _testsuite(f'{prefix}{result.name}', properties)
		testcase = ET.SubElement(suite, 'testcase', classname=result.name, name='boot')
		ET.SubElement(testcase, 'skipped', message=NO_TESTS_EXPECTED)
		found.append(_count(suite))
	elif result.status in CONFIG_ERRORS or (result.status == Status.FAIL and not result.leaves()):
		tag = 'failure' if result.status == Status.FAIL else 'error'
		what, message = CONFIG_ERRORS.get(result.status, NO_CASE_FAILED)
		suite = _testsuite(f'{prefix}{result.name}', properties)
		testcase = ET.SubElement(suite, 'testcase', classname=result.name, name=what)
		error = ET.SubElement(testcase, tag, type=result.status.value, message=message)
		files = result.files()
		config_log = files.get('console') or files.get('exec_log') or files.get('build_log')
		error.text = _xml(f'{config_log}:\n' + '\n'.join(result.tail(config_log, LOG_LINES))
				  ) if config_log else message
		found.append(_count(suite))
	# KUnit times no case: each testsuite of the config has its boot's time.
	for suite in found if result.elapsed is not None else []:
		suite.set('time', f'{result.elapsed:.3f}')
	return found

class CheckStatus(StrEnum):
	"""How a Check ended: the element its testcase holds, if any."""
	PASS = 'pass'
	FAILURE = 'failure'
	SKIPPED = 'skipped'

@dataclass
class Check:
	"""A check that is no KUnit case: a bisect step, a mutant."""
	name: str
	outcome: CheckStatus
	message: str

def checks_suite(name: str, checks: List[Check]) -> ET.Element:
	"""A testsuite of @checks, a testcase each."""
	suite = ET.Element('testsuite', name=name, hostname=socket.gethostname())
	for check in checks:
		testcase = ET.SubElement(suite, 'testcase', classname=name, name=check.name)
		if check.outcome != CheckStatus.PASS:
			ET.SubElement(testcase, check.outcome.value, message=_xml(check.message))
	return _count(suite)

def document(name: str, suites: List[ET.Element], time: Optional[float]=None) -> ET.ElementTree:
	"""The JUnit file of @suites, which took @time seconds, if known."""
	top = ET.Element('testsuites', name=name)
	if time is not None:
		top.set('time', f'{time:.3f}')
	top.extend(suites)
	for attribute in ('tests', 'failures', 'errors', 'skipped'):
		top.set(attribute, str(sum(int(s.get(attribute, '0')) for s in suites)))
	ET.indent(top)
	return ET.ElementTree(top)

def write(path: str, junit: ET.ElementTree) -> None:
	"""Writes @junit to --junit @path, whole or not at all."""
	files.write_with(path, lambda f: junit.write(f, encoding='utf-8', xml_declaration=True),
			 '--junit')
