/*
 * pcuda_plugin.h — what the cublas and cufft plugins share around their
 * registration: the state one plugin load keeps (the driver, why the
 * implementations are unavailable, the per-CUDA-context entries), the
 * availability sentence shown as every implementation's note and given as
 * the reason of every refusal, and the checks every call starts with.
 *
 * The state belongs to the accel context that loaded the plugin: each
 * implementation registered holds a reference, dropped by its `release`;
 * the last one destroys it.
 */
#ifndef ACC_PLUGINS_PCUDA_PLUGIN_H
#define ACC_PLUGINS_PCUDA_PLUGIN_H

#include "accel.h"
#include "pcuda_ctx.h"

enum { PCUDA_TEXT = 1536 };

typedef struct pcuda_plugin {
    unsigned refs;           /* implementations registered that hold it;
                                releases happen one at a time, when the
                                accel context is destroyed */
    int available;           /* a device, the library, all symbols */
    char reason[PCUDA_TEXT]; /* why not available; "" when available */
    char note[2 * PCUDA_TEXT]; /* the note of every implementation */
    pcuda_driver driver;     /* resolved when a device exists */
    pcuda_ctx_cache contexts;
} pcuda_plugin;

/* Initialises p; available is 0 until the plugin says otherwise. */
void pcuda_plugin_init(pcuda_plugin *p);
/* Records why the implementations cannot run (reasons are joined with
 * "; ", so a missing driver and a missing library are both named). */
void pcuda_plugin_unavailable(pcuda_plugin *p, const char *why);
/* Writes the note: "unavailable: REASON; FOUND" or FOUND alone, where
 * FOUND describes what was loaded (may be ""). */
void pcuda_plugin_finish_note(pcuda_plugin *p, const char *found);

/* A refusal of a capability predicate: writes why, returns 0. */
int pcuda_refuse(acc_foreign_query *q, const char *why);
/* 1 when available; otherwise refuses with the reason. */
int pcuda_accepts_available(const pcuda_plugin *p, acc_foreign_query *q);

/* Registers impl (backend CUDA, the plugin's note) and counts the
 * reference it holds. */
acc_status pcuda_plugin_add(acc_plugin_registrar *reg, pcuda_plugin *p,
                            acc_foreign_impl *impl);
/* Drops one reference; 1 when it was the last (the caller then tears the
 * plugin down). */
int pcuda_plugin_drop(pcuda_plugin *p);

/* The checks of every execute: the plugin is available and every array is
 * in CUDA device memory.  ACC_OK, or the status with call->message. */
acc_status pcuda_check_call(const pcuda_plugin *p, acc_foreign_call *call);

/* Writes call->message ("WHAT failed: DETAIL") and returns status. */
acc_status pcuda_fail(acc_foreign_call *call, acc_status status,
                      const char *what, const char *detail);

#endif
