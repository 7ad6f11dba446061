# SPDX-License-Identifier: GPL-2.0
#
# A run of the matrix, as kunit.py's run_tests() runs one config: config,
# build, exec, parse, each once, in this order.  The plan (plan.py) is the
# config; builds.py builds every kconfig group at once; boots.py boots
# every config that built at once (isolation.py once per suite or case,
# with --run_isolated); boots.py then reads what each boot wrote into its
# result; with the plan's kselftest_init, kselftests.py then boots the
# kselftests of every config that built and adds their rows.  The caller
# renders them (run's report, a bisect step's table).

import concurrent.futures
from typing import Callable, Dict, List, Optional

from pan_kunit.host.progress import Progress
from pan_kunit.kunit_tool import ktap
from pan_kunit.kunit_tool.toolchains import BuildSettings
from pan_kunit.matrix import boots, builds, isolation, kselftests
from pan_kunit.matrix.plan import MatrixPlan
from pan_kunit.results import config_result
from pan_kunit.trees.tree import Kernel, kernel_of

def build_and_boot(plan: MatrixPlan, progress: Progress, settings: BuildSettings,
		   describe: Optional[Callable[[], Kernel]]=None) -> List[config_result.ConfigResult]:
	"""Builds every kconfig group of @plan, then boots every config that
	built, and returns each config's result, in the plan's order, naming
	the kernel @describe says (default: kernel_of() the plan's tree); it
	runs while the kernels build, as the git status of a kernel tree takes
	0.2-0.3 s."""
	ktap.load_parser(plan.kunit_dir)  # the consoles are parsed with it: fail before building
	describe = describe or (lambda: kernel_of(plan.tree))
	kconfig_groups = plan.builds()
	# The build directories are locked from the builds to the end of the
	# boots, which boot their kernels and write into the tree's exec
	# directories: a second run waits for both, and a run killed while it
	# boots leaves the lock to its QEMU until its guard stops it.
	with builds.build_locks(progress.printer,
				[b.build_dir(plan.tree) for b in kconfig_groups]) as locks:
		boots.clear(plan)
		with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
			described = pool.submit(describe)
			ok = builds.build_all(plan, progress, settings, kconfig_groups, locks)
			kernel = described.result()
		built = {c.name: (c, b.build_dir(plan.tree)) for b in kconfig_groups if ok[b.key]
			 for c in b.group}
		parts: Dict[str, List[str]] = {}
		if plan.options.run_isolated:
			# A boot per suite or case, which leaves in each config's exec
			# directory what one boot would have.
			found = isolation.boot(plan, built, progress, locks)
			outcomes = {name: each.outcome for name, each in found.items()}
			parts = {name: each.parts for name, each in found.items()}
		else:
			outcomes = boots.boot(plan, built, progress, locks)
		results = boots.read_results(plan, kconfig_groups, kernel, outcomes, parts)
		if plan.kselftest_init:
			# Their boots come after the suites': their rows join each
			# config's result.
			kselftests.run(plan, plan.kselftest_init, built, results, progress, locks)
	return results
