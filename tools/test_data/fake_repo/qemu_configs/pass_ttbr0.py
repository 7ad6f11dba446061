# SPDX-License-Identifier: GPL-2.0
#
# pan_kunit_test.py fixture: every case passes, in a kconfig group of its
# own (PAN by TTBR0 switching), so that it is built apart from pass_pan.

from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
			   kconfig='''
CONFIG_ARM64_SW_TTBR0_PAN=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
			   qemu_arch='aarch64',
			   kernel_path='arch/arm64/boot/Image.gz',
			   kernel_command_line='console=ttyAMA0 panic=-1',
			   extra_qemu_params=['-machine', 'virt',
					      '-cpu', 'cortex-a57',
					      '-smp', '2'])
