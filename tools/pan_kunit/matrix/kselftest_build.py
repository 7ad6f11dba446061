# SPDX-License-Identifier: GPL-2.0
#
# The kernel's arm64 kselftests (tools/testing/selftests/arm64/, with the
# repo's own pan collection, which sources.py installs beside them),
# built static with Debian's cross gcc and libc6-dev-arm64-cross, and
# packed with guest/ksft_init.c into the initramfs of the kselftest boots
# (kselftests.py).
#
# The build never runs in the tree: the selftests' make writes into its
# source directory (signal/ builds its testcases there, 6.1's bti/ its
# objects), so it runs on a copy, in the tree's .pan-kunit/kselftest/KEY,
# KEY a hash of everything it reads: the selftests' sources, tools/include,
# the uapi headers' sources and the init's.  Their make does not track the
# uapi headers (no -MD), so the hash, not make, says when to rebuild: a
# tree whose hash has a packed initramfs is not built again.

import hashlib
import os
import shutil
import stat
import time
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

from pan_kunit import Error
from pan_kunit.host import proc
from pan_kunit.kunit_tool import kunit_py
from pan_kunit.trees import worktree
from pan_kunit.trees.tree import state_dir

# The collections, in the order they run: the kernel's (those a tree has)
# and the repo's own.  A collection that a tree lacks (gcs before 6.13) is
# left out.
COLLECTIONS = ('abi', 'signal', 'tags', 'pauth', 'bti', 'mte', 'fp', 'gcs', 'pan')
# The init of the kselftest boots.
KSFT_INIT = os.path.join('guest', 'ksft_init.c')
SELFTESTS = 'tools/testing/selftests'
# What the build reads of the tree, relative to it: hashed, and copied
# (all but the uapi headers, which make headers reads in the tree).
COPIED = (SELFTESTS, 'tools/include', 'tools/arch/arm64', 'scripts/subarch.include')
HASHED = COPIED[1:] + ('include/uapi', 'arch/arm64/include/uapi', 'Makefile')
# Of SELFTESTS, only these are hashed: what the arm64 tests build from.
SELFTESTS_HASHED = ('Makefile', 'lib.mk', 'kselftest.h', 'kselftest_harness.h',
		    'kselftest', 'arm64')
# The per-binary timeout of the init (guest seconds), as the pan tests'
# settings file gives each of them: asid.c's two short storms and twice
# its default rollover budget of 60 s fit in it, as do hotplug.c's waits.
DEFAULT_TIMEOUT = 300
# The cpio's name in a KEY directory; its presence means the build is done.
CPIO = 'ksft.cpio'

def _walk(path: str) -> List[str]:
	"""The regular files under @path (or @path itself), sorted."""
	if os.path.isfile(path):
		return [path]
	found: List[str] = []
	for root, dirs, names in os.walk(path):
		dirs.sort()
		found.extend(os.path.join(root, n) for n in sorted(names))
	return found

def source_key(tree: str, init_source: str) -> str:
	"""The hash of everything the build of @tree's kselftests reads."""
	digest = hashlib.sha256()
	paths = [os.path.join(SELFTESTS, p) for p in SELFTESTS_HASHED] + list(HASHED)
	for rel in paths:
		for path in _walk(os.path.join(tree, rel)):
			with open(path, 'rb') as f:
				digest.update(os.path.relpath(path, tree).encode() + b'\0' +
					      hashlib.sha256(f.read()).digest())
	with open(init_source, 'rb') as f:
		digest.update(b'init\0' + hashlib.sha256(f.read()).digest())
	return digest.hexdigest()[:12]

@dataclass
class Built:
	"""A tree's kselftests, packed."""
	cpio: str
	tests: List[Tuple[str, str]]  # (collection, binary), in run order
	cached: bool                  # packed by an earlier command
	elapsed: float = 0.0          # the build's seconds (0 when cached)

