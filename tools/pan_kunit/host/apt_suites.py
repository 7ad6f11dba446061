# SPDX-License-Identifier: GPL-2.0
#
# Packages from another suite of the Debian archive this machine already
# uses: linux-source-7.3 is in trixie-backports, and installs on Debian 12
# (it needs only binutils and xz-utils); QEMU 10, whose max CPU has
# FEAT_PAN3, is in bookworm-backports (packages.QEMU).  Before installing
# such a package, setup adds its suite for it alone:
#
#   etc/apt/sources.list.d/pan-kunit-SUITE.sources
#       the suite, at the address (and with the Signed-By key) of the
#       machine's own Debian archive: no host is written in this repo
#   etc/apt/preferences.d/pan-kunit-SUITE.pref
#       every package of the suite at priority -1, so that nothing is
#       installed or upgraded from it, but the packages pan-kunit takes
#       from it, at 500
#
# and says what it wrote.  Files that already say so are left alone; as
# another user than root it writes nothing and prints the commands.

import glob
import os
import re
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from pan_kunit import Error
from pan_kunit.host.files import write_text
from pan_kunit.host.printer import Printer

SOURCES_DIR = os.path.join('etc', 'apt', 'sources.list.d')
PREFERENCES_DIR = os.path.join('etc', 'apt', 'preferences.d')
# The suites of a Debian release: CODENAME, CODENAME-updates, ...; its
# security suite lives in another archive.
_RELEASE_SUITE = re.compile(r'^[a-z]+(?:-updates|-backports|-proposed-updates)?$')
_ONE_LINE = re.compile(r'^deb\s+(?:\[(?P<options>[^]]*)\]\s+)?(?P<uri>\S+)\s+(?P<suite>\S+)')

@dataclass(frozen=True)
class Archive:
	"""A Debian archive of the machine's APT sources."""
	uri: str
	signed_by: Optional[str]
	where: str   # the file that names it

def codename(root: str='/') -> Optional[str]:
	try:
		with open(os.path.join(root, 'etc', 'os-release')) as f:
			for line in f:
				key, _, value = line.strip().partition('=')
				if key == 'VERSION_CODENAME':
					return value.strip('"\'') or None
	except OSError:
		pass
	return None

def _deb822(path: str, text: str) -> List[Tuple[Archive, List[str]]]:
	"""The deb entries of a .sources file, each with its suites."""
	found = []
	for stanza in re.split(r'\n\s*\n', text):
		fields: Dict[str, str] = {}
		key = ''
		for line in stanza.splitlines():
			if line.startswith('#') or not line.strip():
				continue
			if line[0] in ' \t' and key:
				fields[key] += ' ' + line.strip()
				continue
			key, _, value = line.partition(':')
			key = key.strip().lower()
			fields[key] = value.strip()
		if 'deb' not in fields.get('types', '').split() or \
		   fields.get('enabled', 'yes').lower() == 'no':
			continue
		for uri in fields.get('uris', '').split():
			found.append((Archive(uri, fields.get('signed-by') or None, path),
				      fields.get('suites', '').split()))
	return found

def _one_line(path: str, text: str) -> List[Tuple[Archive, List[str]]]:
	"""The deb lines of a sources.list file, each with its suite."""
	found = []
	for line in text.splitlines():
		match = _ONE_LINE.match(line.strip())
		if not match:
			continue
		options = dict(o.partition('=')[::2] for o in (match.group('options') or '').split())
		found.append((Archive(match.group('uri'), options.get('signed-by') or None, path),
			      [match.group('suite')]))
	return found

def archive(root: str='/') -> Optional[Archive]:
	"""The machine's Debian archive: the first deb entry of its APT
	sources with a suite of its own release (bookworm, bookworm-updates),
	and not one of pan-kunit's own files; None without one."""
	release = codename(root)
	apt = os.path.join(root, 'etc', 'apt')
	paths = [os.path.join(apt, 'sources.list')] + sorted(
		glob.glob(os.path.join(apt, 'sources.list.d', '*.list')) +
		glob.glob(os.path.join(apt, 'sources.list.d', '*.sources')))
	for path in paths:
		if os.path.basename(path).startswith('pan-kunit-'):
			continue
		try:
			with open(path, errors='replace') as f:
				text = f.read()
		except OSError:
			continue
		entries = _deb822(path, text) if path.endswith('.sources') else _one_line(path, text)
		for entry, suites in entries:
			if any(_RELEASE_SUITE.match(s) and (release is None or
							    s.split('-')[0] == release)
			       for s in suites):
				return entry
	return None

