# SPDX-License-Identifier: GPL-2.0
#
# `pan-kunit parse FILE`: a saved console log parsed with a tree's own
# `kunit.py parse`, and reported as `run` reports a config.

import os
import tempfile
from dataclasses import dataclass
from typing import List, Optional

from pan_kunit import Error
from pan_kunit.host import files, summary
from pan_kunit.host.printer import Printer
from pan_kunit.kunit_tool import ktap, ktap_lines, kunit_py
from pan_kunit.matrix import builds
from pan_kunit.results import config_result, terminal
from pan_kunit.trees import kernels, suites

@dataclass
class ParseRequest:
	"""What `parse` is asked."""
	file: str              # the console log

def trees(given: Optional[str]) -> List[str]:
	"""The trees whose kunit.py parse may use: the one named (@given),
	which must have one, else each kernel's default tree, newest first."""
	if given:
		path = os.path.abspath(given)
		if not os.path.isfile(kunit_py.script(kunit_py.directory(path))):
			what = 'does not exist' if not os.path.lexists(path) else (
				f'has no {os.path.join(kunit_py.DIR, kunit_py.SCRIPT)}')
			raise Error(f'the tree {path} (--tree or PAN_KUNIT_TREE) {what}: name a kernel '
				    'tree, or leave --tree out to use the default trees\' kunit_tool')
		return [path]
	return [os.path.abspath(k.default_tree()) for k in reversed(kernels.KNOWN)]

def run_parse(printer: Printer, request: ParseRequest, trees: List[str], repo: str) -> int:
	"""Parses the console log of @request with the kunit.py parse of the
	first of @trees that has one, and reports it as run reports a config;
	of a console cut short, where it stopped and which of @repo's suites
	did not run."""
	path = os.path.abspath(request.file)
	try:
		with open(path, errors='backslashreplace') as f:
			console = f.read()
	except OSError as e:
		raise Error(f'cannot read {path}: {e.strerror}')
	if not any(ktap_lines.KTAP_HEADER.search(line) for line in console.splitlines()):
		what = ('it is empty' if not console.strip() else
			'it is no text' if '\0' in console else
			'no "KTAP version 1" or "TAP version 14" line')
		raise Error(f'{path} holds no KTAP output ({what}): give the console of a boot that '
			    'ran KUnit, e.g. a boot\'s test.log')
	script = kunit_py.find(trees)
	printer.print(f'parsing {path} with {script}')
	with tempfile.TemporaryDirectory(prefix='pan-kunit-parse-') as scratch:
		json_path = os.path.join(scratch, 'kunit.json')
		parsed = kunit_py.parse(script, path, json_path)
		kunit = files.read_json(json_path)
	if kunit is None:
		raise Error(f'{script} parse {path} failed (exit {parsed.returncode}):\n' +
			    '\n'.join(parsed.stdout.splitlines()[-builds.BUILD_LOG_LINES:]))
	# No boot, so no timeout: the exit status and the leaves decide.
	status = config_result.classify(kunit, console, config_result.Exit(parsed.returncode, False, 0.0),
				  timeout=1)
	cases, _ = ktap.parse(console, os.path.dirname(script))
	result = config_result.ConfigResult(
		name=os.path.basename(path), cpu='-', qemu_config='', build_dir='', status=status,
		elapsed=None, skip_reasons=ktap_lines.skip_reasons(console), kunit=kunit,
		console_log=path, exec_log='', cases=cases,
		param_skips=ktap_lines.param_skips(console))
	terminal.print_report(printer, [result], totals=False, known=suites.known(repo),
			      booted=False)
	# Closed as every command is: a line of its own name.
	passed, failed, skipped = config_result.totals([result])
	summary.report(printer, summary.Tally('parse', passed, failed, skipped))
	return 0 if status == config_result.Status.PASS else 1
