// support.hpp — what the C++ binding's Catch2 tests share: Catch2 itself
// (its main is libCatch2WithMain, linked by bindings/cpp/CMakeLists.txt),
// closeness of floating results, checks of the accel::Error a call throws,
// and a small deterministic generator of inputs.
#ifndef ACCEL_CPP_TESTS_SUPPORT_HPP
#define ACCEL_CPP_TESTS_SUPPORT_HPP

#include <accel/accel.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace support {

// Matches values within tol * (1 + |want|) of want.
inline Catch::Detail::Approx close(double want, double tol)
{
    return Catch::Detail::Approx(want).epsilon(tol).scale(1.0);
}

// The accel::Error f throws (none when it returns).
template <class F> std::optional<accel::Error> error_of(F &&f)
{
    try {
        f();
    } catch (const accel::Error &e) {
        return e;
    }
    return std::nullopt;
}

// A small deterministic generator (xorshift), in [0, 1).
struct Rng {
    std::uint64_t s = 0x9e3779b97f4a7c15ull;
    double next()
    {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return double(s >> 11) / double(1ull << 53);
    }
};

} // namespace support

// expr must throw accel::Error with `status` and a message containing
// `part` (accel's own message, or the binding's).
#define CHECK_ACCEL_ERROR(expr, status_, part)                                \
    do {                                                                      \
        const auto accel_err_ = support::error_of([&] { (void)(expr); });     \
        CHECK(accel_err_.has_value());                                        \
        if (accel_err_) {                                                     \
            CHECK(std::string(accel_err_->status_name()) ==                   \
                  std::string(acc_status_string(status_)));                   \
            CHECK_THAT(std::string(accel_err_->what()),                       \
                       Catch::Matchers::Contains(part));                      \
        }                                                                     \
    } while (0)

#endif // ACCEL_CPP_TESTS_SUPPORT_HPP
