# SPDX-License-Identifier: GPL-2.0
#
# What a command does and records beside its work so that its shards can
# be merged (merge.py): the shard it takes (--shard I/N, else the CI's
# variables: matrix/shard.py), the units of its work that are that
# shard's, and, in its --json, what tells the shards of one request from
# any other:
#
#   request   the command, its kernels and the options that change what
#             is checked or how (not --json, --jobs, --tree ...): --seed too
#   work      how many units the whole request has, their digest, and
#             their keys in the order an unsharded run takes them
#   shard     which shard of how many, said by what, and its units' keys
#             (1/1, every unit, when not sharded)
#   pan_kunit pan-kunit's own commit (and whether its repo was dirty), QEMU
#   elapsed   the command's seconds, and ccache: what its builds compiled
#             and took from the local and the remote cache
#
# and, per kernel, the tree it checked (source()): the commits of its base
# and its head, which name the time they were made, and their git trees,
# which do not (two machines' trees of one tarball and series are one).

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from pan_kunit import Error
from pan_kunit.host import gitcmd, packages, proc, progress
from pan_kunit.host.files import JsonObj
from pan_kunit.host.printer import Printer
from pan_kunit.kunit_tool import configs
from pan_kunit.matrix import cost, remote_cache, shard
from pan_kunit.matrix.shard import Shard, Unit
from pan_kunit.trees import tree
from pan_kunit.trees.targets import Target

# The options of a command line that are no part of its request: where
# its files go and how fast it works, not what it checks.
NOT_THE_REQUEST = ('command', 'tree', 'kernel', 'json', 'junit', 'jobs', 'olddefconfig', 'shard',
		   'summary', 'failed', 'raw_output')
# The QEMU every config boots (qemu_configs/*.py: qemu_arch aarch64).
QEMU = packages.BOOT_TOOLS[0]

def about(repo: str) -> JsonObj:
	"""What ran the tests: pan-kunit's own commit, whether the repo held
	uncommitted edits, and the QEMU that booted the kernels.  The commit
	and the edits come from one git status, whose header names the commit
	(None, both, without a commit: no repository, or one with none yet)."""
	status = gitcmd.run(repo, 'status', '--porcelain=v2', '--branch', '--no-ahead-behind',
			    '--untracked-files=no', locks=False)
	lines = status.stdout.splitlines() if status.ok() else []
	oid = [line.split()[2] for line in lines if line.startswith('# branch.oid ')]
	commit = oid[0] if oid and oid[0] != '(initial)' else None
	try:
		qemu = proc.run([QEMU, '--version'], stdin=proc.To.NOWHERE)
		version = qemu.stdout.splitlines()[0] if qemu.ok() and qemu.stdout else None
	except OSError:
		version = None
	return {'commit': commit,
		'dirty': any(not line.startswith('#') for line in lines) if commit else None,
		'qemu': version}

def source(tree_dir: str, ref: str='HEAD') -> JsonObj:
	"""The tree a kernel's report is of: its base (the Debian tarball)
	and @ref, each a commit and that commit's git tree (None, each, that
	the tree does not have).  One git for the four when the tree has them
	all, as a prepared tree has; else one for each of the two."""
	found: JsonObj = {}
	revs = (('base', tree.BASE_REF), ('head', ref))
	result = tree.git(tree_dir, 'rev-parse', *[f'{rev}^{{{kind}}}' for _, rev in revs
						  for kind in ('commit', 'tree')], check=False)
	words = result.stdout.split()
	if result.returncode == 0 and len(words) == 2 * len(revs):
		for at, (name, _) in enumerate(revs):
			found[name], found[name + '_tree'] = words[2 * at:2 * at + 2]
		return found
	for name, rev in revs:
		result = tree.git(tree_dir, 'rev-parse', f'{rev}^{{commit}}',
				  f'{rev}^{{tree}}', check=False)
		words = result.stdout.split() if result.returncode == 0 else []
		found[name], found[name + '_tree'] = (words + [None, None])[:2]
	return found

def request_options(args: Mapping[str, Any]) -> JsonObj:
	"""The options of a command line that make its request (sorted)."""
	return {name: value for name, value in sorted(args.items()) if name not in NOT_THE_REQUEST}

