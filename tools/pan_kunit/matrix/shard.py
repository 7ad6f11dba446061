# SPDX-License-Identifier: GPL-2.0
#
# A command's work split between the machines of a CI system, each running
# one shard of it (`--shard I/N`, as Playwright and Jest take it), and
# merged afterwards (commands/merge.py).  The CI system runs the shards:
# GitLab CI's `parallel: N` gives each job CI_NODE_INDEX (1 to N) and
# CI_NODE_TOTAL; any other (a GitHub Actions matrix) sets PAN_KUNIT_SHARD=I/N.
#
# The work of a command is a list of units, each with a key that names it
# and its cost in seconds (the kconfig groups of each kernel for `run`,
# `lkdtm`, `coverage` and `bisect`; the mutants of `mutants`), and a group
# whose first unit on a shard costs that shard more (a kernel: its tree's
# setup, and for `mutants` its baseline).  split() deals them out as the
# longest-processing-time rule does: the costliest first, each to the
# shard it leaves least loaded, ties to the lower shard, so that every
# machine that splits one list gets the same shards, which partition it
# exactly; a group's units stay on few shards where that costs less than
# spreading them (see split()).  The costs are cost.py's fixed figures,
# not this machine's build records: shards computed on machines that built
# different things must still agree.

import hashlib
import math
import os
import re
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Set, Tuple

from pan_kunit import Error

# The variable a CI system that has none of its own sets (GitHub Actions'
# matrix: PAN_KUNIT_SHARD: ${{ matrix.shard }}/${{ strategy.job-total }}).
ENV = 'PAN_KUNIT_SHARD'
# GitLab CI's, with `parallel: N`: 1-based, and the number of jobs.
GITLAB_INDEX, GITLAB_TOTAL = 'CI_NODE_INDEX', 'CI_NODE_TOTAL'
# Every variable that chooses a shard, which the tests take out of their
# environment.
VARIABLES = (ENV, GITLAB_INDEX, GITLAB_TOTAL)

_SHARD = re.compile(r'([0-9]+)/([0-9]+)')

@dataclass(frozen=True)
class Shard:
	"""The @index-th (from 1) of @total shards of one request."""
	index: int
	total: int

	def __str__(self) -> str:
		return f'{self.index}/{self.total}'

def parse(text: str) -> Shard:
	"""The shard of 'I/N'; a ValueError that says why for anything else."""
	match = _SHARD.fullmatch(text.strip())
	if not match:
		raise ValueError(f'{text!r} is no shard I/N (2/4: the second of four, from 1)')
	index, total = int(match.group(1)), int(match.group(2))
	if total < 1:
		raise ValueError(f'{text!r}: there is no shard of {total}')
	if not 1 <= index <= total:
		raise ValueError(f'{text!r}: shard {index} of {total}; I counts from 1 to {total}')
	return Shard(index, total)

def from_environment(env: Mapping[str, str]) -> Optional[Tuple[Shard, str]]:
	"""The shard the CI's variables in @env choose, and which said so;
	None when none does.  PAN_KUNIT_SHARD comes before GitLab's; a
	GitLab job without `parallel` has CI_NODE_TOTAL=1 and no index."""
	given = env.get(ENV, '').strip()
	if given:
		try:
			return parse(given), ENV
		except ValueError as e:
			raise Error(f'{ENV}={given}: {e}')
	index, total = env.get(GITLAB_INDEX, '').strip(), env.get(GITLAB_TOTAL, '').strip()
	if not index and total in ('', '1'):
		return None
	source = f'{GITLAB_INDEX}/{GITLAB_TOTAL}'
	if not index or not total:
		raise Error(f'{GITLAB_INDEX}={index or "(unset)"} and {GITLAB_TOTAL}={total or "(unset)"}:'
			    ' GitLab sets both in a job with `parallel: N`; set both or neither, or give '
			    '--shard I/N')
	try:
		return parse(f'{index}/{total}'), source
	except ValueError as e:
		raise Error(f'{GITLAB_INDEX}={index}, {GITLAB_TOTAL}={total}: {e}')

def chosen(given: Optional[Shard],
	   env: Optional[Mapping[str, str]]=None) -> Optional[Tuple[Shard, str]]:
	"""The shard a command takes: --shard (@given), else the CI's
	variables; None for all of the work (no shard, or 1/1)."""
	found = (given, '--shard') if given is not None else from_environment(
		os.environ if env is None else env)
	if found is None or found[0].total == 1:
		return None
	return found

