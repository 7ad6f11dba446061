# SPDX-License-Identifier: GPL-2.0
#
# Every git pan-kunit runs, in one function: run().  What it reads and how
# it decodes it is proc.py's rule: stdout as the caller says (TEXT to read
# or print, EXACT to write back), stderr as a message.  No git it runs is
# pointed elsewhere by the caller's environment (GIT_LOCAL_ENV), and no
# user or system configuration takes part in it unless the caller reads
# the user's own (USERS: `git config user.name`).  A missing git is an
# Error that names its package.

import os
from typing import Dict, Mapping, Optional, Union

from pan_kunit import Error
from pan_kunit.host import proc

NAME = 'pan-kunit'
EMAIL = 'pan-kunit@localhost'
NO_GIT = 'git is not installed (Debian package git, which setup installs as root on Debian)'

# Every pan-kunit commit is made by NAME <EMAIL> (git am keeps the patch's
# author), and no user or system git configuration takes part.  No git it
# runs starts `git maintenance run --auto` after a commit or an am
# (maintenance.auto=false): a process of its own for each, which does
# nothing in the trees pan-kunit makes (gc.auto=0) and costs as much as the
# commit.
OWN: Mapping[str, str] = {
	'GIT_AUTHOR_NAME': NAME,
	'GIT_AUTHOR_EMAIL': EMAIL,
	'GIT_COMMITTER_NAME': NAME,
	'GIT_COMMITTER_EMAIL': EMAIL,
	'GIT_CONFIG_GLOBAL': os.devnull,
	'GIT_CONFIG_NOSYSTEM': '1',
	'LC_ALL': 'C',
	'GIT_CONFIG_COUNT': '1',
	'GIT_CONFIG_KEY_0': 'maintenance.auto',
	'GIT_CONFIG_VALUE_0': 'false',
}
# The user's configuration, as git reads it outside pan-kunit.
USERS: Mapping[str, str] = {}

# What `git rev-parse --local-env-vars` lists: variables that point git at
# a repository, an index or objects, which a hook or `git rebase -x` that
# runs pan-kunit would pass on.  None reaches a git that pan-kunit runs.
GIT_LOCAL_ENV = ('GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_CONFIG', 'GIT_CONFIG_PARAMETERS',
		 'GIT_CONFIG_COUNT', 'GIT_OBJECT_DIRECTORY', 'GIT_DIR', 'GIT_WORK_TREE',
		 'GIT_IMPLICIT_WORK_TREE', 'GIT_GRAFT_FILE', 'GIT_INDEX_FILE',
		 'GIT_NO_REPLACE_OBJECTS', 'GIT_REPLACE_REF_BASE', 'GIT_PREFIX',
		 'GIT_INTERNAL_SUPER_PREFIX', 'GIT_SHALLOW_FILE', 'GIT_COMMON_DIR')

def environment(extra: Mapping[str, str]) -> Dict[str, str]:
	"""The environment of a git pan-kunit runs: without GIT_LOCAL_ENV,
	with @extra."""
	env = {k: v for k, v in os.environ.items() if k not in GIT_LOCAL_ENV}
	env.update(extra)
	return env

def run(directory: Optional[str], *args: str, env: Mapping[str, str]=OWN,
	input: Union[str, bytes, None]=None, stdin: proc.Stream=proc.To.TERMINAL,
	stderr: proc.To=proc.To.CAPTURE, cwd: Optional[str]=None,
	decoding: proc.Decoding=proc.Decoding.TEXT, locks: bool=True,
	check: bool=False) -> proc.Result:
	"""`git -C @directory ARGS` (None: outside any repository, in @cwd),
	with @env (default: pan-kunit's identity, no configuration); without
	@locks, reading only (--no-optional-locks).  With @check, an Error
	when git fails."""
	cmd = ['git'] + ([] if locks else ['--no-optional-locks'])
	cmd += (['-C', directory] if directory is not None else []) + list(args)
	result = proc.run(cmd, cwd=cwd, env=environment(env), input=input, stdin=stdin,
			  stderr=stderr, decoding=decoding, missing=NO_GIT)
	if check and result.returncode != 0:
		raise Error(f'git {" ".join(args)} failed in {directory or cwd}:\n'
			    f'{result.stderr.strip()}')
	return result
