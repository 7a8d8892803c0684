/*
 * emu_launch.h — what the emulating driver passes to a kernel's entry in
 * a module built by emu_build.c (C and C++; cuda_emu.h defines the entry,
 * acc_emu_launch_NAME).
 */
#ifndef ACC_EMU_LAUNCH_H
#define ACC_EMU_LAUNCH_H

#include <stddef.h>

typedef struct acc_emu_launch_args {
    unsigned grid[3], block[3];
    unsigned shared_bytes; /* dynamic shared memory asked for */
    void **params;         /* cuLaunchKernel's kernelParams */
    unsigned char *stacks; /* the fibers' stacks: stack_bytes per thread of a
                              block, the driver's (shared by every module) */
    size_t stack_bytes;
    void *fibers;          /* fiber_bytes of room for the state of 1024
                              fibers (the driver's, likewise: a module
                              allocates nothing it would have to free) */
    size_t fiber_bytes;
    int reverse;           /* run a block's threads last to first (between
                              two collectives, each thread runs alone, so
                              the two orders expose a missing barrier) */
    char *error;           /* why the launch failed (the entry returns 1) */
    size_t error_size;
} acc_emu_launch_args;

typedef int (*acc_emu_entry_fn)(const acc_emu_launch_args *);

#endif
