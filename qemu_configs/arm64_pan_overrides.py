# SPDX-License-Identifier: GPL-2.0
#
# kunit_tool QEMU config: arm64_pan's CPU and kernel, booted with ID
# register overrides on the kernel command line (arch/arm64/kernel/pi/
# idreg-override.c parses them before the kernel runs; init_cpu_ftr_reg()
# then takes, refuses or drops each one field by field).  Its kconfig is
# arm64_pan's, so it shares arm64_pan's kconfig group and build: one more
# boot, no build.  Each override reaches a different path of
# init_cpu_ftr_reg(), the same on 6.1, 6.12 and 7.3 unless said:
#
# arm64.nobti, an alias of id_aa64pfr1.bt=0 in every kernel (6.1 has no
# arm64.nomops, so not that one): QEMU 10's "max" reports
# ID_AA64PFR1_EL1.BT = 1 (FEAT_BTI), and BT is lower safe, so 0 is the
# safe value of the two: accepted, "forced to 0".  The system has no BTI:
# not in the sanitised value, not in the capability, not in HWCAP2_BTI,
# not in what an EL0 MRS of the register reads.
#
# arm64.nomops, an alias of id_aa64isar2.mops=0 in 6.12 and 7.3, takes the
# same path on ID_AA64ISAR2_EL1.MOPS (QEMU 10's "max" has FEAT_MOPS): no
# MOPS in the sanitised value, the capability, HWCAP2_MOPS or an EL0 MRS,
# and the uaccess routines keep the branch past their CPY* and SET*
# prologue (7.3; 6.12's have none).  6.1 knows neither FEAT_MOPS nor the
# option: an unknown word of its command line, whose cases skip there.
#
# id_aa64isar2.gpa3=1 raises a lower safe field above the CPU's: the
# implementation-defined pointer authentication algorithm (pauth-impdef=on)
# leaves ID_AA64ISAR2_EL1.GPA3 = 0, and a system cannot gain a feature the
# CPU lacks.  init_cpu_ftr_reg() refuses it ("ignoring override", and
# clears the override's mask and value for the field): GPA3 stays the
# CPU's 0 everywhere, and no QARMA3 generic authentication capability.
#
# id_aa64mmfr2.varange=1 is refused before init_cpu_ftr_reg(): VARange's
# filter (mmfr2_varange_filter()) takes only 0, arm64.nolva.  A refused
# value is left as an "impossible override" (value all ones, no mask),
# which init_cpu_ftr_reg() drops ("impossible override, ignored"), on a
# field that is FTR_HIDDEN: user space reads its safe value whatever the
# CPU has.  6.1 has no id_aa64mmfr2 override at all: the option is
# unknown there, and its case skips saying so.
#
# QEMU's "max" has VARange = 1 (FEAT_LVA), so a filter that let varange=1
# through would leave an override in place ("already set").  The cases
# read the command line (saved_command_line) for what to expect, and skip
# on every other config, so this file is where the overrides are chosen.
# The boot costs as much as arm64_pan's (1-2 s under -icount; the matrix
# boots its five configs at once).  The rest is arm64_pan's: see there
# for panic=-1, thread=single, -icount and earlycon.

from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
			   kconfig='''
CONFIG_SERIAL_AMBA_PL010=y
CONFIG_SERIAL_AMBA_PL010_CONSOLE=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
			   qemu_arch='aarch64',
			   kernel_path='arch/arm64/boot/Image',
			   kernel_command_line='console=ttyAMA0 earlycon=pl011,0x9000000 panic=-1 '
					       'arm64.nobti arm64.nomops id_aa64isar2.gpa3=1 '
					       'id_aa64mmfr2.varange=1',
			   extra_qemu_params=['-machine', 'virt',
					      '-cpu', 'max,pauth-impdef=on',
					      '-accel', 'tcg,thread=single',
					      '-icount', 'shift=auto',
					      '-smp', '2'])
