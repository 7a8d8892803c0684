/*
 * foreign_api.c — the public functions of the registry: registering
 * implementations and C functions, loading plugins, listing.  Each checks
 * the context at the boundary and records the first error on it.
 */
#include "abi/src/context.h"
#include "foreign/autoload.h"
#include "foreign/cfunc.h"
#include "foreign/plugin.h"
#include "foreign/registry.h"

#include <stdlib.h>
#include <string.h>

static acc_status finish(acc_context *ctx, const diag *d)
{
    if (!diag_ok(d))
        return api_fail_diag(&ctx->error, d);
    return ACC_OK;
}

acc_status acc_register_foreign(acc_context *ctx, const acc_foreign_impl *impl)
{
    static const char fn[] = "acc_register_foreign";
    diag d;
    diag_clear(&d);
    if (!handle_is_live(ctx, HANDLE_CONTEXT))
        return api_bad_handle(ctx, HANDLE_CONTEXT, fn);
    reg_add(ctx->foreign, impl, "application", fn, NULL, &d);
    return finish(ctx, &d);
}

acc_status acc_foreign_list(const acc_context *ctx, char **text)
{
    static const char fn[] = "acc_foreign_list";
    if (text)
        *text = NULL;
    if (!handle_is_live(ctx, HANDLE_CONTEXT))
        return api_bad_handle(ctx, HANDLE_CONTEXT, fn);
    error_slot *slot = (error_slot *)&ctx->error;
    if (!text)
        return api_fail(slot, ACC_ERR_INVALID_ARGUMENT, "%s: text is NULL", fn);
    strbuf b = {0};
    reg_describe(ctx->foreign, &b);
    sb_puts(&b, "");
    if (b.failed || !b.text) {
        sb_free(&b);
        return api_fail(slot, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host "
                        "memory", fn);
    }
    *text = b.text;
    return ACC_OK;
}

acc_status acc_plugin_load(acc_context *ctx, const char *path_or_name)
{
    static const char fn[] = "acc_plugin_load";
    diag d;
    diag_clear(&d);
    if (!handle_is_live(ctx, HANDLE_CONTEXT))
        return api_bad_handle(ctx, HANDLE_CONTEXT, fn);
    if (!path_or_name || !path_or_name[0])
        diag_fail(&d, ACC_ERR_INVALID_ARGUMENT, "%s: path_or_name is %s", fn,
                  path_or_name ? "empty" : "NULL");
    else
        reg_load_plugin(ctx->foreign, path_or_name, ctx->plugin_path, &d);
    return finish(ctx, &d);
}

acc_status acc_plugin_status(acc_context *ctx, char **text)
{
    static const char fn[] = "acc_plugin_status";
    if (text)
        *text = NULL;
    if (!handle_is_live(ctx, HANDLE_CONTEXT))
        return api_bad_handle(ctx, HANDLE_CONTEXT, fn);
    if (!text)
        return api_fail(&ctx->error, ACC_ERR_INVALID_ARGUMENT, "%s: text is "
                        "NULL", fn);
    strbuf b = {0};
    reg_autoload_describe(ctx->autoload, &b);
    sb_puts(&b, "");
    if (b.failed || !b.text) {
        sb_free(&b);
        return api_fail(&ctx->error, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of "
                        "host memory", fn);
    }
    *text = b.text;
    return ACC_OK;
}

acc_status acc_register_c_function(acc_context *ctx, const char *name,
                                   const char *library, const char *symbol,
                                   const char *signature)
{
    static const char fn[] = "acc_register_c_function";
    diag d;
    diag_clear(&d);
    if (!handle_is_live(ctx, HANDLE_CONTEXT))
        return api_bad_handle(ctx, HANDLE_CONTEXT, fn);
    if (!name || !name[0] || strlen(name) > 127)
        diag_fail(&d, ACC_ERR_INVALID_ARGUMENT, "%s: name must be 1 to 127 "
                  "characters", fn);
    else if (!symbol || !signature)
        diag_fail(&d, ACC_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                  symbol ? "signature" : "symbol");
    else
        reg_register_c_function(ctx->foreign, name, library, symbol,
                                signature, &d);
    return finish(ctx, &d);
}
