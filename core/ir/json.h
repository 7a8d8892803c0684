/*
 * json.h — IR things written as JSON, for the machine-readable texts of
 * the API: plans (acc_program_explain) and signatures
 * (acc_program_signature_json, acc_parse_entries_json).
 */
#ifndef ACC_CORE_IR_JSON_H
#define ACC_CORE_IR_JSON_H

#include "core/base/strbuf.h"
#include "core/ir/types.h"

/* s as a JSON string (quotes and backslashes escaped, other control
 * characters as \u00XX); NULL as null. */
void ir_json_string(strbuf *b, const char *s);

/* An element type as a tree of scalars: a scalar is its name ("f32"), a
 * tuple the JSON array of its fields, a shape {"shape": RANK}. */
void ir_json_elem(strbuf *b, const acc_type *elem);

/* One input or output of a signature:
 * {"name": NAME or null, "elem": ELEM, "rank": R, "leaves": [...]}, the
 * leaves being the scalars of the buffers, in order. */
void ir_json_signature_item(strbuf *b, const char *name, const acc_type *elem,
                         int32_t rank);

#endif