def collections(tree: str) -> List[str]:
	"""COLLECTIONS that @tree has."""
	root = os.path.join(tree, SELFTESTS, 'arm64')
	return [c for c in COLLECTIONS if os.path.isfile(os.path.join(root, c, 'Makefile'))]

def _run(step: Sequence[str], log: str) -> None:
	"""@step into @log, in a process group of its own: a make's sub-makes
	and compilers are stopped with it when pan-kunit is (a plain child's
	would go on building without it)."""
	with open(log, 'a') as f:
		f.write('$ ' + ' '.join(step) + '\n')
		f.flush()
		status = proc.Session(step, f, {}).wait_to_end()
	if status != 0:
		raise Error(f'kselftests: {" ".join(step)} failed (exit {status}); see {log}')

def _is_elf(path: str) -> bool:
	with open(path, 'rb') as f:
		return f.read(4) == b'\x7fELF'

def listed_tests(ksft_list: str) -> List[str]:
	"""The binaries of an installed kselftest-list.txt ("arm64:NAME")."""
	with open(ksft_list) as f:
		return [line.split(':', 1)[1].strip() for line in f if ':' in line]

def list_file(tests: Sequence[Tuple[str, str]]) -> str:
	"""/ksft/list of the init: "COLLECTION BINARY TIMEOUT" per test."""
	return ''.join(f'{c} {b} {DEFAULT_TIMEOUT}\n' for c, b in tests)

def cpio_newc(entries: Sequence[Tuple[str, int, bytes, int, int]], out: str) -> None:
	"""A cpio newc archive of @entries (name, mode, data, device major,
	minor): what the kernel unpacks as an initramfs, written here because
	gen_init_cpio wants a file per entry."""
	with open(out, 'wb') as f:
		def header(ino: int, name: str, mode: int, size: int, rmaj: int, rmin: int) -> None:
			raw = name.encode() + b'\0'
			nlink = 2 if stat.S_ISDIR(mode) else 1
			fields = (ino, mode, 0, 0, nlink, 0, size, 0, 0, rmaj, rmin, len(raw), 0)
			f.write(b'070701' + ''.join('%08X' % v for v in fields).encode() + raw)
			f.write(b'\0' * ((4 - (110 + len(raw)) % 4) % 4))
		for ino, (name, mode, data, rmaj, rmin) in enumerate(entries, 1):
			header(ino, name, mode, len(data), rmaj, rmin)
			f.write(data + b'\0' * ((4 - len(data) % 4) % 4))
		header(len(entries) + 1, 'TRAILER!!!', 0, 0, 0, 0)

def _pack(work: str, init: str, found: Dict[str, List[str]], tests: List[Tuple[str, str]],
	  out: str) -> None:
	"""Packs @init and every static ELF of each collection's build
	directory (tests and the helpers they exec), stripped."""
	entries: List[Tuple[str, int, bytes, int, int]] = [
		('dev', 0o40755, b'', 0, 0), ('dev/console', 0o20600, b'', 5, 1),
		('proc', 0o40755, b'', 0, 0), ('sys', 0o40755, b'', 0, 0),
		('tmp', 0o41777, b'', 0, 0), ('ksft', 0o40755, b'', 0, 0)]
	with open(init, 'rb') as f:
		entries.append(('init', 0o100755, f.read(), 0, 0))
	stage = os.path.join(work, 'stage')
	shutil.rmtree(stage, ignore_errors=True)
	for coll, paths in found.items():
		entries.append((f'ksft/{coll}', 0o40755, b'', 0, 0))
		for path in paths:
			dst = os.path.join(stage, coll, os.path.basename(path))
			os.makedirs(os.path.dirname(dst), exist_ok=True)
			shutil.copy2(path, dst)
			_run([kunit_py.CROSS_COMPILE + 'strip', dst], os.path.join(work, 'build.log'))
			with open(dst, 'rb') as f:
				entries.append((f'ksft/{coll}/{os.path.basename(path)}', 0o100755,
						f.read(), 0, 0))
	entries.append(('ksft/list', 0o100644, list_file(tests).encode(), 0, 0))
	cpio_newc(entries, out + '.tmp')
	os.replace(out + '.tmp', out)
	shutil.rmtree(stage, ignore_errors=True)

