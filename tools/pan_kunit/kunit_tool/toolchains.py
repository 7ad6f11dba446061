# SPDX-License-Identifier: GPL-2.0
#
# kunit_build.py leaves out the `make olddefconfig` kunit.py runs before
# every make (1.5 s of CPU in every build) unless the build's environment
# has OLDDEFCONFIG_ENV=1, which BuildSettings.build_env() gives it when
# the user asks for it (--olddefconfig, or that variable) and whenever the
# tools Kconfig probes (compiler, assembler, linker, pahole:
# Toolchains.probe()) are not those noted beside the build's .config when
# it last built: an upgraded toolchain reconfigures the build, as plain
# kunit.py would, and says so.

import os
import shlex
import shutil
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from pan_kunit.host import files, proc
from pan_kunit.host.printer import Printer

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
			# Two lines that keep to 80 columns.
			printer.print('note: builds leave out kunit.py\'s make olddefconfig while the '
				      'toolchain\n      is unchanged '
				      f'(--olddefconfig or {OLDDEFCONFIG_ENV}=1 keep it)')
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

def note_toolchain(build_dir: str, tools: str) -> None:
	"""Notes @tools beside the .config of a build that succeeded."""
	files.write_text(os.path.join(build_dir, TOOLCHAIN_FILE), tools)

