# SPDX-License-Identifier: GPL-2.0
#
# Builds and boots the matrix with kunit_tool: one `kunit.py build` per
# kconfig group, all at once, then one `kunit.py exec` per config,
# all at once.  Each kunit.py runs in a session of its own, and its whole
# process group is killed when it ends, so no QEMU outlives it.

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from pan_kunit import progress, results
from pan_kunit.configs import QemuConfig, group_by_kconfig
from pan_kunit.sources import TREE_KUNITCONFIG

STATE_DIR = '.pan-kunit'
CROSS_COMPILE = 'aarch64-linux-gnu-'
# Seconds past kunit.py's own --timeout before pan-kunit kills it.
WATCHDOG_MARGIN = 60
# Seconds between SIGTERM and SIGKILL to a process group.
KILL_GRACE = 5
BUILD_LOG_LINES = 30

class Job:
	"""A kunit.py process, with stdin from /dev/null and its output in a log."""

	def __init__(self, label: str, cmd: List[str], log: str,
		     env: Optional[Dict[str, str]]=None) -> None:
		self.label = label
		self.cmd = cmd
		self.log = log
		self.env = env or {}
		self.outcome: Optional[results.Outcome] = None
		self._proc: 'Optional[subprocess.Popen[bytes]]' = None
		self._start = 0.0

	def start(self) -> None:
		os.makedirs(os.path.dirname(self.log), exist_ok=True)
		with open(self.log, 'w') as log:
			self._proc = subprocess.Popen(
				self.cmd, stdin=subprocess.DEVNULL, stdout=log,
				stderr=subprocess.STDOUT, start_new_session=True,
				env=dict(os.environ, PYTHONDONTWRITEBYTECODE='1', **self.env))
		self._start = time.monotonic()

	def wait(self, watchdog: Optional[float]) -> None:
		"""Waits for the process, at most watchdog seconds, then kills its group."""
		assert self._proc is not None
		timed_out = False
		try:
			self._proc.wait(timeout=watchdog)
		except subprocess.TimeoutExpired:
			timed_out = True
			print(f'{self.label}: still running after {watchdog:.0f} s; killing it')
		elapsed = time.monotonic() - self._start
		self.kill()
		assert self._proc.returncode is not None
		self.outcome = results.Outcome(self._proc.returncode, timed_out, elapsed)

	def kill(self) -> None:
		"""SIGTERM to the process group, then SIGKILL to what is left of it."""
		if self._proc is None:
			return
		group = self._proc.pid
		deadline = time.monotonic() + KILL_GRACE
		try:
			os.killpg(group, signal.SIGTERM)
			while time.monotonic() < deadline:
				time.sleep(0.05)
				self._proc.poll()  # reap the leader, or the group never empties
				os.killpg(group, 0)
			os.killpg(group, signal.SIGKILL)
		except ProcessLookupError:
			pass  # the group is empty
		self._proc.wait()

def run_jobs(jobs: List[Job], watchdog: Optional[float],
	     ended: Optional[Callable[[Job], None]]=None) -> None:
	"""Runs the jobs in parallel, a thread waiting on each, which calls
	@ended when its job ended; polls the progress while they run.  On any
	exception in the main thread (KeyboardInterrupt) kills them all."""
	def wait(job: Job) -> None:
		job.wait(watchdog)
		if ended is not None:
			ended(job)
	threads = []
	try:
		for job in jobs:
			job.start()
			thread = threading.Thread(target=wait, args=(job,), daemon=True)
			thread.start()
			threads.append(thread)
		for thread in threads:
			while thread.is_alive():
				thread.join(progress.POLL_SECONDS)
				progress.get().poll()
	except BaseException:
		for job in jobs:
			job.kill()
		raise

def state(tree: str, *parts: str) -> str:
	return os.path.join(tree, STATE_DIR, *parts)

def _exec_dir(tree: str, config: QemuConfig) -> str:
	return state(tree, 'exec', config.name)

def _exec_log(tree: str, config: QemuConfig) -> str:
	return state(tree, 'logs', f'exec-{config.name}.log')

@dataclass
class KunitOptions:
	"""kunit.py's options that the user passes on, which the build and
	exec of kunit.py 6.1 and 6.12 both take."""
	filter_glob: str = ''  # exec: the suites (SUITE) or cases (SUITE.CASE) the kernel runs
	kconfig_add: List[str] = field(default_factory=list)   # build: CONFIG_X=y
	make_options: List[str] = field(default_factory=list)  # build: X=Y, for make

