/* version.h — the library version; bumped by releases. */
#ifndef ACC_CORE_BASE_VERSION_H
#define ACC_CORE_BASE_VERSION_H
#define ACC_VERSION_STRING "0.1.0"
#endif
