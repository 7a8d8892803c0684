/*
 * escape.c — terminal-safe text (see escape.h).
 *
 * UTF-8 is decoded strictly (no overlong forms, no surrogates, nothing
 * beyond U+10FFFF) so that a byte sequence is either shown as the
 * character it encodes or escaped byte by byte; characters that change
 * how a terminal shows the rest of the line (C1 controls, bidirectional
 * overrides and isolates, line separators, zero-width marks) are escaped
 * like ASCII controls.
 */
#include "escape.h"

#include <stdio.h>
#include <string.h>

/* The length of the well-formed UTF-8 sequence at s (1 to 4 bytes, at
 * most `left`) and its code point; 0 when it is malformed. */
static size_t utf8_decode(const unsigned char *s, size_t left,
                          unsigned long *cp)
{
    size_t n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : 2;
    static const unsigned long least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (s[0] < 0xC2 || s[0] > 0xF4 || n > left)
        return 0;
    *cp = s[0] & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        *cp = *cp << 6 | (s[i] & 0x3F);
    }
    if (*cp < least[n] || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF))
        return 0;
    return n;
}

/* Whether a decoded character (at least U+0080) is shown as itself. */
static int shown(unsigned long cp)
{
    return cp >= 0xA0 &&                       /* C1 controls          */
           !(cp >= 0x200B && cp <= 0x200F) &&  /* zero width, LRM, RLM */
           !(cp >= 0x2028 && cp <= 0x202E) &&  /* separators, overrides */
           !(cp >= 0x2060 && cp <= 0x206F) &&  /* isolates, invisibles */
           cp != 0xFEFF && !(cp >= 0xFFF9 && cp <= 0xFFFB);
}

char *escape_text(const char *in, size_t len, char *out, size_t out_size)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t n = 0, cut = 0, i = 0;
    while (i < len) {
        char piece[16];
        size_t k = 1, w;
        unsigned long cp = 0;
        if (s[i] >= 0x20 && s[i] < 0x7F) {
            piece[0] = (char)s[i];
            w = 1;
        } else if (s[i] >= 0x80 && (k = utf8_decode(s + i, len - i, &cp)) &&
                   shown(cp)) {
            memcpy(piece, s + i, k);
            w = k;
        } else {
            k = 1;
            w = (size_t)snprintf(piece, sizeof piece, "\\x%02x", s[i]);
        }
        if (n + w > out_size - 1) {
            memcpy(out + cut, "...", 4);
            return out;
        }
        memcpy(out + n, piece, w);
        n += w;
        if (n + 3 <= out_size - 1)
            cut = n;
        i += k;
    }
    out[n] = '\0';
    return out;
}
