# SPDX-License-Identifier: GPL-2.0
#
# The JSON renderings of the result model: each config's record, a
# KernelCI test group as kunit_tool's JSON is, with what kunit_tool leaves
# empty filled in (config_record()), the report of a kernel's configs
# (kernel_record()), and the refusal of a --json or --junit FILE that
# cannot be written, before anything runs (check_destinations()).  A
# record holds what the report and JUnit show of a config that did not
# pass (its logs' last lines, where its kernel stopped), so that
# config_result_of() reads it back into the model on another machine
# (merge, of the shards of a request).

import dataclasses
import os
import socket
from typing import Dict, List, Optional, Tuple

from pan_kunit import Error
from pan_kunit.host.files import JsonObj
from pan_kunit.kunit_tool import kunit_py
from pan_kunit.kunit_tool.ktap import Case, CaseStatus
from pan_kunit.results import kselftest_rows, kunit_json, leaves, terminal
from pan_kunit.results.config_result import UNNAMED, ConfigResult, Recorded, Status, total
from pan_kunit.trees.tree import Kernel

# The logs whose last lines a record keeps of a config that did not pass,
# by ConfigResult.files() key: what the report and JUnit show of it.
TAILED = ('console', 'exec_log', 'build_log')

def config_record(result: ConfigResult,
		  known: Optional[Dict[str, List[str]]]=None) -> JsonObj:
	"""The config's record: kunit_tool's JSON (its kunit_json.py), a
	KernelCI test group, with the fields that kunit_tool leaves empty
	or fixes (kernel, git_branch, ...) filled in on every group, and
	pan-kunit's own fields beside them on the top group; of a config
	that did not pass, the last lines of its logs, and where its kernel
	stopped (@known: the suites of the sources, for what did not run)."""
	common = {'arch': kunit_py.ARCH, 'defconfig': result.name, 'build_environment': result.build_dir,
		  'lab_name': socket.gethostname(), 'kernel': result.kernel.version or None,
		  'job': None, 'git_branch': result.kernel.branch,
		  'git_commit': result.kernel.commit or None, 'git_dirty': result.kernel.dirty}
	found = result.leaves()
	said: Dict[Tuple[str, ...], List[JsonObj]] = {}
	for leaf in found:
		said.setdefault(tuple(leaf.path[:-1]), []).append(
			{'name': leaf.path[-1], 'status': leaf.status})
	record: JsonObj = {'name': result.name,
			   **_kernelci_group(result.kunit or {}, common, said, ())}
	record['name'] = result.name  # kunit_tool's is "KUnit Test Group"
	record['sub_groups'] = list(record.get('sub_groups', [])) + _kselftest_groups(
		result.kselftests, common)
	record.update({
		'status': result.status, 'cpu': result.cpu, 'qemu_config': result.qemu_config,
		'kconfig': result.kconfig.splitlines(),
		'debian_package': result.kernel.package,
		'debian_version': result.kernel.package_version,
		'elapsed': result.elapsed,
		'counts': dataclasses.asdict(total(leaves.suite_counts(found))),
		'skip_reasons': {leaf.key(): leaf.reason for leaf in found
				 if leaf.status == CaseStatus.SKIP},
		'failures': [{'name': case.name(), 'status': case.status, 'log': case.log}
			     for case in result.failed_cases()],
		'files': result.files(),
		# The leaves in the console's order (the groups hold a case's
		# parameters after the plain cases).
		'leaves': [leaf.path for leaf in found]})
	if result.kernel.edits:
		record['git_edits'] = list(result.kernel.edits)
	if result.status != Status.PASS:
		files = result.files()
		record['log_tails'] = {files[key]: result.tail(files[key], terminal.CONSOLE_LOG_LINES)
				       for key in TAILED if key in files and result.has_log(files[key])}
		record['stopped'] = terminal.stop_lines(result, known)
	return record

