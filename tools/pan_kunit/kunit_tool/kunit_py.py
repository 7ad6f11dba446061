# SPDX-License-Identifier: GPL-2.0
#
# The kunit.py of a tree (tools/testing/kunit/), which pan-kunit reuses
# rather than copies: where it is, its command lines (a build through
# kunit_build.py, which leaves out the olddefconfig before every make:
# toolchains.py says when it may), the options of kunit.py's that the user
# passes on, and kunit.py parse of a saved console.

import os
import sys
from dataclasses import dataclass, field
from typing import List, Sequence

from pan_kunit import Error
from pan_kunit.host import proc

# Where a tree (the prepared tree, a worktree of it) has its kunit_tool.
DIR = os.path.join('tools', 'testing', 'kunit')
SCRIPT = 'kunit.py'
# kunit.py build without the olddefconfig before every make (see the file).
BUILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'kunit_build.py')

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

def parse(kunit_py: str, console: str, json_path: str) -> proc.Result:
	"""`kunit.py parse --json=@json_path @console`, absolute paths: kunit.py
	works in the tree's top directory."""
	return proc.run([sys.executable, kunit_py, 'parse', '--json=' + json_path, console],
			stdin=proc.To.NOWHERE, stderr=proc.To.MERGED,
			env=dict(os.environ, PYTHONDONTWRITEBYTECODE='1'))
