// check.hpp — the few test helpers the C++ binding's tests need: test
// cases registered by TEST(name), checks that report the file, line and
// values and go on, and a main that runs every case (or the ones named on
// the command line), catches what they throw, and exits non-zero when
// anything failed.  No dependency beyond the standard library, so the
// tests build the same way with g++, clang++ and the sanitizers.
#ifndef ACCEL_CPP_TESTS_CHECK_HPP
#define ACCEL_CPP_TESTS_CHECK_HPP

#include <accel/accel.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace check {

struct Case {
    const char *name;
    void (*fn)();
};

inline std::vector<Case> &cases()
{
    static std::vector<Case> all;
    return all;
}

inline int &failures()
{
    static int n = 0;
    return n;
}

struct Register {
    Register(const char *name, void (*fn)()) { cases().push_back({name, fn}); }
};

inline void report(const char *file, int line, const std::string &what)
{
    std::fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, what.c_str());
    failures()++;
}

template <class A, class B> std::string show(const A &a, const B &b)
{
    std::ostringstream s;
    s << a << " vs " << b;
    return s.str();
}

// |got - want| <= tol * (1 + |want|).
inline bool close(double got, double want, double tol)
{
    return std::fabs(got - want) <= tol * (1.0 + std::fabs(want));
}

// Runs `fn`, which must throw accel::Error with `status` and a message
// containing `part`.
inline void throws(const char *file, int line, const char *expr,
                   const std::function<void()> &fn, acc_status status,
                   const std::string &part)
{
    try {
        fn();
    } catch (const accel::Error &e) {
        if (e.status() != status)
            report(file, line,
                   std::string(expr) + " threw " + e.status_name() + " (" +
                       e.what() + "), expected " + acc_status_string(status));
        else if (std::string(e.what()).find(part) == std::string::npos)
            report(file, line,
                   std::string(expr) + " threw \"" + e.what() +
                       "\", which does not say \"" + part + "\"");
        return;
    }
    report(file, line, std::string(expr) + " did not throw");
}

inline int run_all(int argc, char **argv)
{
    int ran = 0;
    for (const Case &c : cases()) {
        bool wanted = argc < 2;
        for (int i = 1; i < argc; i++)
            wanted = wanted || std::strcmp(argv[i], c.name) == 0;
        if (!wanted)
            continue;
        const int before = failures();
        try {
            c.fn();
        } catch (const std::exception &e) {
            std::fprintf(stderr, "%s: threw: %s\n", c.name, e.what());
            failures()++;
        }
        std::printf("%s %s\n", failures() == before ? "[ ok ]" : "[FAIL]",
                    c.name);
        ran++;
    }
    std::printf("%d cases, %d failed checks\n", ran, failures());
    return failures() == 0 && ran > 0 ? 0 : 1;
}

} // namespace check

#define TEST(name)                                                            \
    static void test_##name();                                                \
    static const check::Register register_##name(#name, test_##name);         \
    static void test_##name()

#define CHECK(cond)                                                           \
    do {                                                                      \
        if (!(cond))                                                          \
            check::report(__FILE__, __LINE__, #cond);                         \
    } while (0)

#define CHECK_EQ(a, b)                                                        \
    do {                                                                      \
        const auto &check_a_ = (a);                                           \
        const auto &check_b_ = (b);                                           \
        if (!(check_a_ == check_b_))                                          \
            check::report(__FILE__, __LINE__,                                 \
                          std::string(#a " == " #b ": ") +                    \
                              check::show(check_a_, check_b_));               \
    } while (0)

#define CHECK_CLOSE(got, want, tol)                                           \
    do {                                                                      \
        const double check_g_ = double(got), check_w_ = double(want);         \
        if (!check::close(check_g_, check_w_, tol))                           \
            check::report(__FILE__, __LINE__,                                 \
                          std::string(#got " close to " #want ": ") +         \
                              check::show(check_g_, check_w_));               \
    } while (0)

#define CHECK_THROWS(expr, status, part)                                      \
    check::throws(__FILE__, __LINE__, #expr, [&] { (void)(expr); }, status,   \
                  part)

#define TEST_MAIN                                                             \
    int main(int argc, char **argv) { return check::run_all(argc, argv); }

#endif // ACCEL_CPP_TESTS_CHECK_HPP
