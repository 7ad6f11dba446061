# SPDX-License-Identifier: GPL-2.0
#
# The kunit_tool of a tree (tools/testing/kunit/), which pan-kunit reuses
# rather than copies: where it is, how its kunit.py is run (a build
# through kunit_build.py), and how its modules are imported (kunit_parser,
# qemu_config) without one tree's module standing in for another's.
#
# kunit_build.py leaves out the `make olddefconfig` kunit.py runs before
# every make (1.5 s of CPU in every build) unless the build's environment
# has OLDDEFCONFIG_ENV=1, which build_env() gives it when the user asks
# for it (--olddefconfig, or that variable) and whenever the tools Kconfig
# probes (compiler, assembler, linker, pahole: Toolchains.probe()) are not those
# noted beside the build's .config when it last built: an upgraded
# toolchain reconfigures the build, as plain kunit.py would, and says so.

import contextlib
import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from types import CodeType, ModuleType
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from pan_kunit import Error, proc
from pan_kunit.printer import Printer

# Where a tree (the prepared tree, a worktree of it) has its kunit_tool.
DIR = os.path.join('tools', 'testing', 'kunit')
SCRIPT = 'kunit.py'
# kunit.py build without the olddefconfig before every make (see the file).
BUILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'kunit_build.py')

# =1: every build runs kunit.py's olddefconfig (kunit_build.py reads it too).
OLDDEFCONFIG_ENV = 'PAN_KUNIT_OLDDEFCONFIG'
# Beside a build's .config: its toolchain (Toolchains.probe()) when it last built.
TOOLCHAIN_FILE = '.pan-kunit-toolchain'

class Toolchains:
	"""The toolchains probed so far (probe()), by the tools asked for and
	the files they are: those of one command, which its session holds, or
	of every command of a process that runs several (the tests)."""

	def __init__(self) -> None:
		self._probes: Dict[Tuple[Any, ...], str] = {}

	def probe(self, cross_compile: str, make_options: Sequence[str]) -> str:
		"""The first line of `--version` of each tool whose version Kconfig
		reads into a .config and kbuild does not track: the compiler (make's
		CC, else LLVM's clang, else @cross_compile gcc), the assembler, the
		linker and pahole; a tool that is not installed as missing.  Probed
		once while the files those tools are stay the same (a bisect's steps
		build in seconds each)."""
		tools = _tools(cross_compile, make_options)
		key = (tuple(tools), _files(tools))
		if key not in self._probes:
			self._probes[key] = _probe(tools)
		return self._probes[key]

@dataclass
class BuildSettings:
	"""What the builds of one command share: whether they keep kunit.py's
	olddefconfig (--olddefconfig), whether the note that they leave it out
	was said (once a command), and the toolchains probed for them."""
	keep: bool = False
	announced: bool = False
	toolchains: Toolchains = field(default_factory=Toolchains)

	def keeps_olddefconfig(self) -> bool:
		return self.keep or os.environ.get(OLDDEFCONFIG_ENV, '') not in ('', '0')

	def build_env(self, printer: Printer, build_dir: str, tools: str) -> Dict[str, str]:
		"""What the environment of the build into @build_dir adds: nothing
		when kunit_build.py may leave its olddefconfig out (the toolchain is
		@tools, as when it last built), else OLDDEFCONFIG_ENV=1: a first
		build, --olddefconfig, or a toolchain that changed (said in a line)."""
		if self.keeps_olddefconfig():
			return {OLDDEFCONFIG_ENV: '1'}
		if not self.announced:
			self.announced = True
			printer.print('note: builds leave out kunit.py\'s make olddefconfig while the '
				      f'toolchain is unchanged (--olddefconfig or {OLDDEFCONFIG_ENV}=1 '
				      'keep it)')
		try:
			with open(os.path.join(build_dir, TOOLCHAIN_FILE)) as f:
				before: Optional[str] = f.read()
		except FileNotFoundError:
			before = None
		if before == tools:
			return {}
		if before is not None:
			changed = [f'{old} -> {new.split(": ", 1)[1]}' for old, new in
				   zip(before.splitlines(), tools.splitlines()) if old != new]
			printer.print(f'note: the toolchain changed since {build_dir} was configured '
				      f'({"; ".join(changed) or "its tools"}): olddefconfig runs before '
				      'its make')
		return {OLDDEFCONFIG_ENV: '1'}

