# SPDX-License-Identifier: GPL-2.0
#
# --run_isolated suite|test: a boot per suite (or per case) of each config,
# as `kunit.py exec --run_isolated` boots them, with what every boot wrote
# kept.  kunit.py writes each boot's test.log and --json file over the one
# before, so that only the last boot's results are left; pan-kunit asks
# kunit.py for the list (`exec --list_tests`, with the user's filters),
# makes the filter_glob of each boot as kunit.py does, runs one `kunit.py
# exec` per glob in a directory of its own, and merges what they wrote into
# the config's exec directory, where one boot would have left it.  The
# configs boot at once, as without the option; each config's boots follow
# one another.

import json
import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from pan_kunit.host import files
from pan_kunit.host.progress import Progress
from pan_kunit.kunit_tool.configs import QemuConfig
from pan_kunit.matrix import jobs
from pan_kunit.matrix.boots import Built, clear_boot, exec_job, status
from pan_kunit.matrix.plan import MatrixPlan, Outputs
from pan_kunit.results import config_result
from pan_kunit.results.config_result import CONSOLE, KUNIT_JSON

# A line kunit.py exec --list_tests prints: SUITE.CASE (kunit.py's pattern).
LISTED = re.compile(r'^[^\s.]+\.[^\s.]+$')

@dataclass
class Boots:
	"""The boots of one config."""
	outcome: config_result.Exit  # of them all: the first non-zero exit, the time of all
	parts: List[str]          # the exec directory of each, in order

def listed(log: str) -> List[str]:
	"""The SUITE.CASE lines of a kunit.py exec --list_tests output."""
	lines = (line.strip() for line in (files.read_text(log) or '').splitlines())
	return [line for line in lines if LISTED.match(line)]

def globs(tests: Sequence[str], mode: str, filter_glob: str) -> List[str]:
	"""The filter_glob of each boot, as kunit.py's exec_tests() makes them:
	a case per boot ('test'), or a suite per boot ('suite') with the case
	part of the user's glob, if it has one."""
	if mode == 'test':
		return list(tests)
	suites = list(dict.fromkeys(test.split('.', 1)[0] for test in tests))
	if '.' in filter_glob:
		case = filter_glob.split('.', maxsplit=2)[1]
		return [f'{suite}.{case}' for suite in suites]
	return suites

def _merge_group(into: files.JsonObj, group: files.JsonObj) -> None:
	"""Adds @group's cases and sub_groups to @into's; a sub_group of a
	name already there (a suite of several boots) is merged into it."""
	into.setdefault('test_cases', []).extend(group.get('test_cases', []))
	subs = into.setdefault('sub_groups', [])
	for sub in group.get('sub_groups', []):
		same = next((s for s in subs if s.get('name') == sub.get('name')), None)
		if same is None:
			subs.append(json.loads(json.dumps(sub)))
		else:
			_merge_group(same, sub)

def merge_json(parts: Sequence[Optional[files.JsonObj]]) -> Optional[files.JsonObj]:
	"""One kunit_tool JSON of the boots' (None where a boot wrote none):
	the first one's fields, every boot's suites and cases."""
	found = [part for part in parts if part is not None]
	if not found:
		return None
	merged = {key: value for key, value in found[0].items()
		  if key not in ('sub_groups', 'test_cases')}
	merged.update(sub_groups=[], test_cases=[])
	for part in found:
		_merge_group(merged, part)
	return merged

def merge_outcomes(outcomes: Sequence[config_result.Exit]) -> config_result.Exit:
	"""The outcome of boots one after the other: the first failing exit
	status, a timeout if one hit it, the time of them all."""
	return config_result.Exit(
		returncode=next((o.returncode for o in outcomes if o.returncode), 0),
		timed_out=any(o.timed_out for o in outcomes),
		elapsed=sum(o.elapsed for o in outcomes),
		longest=max((o.longest_boot() for o in outcomes), default=0.0))

def _concat(paths: Sequence[str], labels: Sequence[str], into: str) -> None:
	"""@paths one after the other into @into, each after a line naming
	its boot; a missing one is said to be."""
	out = []
	for path, label in zip(paths, labels):
		text = files.read_text(path)
		out.append(f'pan-kunit: --run_isolated: {label}'
			   f'{"" if text is not None else " (wrote nothing)"}\n')
		if text:
			out.append(text if text.endswith('\n') else text + '\n')
	files.write_text(into, ''.join(out))