@dataclass
class Sharding:
	"""A command's shard (None: all of its work), and what it noted of
	its request and work for its --json."""
	shard: Optional[Shard] = None
	said_by: str = ''                # --shard, PAN_KUNIT_SHARD or GitLab's variables
	request: JsonObj = field(default_factory=dict)
	work: List[str] = field(default_factory=list)    # every unit's key, of all shards
	units: List[str] = field(default_factory=list)   # this shard's
	started: float = field(default_factory=time.monotonic)
	cache: Optional[Dict[str, int]] = None           # ccache's counters at the start
	# Of a command whose units are kconfig groups: this shard's configs, by kernel.
	configs: Dict[str, List[str]] = field(default_factory=dict)

	@classmethod
	def of(cls, given: Optional[Shard], command: str, options: JsonObj,
	       kernels: Sequence[str]) -> 'Sharding':
		"""The sharding of a command given --shard @given (else the CI's
		variables, refused with the reason when wrong), of its request."""
		found = shard.chosen(given)
		return cls(found[0] if found else None, found[1] if found else '',
			   {'command': command, 'kernels': list(kernels), 'options': options},
			   cache=remote_cache.counters())

	def take(self, printer: Printer, units: Sequence[Unit], what: str,
		 setup: Optional[Mapping[str, float]]=None) -> List[Unit]:
		"""This shard's units of @units (all of them without a shard),
		said in a line that names them as @what; noted, with the whole
		list's."""
		self.work += [u.key for u in units]
		if self.shard is None:
			self.units += [u.key for u in units]
			return list(units)
		mine = shard.pick(units, self.shard, setup)
		self.units += [u.key for u in mine]
		printer.print(f'shard {self.shard} ({self.said_by}): {len(mine)} of {len(units)} {what}, '
			      f'about {progress.duration(shard.load(mine, setup))} of '
			      f'{progress.duration(shard.load(units, setup))} on machine A')
		return mine

	def take_groups(self, printer: Printer, repo: str, names: List[str],
			kconfig_add: Sequence[str], target_list: List[Target], boots: int=1,
			steps: Optional[Callable[[Target], int]]=None) -> List[Target]:
		"""This shard's kconfig groups of the configs @names (--config;
		none: all) of each kernel of @target_list, each a build from
		scratch and its configs' @boots boots (and @steps steps of bisect
		of a kernel), and its kernels: those it has a group of."""
		matrix = configs.matrix(repo, names, None)
		groups = list(configs.group_by_kconfig(matrix, kconfig_add).values())
		units = [Unit(f'{t.kernel.name}/{"+".join(c.name for c in group)}',
			      cost.group_cost(len(group), boots, steps(t) if steps else 0), t.kernel.name)
			 for t in target_list for group in groups]
		mine = self.take(printer, units, 'kconfig groups',
				 {t.kernel.name: cost.kernel_setup() for t in target_list})
		for target in target_list:
			prefix = target.kernel.name + '/'
			self.configs[target.kernel.name] = [name for u in mine if u.key.startswith(prefix)
							    for name in u.key[len(prefix):].split('+')]
		return [t for t in target_list if self.shard is None or self.configs[t.kernel.name]]

	def configs_for(self, kernel: str, names: List[str]) -> List[str]:
		"""The configs to check of @kernel: this shard's, else @names."""
		return self.configs.get(kernel, names) if self.shard is not None else names

	def keys(self, what: str) -> List[str]:
		"""The keys of this shard's units of the group @what."""
		return [k.split('/', 1)[1] for k in self.units if k.split('/', 1)[0] == what]

	def record(self, repo: str) -> JsonObj:
		"""What the command's --json says of it, beside its results."""
		index, total = (self.shard.index, self.shard.total) if self.shard else (1, 1)
		return {'request': self.request,
			'work': {'units': len(self.work), 'digest': shard.digest(self.work),
				 'keys': self.work},
			'shard': {'index': index, 'total': total, 'said_by': self.said_by or None,
				  'units': self.units},
			'pan_kunit': about(repo),
			'elapsed': round(time.monotonic() - self.started, 1),
			'ccache': remote_cache.used(self.cache)}

def of_args(args: Any, kernels: Sequence[str]) -> Sharding:
	"""The sharding of the command of @args (argparse's), on @kernels."""
	try:
		return Sharding.of(getattr(args, 'shard', None), args.command,
				   request_options(vars(args)), kernels)
	except ValueError as e:
		raise Error(str(e))
