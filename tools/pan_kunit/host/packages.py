# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages that setup and run need, and the commands they run.

import os
import re
import shutil
from dataclasses import dataclass
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from pan_kunit import Error
from pan_kunit.host import apt_suites, proc
from pan_kunit.host.printer import Printer

# What every command needs beside the kernels' source packages.
NEEDED = ['gcc-aarch64-linux-gnu', 'qemu-system-arm', 'bc',
	  'bison', 'flex', 'libssl-dev', 'libelf-dev', 'git', 'python3',
	  'make', 'gcc', 'libc6-dev', 'xz-utils', 'ccache',
	  # the static arm64 kselftests (matrix/kselftest_build.py): their libc,
	  # and rsync, which every selftests install rule runs
	  'libc6-dev-arm64-cross', 'rsync',
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

@dataclass(frozen=True)
class Backport:
	"""Packages whose version in a Debian release lacks what pan-kunit
	needs, and the backports suite of each release that has a newer one."""
	packages: Tuple[str, ...]   # the first one's version counts
	minimum: str
	lack: str                   # what an older version lacks
	suites: Mapping[str, str]   # release codename -> suite

# QEMU 7.2 (Debian 12) models FEAT_PAN2 on its max CPU, QEMU 10.0 FEAT_PAN3
# (ID_AA64MMFR1_EL1.PAN = 3, SCTLR_EL1.EPAN): with 7.2 a kernel never
# detects ARM64_HAS_EPAN, and what it does with EPAN goes untested.  The three packages of
# the emulator move together.
QEMU = Backport(('qemu-system-arm', 'qemu-system-common', 'qemu-system-data'), '1:10.0',
		'its max CPU has no FEAT_PAN3, and what the kernel does with EPAN goes untested',
		{'bookworm': 'bookworm-backports'})
BACKPORTS = (QEMU,)

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

def installed_versions(package_list: Sequence[str]) -> Dict[str, str]:
	"""The packages of @package_list that are installed for this host's
	architecture (or for all), each with its version, from one
	dpkg-query for all of them: one per package was 0.1 s of every
	command.  An unknown package is not installed (dpkg-query names it on
	stderr and exits 1, after the lines of the others); any other failure
	of dpkg-query is an error."""
	if not package_list:
		return {}
	native = _dpkg(['dpkg', '--print-architecture']).stdout.strip()
	result = _dpkg(['dpkg-query', '-W',
			'-f=${Package}\t${Architecture}\t${db:Status-Status}\t${Version}\n',
			'--'] + list(package_list))
	if result.returncode not in (0, 1):
		raise Error(f'dpkg-query -W failed (exit {result.returncode}): '
			    f'{result.stderr.strip() or "no message"}')
	wanted = set(package_list)
	present = {}
	for fields in (line.split('\t') for line in result.stdout.splitlines()):
		if (len(fields) in (3, 4) and fields[0] in wanted and fields[1] in (native, 'all') and
		    fields[2] in INSTALLED_STATES):
			present[fields[0]] = fields[3] if len(fields) == 4 else ''
	return present

def installed(package_list: Sequence[str]) -> Set[str]:
	return set(installed_versions(package_list))

def older(version: str, minimum: str) -> bool:
	"""Whether Debian version @version sorts before @minimum."""
	try:
		return proc.run(['dpkg', '--compare-versions', version, 'lt', minimum]).returncode == 0
	except FileNotFoundError:
		raise _not_debian() from None

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

def _apt_get_simulated(args: List[str]) -> str:
	"""What apt-get would do (apt-get -s: nothing is changed), '' if it
	cannot say."""
	env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
	result = proc.run(['apt-get', '-s'] + args, env=env)
	return result.stdout if result.ok() else ''

# apt-get -s's line of a package it installs: "Inst NAME [OLD] (NEW SUITE
# [ARCH])", with [OLD] when NAME is installed and is upgraded.
_INST = re.compile(r'^Inst (\S+) (?:\[([^]]+)\] )?\((\S+)')

def side_upgrades(simulated: str, named: Sequence[str]) -> List[str]:
	"""The notes of the installed packages that apt-get -s (@simulated)
	upgrades beside the @named ones: with INSTALL's option, APT upgrades
	an installed package that no one named only when a package it
	installs depends on a newer version of it (libc6-dev on its libc6,
	libssl-dev on its libssl3, a backport on its libraries), and no
	option stops that."""
	notes = []
	for line in simulated.splitlines():
		found = _INST.match(line)
		if found and found.group(2) and found.group(1).split(':')[0] not in named:
			notes.append(f'note: apt-get also upgrades {found.group(1)} {found.group(2)} to '
				     f'{found.group(3)}: a package it installs depends on that version')
	return notes

# apt-get install's options.  APT 2.5.2 and later (Debian 12 has 2.6)
# also upgrade every installed package built from the same source package
# as one they install, to the same version, when that is its candidate:
# linux-source-6.1 (source package linux) took linux-libc-dev and
# linux-perf along with it.  --no-upgrade keeps only the packages named on
# the command line; APT::Get::Upgrade-By-Source-Package=false stops that.
INSTALL = ['install', '-y', '--no-install-recommends', '-o',
	   'APT::Get::Upgrade-By-Source-Package=false']

@dataclass
class Upgrade:
	"""The Backport packages to install, and their suites' APT files."""
	packages: List[str]
	suites: Dict[str, List[str]]
	notes: List[str]

def upgrades(versions: Mapping[str, str], release: Optional[str],
	     backports: Sequence[Backport]=BACKPORTS,
	     older: Callable[[str, str], bool]=older) -> Upgrade:
	"""What of @backports to take from this @release's backports suite:
	those missing or older than their minimum (@versions: the installed
	ones).  A release without such a suite keeps what it has, with a
	note when that is too old."""
	found = Upgrade([], {}, [])
	for backport in backports:
		first = backport.packages[0]
		have = versions.get(first)
		if have is not None and (not have or not older(have, backport.minimum)):
			continue
		suite = backport.suites.get(release or '')
		if suite is None:
			if have is not None:
				found.notes.append(f'{first} {have} is older than {backport.minimum}: '
						   f'{backport.lack}')
			continue
		found.packages += backport.packages
		found.suites.setdefault(suite, []).extend(backport.packages)
	return found

def ensure(printer: Printer, sources: Sequence[str]=(), extra: Sequence[str]=(),
	   installed: Callable[[Sequence[str]], Mapping[str, str]]=installed_versions,
	   euid: Callable[[], int]=os.geteuid,
	   apt_get: Callable[[List[str]], int]=_apt_get,
	   simulate: Callable[[List[str]], str]=_apt_get_simulated,
	   release: Callable[[], Optional[str]]=apt_suites.codename,
	   older: Callable[[str, str], bool]=older,
	   root: str='/') -> None:
	"""Installs the missing kernel @sources (their Debian packages),
	NEEDED packages and the @extra ones the command needs, as root;
	refuses otherwise.  A BACKPORTS package older than its minimum comes
	from its release's backports suite, which is added for it: as root it
	is upgraded, as another user the command goes on with a note."""
	wanted = list(dict.fromkeys(list(sources) + NEEDED + list(extra)))
	try:
		present = installed(wanted + [p for b in BACKPORTS for p in b.packages])
	except NotDebian:
		raise _not_debian(sources) from None
	missing = [p for p in wanted if p not in present]
	newer = upgrades(present, release(), older=older)
	for note in newer.notes:
		printer.print(f'note: {note}')
	if not missing and not newer.packages:
		return
	if euid() != 0:
		if missing:
			raise Error('missing Debian packages: ' + ' '.join(missing) + '\n'
				    'run as root: ' + _commands(missing, newer, root))
		if newer.packages:
			printer.print(f'note: {_lacks(newer)}; as root, run:\n' +
				      _commands([], newer, root))
		return
	install = list(dict.fromkeys(missing + newer.packages))
	apt_suites.ensure(printer, newer.suites, root)
	printer.print('installing Debian packages: ' + ' '.join(install))
	if apt_get(['update']) != 0:
		raise Error('apt-get update failed (see its output above); '
			    'fix the APT sources, then run again')
	# What is missing, with --no-upgrade: a package that is installed
	# meanwhile is left as it is; then the backports pan-kunit upgrades,
	# by name.  Each says first what apt-get upgrades beside them.
	upgraded = [p for p in newer.packages if p not in missing]
	commands = ([(INSTALL + ['--no-upgrade'], missing)] if missing else []) + \
		   ([(INSTALL, upgraded)] if upgraded else [])
	for options, names in commands:
		command = options + names
		for note in side_upgrades(simulate(command), names):
			printer.print(note)
		if apt_get(command) != 0:
			raise Error('apt-get ' + ' '.join(command) + ' failed (see its output above)')

def _lacks(newer: Upgrade) -> str:
	backport = next(b for b in BACKPORTS if b.packages[0] in newer.packages)
	return (f'{backport.packages[0]} older than {backport.minimum}: {backport.lack}; '
		f'{" and ".join(newer.suites)} has a newer one')

def _commands(missing: List[str], newer: Upgrade, root: str) -> str:
	stale = apt_suites.missing(newer.suites, root)
	install = ' '.join(['apt-get'] + INSTALL + list(dict.fromkeys(missing + newer.packages)))
	return (apt_suites.commands(stale) + '\n' if stale else '') + install

def require(commands: Sequence[str], purpose: str,
	    which: Callable[[str], Optional[str]]=shutil.which) -> None:
	"""Refuses, before any work, a command whose tools are not on PATH
	(their packages are installed, yet PATH lacks them)."""
	missing = [c for c in commands if which(c) is None]
	if missing:
		raise Error(f'{purpose} needs ' + ', '.join(
			f'{c} (Debian package {TOOL_PACKAGES.get(c, c)})' for c in missing) +
			', not found on PATH (' + os.environ.get('PATH', '') + ')')