def kunit_cmd(kunit_dir: str, subcommand: str, build_dir: str, kunitconfig: str,
	      config: QemuConfig, fragments: Sequence[str]=()) -> List[str]:
	"""kunit.py SUBCOMMAND of @config, with @kunitconfig and the kconfig
	@fragments merged into it (kunit.py takes --kunitconfig repeatedly)."""
	cmd = [sys.executable, os.path.join(kunit_dir, 'kunit.py'), subcommand,
	       '--build_dir', build_dir, '--arch', 'arm64', '--cross_compile', CROSS_COMPILE,
	       '--kunitconfig', kunitconfig]
	for fragment in fragments:
		cmd += ['--kunitconfig', fragment]
	return cmd + ['--qemu_config', config.path]

def build_options(options: KunitOptions) -> List[str]:
	"""What kunit.py build gets of @options, each in one word, as a value
	may start with '-'."""
	return ([f'--kconfig_add={line}' for line in options.kconfig_add] +
		[f'--make_options={option}' for option in options.make_options])

def ccache_options(tree: str) -> Tuple[List[str], Dict[str, str]]:
	"""kunit.py options and environment that compile through ccache, when
	it is installed.  With base_dir at the tree, the paths ccache hashes
	are relative, so builds of the tree and of its check worktree share
	cache entries."""
	if not shutil.which('ccache'):
		return [], {}
	return (['--make_options', f'CC=ccache {CROSS_COMPILE}gcc'],
		{'CCACHE_BASEDIR': os.path.realpath(tree)})

@dataclass
class Build:
	"""One kunit.py build: a kconfig group into .pan-kunit/build/KEY."""
	key: str
	group: List[QemuConfig]
	kunitconfig: str
	fragments: Sequence[str] = ()  # kconfig files merged into kunitconfig

	def build_dir(self, tree: str) -> str:
		return state(tree, 'build', self.key)

	def label(self) -> str:
		"""How progress names the build: by its configs."""
		return ','.join(c.name for c in self.group)

def build_all(tree: str, kunit_dir: str, builds: List[Build], jobs: int,
	      quiet: bool=False, options: Optional[KunitOptions]=None) -> Dict[str, bool]:
	"""Runs the builds at once (incremental builds are mostly make
	walking the tree on one CPU) and returns whether each succeeded, by key.
	The user's --make_options come after ccache's CC=, and so win."""
	ccache, env = ccache_options(tree)
	added = build_options(options or KunitOptions())
	build_jobs = []
	shown = progress.get()
	for b in builds:
		os.makedirs(b.build_dir(tree), exist_ok=True)
		job = Job(f'build {b.key}',
			  kunit_cmd(kunit_dir, 'build', b.build_dir(tree), b.kunitconfig, b.group[0],
				    b.fragments) +
			  ['--jobs', str(jobs)] + ccache + added,
			  state(tree, 'logs', f'build-{b.key}.log'), env)
		if not quiet:
			names = ', '.join(c.name for c in b.group)
			print(f'building {b.build_dir(tree)} for {names} (log: {job.log}) ...')
		build_jobs.append(job)
	for b, job in zip(builds, build_jobs):
		shown.build_started(b.label(), b.build_dir(tree), job.log)
	try:
		run_jobs(build_jobs, None)
	finally:
		objects = {b.key: shown.build_ended(b.label()) for b in builds}
	built = {}
	for b, job in zip(builds, build_jobs):
		assert job.outcome is not None
		built[b.key] = job.outcome.returncode == 0
		if built[b.key]:
			if not quiet:
				print(f'built {b.key} in {job.outcome.elapsed:.0f} s '
				      f'({objects[b.key]} objects compiled)')
			continue
		print(f'build of {b.build_dir(tree)} failed (kunit.py exit {job.outcome.returncode})')
		results.print_tail('build log', job.log, BUILD_LOG_LINES)
	return built

def build(tree: str, kunit_dir: str, key: str, group: List[QemuConfig],
	  kunitconfig: str, jobs: int) -> bool:
	"""kunit.py build of the group's kconfig plus @kunitconfig into
	.pan-kunit/build/@key."""
	return build_all(tree, kunit_dir, [Build(key, group, kunitconfig)], jobs)[key]

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
	for stale in ('test.log', 'kunit.json'):
		if os.path.exists(os.path.join(exec_dir, stale)):
			os.unlink(os.path.join(exec_dir, stale))