def config_result_of(record: JsonObj) -> ConfigResult:
	"""The model of a config's @record, as config_record() wrote it on
	any machine: its leaves, each failed one with its log and each skip
	with its reason, its kernel, and what it holds of the boot's files."""
	logs = {f.get('name'): f.get('log') or [] for f in record.get('failures') or []}
	found = [Case(leaf.path, leaf.status, logs.get(leaf.name(), []))
		 for leaf in kunit_json.leaves(record)]
	order = {tuple(path): n for n, path in enumerate(record.get('leaves') or [])}
	found.sort(key=lambda case: order.get(tuple(case.path), len(order)))
	# The kselftest boot's groups and leaves go back where they came from,
	# each skip with its reason (the suites' are resolved by leaves()).
	reasons = dict(record.get('skip_reasons') or {})
	cases = [case for case in found if not kselftest_rows.is_kselftest(case.suite)]
	kselftests = [dataclasses.replace(case, reason=reasons.get(case.key(), ''))
		      if case.status == CaseStatus.SKIP else case
		      for case in found if kselftest_rows.is_kselftest(case.suite)]
	kunit = dict(record, sub_groups=[g for g in record.get('sub_groups') or []
					 if not kselftest_rows.is_kselftest(g.get('name') or '')])
	files = dict(record.get('files') or {})
	kernel = Kernel(version=record.get('kernel') or '', package=record.get('debian_package'),
			package_version=record.get('debian_version'),
			commit=record.get('git_commit') or '', branch=record.get('git_branch'),
			dirty=bool(record.get('git_dirty')), edits=tuple(record.get('git_edits') or ()))
	return ConfigResult(
		name=record['name'], cpu=record.get('cpu') or '',
		qemu_config=record.get('qemu_config') or '',
		build_dir=record.get('build_environment') or '', status=Status(record['status']),
		elapsed=record.get('elapsed'), skip_reasons=reasons,
		kunit=kunit, console_log=files.get('console', ''), exec_log=files.get('exec_log', ''),
		kconfig='\n'.join(record.get('kconfig') or []), kernel=kernel, cases=cases,
		kunit_json=files.get('kunit_json', ''), parsed_log=files.get('parsed', ''),
		record=files.get('record', ''), build_log=files.get('build_log', ''),
		kselftests=kselftests,
		kselftest_console=files.get('kselftest_console', ''),
		recorded=Recorded(files, dict(record.get('log_tails') or {}),
				  list(record.get('stopped') or [])))

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

def _kselftest_groups(found: List[Case], common: JsonObj) -> List[JsonObj]:
	"""The groups of a config's kselftest boot, as kunit_tool would
	write them had it parsed its console: one per collection, a sub-group
	per binary that has cases."""
	groups: Dict[str, JsonObj] = {}
	for leaf in found:
		group = groups.setdefault(leaf.suite, {'name': leaf.suite, 'sub_groups': [],
						       'test_cases': [], **common})
		case = {'name': leaf.path[-1], 'status': leaf.status}
		if len(leaf.path) < 3:
			group['test_cases'].append(case)
			continue
		subs = group['sub_groups']
		if not subs or subs[-1]['name'] != leaf.path[1]:
			subs.append({'name': leaf.path[1], 'sub_groups': [], 'test_cases': [], **common})
		subs[-1]['test_cases'].append(case)
	return list(groups.values())

def kernel_record(tree: str, head: str, configs: List[ConfigResult],
		  known: Optional[Dict[str, List[str]]]=None) -> JsonObj:
	"""The report of a kernel's @configs, of @tree at @head."""
	return {'tree': tree, 'head': head, 'configs': [config_record(r, known) for r in configs]}

def check_destinations(json: Optional[str], junit: Optional[str]) -> None:
	"""Refuses a --json or --junit FILE that cannot be written, before
	anything runs: its directory must exist and be writable, and the two
	must not be one file."""
	if json and junit and (
			os.path.abspath(json) == os.path.abspath(junit) or
			os.path.exists(json) and os.path.exists(junit) and
			os.path.samefile(json, junit)):
		raise Error(f'--json {json} and --junit {junit} are one file: '
			    'give each its own')
	for option, path in (('json', json), ('junit', junit)):
		if not path:
			continue
		directory = os.path.dirname(os.path.abspath(path))
		why = None
		if os.path.isdir(path):
			why = 'it is a directory'
		elif not os.path.exists(directory):
			why = f'no such directory: {directory}'
		elif not os.path.isdir(directory):
			why = f'{directory} is not a directory'
		elif not os.access(directory, os.W_OK | os.X_OK) or (
				os.path.exists(path) and not os.access(path, os.W_OK)):
			why = 'permission denied'
		if why:
			raise Error(f'cannot write --{option} {path}: {why}')
