# SPDX-License-Identifier: GPL-2.0
#
# kunit_tool QEMU config: a CPU that implements FEAT_PAN, in a kernel built
# with CONFIG_ARM64_SW_TTBR0_PAN=y, as distributions and the Kernel
# Self-Protection Project recommend.
#
# The CPU's PAN must win: system_uses_ttbr0_pan() is false, the uaccess
# windows toggle PSTATE.PAN and never switch TTBR0_EL1, which holds the
# current mm's tables. It shares the kconfig, and so the build, of
# arm64_ttbr0_pan; only the CPU differs.
# panic=-1 makes a panicking kernel reboot at once, which -no-reboot
# (added by kunit_tool) turns into a QEMU exit instead of a hang.

from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
			   kconfig='''
CONFIG_ARM64_SW_TTBR0_PAN=y
CONFIG_SERIAL_AMBA_PL010=y
CONFIG_SERIAL_AMBA_PL010_CONSOLE=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
			   qemu_arch='aarch64',
			   kernel_path='arch/arm64/boot/Image',
			   kernel_command_line='console=ttyAMA0 panic=-1',
			   extra_qemu_params=['-machine', 'virt',
					      '-cpu', 'max,pauth-impdef=on',
					      '-accel', 'tcg',
					      '-smp', '2'])
