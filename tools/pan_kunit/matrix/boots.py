# SPDX-License-Identifier: GPL-2.0
#
# The boots of a run of the matrix (plan.py): one `kunit.py exec` per
# config that built, all at once, each in a directory of its own that
# links to its build's kernel, and what each boot wrote read into the
# config's result (config_result.ConfigResult), its record written beside it.
# A boot's result is read only from files that boot wrote (clear_boot()).

import os
from typing import Dict, List, Optional, Sequence, Tuple

from pan_kunit.host import files
from pan_kunit.host.progress import Progress
from pan_kunit.kunit_tool import ktap, ktap_lines, kunit_py
from pan_kunit.kunit_tool.configs import QemuConfig
from pan_kunit.matrix import jobs
from pan_kunit.matrix.plan import Build, MatrixPlan, Outputs
from pan_kunit.results import config_result, record
from pan_kunit.results.config_result import CONSOLE, KUNIT_JSON, PARSED_LOG, RECORD
from pan_kunit.trees.tree import Kernel

# The configs that built, by name: each with its build's directory.
Built = Dict[str, Tuple[QemuConfig, str]]

def clear_boot(exec_dir: str, exec_log: Optional[str]=None) -> None:
	"""Removes what an earlier boot left in @exec_dir (and @exec_log).
	The rule: a boot's result is read only from files that boot wrote, so
	a boot that writes no console or JSON, or a config that does not build,
	never reports an earlier boot's result."""
	stale = [os.path.join(exec_dir, name) for name in config_result.BOOT_FILES]
	for path in stale + ([exec_log] if exec_log else []):
		if os.path.lexists(path):
			os.unlink(path)

def clear(plan: MatrixPlan) -> None:
	"""clear_boot() of every config of @plan, before its builds: a config
	that does not build reports no earlier boot."""
	for config in plan.configs:
		clear_boot(plan.outputs.exec_dir(config), plan.outputs.exec_log(config))

def link_kernel(exec_dir: str, build_dir: str, config: QemuConfig) -> None:
	"""Makes @exec_dir a --build_dir for kunit.py exec that boots the
	kernel of @build_dir: kunit_tool writes test.log into --build_dir, so
	each boot needs a directory of its own."""
	for path in (config.kernel_path, 'vmlinux'):
		link = os.path.join(exec_dir, path)
		os.makedirs(os.path.dirname(link), exist_ok=True)
		if os.path.lexists(link):
			os.unlink(link)
		os.symlink(os.path.join(build_dir, path), link)
	clear_boot(exec_dir)

def exec_job(plan: MatrixPlan, config: QemuConfig, build_dir: str,
	     outputs: Optional[Outputs]=None, filter_glob: Optional[str]=None,
	     extra: Sequence[str]=()) -> jobs.Job:
	"""A kunit.py exec of @plan's in a directory of the config's own, in
	@outputs (default: the plan's), of the plan's filter_glob, or of
	@filter_glob if given; @extra are more options."""
	outputs = outputs or plan.outputs
	options = plan.options
	glob = options.filter_glob if filter_glob is None else filter_glob
	exec_dir = outputs.exec_dir(config)
	link_kernel(exec_dir, build_dir, config)
	# --json=FILE in one word: kunit.py reads a bare --json as "print
	# to stdout" and the word after it as the filter_glob, which comes
	# last, after every option.
	cmd = kunit_py.kunit_cmd(plan.kunit_dir, 'exec', exec_dir, plan.kunitconfig,
				   config.path) + [
		'--timeout', str(plan.timeout), '--json=' + os.path.join(exec_dir, KUNIT_JSON)] + (
		kunit_py.exec_options(options) + list(extra) + ([glob] if glob else []))
	return jobs.Job(config.name, cmd, outputs.exec_log(config))

def status(exec_dir: str, outcome: config_result.Exit, timeout: int) -> config_result.Status:
	"""The status of a boot that ended, from the files it wrote."""
	return config_result.classify(files.read_json(os.path.join(exec_dir, KUNIT_JSON)),
				files.read_text(os.path.join(exec_dir, CONSOLE)), outcome, timeout)

