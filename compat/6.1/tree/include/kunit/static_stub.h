/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * KUnit function redirection (static stubbing), as 6.2 added it, for 6.1:
 * the interface of the newest kernel's <kunit/static_stub.h>
 * (KUNIT_STATIC_STUB_REDIRECT(), kunit_activate_static_stub(),
 * kunit_deactivate_static_stub()), written on 6.1's KUnit alone: the test
 * a thread runs is current->kunit_test, and an active stub is a resource
 * of that test, freed when the test ends. 6.1 has no lib/kunit/static_stub.c
 * nor kunit_hooks, so all of it is in this header; a stub is told from the
 * test's other resources by its name, so that a redirection and its
 * activation may be in different files. Without CONFIG_KUNIT the
 * redirection compiles to nothing, as in the newest kernel.
 */
#ifndef _KUNIT_STATIC_STUB_H
#define _KUNIT_STATIC_STUB_H

#if !IS_ENABLED(CONFIG_KUNIT)

/* If CONFIG_KUNIT is not enabled, these stubs quietly disappear. */
#define KUNIT_STATIC_STUB_REDIRECT(real_fn_name, args...) do {} while (0)

#else

#include <kunit/resource.h>
#include <kunit/test.h>

#include <linux/compiler.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/typecheck.h>

#define KUNIT_STATIC_STUB_RESOURCE	"kunit_static_stub"

struct kunit_static_stub_data {
	void *real_fn_addr;
	void *replacement_addr;
};

static inline void __kunit_static_stub_free(struct kunit_resource *res)
{
	kfree(res->data);
}

static inline bool __kunit_static_stub_match(struct kunit *test,
					     struct kunit_resource *res,
					     void *real_fn_addr)
{
	struct kunit_static_stub_data *data = res->data;

	if (!res->name || strcmp(res->name, KUNIT_STATIC_STUB_RESOURCE))
		return false;
	return data->real_fn_addr == real_fn_addr;
}

static inline void *__kunit_get_static_stub_address(struct kunit *test,
						    void *real_fn_addr)
{
	struct kunit_static_stub_data *data;
	struct kunit_resource *res;
	void *replacement_addr;

	res = kunit_find_resource(test, __kunit_static_stub_match, real_fn_addr);
	if (!res)
		return NULL;
	data = res->data;
	replacement_addr = data->replacement_addr;
	kunit_put_resource(res);
	return replacement_addr;
}

/**
 * KUNIT_STATIC_STUB_REDIRECT() - call a replacement 'static stub' if one exists
 * @real_fn_name: The name of this function (as an identifier, not a string)
 * @args: All of the arguments passed to this function
 *
 * The prologue of a function that a KUnit test may redirect with
 * kunit_activate_static_stub(): in that test's thread, the function calls
 * the replacement and returns what it returns; anywhere else, it goes on.
 */
#define KUNIT_STATIC_STUB_REDIRECT(real_fn_name, args...)		\
do {									\
	typeof(&real_fn_name) replacement;				\
	struct kunit *current_test = current->kunit_test;		\
									\
	if (likely(!current_test))					\
		break;							\
									\
	replacement = __kunit_get_static_stub_address(current_test,	\
						      &real_fn_name);	\
									\
	if (unlikely(replacement))					\
		return replacement(args);				\
} while (0)

/**
 * kunit_deactivate_static_stub() - disable a function redirection
 * @test: The test context object.
 * @real_fn_addr: The address of the function to no longer redirect
 */
static inline void kunit_deactivate_static_stub(struct kunit *test, void *real_fn_addr)
{
	struct kunit_resource *res;

	KUNIT_ASSERT_PTR_NE_MSG(test, real_fn_addr, NULL, "Tried to deactivate a NULL stub.");
	res = kunit_find_resource(test, __kunit_static_stub_match, real_fn_addr);
	KUNIT_ASSERT_PTR_NE_MSG(test, res, NULL, "Tried to deactivate a nonexistent stub.");
	/* One reference from kunit_find_resource(), one from the list. */
	kunit_remove_resource(test, res);
	kunit_put_resource(res);
}

static inline void __kunit_activate_static_stub(struct kunit *test, void *real_fn_addr,
						void *replacement_addr)
{
	struct kunit_static_stub_data *data;
	struct kunit_resource *res;
	int ret;

	KUNIT_ASSERT_PTR_NE_MSG(test, real_fn_addr, NULL, "Tried to activate a NULL stub.");
	res = kunit_find_resource(test, __kunit_static_stub_match, real_fn_addr);
	if (res) {
		data = res->data;
		kunit_put_resource(res);
		if (!replacement_addr) {
			kunit_deactivate_static_stub(test, real_fn_addr);
			return;
		}
		data->replacement_addr = replacement_addr;
		return;
	}

	data = kzalloc(sizeof(*data), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, data, "Failed to allocate static stub data");
	res = kzalloc(sizeof(*res), GFP_KERNEL);
	if (!res)
		kfree(data);
	KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, res, "Failed to allocate static stub resource");
	data->real_fn_addr = real_fn_addr;
	data->replacement_addr = replacement_addr;
	res->name = KUNIT_STATIC_STUB_RESOURCE;
	res->should_kfree = true;
	ret = __kunit_add_resource(test, NULL, __kunit_static_stub_free, res, data);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "Failed to add the static stub resource");
}

/**
 * kunit_activate_static_stub() - replace a function using static stubs.
 * @test: The test context object.
 * @real_fn_addr: The address of the function to replace.
 * @replacement_addr: The address of the function to replace it with.
 *
 * Calls to @real_fn_addr from within this test (even if called indirectly)
 * call @replacement_addr instead, until kunit_deactivate_static_stub() or
 * the end of the test. The function must begin with
 * KUNIT_STATIC_STUB_REDIRECT(); both must have the same type.
 */
#define kunit_activate_static_stub(test, real_fn_addr, replacement_addr) do {	\
	typecheck_fn(typeof(&replacement_addr), real_fn_addr);			\
	__kunit_activate_static_stub(test, real_fn_addr, replacement_addr);	\
} while (0)

#endif
#endif