def _exec_job(tree: str, kunit_dir: str, config: QemuConfig, build_dir: str,
	      kunitconfig: str, timeout: int, filter_glob: str='') -> Job:
	"""A kunit.py exec in a directory of the config's own."""
	exec_dir = _exec_dir(tree, config)
	link_kernel(exec_dir, build_dir, config)
	# --json=FILE in one word: kunit.py reads a bare --json as "print
	# to stdout" and the word after it as the filter_glob, which comes
	# last, after every option.
	cmd = kunit_cmd(kunit_dir, 'exec', exec_dir, kunitconfig, config) + [
		'--timeout', str(timeout), '--json=' + os.path.join(exec_dir, 'kunit.json')] + (
		[filter_glob] if filter_glob else [])
	return Job(config.name, cmd, _exec_log(tree, config))

def kconfig_builds(tree: str, configs: List[QemuConfig], kunitconfig: Optional[str]=None,
		   fragments: Sequence[str]=(), kconfig_add: Sequence[str]=()) -> List[Build]:
	"""One build per kconfig group of @configs, of @kunitconfig (default:
	the tree's) plus @fragments; a --kconfig_add is a build of its own."""
	kunitconfig = kunitconfig or os.path.join(tree, TREE_KUNITCONFIG)
	return [Build(key, group, kunitconfig, fragments)
		for key, group in group_by_kconfig(configs, list(kconfig_add)).items()]

def run(tree: str, kunit_dir: str, configs: List[QemuConfig], timeout: int,
	jobs: int, kunitconfig: Optional[str]=None, quiet: bool=False,
	options: Optional[KunitOptions]=None,
	fragments: Sequence[str]=()) -> List[results.ConfigResult]:
	"""Builds every kconfig group, with @kunitconfig (default: the
	tree's) plus @fragments and @options, then boots every config that
	built."""
	kunitconfig = kunitconfig or os.path.join(tree, TREE_KUNITCONFIG)
	options = options or KunitOptions()
	builds = kconfig_builds(tree, configs, kunitconfig, fragments, options.kconfig_add)
	build_dirs = {c.name: b.build_dir(tree) for b in builds for c in b.group}
	ok = build_all(tree, kunit_dir, builds, jobs, quiet, options)
	built = [c for b in builds if ok[b.key] for c in b.group]
	exec_jobs = {c.name: _exec_job(tree, kunit_dir, c, build_dirs[c.name], kunitconfig,
				       timeout, options.filter_glob)
		     for c in built}
	def ended(job: Job) -> None:
		config = next(c for c in built if c.name == job.label)
		assert job.outcome is not None
		status = _collect(config, build_dirs[config.name], _exec_dir(tree, config),
				  _exec_log(tree, config), job.outcome, timeout).status
		progress.get().boot_ended(config.name, status, job.outcome.elapsed, quiet)
	if exec_jobs:
		if not quiet:
			print(f'booting {", ".join(exec_jobs)} (timeout {timeout} s) ...')
		progress.get().boots_started(list(exec_jobs))
		try:
			run_jobs(list(exec_jobs.values()), timeout + WATCHDOG_MARGIN, ended)
		finally:
			progress.get().boots_ended()
	collected = []
	for config in configs:
		job = exec_jobs.get(config.name)
		collected.append(_collect(config, build_dirs[config.name],
					  _exec_dir(tree, config), _exec_log(tree, config),
					  job.outcome if job else None, timeout))
	return collected

def _collect(config: QemuConfig, build_dir: str, exec_dir: str, exec_log: str,
	     outcome: Optional[results.Outcome], timeout: int) -> results.ConfigResult:
	console_log = os.path.join(exec_dir, 'test.log')
	kunit: Optional[results.JsonObj] = None
	console: Optional[str] = None
	if outcome is None:
		status = results.BUILD_ERROR
	else:
		kunit = results.read_json(os.path.join(exec_dir, 'kunit.json'))
		console = results.read_text(console_log)
		status = results.classify(kunit, console, outcome, timeout)
	return results.ConfigResult(
		name=config.name, cpu=config.cpu, qemu_config=config.path,
		build_dir=build_dir, status=status,
		elapsed=None if outcome is None else round(outcome.elapsed, 1),
		skip_reasons=results.skip_reasons(console or ''), kunit=kunit,
		console_log=console_log, exec_log=exec_log)
