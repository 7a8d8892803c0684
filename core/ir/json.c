/* json.c — JSON texts of IR things (see json.h). */
#include "core/ir/json.h"

void ir_json_string(strbuf *b, const char *s)
{
    if (!s) {
        sb_puts(b, "null");
        return;
    }
    sb_puts(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            sb_printf(b, "\\%c", c);
        else if (c < 0x20)
            sb_printf(b, "\\u%04x", c);
        else
            sb_printf(b, "%c", c);
    }
    sb_puts(b, "\"");
}

void ir_json_elem(strbuf *b, const acc_type *t)
{
    switch (t->kind) {
    case ACC_TYPE_SCALAR:
        sb_printf(b, "\"%s\"", acc_scalar_name(t->scalar));
        return;
    case ACC_TYPE_SHAPE:
        sb_printf(b, "{\"shape\":%d}", (int)t->rank);
        return;
    default:
        sb_puts(b, "[");
        for (size_t i = 0; i < t->arity; i++) {
            if (i)
                sb_puts(b, ",");
            ir_json_elem(b, t->fields[i]);
        }
        sb_puts(b, "]");
    }
}

void ir_json_signature_item(strbuf *b, const char *name, const acc_type *elem,
                         int32_t rank)
{
    sb_puts(b, "{\"name\":");
    ir_json_string(b, name);
    sb_puts(b, ",\"elem\":");
    ir_json_elem(b, elem);
    sb_printf(b, ",\"rank\":%d,\"leaves\":[", (int)rank);
    for (size_t i = 0; i < elem->n_leaves; i++)
        sb_printf(b, "%s\"%s\"", i ? "," : "",
                  acc_scalar_name(elem->leaves[i]));
    sb_puts(b, "]}");
}