def _make_variable(make_options: Sequence[str], name: str) -> Optional[str]:
	values = [o.split('=', 1)[1] for o in make_options if o.startswith(name + '=')]
	return values[-1] if values else None

def _tools(cross_compile: str, make_options: Sequence[str]) -> List[str]:
	llvm = _make_variable(make_options, 'LLVM') is not None
	return [_make_variable(make_options, 'CC') or ('clang' if llvm else cross_compile + 'gcc'),
		cross_compile + 'as',
		_make_variable(make_options, 'LD') or ('ld.lld' if llvm else cross_compile + 'ld'),
		'pahole']

def _files(tools: Sequence[str]) -> Tuple[Any, ...]:
	"""What each word of @tools is on PATH now: the file, with its inode,
	size and modification time, which an upgrade of its package changes."""
	found: List[Any] = []
	for word in (w for tool in tools for w in shlex.split(tool)):
		path = shutil.which(word)
		try:
			st = os.stat(path) if path else None
		except OSError:
			st = None
		found.append((word, path) + ((st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
					     if st else ()))
	return tuple(found)

def _probe(tools: Sequence[str]) -> str:
	lines = []
	for tool in tools:
		try:
			result = proc.run(shlex.split(tool) + ['--version'], stdin=proc.To.NOWHERE,
					  stderr=proc.To.NOWHERE)
		except (FileNotFoundError, PermissionError):
			lines.append(f'{tool}: missing')
			continue
		lines.append(f'{tool}: ' + (result.stdout.splitlines() or ['?'])[0].strip())
	return '\n'.join(lines) + '\n'

# The arch and cross compiler of every build and boot (kunit.py's --arch
# and --cross_compile).
ARCH = 'arm64'
CROSS_COMPILE = 'aarch64-linux-gnu-'

@dataclass
class KunitOptions:
	"""kunit.py's options that the user passes on, which the build and
	exec of kunit.py 6.1, 6.12 and 7.3 all take."""
	filter_glob: str = ''  # exec: the suites (SUITE) or cases (SUITE.CASE) the kernel runs
	kconfig_add: List[str] = field(default_factory=list)   # build: CONFIG_X=y
	make_options: List[str] = field(default_factory=list)  # build: X=Y, for make
	filter: str = ''         # exec: by attributes, 'speed>slow' (KUnit attributes, 6.6)
	filter_action: str = ''  # exec: 'skip' the cases --filter leaves out, not omit them
	run_isolated: str = ''   # exec: a boot per 'suite' or per 'test' (isolation.py)

def exec_options(options: KunitOptions) -> List[str]:
	"""What kunit.py exec gets of @options, besides the filter_glob, each
	in one word."""
	return (([f'--filter={options.filter}'] if options.filter else []) +
		([f'--filter_action={options.filter_action}'] if options.filter_action else []))

def build_options(options: KunitOptions) -> List[str]:
	"""What kunit.py build gets of @options, each in one word, as a value
	may start with '-'."""
	return ([f'--kconfig_add={line}' for line in options.kconfig_add] +
		[f'--make_options={option}' for option in options.make_options])

def kunit_cmd(kunit_dir: str, subcommand: str, build_dir: str, kunitconfig: str,
	      qemu_config: str, fragments: Sequence[str]=()) -> List[str]:
	"""kunit.py SUBCOMMAND of the QEMU config file @qemu_config, with
	@kunitconfig and the kconfig @fragments merged into it (kunit.py takes
	--kunitconfig repeatedly).  A build runs through kunit_build.py, which
	leaves out the olddefconfig kunit.py runs before every make."""
	cmd = command(kunit_dir, subcommand) + [
		'--build_dir', build_dir, '--arch', ARCH, '--cross_compile', CROSS_COMPILE,
		'--kunitconfig', kunitconfig]
	for fragment in fragments:
		cmd += ['--kunitconfig', fragment]
	return cmd + ['--qemu_config', qemu_config]

def note_toolchain(build_dir: str, tools: str) -> None:
	"""Notes @tools beside the .config of a build that succeeded."""
	with open(os.path.join(build_dir, TOOLCHAIN_FILE), 'w') as f:
		f.write(tools)

def directory(tree: str) -> str:
	"""The kunit_tool of @tree, which builds and boots it."""
	return os.path.join(tree, DIR)

def script(kunit_dir: str) -> str:
	"""kunit.py of the kunit_tool in @kunit_dir."""
	return os.path.join(kunit_dir, SCRIPT)

def find(trees: Sequence[str]) -> str:
	"""kunit.py of the first of @trees that has one."""
	for candidate in trees:
		path = script(directory(candidate))
		if os.path.isfile(path):
			return path
	raise Error('parse needs kunit_tool\'s parser, and there is no '
		    f'{os.path.join(DIR, SCRIPT)} in {" nor in ".join(trees)}: '
		    'run tools/pan-kunit setup first')

def command(kunit_dir: str, subcommand: str) -> List[str]:
	"""The start of a kunit.py SUBCOMMAND; a build runs through kunit_build.py."""
	if subcommand == 'build':
		return [sys.executable, BUILD, script(kunit_dir), subcommand]
	return [sys.executable, script(kunit_dir), subcommand]

# Code compiled from a kunit_tool module, by the SHA-256 of its source:
# the trees of one kernel have the same kunit_parser.py, which need not be
# compiled again in each (no __pycache__ is written into a tree).
_compiled: Dict[bytes, CodeType] = {}

def _named(code: CodeType, path: str) -> CodeType:
	"""@code, with its functions', as compiled from @path (tracebacks)."""
	return code.replace(co_filename=path, co_consts=tuple(
		_named(c, path) if isinstance(c, CodeType) else c for c in code.co_consts))

class _Loader(importlib.machinery.SourceFileLoader):
	"""A kunit_tool module's loader: its code compiled once per source."""
	def get_code(self, fullname: str) -> CodeType:
		source = self.get_data(self.path)
		key = hashlib.sha256(source).digest()
		if key not in _compiled:
			_compiled[key] = compile(source, self.path, 'exec', dont_inherit=True)
		code = _compiled[key]
		return code if code.co_filename == self.path else _named(code, self.path)

class _Finder(importlib.abc.MetaPathFinder):
	"""Finds @modules in @kunit_dir alone, for _Loader to load."""
	def __init__(self, kunit_dir: str, modules: Sequence[str]) -> None:
		self.kunit_dir, self.modules = kunit_dir, set(modules)

	def find_spec(self, name: str, path: Any=None, target: Any=None) -> Any:
		source = os.path.join(self.kunit_dir, name + '.py')
		if name not in self.modules or not os.path.isfile(source):
			return None
		return importlib.util.spec_from_file_location(name, source,
							      loader=_Loader(name, source))

@contextlib.contextmanager
def importable(kunit_dir: Optional[str], modules: Sequence[str]) -> Iterator[None]:
	"""While in it, the @modules of @kunit_dir's kunit_tool (None: of
	none; the caller provides them) import afresh: no module of another
	tree is reused, none is left in sys.modules after, no __pycache__ is
	written into the tree (or the repo)."""
	saved = {name: sys.modules.pop(name) for name in modules if name in sys.modules}
	finder = None
	if kunit_dir is not None:
		sys.path.insert(0, kunit_dir)
		finder = _Finder(kunit_dir, modules)
		sys.meta_path.insert(0, finder)
	dont_write_bytecode = sys.dont_write_bytecode
	sys.dont_write_bytecode = True
	try:
		yield
	finally:
		if finder is not None:
			sys.meta_path.remove(finder)
		if kunit_dir is not None:
			sys.path.remove(kunit_dir)
		sys.dont_write_bytecode = dont_write_bytecode
		for name in modules:
			sys.modules.pop(name, None)
		sys.modules.update(saved)

def load(kunit_dir: str, name: str, imports: Sequence[str]=()) -> ModuleType:
	"""@kunit_dir's module @name, which imports @imports of its own."""
	with importable(kunit_dir, [name] + list(imports)):
		try:
			return importlib.import_module(name)
		except Exception as e:
			raise Error(f'cannot load {name} from {kunit_dir}: {e}')

def parse(kunit_py: str, console: str, json_path: str) -> proc.Result:
	"""`kunit.py parse --json=@json_path @console`, absolute paths: kunit.py
	works in the tree's top directory."""
	return proc.run([sys.executable, kunit_py, 'parse', '--json=' + json_path, console],
			stdin=proc.To.NOWHERE, stderr=proc.To.MERGED,
			env=dict(os.environ, PYTHONDONTWRITEBYTECODE='1'))
