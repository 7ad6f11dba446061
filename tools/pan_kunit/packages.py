# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages that setup and run need, and the commands they run.

import os
import shutil
from typing import Callable, List, Optional, Sequence, Set

from pan_kunit import Error, proc

# What every command needs beside the kernels' source packages.
NEEDED = ['gcc-aarch64-linux-gnu', 'qemu-system-arm', 'bc',
	  'bison', 'flex', 'libssl-dev', 'libelf-dev', 'git', 'python3',
	  'make', 'gcc', 'libc6-dev', 'xz-utils', 'ccache',
	  # libclang for mutants --generate, whose unit tests selftest runs
	  'python3-clang-19',
	  # selftest's type check
	  'mypy']

# The commands each command needs, with the Debian package of each: setup
# extracts and commits the tree, the others also build and boot it.
TOOL_PACKAGES = {
	'git': 'git', 'tar': 'tar', 'xz': 'xz-utils',
	'make': 'make', 'gcc': 'gcc', 'bc': 'bc', 'bison': 'bison', 'flex': 'flex',
	'aarch64-linux-gnu-gcc': 'gcc-aarch64-linux-gnu',
	'qemu-system-aarch64': 'qemu-system-arm',
	'aarch64-linux-gnu-gcov': 'gcc-aarch64-linux-gnu',
	'lcov': 'lcov', 'genhtml': 'lcov',
}
SETUP_TOOLS = ['git', 'tar', 'xz']
BUILD_TOOLS = ['make', 'gcc', 'bc', 'bison', 'flex', 'aarch64-linux-gnu-gcc']
BOOT_TOOLS = ['qemu-system-aarch64']

class NotDebian(Error):
	"""No dpkg-query on PATH."""

def _not_debian(sources: Sequence[str]=()) -> Error:
	return NotDebian('no dpkg-query: this is not a Debian host. pan-kunit builds Debian\'s '
			 f'{" and ".join(sources) or "kernel sources"} and installs what it needs '
			 'only on Debian, with apt-get; it needs the Debian packages: ' +
			 ' '.join(list(sources) + NEEDED))

# The dpkg states of a package whose files are unpacked and configured.
INSTALLED_STATES = ('installed', 'triggers-pending', 'triggers-awaited')

def _dpkg(args: List[str]) -> proc.Result:
	try:
		return proc.run(args)
	except FileNotFoundError:
		raise _not_debian() from None

def installed(package_list: Sequence[str]) -> Set[str]:
	"""The packages of @package_list that are installed for this host's
	architecture (or for all), from one dpkg-query for all of them: one
	per package was 0.1 s of every command.  An unknown package is not
	installed (dpkg-query names it on stderr and exits 1, after the lines
	of the others); any other failure of dpkg-query is an error."""
	if not package_list:
		return set()
	native = _dpkg(['dpkg', '--print-architecture']).stdout.strip()
	result = _dpkg(['dpkg-query', '-W', '-f=${Package}\t${Architecture}\t${db:Status-Status}\n',
			'--'] + list(package_list))
	if result.returncode not in (0, 1):
		raise Error(f'dpkg-query -W failed (exit {result.returncode}): '
			    f'{result.stderr.strip() or "no message"}')
	wanted = set(package_list)
	present = set()
	for fields in (line.split('\t') for line in result.stdout.splitlines()):
		if (len(fields) == 3 and fields[0] in wanted and fields[1] in (native, 'all') and
		    fields[2] in INSTALLED_STATES):
			present.add(fields[0])
	return present

def is_installed(package: str) -> bool:
	return package in installed([package])

def version(package: str) -> str:
	"""The version of an installed or known package, else ''."""
	result = _dpkg(['dpkg-query', '-W', '-f=${Version}', package])
	return result.stdout if result.returncode == 0 else ''

def _apt_get(args: List[str]) -> int:
	env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
	return proc.run(['apt-get'] + args, env=env, stdout=proc.To.TERMINAL,
			stderr=proc.To.TERMINAL).returncode

def ensure(sources: Sequence[str]=(), extra: Sequence[str]=(),
	   installed: Callable[[Sequence[str]], Set[str]]=installed,
	   euid: Callable[[], int]=os.geteuid,
	   apt_get: Callable[[List[str]], int]=_apt_get) -> None:
	"""Installs the missing kernel @sources (their Debian packages),
	NEEDED packages and the @extra ones the command needs, as root;
	refuses otherwise."""
	wanted = list(dict.fromkeys(list(sources) + NEEDED + list(extra)))
	try:
		present = installed(wanted)
	except NotDebian:
		raise _not_debian(sources) from None
	missing = [p for p in wanted if p not in present]
	if not missing:
		return
	install = ['install', '-y', '--no-install-recommends'] + missing
	if euid() != 0:
		raise Error('missing Debian packages: ' + ' '.join(missing) + '\n'
			    'run as root: apt-get ' + ' '.join(install))
	print('installing missing Debian packages: ' + ' '.join(missing))
	if apt_get(['update']) != 0:
		raise Error('apt-get update failed (see its output above); '
			    'fix the APT sources, then run again')
	if apt_get(install) != 0:
		raise Error('apt-get ' + ' '.join(install) + ' failed (see its output above)')

def require(commands: Sequence[str], purpose: str,
	    which: Callable[[str], Optional[str]]=shutil.which) -> None:
	"""Refuses, before any work, a command whose tools are not on PATH
	(their packages are installed, yet PATH lacks them)."""
	missing = [c for c in commands if which(c) is None]
	if missing:
		raise Error(f'{purpose} needs ' + ', '.join(
			f'{c} (Debian package {TOOL_PACKAGES.get(c, c)})' for c in missing) +
			', not found on PATH (' + os.environ.get('PATH', '') + ')')
