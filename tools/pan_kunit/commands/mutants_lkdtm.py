# SPDX-License-Identifier: GPL-2.0
#
# LKDTM's boots (lkdtm.py) as a judge of `mutants`: KUnit never provokes a
# PAN fault, or any kernel fault that dies, so a mutant of the path such a
# fault takes (do_page_fault()'s die on an EL1 permission fault on a user
# address, its __do_kernel_fault() for an unmapped one, which ACCESS_NULL
# reaches, the exception entry and return) survives every suite.  A
# mutant of LKDTM_FILES that survives the KUnit boots is booted once more
# per config and crash type, on the kernels its step just built, and is
# killed when a boot that was ok on the baseline is not.

import os
import shutil
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Set, Tuple

from pan_kunit import Error
from pan_kunit.commands import lkdtm
from pan_kunit.commands.steps import Checker
from pan_kunit.kunit_tool import kunit_py
from pan_kunit.matrix import initramfs

# The files a PAN fault, or the exception entry and return around it, runs through.
LKDTM_FILES = ('arch/arm64/mm/fault.c', 'arch/arm64/kernel/entry.S',
	       'arch/arm64/kernel/entry-common.c')
# Where a step's LKDTM boots keep their exec directories and logs, in its logs.
BOOTS_DIR = 'lkdtm'

Verdicts = Dict[Tuple[str, str], lkdtm.BootVerdict]

def touches(files: Sequence[str]) -> bool:
	"""Whether a diff of @files changes code LKDTM's boots run through."""
	return any(f in LKDTM_FILES for f in files)

@dataclass
class Baseline:
	"""The LKDTM boots of the baseline: the initramfs, and the (config,
	crash) pairs whose boot was ok, the only ones that judge a mutant."""
	cpio: str
	ok: Set[Tuple[str, str]]
	elapsed: float

def boot_step(checker: Checker, wt: str, logs: str, cpio: str) -> Verdicts:
	"""Boots LKDTM on the kernels the last step built in @wt, of every
	config of the matrix (its kunitconfig, fragments and options: no new
	build), with the exec directories and logs in @logs/BOOTS_DIR."""
	builds = checker.plan(wt, checker.matrix, logs).builds()
	where = os.path.join(logs, BOOTS_DIR)
	shutil.rmtree(where, ignore_errors=True)
	return lkdtm.boot(checker.progress, wt, kunit_py.directory(wt),
			  [(c, b) for b in builds for c in b.group], cpio, checker.timeout,
			  lkdtm.BootDirs(where, where), quiet=True)

def baseline(checker: Checker, wt: str, logs: str,
	     files: Sequence[Sequence[str]]) -> Optional[Baseline]:
	"""Boots LKDTM on the baseline's kernels, when a mutant's @files
	touch LKDTM_FILES, and says how it went; None when no mutant needs
	it, or no boot can judge one."""
	if checker.lkdtm_init is None or not any(touches(f) for f in files):
		return None
	printer = checker.progress.printer
	start = time.monotonic()
	try:
		cpio = initramfs.pack(wt, checker.lkdtm_init, 'lkdtm')
	except Error as e:
		printer.print(f'baseline LKDTM: its init does not build, mutants are judged without '
			      f'LKDTM: {e}')
		return None
	verdicts = boot_step(checker, wt, logs, cpio)
	elapsed = time.monotonic() - start
	ok = {key for key, verdict in verdicts.items() if verdict.ok}
	not_ok = [f'{name} {crash}: {verdict.summary}'
		  for (name, crash), verdict in sorted(verdicts.items()) if not verdict.ok]
	printer.print(f'baseline LKDTM: {len(ok)} boots ok' +
		      (f', {len(not_ok)} not, which judge no mutant ({"; ".join(not_ok)})'
		       if not_ok else '') +
		      f' ({elapsed:.1f} s; logs: {os.path.join(logs, BOOTS_DIR)})')
	if not ok:
		printer.print('baseline LKDTM: no boot was ok; mutants are judged without LKDTM')
		return None
	return Baseline(cpio, ok, elapsed)

def killed_on(base: Baseline, verdicts: Verdicts) -> List[str]:
	"""The boots, ok on the baseline, that are not ok now, as
	'CONFIG CRASH: what happened'; a boot that did not run is not ok."""
	missing = lkdtm.BootVerdict(False, 'did not boot', None)
	return [f'{name} {crash}: {verdicts.get((name, crash), missing).summary}'
		for name, crash in sorted(base.ok) if not verdicts.get((name, crash), missing).ok]
