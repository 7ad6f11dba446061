# SPDX-License-Identifier: GPL-2.0
#
# Builds and boots the matrix with kunit_tool: one `kunit.py build` per
# kconfig group, all at once, then one `kunit.py exec` per config,
# all at once.  Each kunit.py runs in a session of its own, and its whole
# process group is killed when it ends, so no QEMU outlives it.

import concurrent.futures
import contextlib
import fcntl
import hashlib
import os
import shutil
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from pan_kunit import cost, kernels, ktap, kunit_tool, proc, results
from pan_kunit.configs import QemuConfig, group_by_kconfig
from pan_kunit.kunit_tool import BuildSettings
from pan_kunit.printer import Printer
from pan_kunit.progress import POLL_SECONDS, Progress
from pan_kunit.sources import TREE_KUNITCONFIG
from pan_kunit.tree import Kernel, kernel_of, kernel_version

STATE_DIR = '.pan-kunit'
CROSS_COMPILE = 'aarch64-linux-gnu-'
# Seconds past kunit.py's own --timeout before pan-kunit kills it.
WATCHDOG_MARGIN = 60
# Seconds between SIGTERM and SIGKILL to a process group.
KILL_GRACE = 5
BUILD_LOG_LINES = 30

class Job:
	"""A kunit.py process, with stdin from /dev/null and its output in a log.
	Its Python is unbuffered, so each line reaches the log when it is
	printed (progress reads kunit.py's "Building with:" there while the
	build runs), not when kunit.py exits."""

	def __init__(self, label: str, cmd: List[str], log: str,
		     env: Optional[Dict[str, str]]=None) -> None:
		self.label = label
		self.cmd = cmd
		self.log = log
		self.env = env or {}
		self.outcome: Optional[results.Exit] = None
		self._session: Optional[proc.Session] = None
		self._start = 0.0

	def start(self) -> None:
		os.makedirs(os.path.dirname(self.log), exist_ok=True)
		with open(self.log, 'w') as log:
			self._session = proc.Session(self.cmd, log, dict(
				PYTHONDONTWRITEBYTECODE='1', PYTHONUNBUFFERED='1', **self.env))
		self._start = time.monotonic()

	def wait(self, watchdog: Optional[float], progress: Progress) -> None:
		"""Waits for the process, at most watchdog seconds, then kills its group
		(saying so on @progress)."""
		assert self._session is not None
		timed_out = not self._session.wait(watchdog)
		if timed_out:
			# In a waiting thread: one line, in one write, as the boots' lines.
			progress.line(f'{self.label}: still running after {watchdog:.0f} s; killing it')
		elapsed = time.monotonic() - self._start
		self.kill()
		assert self._session.returncode is not None
		self.outcome = results.Exit(self._session.returncode, timed_out, elapsed)

	def kill(self) -> None:
		"""SIGTERM to the process group, then SIGKILL to what is left of it."""
		if self._session is not None:
			self._session.kill(KILL_GRACE)

def run_jobs(progress: Progress, jobs: List[Job], watchdog: Optional[float],
	     ended: Optional[Callable[[Job], None]]=None) -> None:
	"""Runs the jobs in parallel, a thread waiting on each, which calls
	@ended when its job ended; polls the progress while they run.  On any
	exception in the main thread (KeyboardInterrupt) kills them all."""
	def wait(job: Job) -> None:
		job.wait(watchdog, progress)
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
				thread.join(POLL_SECONDS)
				progress.poll()
	except BaseException:
		for job in jobs:
			job.kill()
		raise

def state(tree: str, *parts: str) -> str:
	return os.path.join(tree, STATE_DIR, *parts)

@dataclass
class Outputs:
	"""Where a run of the matrix keeps its logs and each boot's files:
	ROOT/logs/build-KEY.log, ROOT/logs/exec-CONFIG.log, and ROOT/exec/CONFIG,
	kunit.py exec's --build_dir (links to the kernel, BOOT_FILES).  `run`'s
	root is the tree's .pan-kunit; each bisect step and mutant has its own."""
	root: str

	def build_log(self, key: str) -> str:
		return os.path.join(self.root, 'logs', f'build-{key}.log')

	def exec_log(self, config: QemuConfig) -> str:
		return os.path.join(self.root, 'logs', f'exec-{config.name}.log')

	def exec_dir(self, config: QemuConfig) -> str:
		return os.path.join(self.root, 'exec', config.name)

