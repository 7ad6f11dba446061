# SPDX-License-Identifier: GPL-2.0
#
# ccache's remote storage, shared by the machines that run the shards of a
# request: every build goes through ccache (builds.py), which reads
# CCACHE_REMOTE_STORAGE (or remote_storage of its configuration: a Redis
# server, an HTTP server, a shared directory; Debian 12's ccache 4.7 has
# all three) from the environment the builds inherit, and looks there for
# what its local cache (CCACHE_DIR) does not hold.  With base_dir at the
# tree (builds.ccache_options()), the paths ccache hashes are relative, so
# trees at different paths on different machines share entries.
#
# A command's counters are ccache's own, read before and after it
# (`ccache --print-stats`, kept in the local cache directory even for
# remote hits): what its builds compiled, and what they took from the
# local cache and from the remote one, which a sharded command records
# in its --json and merge sums up.

import re
import shutil
from typing import Dict, Optional, Sequence

from pan_kunit.host import proc
from pan_kunit.host.files import JsonObj

# The counters of `ccache --print-stats` a command's record keeps, by the
# name it gives them: results served from the local and the remote cache,
# compilations that found neither, and the remote store's failures.
COUNTERS = {'local_storage_hit': 'local_hits', 'remote_storage_hit': 'remote_hits',
	    'cache_miss': 'misses', 'remote_storage_error': 'remote_errors',
	    'remote_storage_timeout': 'remote_timeouts'}
# user:password@ in a URL, which no record shows.
_CREDENTIALS = re.compile(r'(?<=://)[^/@]*@')

def counters() -> Optional[Dict[str, int]]:
	"""ccache's counters now; None without ccache, or when it fails."""
	if not shutil.which('ccache'):
		return None
	try:
		result = proc.run(['ccache', '--print-stats'], stdin=proc.To.NOWHERE)
	except OSError:
		return None
	if not result.ok():
		return None
	found = {}
	for line in result.stdout.splitlines():
		name, _, value = line.partition('\t')
		if value.strip().isdigit():
			found[name.strip()] = int(value)
	return found

def remote_storage() -> str:
	"""The remote storage ccache is set to use, without credentials; ''
	for none."""
	if not shutil.which('ccache'):
		return ''
	try:
		result = proc.run(['ccache', '--get-config', 'remote_storage'], stdin=proc.To.NOWHERE)
	except OSError:
		return ''
	return _CREDENTIALS.sub('', result.stdout.strip()) if result.ok() else ''

def used(before: Optional[Dict[str, int]]) -> Optional[JsonObj]:
	"""What the builds since @before (counters()) took from the caches
	and compiled, and the remote storage; None when not known."""
	after = counters()
	if before is None or after is None:
		return None
	found: JsonObj = {name: after.get(key, 0) - before.get(key, 0)
			  for key, name in COUNTERS.items()}
	found['remote_storage'] = remote_storage()
	return found

def line(used: Optional[JsonObj]) -> str:
	"""@used as a line says it: '1412 compiled, 200 local hits, 1210 remote
	hits (46% of 2822 from the remote store)'."""
	if not used:
		return 'ccache: not known'
	looked = used['local_hits'] + used['remote_hits'] + used['misses']
	share = f'{100 * used["remote_hits"] / looked:.0f}%' if looked else '-'
	store = used.get('remote_storage') or 'no remote storage'
	failed = used.get('remote_errors', 0) + used.get('remote_timeouts', 0)
	return (f'ccache: {used["misses"]} compiled, {used["local_hits"]} local hits, '
		f'{used["remote_hits"]} remote hits ({share} of {looked} from {store})' +
		(f', {failed} remote errors or timeouts' if failed else ''))

def total(records: Sequence[Optional[JsonObj]]) -> Optional[JsonObj]:
	"""The sum of the shards' @records (None when one is not known)."""
	if not records or any(r is None for r in records):
		return None
	found: JsonObj = {name: sum(r[name] for r in records if r) for name in COUNTERS.values()}
	stores = sorted({r.get('remote_storage', '') for r in records if r})
	found['remote_storage'] = ', '.join(s for s in stores if s)
	return found
