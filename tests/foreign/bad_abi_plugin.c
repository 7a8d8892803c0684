/*
 * bad_abi_plugin.c — a plugin that says it was built for another ABI
 * version (ACC_ABI_VERSION + 1), for the test that acc_plugin_load refuses
 * it with ACC_ERR_ABI_MISMATCH naming both versions.
 */
#include "accel.h"

acc_status acc_plugin_entry(acc_plugin_registrar *reg, uint32_t abi_version);

acc_status acc_plugin_entry(acc_plugin_registrar *reg, uint32_t abi_version)
{
    (void)abi_version;
    return reg->declare(reg, "bad_abi", ACC_ABI_VERSION + 1);
}