# What a boot writes into its exec dir: kunit_tool's console and JSON, what
# kunit_parser printed for the console, and the config's record.
CONSOLE = 'test.log'
KUNIT_JSON = 'kunit.json'
PARSED_LOG = 'parsed.log'
RECORD = 'results.json'
BOOT_FILES = (CONSOLE, KUNIT_JSON, PARSED_LOG, RECORD)

def clear_boot(exec_dir: str, exec_log: Optional[str]=None) -> None:
	"""Removes what an earlier boot left in @exec_dir (and @exec_log).
	The rule: a boot's result is read only from files that boot wrote, so
	a boot that writes no console or JSON, or a config that does not build,
	never reports an earlier boot's result."""
	stale = [os.path.join(exec_dir, name) for name in BOOT_FILES]
	for path in stale + ([exec_log] if exec_log else []):
		if os.path.lexists(path):
			os.unlink(path)

@dataclass
class KunitOptions:
	"""kunit.py's options that the user passes on, which the build and
	exec of kunit.py 6.1, 6.12 and 7.3 all take."""
	filter_glob: str = ''  # exec: the suites (SUITE) or cases (SUITE.CASE) the kernel runs
	kconfig_add: List[str] = field(default_factory=list)   # build: CONFIG_X=y
	make_options: List[str] = field(default_factory=list)  # build: X=Y, for make
	filter: str = ''         # exec: by attributes, 'speed>slow' (KUnit attributes, 6.6)
	filter_action: str = ''  # exec: 'skip' the cases --filter leaves out, not omit them
	run_isolated: str = ''   # exec: a boot per 'suite' or per 'test' (isolated.py)

def exec_options(options: KunitOptions) -> List[str]:
	"""What kunit.py exec gets of @options, besides the filter_glob, each
	in one word."""
	return (([f'--filter={options.filter}'] if options.filter else []) +
		([f'--filter_action={options.filter_action}'] if options.filter_action else []))