def _merge(outputs: Outputs, config: QemuConfig, parts: List[Outputs], labels: List[str],
	   list_outputs: Outputs, listed_ok: bool) -> None:
	"""Writes the boots' JSON, consoles and exec logs into @config's exec
	directory and exec log, as one boot would have left them.  Without a
	boot, the listing boot is the config's: one that listed nothing
	(@listed_ok) ran no test, one that failed crashed."""
	exec_dir = outputs.exec_dir(config)
	clear_boot(exec_dir, outputs.exec_log(config))
	os.makedirs(exec_dir, exist_ok=True)
	os.makedirs(os.path.dirname(outputs.exec_log(config)), exist_ok=True)
	sources = parts or [list_outputs]
	labels = labels or ['the listing boot: no test listed']
	dirs = [part.exec_dir(config) for part in sources]
	kunit = merge_json([files.read_json(os.path.join(d, KUNIT_JSON)) for d in dirs])
	if kunit is None and not parts and listed_ok:
		kunit = {'name': 'KUnit Test Group', 'sub_groups': [], 'test_cases': []}
	if kunit is not None:
		files.write_json(os.path.join(exec_dir, KUNIT_JSON), kunit)
	_concat([os.path.join(d, CONSOLE) for d in dirs], labels, os.path.join(exec_dir, CONSOLE))
	_concat([part.exec_log(config) for part in [list_outputs] + parts],
		['kunit.py exec --list_tests'] + labels, outputs.exec_log(config))

def _outputs(outputs: Outputs, config: QemuConfig, part: str) -> Outputs:
	return Outputs(os.path.join(outputs.root, 'isolated', config.name, part))

def boot(plan: MatrixPlan, built: Built, progress: Progress,
	 pass_fds: Sequence[int]=()) -> Dict[str, Boots]:
	"""Lists the tests of each config of @built (name: config, build
	directory), boots each suite or case of it, and merges their files
	into the config's exec directory (see _merge()); each kunit.py holds
	@pass_fds (boots.boot())."""
	outputs, options = plan.outputs, plan.options
	watchdog = plan.timeout + jobs.WATCHDOG_MARGIN
	listing = {name: _outputs(outputs, config, 'list') for name, (config, _) in built.items()}
	boot_jobs: Dict[str, List[jobs.Job]] = {}
	for name, (config, build_dir) in built.items():
		clear_boot(listing[name].exec_dir(config), listing[name].exec_log(config))
		boot_jobs[name] = [exec_job(plan, config, build_dir, listing[name],
					    extra=['--list_tests'])]
		boot_jobs[name][0].pass_fds = pass_fds
	if not plan.quiet and built:
		progress.line(f'listing the tests of {", ".join(built)} for --run_isolated '
			      f'{options.run_isolated} ...')
	progress.boots_started(list(built))
	try:
		jobs.run_jobs(progress, [job_list[0] for job_list in boot_jobs.values()], watchdog)
		listed_ok = {name: bool(job_list[0].outcome and job_list[0].outcome.returncode == 0)
			     for name, job_list in boot_jobs.items()}
		boot_globs = {name: globs(listed(job_list[0].log), options.run_isolated,
					  options.filter_glob) if listed_ok[name] else []
			      for name, job_list in boot_jobs.items()}
		if not plan.quiet and boot_globs:
			progress.line('booting ' + ', '.join(f'{name} {len(each)} times'
							     for name, each in boot_globs.items()) +
				      f': one boot per {options.run_isolated} (--run_isolated), one after '
				      'the other on each config')
		parts: Dict[str, List[Outputs]] = {name: [] for name in built}
		for index in range(max((len(each) for each in boot_globs.values()), default=0)):
			wave = []
			for name, each in boot_globs.items():
				if index >= len(each):
					continue
				config, build_dir = built[name]
				part = _outputs(outputs, config, f'{index + 1:03d}')
				clear_boot(part.exec_dir(config), part.exec_log(config))
				wave.append(exec_job(plan, config, build_dir, part,
						     filter_glob=each[index]))
				wave[-1].pass_fds = pass_fds
				boot_jobs[name].append(wave[-1])
				parts[name].append(part)
			jobs.run_jobs(progress, wave, watchdog)
		found = {}
		for name, (config, _) in built.items():
			each = boot_globs[name]
			labels = [f'boot {i + 1} of {len(each)}: {glob}' for i, glob in enumerate(each)]
			_merge(outputs, config, parts[name], labels, listing[name], listed_ok[name])
			outcomes = [job.outcome for job in boot_jobs[name][1:] or boot_jobs[name]
				    if job.outcome]
			found[name] = Boots(merge_outcomes(outcomes),
					    [part.exec_dir(config) for part in parts[name]])
			progress.boot_ended(name, status(outputs.exec_dir(config), found[name].outcome,
							 plan.timeout),
					    found[name].outcome.elapsed, plan.quiet)
	finally:
		progress.boots_ended()
	return found