def boot(plan: MatrixPlan, built: Built, progress: Progress,
	 pass_fds: Sequence[int]=()) -> Dict[str, config_result.Exit]:
	"""Boots each config of @built once, all at once: how each ended.
	Each kunit.py, and the QEMU it starts, holds @pass_fds (the locks of
	the build directories it boots from) until it ends."""
	exec_jobs = {name: exec_job(plan, config, build_dir)
		     for name, (config, build_dir) in built.items()}
	for job in exec_jobs.values():
		job.pass_fds = pass_fds
	def ended(job: jobs.Job) -> None:
		# In the job's waiting thread: the status only; the console is
		# parsed in the main thread, once every boot has ended.
		config = built[job.label][0]
		assert job.outcome is not None
		found = status(plan.outputs.exec_dir(config), job.outcome, plan.timeout)
		progress.boot_ended(config.name, found, job.outcome.elapsed, plan.quiet)
	if exec_jobs:
		if not plan.quiet:
			progress.line(f'booting {", ".join(exec_jobs)} (timeout {plan.timeout} s) ...')
		progress.boots_started(list(exec_jobs))
		try:
			jobs.run_jobs(progress, list(exec_jobs.values()),
				      plan.timeout + jobs.WATCHDOG_MARGIN, ended)
		finally:
			progress.boots_ended()
	return {name: job.outcome for name, job in exec_jobs.items() if job.outcome}

def _param_skips(consoles: Sequence[str]) -> Dict[str, int]:
	"""ktap_lines.param_skips() of boots one after the other."""
	found: Dict[str, int] = {}
	for console in consoles:
		for case, count in ktap_lines.param_skips(console).items():
			found[case] = found.get(case, 0) + count
	return found

def _result(plan: MatrixPlan, config: QemuConfig, build_dir: str, build_log: str,
	    kernel: Kernel, outcome: Optional[config_result.Exit],
	    parts: Sequence[str]=()) -> config_result.ConfigResult:
	"""The result of the config's boot (None: not built), read from the
	files it wrote, and its record written beside them; with --run_isolated,
	@parts are the exec directories of its boots, which isolation.py merged
	into the config's."""
	exec_dir = plan.outputs.exec_dir(config)
	kunit: Optional[files.JsonObj] = None
	console: Optional[str] = None
	cases: List[ktap.Case] = []
	consoles: List[str] = []
	if outcome is None:
		found = config_result.Status.BUILD_ERROR
	else:
		kunit = files.read_json(os.path.join(exec_dir, KUNIT_JSON))
		console = files.read_text(os.path.join(exec_dir, CONSOLE))
		found = status(exec_dir, outcome, plan.timeout)
	if console is not None:
		# An isolated run's consoles are one boot each: each is parsed alone.
		consoles = [files.read_text(os.path.join(p, CONSOLE)) or '' for p in parts] or [console]
		parsed_list = [ktap.parse(text, plan.kunit_dir) for text in consoles]
		cases = [case for found_cases, _ in parsed_list for case in found_cases]
		files.write_text(os.path.join(exec_dir, PARSED_LOG),
				 ''.join(parsed for _, parsed in parsed_list))
	result = config_result.ConfigResult(
		name=config.name, cpu=config.cpu, qemu_config=config.path,
		build_dir=build_dir, status=found,
		elapsed=None if outcome is None else round(outcome.elapsed, 3),
		skip_reasons={case: reason for text in consoles
			      for case, reason in ktap_lines.skip_reasons(text).items()}, kunit=kunit,
		console_log=os.path.join(exec_dir, CONSOLE), exec_log=plan.outputs.exec_log(config),
		kconfig=config.kconfig, kernel=kernel, cases=cases,
		kunit_json=os.path.join(exec_dir, KUNIT_JSON),
		parsed_log=os.path.join(exec_dir, PARSED_LOG),
		record=os.path.join(exec_dir, RECORD), build_log=build_log,
		param_skips=_param_skips(consoles))
	os.makedirs(exec_dir, exist_ok=True)
	files.write_json(result.record, record.config_record(result),
			 f'the record of boot {config.name}')
	return result

def read_results(plan: MatrixPlan, kconfig_groups: List[Build], kernel: Kernel,
		 outcomes: Dict[str, config_result.Exit],
		 parts: Dict[str, List[str]]) -> List[config_result.ConfigResult]:
	"""The result of each config of @plan, in its order, built by one of
	@kconfig_groups, from the boots that ended with @outcomes (a config
	without one did not build), each of @parts' boots with --run_isolated,
	naming @kernel."""
	build_of = {c.name: b for b in kconfig_groups for c in b.group}
	return [_result(plan, c, build_of[c.name].build_dir(plan.tree),
			plan.outputs.build_log(build_of[c.name].key), kernel, outcomes.get(c.name),
			parts.get(c.name, ())) for c in plan.configs]
