/*
 * consumer.c — a program outside the accel tree that includes the installed
 * header and links the installed library; built by install_consumers.sh
 * once through pkg-config and once through find_package(accel).
 */
#include <accel.h>
#include <stdio.h>

int main(void)
{
    uint32_t abi = acc_abi_version();
    if (abi != ACC_ABI_VERSION) {
        fprintf(stderr, "consumer: library ABI %u, header ABI %u\n",
                (unsigned)abi, (unsigned)ACC_ABI_VERSION);
        return 1;
    }
    printf("consumer: accel ABI %u\n", (unsigned)abi);
    return 0;
}
