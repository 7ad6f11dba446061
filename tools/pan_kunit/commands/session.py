# SPDX-License-Identifier: GPL-2.0
#
# What one command of pan-kunit carries from the command line down to its
# work, in one object that cli.main() makes and every command takes, in
# place of module globals: the printer every line goes through, the
# progress of the builds and boots on its status line, what its builds
# share (--olddefconfig, the toolchains probed), the trees of the user's
# it prepared, the git ranges of the user's trees that bisect checks, and
# its shard of the work.
# The layers below take its parts, as plain values.

from dataclasses import dataclass, field
from typing import Callable, Dict, Optional, TextIO

from pan_kunit.commands.sharding import Sharding
from pan_kunit.host.printer import Printer
from pan_kunit.host.progress import Progress
from pan_kunit.kunit_tool.toolchains import BuildSettings, Toolchains
from pan_kunit.trees import targets, tree
from pan_kunit.trees.targets import Target
from pan_kunit.trees.usertree import Prepared, UserRange

@dataclass
class Session:
	"""One command's state, from its start to its end."""
	printer: Printer
	progress: Progress
	builds: BuildSettings = field(default_factory=BuildSettings)
	# The user's trees prepared so far (usertree.py), by their clone.
	prepared: Dict[str, Prepared] = field(default_factory=dict)
	# bisect of a git range of a tree of the user's: the range, by its clone.
	user_ranges: Dict[str, UserRange] = field(default_factory=dict)
	# Its shard of the request's work, and what its --json says of them.
	sharding: Sharding = field(default_factory=Sharding)

	@classmethod
	def of_streams(cls, stdout: TextIO, stderr: Optional[TextIO]=None, olddefconfig: bool=False,
		       toolchains: Optional[Toolchains]=None) -> 'Session':
		"""A session whose lines go to @stdout and @stderr, whose builds
		keep kunit.py's olddefconfig with @olddefconfig, and probe their
		toolchains into @toolchains (default: its own)."""
		printer = Printer(stdout, stderr)
		return cls(printer, Progress(printer),
			   BuildSettings(olddefconfig, toolchains=toolchains or Toolchains()))

	def prepare(self, target: Target, repo: str, purpose: str, builds: bool=True,
		    at: Optional[str]=None) -> None:
		"""targets.setup() of @target, noting the tree of the user's it
		prepared, if any."""
		prepared = targets.setup(self.printer, target, repo, purpose, builds, at)
		if prepared is not None:
			self.prepared[target.tree] = prepared

	def describe(self, target: Target) -> Callable[[], tree.Kernel]:
		"""What the records of @target's boots name (targets.describe())."""
		return targets.describe(self.printer, target, self.prepared.get(target.tree))
