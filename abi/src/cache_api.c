/*
 * cache_api.c — acc_context_kernel_cache: where the context's kernel
 * cache writes, and why not where it was asked to (core/cache/
 * cache_folder.h).
 */
#include "abi/src/context.h"

#include "core/cache/cache_folder.h"

#include <stdlib.h>

/* The answer for a context that has no kernel cache of its own. */
static int report_unowned(const acc_context *ctx, char **dir, char **note,
                          diag *d)
{
    cache_folder f;
    if (cache_folder_init(&f, ctx->cache_dir, d) == ACC_OK)
        cache_folder_report(&f, dir, note, d);
    cache_folder_free(&f);
    return diag_ok(d);
}

acc_status acc_context_kernel_cache(const acc_context *ctx, char **dir,
                                    char **note)
{
    static const char fn[] = "acc_context_kernel_cache";
    diag d;
    diag_clear(&d);
    if (dir)
        *dir = NULL;
    if (note)
        *note = NULL;
    if (!handle_is_live(ctx, HANDLE_CONTEXT))
        return api_bad_handle(ctx, HANDLE_CONTEXT, fn);
    error_slot *slot = (error_slot *)&ctx->error;
    if (!dir || !note)
        return api_fail(slot, ACC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                        !dir ? "dir" : "note");
    backend *be = ctx->be;
    if (be->ops->cache_report)
        be->ops->cache_report(be, dir, note, &d);
    else
        report_unowned(ctx, dir, note, &d);
    return diag_ok(&d) ? ACC_OK : api_fail_diag(slot, &d);
}