def _come(packages: Iterable[str]) -> str:
	names = list(packages)
	return ' and '.join(names) + (' comes from' if len(names) == 1 else ' come from')

def sources_text(suite: str, found: Archive) -> str:
	signed = f'Signed-By: {found.signed_by}\n' if found.signed_by else ''
	return (f'# pan-kunit: {suite}, for the packages its pin allows\n'
		f'# (the archive of {found.where})\n'
		f'Types: deb\nURIs: {found.uri}\nSuites: {suite}\nComponents: main\n{signed}')

def pin_text(suite: str, packages: Sequence[str]) -> str:
	text = (f'# pan-kunit: nothing is installed or upgraded from {suite} but\n'
		f'# {", ".join(packages)}\n'
		f'Package: *\nPin: release n={suite}\nPin-Priority: -1\n')
	for package in packages:
		text += f'\nPackage: {package}\nPin: release n={suite}\nPin-Priority: 500\n'
	return text

def files(wanted: Mapping[str, Sequence[str]], root: str='/') -> Dict[str, str]:
	"""The files that add each suite of @wanted for its packages alone:
	path -> contents."""
	suites = {suite: list(dict.fromkeys(p)) for suite, p in wanted.items() if p}
	if not suites:
		return {}
	found = archive(root)
	if found is None:
		raise Error(_come(p for ps in suites.values() for p in ps) + ' Debian\'s ' +
			    ' and '.join(suites) + ', which pan-kunit adds at the address of '
			    'this machine\'s Debian archive, and ' +
			    os.path.join(root, 'etc', 'apt') + ' names no Debian archive of this '
			    'release (a deb entry with its suites, e.g. bookworm)')
	paths = {}
	for suite, packages in suites.items():
		paths[os.path.join(root, SOURCES_DIR, f'pan-kunit-{suite}.sources')] = \
			sources_text(suite, found)
		paths[os.path.join(root, PREFERENCES_DIR, f'pan-kunit-{suite}.pref')] = \
			pin_text(suite, packages)
	return paths

def _stale(wanted: Dict[str, str]) -> Dict[str, str]:
	stale = {}
	for path, text in wanted.items():
		try:
			with open(path) as f:
				if f.read() == text:
					continue
		except OSError:
			pass
		stale[path] = text
	return stale

def commands(stale: Mapping[str, str]) -> str:
	"""The shell commands that write @stale and update APT's lists."""
	return (''.join(f"cat > {path} <<'EOF'\n{text}EOF\n" for path, text in stale.items()) +
		'apt-get update')

def missing(wanted: Mapping[str, Sequence[str]], root: str='/') -> Dict[str, str]:
	"""The files of files(@wanted) that are absent or say otherwise."""
	return _stale(files(wanted, root))

def ensure(printer: Printer, wanted: Mapping[str, Sequence[str]], root: str='/',
	   euid: Callable[[], int]=os.geteuid) -> bool:
	"""Adds each suite of @wanted for its packages to APT as root, or
	refuses with the commands that would; True when it wrote anything
	(apt-get update must run)."""
	stale = missing(wanted, root)
	if not stale:
		return False
	if euid() != 0:
		raise Error(_come(p for ps in wanted.values() for p in ps) + ' ' +
			    ' and '.join(s for s, p in wanted.items() if p) +
			    ', which APT here does not install from; as root, run:\n' +
			    commands(stale))
	for path, text in stale.items():
		os.makedirs(os.path.dirname(path), exist_ok=True)
		write_text(path, text)
		printer.print(f'wrote {path}:')
		printer.print(''.join(f'    {line}\n' for line in text.splitlines()), end='')
	return True
