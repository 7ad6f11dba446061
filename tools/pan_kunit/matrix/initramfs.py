# SPDX-License-Identifier: GPL-2.0
#
# The initramfs of pan-kunit's own boots (LKDTM, coverage): one static
# init, built with the cross compiler and no libc (guest/sys.h), packed
# with the tree's usr/gen_init_cpio.  Every init's source is in guest/,
# beside sys.h.

import os

from pan_kunit import Error
from pan_kunit.host import proc
from pan_kunit.kunit_tool import kunit_py
from pan_kunit.trees.tree import state_dir

# The repo's directory of the C run in the guest: the inits and sys.h.
GUEST_DIR = 'guest'
# The init of the LKDTM boots (lkdtm.py; mutants_lkdtm.py boots it too).
LKDTM_INIT = os.path.join(GUEST_DIR, 'lkdtm_init.c')

def pack(tree: str, source: str, name: str) -> str:
	"""Builds @source into an init and packs it, in the tree's
	.pan-kunit/@name; returns the cpio's path.  A compiler failure is an
	Error with the compiler's output."""
	work = state_dir(tree, name)
	os.makedirs(work, exist_ok=True)
	init = os.path.join(work, 'init')
	gen = os.path.join(work, 'gen_init_cpio')
	listing = os.path.join(work, 'initramfs.list')
	cpio = os.path.join(work, 'initramfs.cpio')
	guest = os.path.dirname(source)  # and its sys.h
	steps = [
		[kunit_py.CROSS_COMPILE + 'gcc', '-Wall', '-Wextra', '-O2', '-static', '-nostdlib',
		 '-ffreestanding', '-fno-stack-protector',
		 # No libc: loops must stay loops, not calls of memcpy() or memset().
		 '-fno-tree-loop-distribute-patterns', '-I', guest, '-o', init, source],
		['gcc', '-O2', '-o', gen, os.path.join(tree, 'usr', 'gen_init_cpio.c')],
	]
	for step in steps:
		result = proc.run(step, stderr=proc.To.MERGED)
		if result.returncode != 0:
			raise Error(f'{" ".join(step)} failed:\n{result.stdout.strip()}')
	with open(listing, 'w') as f:
		f.write('dir /dev 0755 0 0\n'
			'nod /dev/console 0600 0 0 c 5 1\n'
			'nod /dev/kmsg 0600 0 0 c 1 11\n'
			f'file /init {init} 0755 0 0\n')
	with open(cpio, 'wb') as out:
		packed = proc.run([gen, listing], stdout=out)
	if packed.returncode != 0:
		raise Error(f'{gen} {listing} failed:\n{packed.stderr.strip()}')
	return cpio
