/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Assembler ALTERNATIVE() sites for alternative_kunit.c. Each function
 * returns 2 when its site is empty, else 0 from the old instruction and 1
 * from the new one; the site lies between NAME_begin and NAME_end.
 */

#include <linux/cfi_types.h>
#include <linux/linkage.h>
#include <asm/alternative.h>
#include <asm/assembler.h>

/*
 * Called through a pointer: SYM_TYPED_FUNC_START gives the function its
 * kCFI type (with CONFIG_CFI_CLANG) and its BTI landing pad.
 * "mov w0, 2" without "#": in a macro body cpp would take it as stringizing.
 */
#define ALT_TEST_ASM_SITE(name, site...)			\
SYM_TYPED_FUNC_START(name);					\
	mov	w0, 2;						\
SYM_INNER_LABEL(name##_begin, SYM_L_GLOBAL);			\
	site;							\
SYM_INNER_LABEL(name##_end, SYM_L_GLOBAL);			\
	ret;							\
SYM_FUNC_END(name)

/* ALTERNATIVE() with a CONFIG_ argument, in assembler: one page size is on */
ALT_TEST_ASM_SITE(alt_test_asm_cfg_4k,
	ALTERNATIVE("mov w0, #0", "mov w0, #1", ARM64_ALWAYS_SYSTEM, CONFIG_ARM64_4K_PAGES))
ALT_TEST_ASM_SITE(alt_test_asm_cfg_16k,
	ALTERNATIVE("mov w0, #0", "mov w0, #1", ARM64_ALWAYS_SYSTEM, CONFIG_ARM64_16K_PAGES))
ALT_TEST_ASM_SITE(alt_test_asm_cfg_64k,
	ALTERNATIVE("mov w0, #0", "mov w0, #1", ARM64_ALWAYS_SYSTEM, CONFIG_ARM64_64K_PAGES))

/* alternative_insn with its enable argument */
ALT_TEST_ASM_SITE(alt_test_asm_insn_off,
	alternative_insn "mov w0, #0", "mov w0, #1", ARM64_ALWAYS_SYSTEM, 0)
ALT_TEST_ASM_SITE(alt_test_asm_pan,
	alternative_insn "mov w0, #0", "mov w0, #1", ARM64_HAS_PAN)

/*
 * The block forms: alternative_if CAP puts the new instructions (before
 * alternative_else) out of line and keeps the old ones (after it) at the
 * site; alternative_if_not CAP keeps the old ones (before alternative_else)
 * at the site. Either way the site holds MOVZ W0, #0 until patched.
 */
ALT_TEST_ASM_SITE(alt_test_asm_if_always,
	alternative_if ARM64_ALWAYS_SYSTEM;
	mov	w0, 1;
	alternative_else;
	mov	w0, 0;
	alternative_endif)
ALT_TEST_ASM_SITE(alt_test_asm_if_pan,
	alternative_if ARM64_HAS_PAN;
	mov	w0, 1;
	alternative_else;
	mov	w0, 0;
	alternative_endif)
ALT_TEST_ASM_SITE(alt_test_asm_if_not_pan,
	alternative_if_not ARM64_HAS_PAN;
	mov	w0, 0;
	alternative_else;
	mov	w0, 1;
	alternative_endif)

/*
 * An ADRP among the new instructions: it is assembled elsewhere (the
 * .subsection 1 that follows this object's code), and patching must
 * re-encode its immediate for the site, or the site computes the page of
 * the target plus the distance between the two.
 */
SYM_TYPED_FUNC_START(alt_test_asm_adrp)
	mov	x0, xzr
	ALTERNATIVE("nop", "adrp x0, alt_test_adrp_target", ARM64_ALWAYS_SYSTEM)
	ret
SYM_FUNC_END(alt_test_asm_adrp)

/*
 * The new instructions of the sites above follow this padding, on
 * another 4KB page than any site: the ADRP's relocation moves it by at
 * least a page.
 */
	.balign	4096

	.pushsection .rodata, "a"
	.balign	8
SYM_DATA(alt_test_adrp_target, .quad 0)
	.popsection
