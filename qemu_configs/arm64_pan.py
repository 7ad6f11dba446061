# SPDX-License-Identifier: GPL-2.0
#
# kunit_tool QEMU config: a CPU that implements FEAT_PAN, FEAT_PAN2 and
# FEAT_PAN3 (EPAN).
#
# QEMU 10's "max" CPU reports ID_AA64MMFR1_EL1.PAN = 3, and the kernel
# detects ARM64_HAS_EPAN; QEMU 7.2's (Debian 12's own) stops at PAN = 2,
# and the EPAN cases check only the kernel without EPAN (tools/pan-kunit
# setup installs QEMU 10 from bookworm-backports).  The
# implementation-defined pointer authentication algorithm keeps TCG fast;
# the architected QARMA5 one is several times slower to emulate.
# panic=-1 makes a panicking kernel reboot at once, which -no-reboot
# (added by kunit_tool) turns into a QEMU exit instead of a hang.
# thread=single runs both vCPUs in one host thread.  The matrix boots its
# four configs at once, on the two host cores CI has: with a thread per
# vCPU, eight vCPU threads compete for them and the four boots take 3-4 s
# (QEMU alone); with one thread per QEMU, 1.1-1.3 s.  One boot alone
# takes 0.4-0.6 s either way.  7.3's kunit.py puts "-accel kvm -accel hvf
# -accel tcg" before these, and QEMU takes the first that starts: a plain,
# multi-threaded TCG, which never reads thread=single.  -icount (guest
# time from the instruction count, adjusted to the host's speed) rules
# out multi-threaded TCG whatever -accel QEMU took: the four boots of 7.3
# took 10-11 s without it, 2.1-2.6 s with it; 6.1's and 6.12's the same.
#
# earlycon=pl011,0x9000000 (the virt machine's UART, as ttyAMA0) prints
# what the kernel says before its console starts: an oops or panic in the
# early boot leaves its panic line and backtrace in the console, which
# without it holds none of the kernel's lines (run quotes them).

from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
			   kconfig='''
CONFIG_SERIAL_AMBA_PL010=y
CONFIG_SERIAL_AMBA_PL010_CONSOLE=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
			   qemu_arch='aarch64',
			   kernel_path='arch/arm64/boot/Image',
			   kernel_command_line='console=ttyAMA0 earlycon=pl011,0x9000000 panic=-1',
			   extra_qemu_params=['-machine', 'virt',
					      '-cpu', 'max,pauth-impdef=on',
					      '-accel', 'tcg,thread=single',
					      '-icount', 'shift=auto',
					      '-smp', '2'])
