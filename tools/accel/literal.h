/*
 * literal.h — scalar literals on the command line (`--in 3`, `--in 2.5`,
 * `--in true`) for rank-0 parameters.
 */
#ifndef ACC_TOOLS_LITERAL_H
#define ACC_TOOLS_LITERAL_H

#include <accel.h>

#include <stddef.h>

/* Whether `text` reads as a literal (a number, true/false/True/False)
 * rather than a file name. */
int literal_is(const char *text);

/* Converts `text` to one value of `scalar` at out (acc_scalar_size bytes).
 * Integers must be integers in range; floats any number whose magnitude
 * does not round beyond the type's largest finite value (1e39 and 1e999
 * are refused for f32, 1e309 for f64; 1e-50 rounds to 0 as f32), or
 * inf/nan written as such; bools true/false/True/False/1/0.
 * Returns 0, or -1 with a sentence in err ("300 is out of range for u8"). */
int literal_store(const char *text, acc_scalar scalar, void *out, char *err,
                  size_t err_size);

#endif /* ACC_TOOLS_LITERAL_H */
