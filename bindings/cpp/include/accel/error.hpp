// accel/error.hpp — accel::Error, the one exception the C++ binding throws.
//
// Every failing call of the C ABI becomes an accel::Error carrying the
// call's status and accel's own message (acc_last_error(), read on the
// failing thread right after the call, so it is the message of that call
// even when threads share handles).  Misuse the binding finds itself (a
// moved-from handle, an output type that does not match the program) is
// reported the same way, with the status accel would have used.
#ifndef ACCEL_ERROR_HPP
#define ACCEL_ERROR_HPP

#include <accel.h>

#include <stdexcept>
#include <string>

namespace accel {

// An accel failure: what() is accel's message, status() its status code.
class Error : public std::runtime_error {
public:
    Error(acc_status status, const std::string &message)
        : std::runtime_error(message), status_(status) {}

    // The status code (ACC_ERR_SHAPE, ...); never ACC_OK.
    acc_status status() const noexcept { return status_; }
    // Its static name ("ACC_ERR_SHAPE").
    const char *status_name() const noexcept
    {
        return acc_status_string(status_);
    }

private:
    acc_status status_;
};

namespace detail {

[[noreturn]] inline void fail(acc_status status, const std::string &message)
{
    throw Error(status, message);
}

// Throws the calling thread's last accel error when `status` is not ACC_OK.
inline void check(acc_status status)
{
    if (status == ACC_OK)
        return;
    const char *message = acc_last_error();
    fail(status, message && *message ? message : acc_status_string(status));
}

// The error for a handle that no longer owns anything (moved from).
[[noreturn]] inline void moved_from(const char *what)
{
    fail(ACC_ERR_INVALID_HANDLE,
         std::string("this accel::") + what +
             " is empty: it was moved from (or default-constructed)");
}

} // namespace detail
} // namespace accel

#endif // ACCEL_ERROR_HPP
