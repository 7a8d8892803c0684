/* diag.c — first-error-wins error records. */
#include "core/base/diag.h"

#include <stdarg.h>
#include <stdio.h>

void diag_clear(diag *d)
{
    d->status = ACC_OK;
    d->message[0] = '\0';
}

acc_status diag_fail(diag *d, acc_status status, const char *fmt, ...)
{
    if (d->status != ACC_OK)
        return d->status;
    d->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->message, sizeof d->message, fmt, ap);
    va_end(ap);
    return status;
}

acc_status diag_oom(diag *d, const char *where)
{
    return diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host memory",
                     where);
}
