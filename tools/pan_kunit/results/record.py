# SPDX-License-Identifier: GPL-2.0
#
# The JSON renderings of the result model: each config's record, a
# KernelCI test group as kunit_tool's JSON is, with what kunit_tool leaves
# empty filled in (config_record()), the report of a kernel's configs
# (kernel_record()), and the refusal of a --json or --junit FILE that
# cannot be written, before anything runs (check_destinations()).

import dataclasses
import os
import socket
from typing import Dict, List, Optional, Tuple

from pan_kunit import Error
from pan_kunit.host.files import JsonObj
from pan_kunit.kunit_tool import kunit_py
from pan_kunit.kunit_tool.ktap import Case, CaseStatus
from pan_kunit.results import leaves
from pan_kunit.results.config_result import UNNAMED, ConfigResult, total

def config_record(result: ConfigResult) -> JsonObj:
	"""The config's record: kunit_tool's JSON (its kunit_json.py), a
	KernelCI test group, with the fields that kunit_tool leaves empty
	or fixes (kernel, git_branch, ...) filled in on every group, and
	pan-kunit's own fields beside them on the top group."""
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
		'files': result.files()})
	return record

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

def kernel_record(tree: str, head: str, configs: List[ConfigResult]) -> JsonObj:
	"""The report of a kernel's @configs, of @tree at @head."""
	return {'tree': tree, 'head': head, 'configs': [config_record(r) for r in configs]}

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
