/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * KUnit deferred actions, as 6.5 added them to <kunit/resource.h>
 * (kunit_add_action(), kunit_add_action_or_reset(), kunit_release_action(),
 * and 6.8's KUNIT_DEFINE_ACTION_WRAPPER()), written on 6.1's resources
 * alone: an action is a resource whose free function calls it, so that
 * KUnit runs it when the test ends, after every resource added after it
 * (resources are freed last added, first freed), as the newest kernel
 * runs its actions. Releasing one finds it by its function and context,
 * as the newest kernel does, and frees it at once.
 */
#ifndef _KUNIT_DEFERRED_ACTIONS_H
#define _KUNIT_DEFERRED_ACTIONS_H

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

typedef void (kunit_action_t)(void *);

#define KUNIT_DEFINE_ACTION_WRAPPER(wrapper, orig, arg_type)	\
	static void wrapper(void *in)				\
	{							\
		arg_type arg = (arg_type)in;			\
		orig(arg);					\
	}

struct kunit_compat_action {
	kunit_action_t *action;
	void *ctx;
};

static inline int kunit_compat_action_init(struct kunit_resource *res, void *context)
{
	struct kunit_compat_action *a = kmemdup(context, sizeof(*a), GFP_KERNEL);

	if (!a)
		return -ENOMEM;
	res->data = a;
	return 0;
}

static inline void kunit_compat_action_free(struct kunit_resource *res)
{
	struct kunit_compat_action *a = res->data;

	a->action(a->ctx);
	kfree(a);
}

static inline bool kunit_compat_action_match(struct kunit *test, struct kunit_resource *res,
					     void *match_data)
{
	const struct kunit_compat_action *want = match_data;
	const struct kunit_compat_action *a = res->data;

	return res->free == kunit_compat_action_free &&
	       a->action == want->action && a->ctx == want->ctx;
}

static inline int kunit_add_action(struct kunit *test, kunit_action_t *action, void *ctx)
{
	struct kunit_compat_action a = { .action = action, .ctx = ctx };

	if (!kunit_alloc_resource(test, kunit_compat_action_init, kunit_compat_action_free,
				  GFP_KERNEL, &a))
		return -ENOMEM;
	return 0;
}

static inline int kunit_add_action_or_reset(struct kunit *test, kunit_action_t *action,
					    void *ctx)
{
	int ret = kunit_add_action(test, action, ctx);

	if (ret)
		action(ctx);
	return ret;
}

static inline void kunit_release_action(struct kunit *test, kunit_action_t *action, void *ctx)
{
	struct kunit_compat_action a = { .action = action, .ctx = ctx };

	kunit_destroy_resource(test, kunit_compat_action_match, &a);
}

#endif /* _KUNIT_DEFERRED_ACTIONS_H */