@dataclass(frozen=True)
class Unit:
	"""One piece of a command's work: its @key, unique in the request
	(what merge names), its @cost in seconds, and the @group whose first
	unit on a shard costs that shard the group's setup too."""
	key: str
	cost: float
	group: str = ''

def split(units: Sequence[Unit], total: int,
	  setup: Optional[Mapping[str, float]]=None) -> List[List[Unit]]:
	"""@units dealt into @total shards, each shard's in the order of
	@units: the deal of _deal() or of _chunks() whose costliest shard
	costs least (a group's @setup counted on each shard that takes one
	of its units).  Depends on the units alone, not on their order."""
	if total < 1:
		raise ValueError(f'no split into {total} shards')
	keys = [u.key for u in units]
	if len(set(keys)) != len(keys):
		raise ValueError('units of the same key: ' +
				 ', '.join(sorted({k for k in keys if keys.count(k) > 1})))
	setup = setup or {}
	candidates = [_chunks(units, total, setup, whole=True), _chunks(units, total, setup, whole=False),
		      _deal(units, total, setup)]
	best = min(candidates, key=lambda shards: max(load(s, setup) for s in shards))
	order = {key: n for n, key in enumerate(keys)}
	return [sorted(shard, key=lambda u: order[u.key]) for shard in best]

def _deal(units: Sequence[Unit], total: int, setup: Mapping[str, float]) -> List[List[Unit]]:
	"""The longest-processing-time rule: the costliest unit first (then
	by key), each to the shard it leaves least loaded, a group's setup
	counted where it is the group's first, ties to the lower shard."""
	loads = [0.0] * total
	groups: List[Set[str]] = [set() for _ in range(total)]
	shards: List[List[Unit]] = [[] for _ in range(total)]
	for unit in sorted(units, key=lambda u: (-u.cost, u.key)):
		# The shard it leaves least loaded, in a plain loop: a min() with
		# a key function per shard was most of what a split cost.
		extra = setup.get(unit.group, 0.0)
		best, least = 0, math.inf
		for i, (before, held) in enumerate(zip(loads, groups)):
			after = before + unit.cost + (0.0 if unit.group in held else extra)
			if after < least:
				best, least = i, after
		loads[best] = least
		groups[best].add(unit.group)
		shards[best].append(unit)
	return shards

def _chunks(units: Sequence[Unit], total: int, setup: Mapping[str, float],
	    whole: bool) -> List[List[Unit]]:
	"""Each group cut into as many chunks as its cost, setup included, is
	shares of the whole (rounded, or with @whole not: rounded up; at least
	one), the units of a group dealt into its chunks, then the chunks
	dealt to the shards, the costliest first: a group's setup paid once
	per chunk, not once per shard it is spread over."""
	groups = by_group(sorted(units, key=lambda u: u.key))
	share = load(units, setup) / total
	chunks: List[Tuple[float, str, List[Unit]]] = []
	for name, members in sorted(groups.items()):
		shares = load(members, setup) / share if share else 0.0
		count = max(1, min(total, len(members), round(shares) if whole else math.ceil(shares)))
		for n, part in enumerate(_deal(members, count, {})):
			if part:
				chunks.append((load(part, setup), f'{name}#{n}', part))
	loads = [0.0] * total
	shards: List[List[Unit]] = [[] for _ in range(total)]
	for cost, _, part in sorted(chunks, key=lambda c: (-c[0], c[1])):
		best = loads.index(min(loads))  # the first of the least loaded
		loads[best] += cost
		shards[best].extend(part)
	return shards

def load(units: Sequence[Unit], setup: Optional[Mapping[str, float]]=None) -> float:
	"""What one shard of @units costs: theirs and their groups' setup."""
	setup = setup or {}
	return sum(u.cost for u in units) + sum(setup.get(g, 0.0) for g in {u.group for u in units})

def pick(units: Sequence[Unit], shard: Shard,
	 setup: Optional[Mapping[str, float]]=None) -> List[Unit]:
	"""The units of @shard."""
	return split(units, shard.total, setup)[shard.index - 1]

def digest(keys: Sequence[str]) -> str:
	"""What names a work list whatever its order: the sha256 of its keys,
	sorted, a line each."""
	return hashlib.sha256(''.join(k + '\n' for k in sorted(keys)).encode()).hexdigest()

def by_group(units: Sequence[Unit]) -> Dict[str, List[Unit]]:
	"""@units by their group, in the order of their first units."""
	found: Dict[str, List[Unit]] = {}
	for unit in units:
		found.setdefault(unit.group, []).append(unit)
	return found