def build(tree: str, init_source: str, jobs: int) -> Built:
	"""@tree's kselftests packed with the init @init_source, built unless
	a cpio of the same sources is there."""
	key = source_key(tree, init_source)
	top = state_dir(tree, 'kselftest')
	work = os.path.join(top, key)
	cpio = os.path.join(work, CPIO)
	# The check worktree (bisect, mutants) of a tree takes the tree's
	# when the sources are the same: the key says they are.
	parent = os.path.dirname(os.path.dirname(os.path.dirname(tree)))
	places = [w for w in (work, state_dir(parent, 'kselftest', key))
		  if w == work or worktree.location(parent) == tree]
	for directory in places:
		listing = os.path.join(directory, 'list')
		if os.path.exists(os.path.join(directory, CPIO)) and os.path.exists(listing):
			with open(listing) as f:
				return Built(os.path.join(directory, CPIO),
					     [(c, b) for c, b, _ in (line.split() for line in f)], cached=True)
	listing = os.path.join(work, 'list')
	# One build at a time is kept: the others are of sources gone.
	shutil.rmtree(top, ignore_errors=True)
	os.makedirs(work)
	start = time.monotonic()
	log = os.path.join(work, 'build.log')
	src = os.path.join(work, 'src')
	out = os.path.join(work, 'out')
	for rel in COPIED:
		source = os.path.join(tree, rel)
		if os.path.isdir(source):
			shutil.copytree(source, os.path.join(src, rel), symlinks=True)
		elif os.path.exists(source):
			os.makedirs(os.path.dirname(os.path.join(src, rel)), exist_ok=True)
			shutil.copy2(source, os.path.join(src, rel))
	colls = collections(tree)
	cross = kunit_py.CROSS_COMPILE
	common = ['ARCH=arm64', f'CROSS_COMPILE={cross}']
	_run(['make', '-s', '-C', tree, f'O={out}'] + common + [f'-j{jobs}', 'headers'], log)
	_run(['make', '-C', os.path.join(src, SELFTESTS), f'O={out}'] + common +
	     ['TARGETS=arm64', f'ARM64_SUBTARGETS={" ".join(colls)}', f'CC={cross}gcc -static',
	      f'KSFT_INSTALL_PATH={os.path.join(out, "ksft")}', f'-j{jobs}', 'install'], log)
	init = os.path.join(work, 'init')
	_run([cross + 'gcc', '-static', '-O2', '-Wall', '-Wno-format-truncation', '-o', init,
	      init_source], log)
	listed = set(listed_tests(os.path.join(out, 'ksft', 'kselftest-list.txt')))
	found: Dict[str, List[str]] = {}
	tests: List[Tuple[str, str]] = []
	for coll in colls:
		directory = os.path.join(out, 'kselftest', 'arm64', coll)
		if not os.path.isdir(directory):
			continue
		elves = [os.path.join(directory, n) for n in sorted(os.listdir(directory))
			 if not n.endswith('.o') and os.path.isfile(os.path.join(directory, n)) and
			 os.access(os.path.join(directory, n), os.X_OK) and
			 _is_elf(os.path.join(directory, n))]
		found[coll] = elves
		tests += [(coll, os.path.basename(p)) for p in elves if os.path.basename(p) in listed]
	_pack(work, init, found, tests, cpio)
	with open(listing, 'w') as f:
		f.write(list_file(tests))
	# The copy, the headers and the objects are of no further use: the
	# cpio has it all.
	shutil.rmtree(src, ignore_errors=True)
	shutil.rmtree(out, ignore_errors=True)
	return Built(cpio, tests, cached=False, elapsed=time.monotonic() - start)
