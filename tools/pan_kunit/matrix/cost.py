# SPDX-License-Identifier: GPL-2.0
#
# What a run will cost, said before it starts: how many kernel builds start
# from scratch, and about how long they take, from the last build from
# scratch on this machine or, without one, the estimate of --help's epilog.
# Each build that succeeds leaves a record beside its .config (builds.py
# writes it), which also gives progress the objects a build from scratch
# writes, for its time left.
#
# And what each piece of a command's work costs, for its split between the
# shards of a CI system (shard.py): fixed figures of machine A
# (docs/measurements.md), not the records of this machine, so that every
# machine splits a request the same way.

import glob
import os
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from pan_kunit import Error
from pan_kunit.host import files, progress

# Beside a build's .config: how long its last successful build took, how
# many objects it compiled and whether it started from scratch.
RECORD = '.pan-kunit-build.json'
# A kernel's builds from scratch (its kconfig groups, built at once) on a
# 2-core machine, without a record of one: --help's "5-12 minutes per kernel".
KERNEL_ESTIMATE = 10 * 60
SLOWER = 'a slower machine takes up to 3 times as long'

# The figures of a shard's work, in seconds on machine A's 2 cores: one
# kconfig group built from scratch alone (a header mutant: 260-434 s), a
# boot of the suites (3-13 s), a mutant of a .c file (an incremental build
# and its boots: median 11.8-16.3 s), a step of bisect (266 s for 7 steps),
# and a kernel's tree set up (extracted, patched, committed: 107-132 s for
# three).
GROUP_SCRATCH = 350.0
BOOT = 10.0
MUTANT_INCREMENTAL = 15.0
BISECT_STEP = 40.0
TREE_SETUP = 45.0

def group_cost(configs: int, boots: int=1, steps: int=0) -> float:
	"""A kconfig group of @configs built from scratch and each config
	booted @boots times (LKDTM: once per crash type), then @steps steps
	of bisect, each an incremental build and the boots again."""
	return GROUP_SCRATCH + configs * boots * BOOT + steps * (BISECT_STEP + configs * BOOT)

def mutant_cost(of_header: bool) -> float:
	"""A mutant: of a header, a build of a kconfig group from scratch;
	of a .c file, an incremental build."""
	return GROUP_SCRATCH + 2 * BOOT if of_header else MUTANT_INCREMENTAL

def kernel_setup(baseline: bool=False) -> float:
	"""What a shard pays once per kernel it works on: the tree's setup
	and, for the mutants (@baseline), the baseline's builds from scratch
	(both kconfig groups at once) and boots."""
	return TREE_SETUP + (KERNEL_ESTIMATE + 4 * BOOT if baseline else 0.0)

def write_record(build_dir: str, seconds: float, objects: int, scratch: bool) -> None:
	try:
		files.write_json(os.path.join(build_dir, RECORD),
				 {'seconds': round(seconds, 1), 'objects': objects, 'scratch': scratch})
	except Error:
		pass  # only an estimate is lost

def read_record(build_dir: str) -> Dict[str, float]:
	return files.read_json(os.path.join(build_dir, RECORD)) or {}

def last_scratch(trees: Sequence[str]) -> Dict[str, float]:
	"""The record of a build from scratch in the build directories of
	the first of @trees that has one (the longest of its builds, which
	ran at once); {} when there is none."""
	for tree in trees:
		found = [r for r in map(read_record, glob.glob(os.path.join(
			tree, '.pan-kunit', 'build', '*', ''))) if r.get('scratch')]
		if found:
			return max(found, key=lambda r: r.get('seconds', 0))
	return {}

@dataclass
class KernelBuilds:
	"""The builds a run makes of one kernel: (build directory, the
	kernel it makes, relative to it) each."""
	name: str                    # the kernel, as --kernel names it
	tree: str
	builds: List[Tuple[str, str]]

	def from_scratch(self) -> int:
		return sum(not os.path.exists(os.path.join(d, image)) for d, image in self.builds)

def first_run_line(kernels: List[KernelBuilds], trees: Sequence[str]) -> str:
	"""What the builds from scratch among @kernels will take, or '' when
	there are none; the estimate per kernel is the last build from
	scratch in its tree, else in @trees, else KERNEL_ESTIMATE."""
	cold = [k for k in kernels if k.from_scratch()]
	if not cold:
		return ''
	seconds = 0.0
	said = set()
	for kernel in cold:
		record = last_scratch([kernel.tree] + list(trees))
		seconds += record.get('seconds') or KERNEL_ESTIMATE
		said.add(f'the last build from scratch here took {progress.duration(record["seconds"])}'
			 if record.get('seconds') else
			 f'about {KERNEL_ESTIMATE // 60} min a kernel on 2 cores; {SLOWER}')
	count = sum(k.from_scratch() for k in cold)
	of = ', '.join(f'{k.name}: {k.from_scratch()}' for k in cold)
	return (f'{count} kernel build{"s" * (count > 1)} from scratch ({of}): about '
		f'{progress.duration(seconds)} before the boots ({"; ".join(sorted(said))})')

def expected_objects(build_dir: str, image: str, trees: Sequence[str]) -> int:
	"""The objects a build of @build_dir will write, when it starts from
	scratch (no @image yet) and a build from scratch in @trees says how
	many; else 0 (unknown)."""
	if os.path.exists(os.path.join(build_dir, image)):
		return 0
	return int(last_scratch(trees).get('objects') or 0)