def kunit_cmd(kunit_dir: str, subcommand: str, build_dir: str, kunitconfig: str,
	      config: QemuConfig, fragments: Sequence[str]=()) -> List[str]:
	"""kunit.py SUBCOMMAND of @config, with @kunitconfig and the kconfig
	@fragments merged into it (kunit.py takes --kunitconfig repeatedly).
	A build runs through kunit_build.py, which leaves out the olddefconfig
	kunit.py runs before every make."""
	cmd = kunit_tool.command(kunit_dir, subcommand) + [
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

def ccache() -> Optional[str]:
	"""The ccache PATH finds, through which builds go if there is one."""
	return shutil.which('ccache')

def ccache_options(tree: str, make_options: Sequence[str]=()) -> Tuple[List[str], Dict[str, str]]:
	"""kunit.py options and environment that compile through ccache, when
	it is installed.  With base_dir at the tree, the paths ccache hashes
	are relative, so builds of the tree and of its check worktree share
	cache entries.  Not in depend mode, which would skip ccache's own
	preprocessor run on a miss (a quarter of a cold build): there ccache
	no longer sees .incbin, and would serve an old vdso-wrap.o after an
	edit of the vDSO.  A make CC= overrides the compiler LLVM= chooses, so
	with the user's LLVM=1 it is clang through ccache, and with the
	user's own CC= or another LLVM= (a prefix or suffix) there is none."""
	if not ccache():
		return [], {}
	given = {option.split('=', 1)[0] for option in make_options}
	if 'CC' in given or ('LLVM' in given and 'LLVM=1' not in make_options):
		return [], {}
	compiler = 'clang' if 'LLVM' in given else f'{CROSS_COMPILE}gcc'
	return (['--make_options', f'CC=ccache {compiler}'],
		{'CCACHE_BASEDIR': os.path.realpath(tree)})

def image_options(group: Sequence[QemuConfig], make_options: Sequence[str]=()) -> List[str]:
	"""kunit.py options that make the image the configs of @group boot
	and no other: `make all` builds KBUILD_IMAGE, Image.gz by default on
	arm64, and compressing the Image is half a second of every build that
	nothing boots when the configs boot the Image.  None when the configs
	boot different files or the user sets KBUILD_IMAGE."""
	paths = {config.kernel_path for config in group}
	if len(paths) != 1 or any(o.startswith('KBUILD_IMAGE=') for o in make_options):
		return []
	return ['--make_options', f'KBUILD_IMAGE={paths.pop()}']

def build_key(kconfig_key: str, make_options: Sequence[str]) -> str:
	"""The KEY of a build's directory: its kconfig group's, and, when
	there are any, the make options it is built with (W=1, LLVM=1 and none
	build other objects: each has a directory of its own, so that
	alternating them does not rebuild everything)."""
	if not make_options:
		return kconfig_key
	text = '\n'.join([kconfig_key] + list(make_options))
	return hashlib.sha256(text.encode()).hexdigest()[:12]

@dataclass
class Build:
	"""One kunit.py build: a kconfig group into .pan-kunit/build/KEY."""
	key: str
	group: List[QemuConfig]
	kunitconfig: str
	fragments: Sequence[str] = ()  # kconfig files merged into kunitconfig

	def build_dir(self, tree: str) -> str:
		return state(tree, 'build', self.key)

	def label(self, kernel: str='') -> str:
		"""How every line and the status line name the build: by its
		@kernel (kernel_name()) and its configs, '7.3 arm64_nopan,
		arm64_pan' (its KEY is in its directory's and its log's names)."""
		return ' '.join([kernel] * bool(kernel) + [', '.join(c.name for c in self.group)])

def kernel_name(tree: str) -> str:
	"""The kernel of @tree as --kernel names it (7.3), else its Makefile's
	version, else ''."""
	spec = kernels.from_makefile(tree)
	return spec.name if spec else kernel_version(tree)

def short_path(path: str, tree: str) -> str:
	"""@path relative to @tree when it is in it, else with ~ for the home
	directory: the lines name the tree before its builds."""
	relative = os.path.relpath(path, tree)
	if not relative.startswith(os.pardir + os.sep):
		return relative
	home = os.path.expanduser('~')
	return '~' + path[len(home):] if path.startswith(home + os.sep) else path

@contextlib.contextmanager
def build_locks(printer: Printer, build_dirs: List[str]) -> Iterator[None]:
	"""Holds an flock on DIR.lock beside each build directory, for the
	time of the block: `run` and `lkdtm` (and two runs) share build
	directories, and two `make O=DIR` at once break each other.  A lock
	another pan-kunit holds is waited for, with a line that says so; the
	locks are taken in one order, so two runs never wait for each other."""
	with contextlib.ExitStack() as held:
		for build_dir in sorted(set(build_dirs)):
			lock = held.enter_context(open(build_dir + '.lock', 'w'))
			try:
				fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
			except BlockingIOError:
				printer.print(f'waiting for another pan-kunit building in {build_dir} ...')
				fcntl.flock(lock, fcntl.LOCK_EX)
		yield

def build_all(progress: Progress, settings: BuildSettings, tree: str, kunit_dir: str,
	      builds: List[Build], jobs: int,
	      quiet: bool=False, options: Optional[KunitOptions]=None,
	      outputs: Optional[Outputs]=None) -> Dict[str, bool]:
	"""Runs the builds at once (incremental builds are mostly make
	walking the tree on one CPU) and returns whether each succeeded, by key.
	The user's --make_options come after ccache's CC= (if any).  The
	logs go into @outputs (default: the tree's .pan-kunit); @settings
	say whether they run kunit.py's olddefconfig."""
	outputs = outputs or Outputs(state(tree))
	options = options or KunitOptions()
	ccache, env = ccache_options(tree, options.make_options)
	added = build_options(options)
	tools = settings.toolchains.probe(CROSS_COMPILE, ccache[1:] + options.make_options)
	build_jobs = []
	printer = progress.printer
	kernel = kernel_name(tree)
	for b in builds:
		os.makedirs(b.build_dir(tree), exist_ok=True)
		job = Job(f'build {b.label(kernel)}',
			  kunit_cmd(kunit_dir, 'build', b.build_dir(tree), b.kunitconfig, b.group[0],
				    b.fragments) +
			  ['--jobs', str(jobs)] + ccache +
			  image_options(b.group, options.make_options) + added,
			  outputs.build_log(b.key),
			  dict(env, **settings.build_env(printer, b.build_dir(tree), tools)))
		if not quiet:
			printer.print(f'building {b.label(kernel)} (log: {short_path(job.log, tree)}) ...')
		build_jobs.append(job)
	with build_locks(printer, [b.build_dir(tree) for b in builds]):
		image = {b.key: b.group[0].kernel_path for b in builds}
		scratch = {b.key: not os.path.exists(os.path.join(b.build_dir(tree), image[b.key]))
			   for b in builds}
		for b, job in zip(builds, build_jobs):
			progress.build_started(b.label(kernel), b.build_dir(tree), job.log,
					       cost.expected_objects(b.build_dir(tree), image[b.key], [tree]))
		try:
			run_jobs(progress, build_jobs, None)
		finally:
			objects = {b.key: progress.build_ended(b.label(kernel)) for b in builds}
	built = {}
	for b, job in zip(builds, build_jobs):
		assert job.outcome is not None
		built[b.key] = job.outcome.returncode == 0
		if built[b.key]:
			kunit_tool.note_toolchain(b.build_dir(tree), tools)
			cost.write_record(b.build_dir(tree), job.outcome.elapsed, objects[b.key],
					  scratch[b.key])
			if not quiet:
				printer.print(f'built {b.label(kernel)} in {job.outcome.elapsed:.0f} s '
					      f'({objects[b.key]} objects compiled)')
			continue
		printer.print(f'build of {b.label(kernel)} failed '
			      f'(kunit.py exit {job.outcome.returncode})')
		results.print_tail(printer, 'build log', job.log, BUILD_LOG_LINES)
	return built

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

def exec_job(outputs: Outputs, kunit_dir: str, config: QemuConfig, build_dir: str,
	     kunitconfig: str, timeout: int, options: Optional[KunitOptions]=None,
	     filter_glob: Optional[str]=None, extra: Sequence[str]=()) -> Job:
	"""A kunit.py exec in a directory of the config's own, of @options'
	filter_glob, or of @filter_glob if given; @extra are more options."""
	options = options or KunitOptions()
	glob = options.filter_glob if filter_glob is None else filter_glob
	exec_dir = outputs.exec_dir(config)
	link_kernel(exec_dir, build_dir, config)
	# --json=FILE in one word: kunit.py reads a bare --json as "print
	# to stdout" and the word after it as the filter_glob, which comes
	# last, after every option.
	cmd = kunit_cmd(kunit_dir, 'exec', exec_dir, kunitconfig, config) + [
		'--timeout', str(timeout), '--json=' + os.path.join(exec_dir, KUNIT_JSON)] + (
		exec_options(options) + list(extra) + ([glob] if glob else []))
	return Job(config.name, cmd, outputs.exec_log(config))

def kconfig_builds(tree: str, configs: List[QemuConfig], kunitconfig: Optional[str]=None,
		   fragments: Sequence[str]=(), kconfig_add: Sequence[str]=(),
		   make_options: Sequence[str]=()) -> List[Build]:
	"""One build per kconfig group of @configs, of @kunitconfig (default:
	the tree's) plus @fragments; a --kconfig_add or --make_options is a
	build of its own."""
	kunitconfig = kunitconfig or os.path.join(tree, TREE_KUNITCONFIG)
	return [Build(build_key(key, make_options), group, kunitconfig, fragments)
		for key, group in group_by_kconfig(configs, list(kconfig_add)).items()]

def run(progress: Progress, settings: BuildSettings, tree: str, kunit_dir: str,
	configs: List[QemuConfig], timeout: int,
	jobs: int, kunitconfig: Optional[str]=None, quiet: bool=False,
	options: Optional[KunitOptions]=None, fragments: Sequence[str]=(),
	outputs: Optional[Outputs]=None,
	describe: Optional[Callable[[], Kernel]]=None) -> List[results.ConfigResult]:
	"""Builds every kconfig group, with @kunitconfig (default: the
	tree's) plus @fragments and @options, then boots every config that
	built.  Logs and boots go into @outputs (default: the tree's
	.pan-kunit).  @describe says the kernel the records name (default:
	kernel_of()); it runs while the kernels build, as the git status of
	a kernel tree takes 0.2-0.3 s."""
	kunitconfig = kunitconfig or os.path.join(tree, TREE_KUNITCONFIG)
	options = options or KunitOptions()
	outputs = outputs or Outputs(state(tree))
	ktap.load_parser(kunit_dir)  # the consoles are parsed with it: fail before building
	describe = describe or (lambda: kernel_of(tree))
	builds = kconfig_builds(tree, configs, kunitconfig, fragments, options.kconfig_add,
				options.make_options)
	build_of = {c.name: b for b in builds for c in b.group}
	for config in configs:
		clear_boot(outputs.exec_dir(config), outputs.exec_log(config))
	with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
		described = pool.submit(describe)
		ok = build_all(progress, settings, tree, kunit_dir, builds, jobs, quiet, options, outputs)
		record = described.result()
	built = [c for b in builds if ok[b.key] for c in b.group]
	if options.run_isolated:
		# A boot per suite or case: isolated.py, which leaves in each
		# config's exec directory what one boot would have.
		from pan_kunit import isolated  # it runs its boots with this module's jobs
		boots = isolated.boot(progress, outputs, kunit_dir,
				      {c.name: (c, build_of[c.name].build_dir(tree)) for c in built},
				      kunitconfig, timeout, options, quiet)
		return [_collect(c, kunit_dir, outputs, build_of[c.name].build_dir(tree),
				 outputs.build_log(build_of[c.name].key), record,
				 boots[c.name].outcome if c.name in boots else None, timeout,
				 boots[c.name].parts if c.name in boots else ()) for c in configs]
	exec_jobs = {c.name: exec_job(outputs, kunit_dir, c, build_of[c.name].build_dir(tree),
				      kunitconfig, timeout, options)
		     for c in built}
	exec_dir_of = outputs.exec_dir
	def ended(job: Job) -> None:
		# In the job's waiting thread: the status only; the console is
		# parsed in the main thread, once every boot has ended.
		config = next(c for c in built if c.name == job.label)
		assert job.outcome is not None
		status = _status(exec_dir_of(config), job.outcome, timeout)
		progress.boot_ended(config.name, status, job.outcome.elapsed, quiet)
	if exec_jobs:
		if not quiet:
			progress.line(f'booting {", ".join(exec_jobs)} (timeout {timeout} s) ...')
		progress.boots_started(list(exec_jobs))
		try:
			run_jobs(progress, list(exec_jobs.values()), timeout + WATCHDOG_MARGIN, ended)
		finally:
			progress.boots_ended()
	collected = []
	for config in configs:
		job = exec_jobs.get(config.name)
		build = build_of[config.name]
		collected.append(_collect(config, kunit_dir, outputs, build.build_dir(tree),
					  outputs.build_log(build.key), record,
					  job.outcome if job else None, timeout))
	return collected

def _status(exec_dir: str, outcome: results.Exit, timeout: int) -> results.Status:
	"""The status of a boot that ended, from the files it wrote."""
	return results.classify(results.read_json(os.path.join(exec_dir, KUNIT_JSON)),
				results.read_text(os.path.join(exec_dir, CONSOLE)), outcome, timeout)

def _param_skips(consoles: Sequence[str]) -> Dict[str, int]:
	"""results.param_skips() of boots one after the other."""
	found: Dict[str, int] = {}
	for console in consoles:
		for case, count in results.param_skips(console).items():
			found[case] = found.get(case, 0) + count
	return found

def _collect(config: QemuConfig, kunit_dir: str, outputs: Outputs, build_dir: str,
	     build_log: str, kernel: Kernel, outcome: Optional[results.Exit],
	     timeout: int, parts: Sequence[str]=()) -> results.ConfigResult:
	"""The result of the config's boot (None: not built), read from the
	files it wrote, and its record written beside them; with --run_isolated,
	@parts are the exec directories of its boots, which isolated.py merged
	into the config's."""
	exec_dir = outputs.exec_dir(config)
	kunit: Optional[results.JsonObj] = None
	console: Optional[str] = None
	cases: List[ktap.Case] = []
	consoles: List[str] = []
	if outcome is None:
		status = results.Status.BUILD_ERROR
	else:
		kunit = results.read_json(os.path.join(exec_dir, KUNIT_JSON))
		console = results.read_text(os.path.join(exec_dir, CONSOLE))
		status = _status(exec_dir, outcome, timeout)
	if console is not None:
		# An isolated run's consoles are one boot each: each is parsed alone.
		consoles = [results.read_text(os.path.join(p, CONSOLE)) or '' for p in parts] or [console]
		parsed_list = [ktap.parse(text, kunit_dir) for text in consoles]
		cases = [case for found, _ in parsed_list for case in found]
		with open(os.path.join(exec_dir, PARSED_LOG), 'w') as f:
			f.write(''.join(parsed for _, parsed in parsed_list))
	result = results.ConfigResult(
		name=config.name, cpu=config.cpu, qemu_config=config.path,
		build_dir=build_dir, status=status,
		elapsed=None if outcome is None else round(outcome.elapsed, 3),
		skip_reasons={case: reason for text in consoles
			      for case, reason in results.skip_reasons(text).items()}, kunit=kunit,
		console_log=os.path.join(exec_dir, CONSOLE), exec_log=outputs.exec_log(config),
		kconfig=config.kconfig, kernel=kernel, cases=cases,
		kunit_json=os.path.join(exec_dir, KUNIT_JSON),
		parsed_log=os.path.join(exec_dir, PARSED_LOG),
		record=os.path.join(exec_dir, RECORD), build_log=build_log,
		param_skips=_param_skips(consoles))
	os.makedirs(exec_dir, exist_ok=True)
	results.write_json(result.record, result.to_json())
	return result
