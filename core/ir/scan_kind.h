/*
 * scan_kind.h — what the builder and the executors need to know about an
 * acc_scan_kind (its direction, its form, whether it takes a seed) and the
 * user-facing names of scans and segmented folds, for messages.
 */
#ifndef ACC_CORE_IR_SCAN_KIND_H
#define ACC_CORE_IR_SCAN_KIND_H

#include "core/ir/ir.h"

/* The shape of a scan's result per segment of m elements. */
typedef enum ir_scan_form {
    IR_SCAN_FULL,      /* scanl, scanr: m + 1 elements, the seed included  */
    IR_SCAN_PRIMED,    /* scanl', scanr': m exclusive elements, one total  */
    IR_SCAN_INCLUSIVE, /* scanl1, scanr1: m elements, no seed              */
    IR_SCAN_EXCLUSIVE, /* prescanl, prescanr: m elements, seed first/last  */
    IR_SCAN_POST       /* postscanl, postscanr: the seed folded into scan1 */
} ir_scan_form;

static inline int ir_scan_valid(int kind)
{
    return kind >= ACC_SCANL && kind <= ACC_POSTSCANR;
}

/* Left-to-right (scanl, scanl', scanl1, prescanl, postscanl) or not. */
static inline int ir_scan_left(acc_scan_kind kind)
{
    return kind <= ACC_SCANL1 || kind == ACC_PRESCANL ||
           kind == ACC_POSTSCANL;
}

static inline ir_scan_form ir_scan_form_of(acc_scan_kind kind)
{
    switch (kind) {
    case ACC_SCANL_PRIME:
    case ACC_SCANR_PRIME: return IR_SCAN_PRIMED;
    case ACC_SCANL1:
    case ACC_SCANR1: return IR_SCAN_INCLUSIVE;
    case ACC_PRESCANL:
    case ACC_PRESCANR: return IR_SCAN_EXCLUSIVE;
    case ACC_POSTSCANL:
    case ACC_POSTSCANR: return IR_SCAN_POST;
    default: return IR_SCAN_FULL;
    }
}

static inline int ir_scan_seeded(acc_scan_kind kind)
{
    return ir_scan_form_of(kind) != IR_SCAN_INCLUSIVE;
}

/* "scanl'", or "scanl'Seg" for the segmented form. */
static inline const char *ir_scan_name(acc_scan_kind kind, int segmented)
{
    static const char *const names[2][10] = {
        {"scanl", "scanl'", "scanl1", "scanr", "scanr'", "scanr1",
         "prescanl", "postscanl", "prescanr", "postscanr"},
        {"scanlSeg", "scanl'Seg", "scanl1Seg", "scanrSeg", "scanr'Seg",
         "scanr1Seg", "prescanlSeg", "postscanlSeg", "prescanrSeg",
         "postscanrSeg"}};
    return ir_scan_valid((int)kind) ? names[segmented != 0][kind - 1]
                                    : "scan";
}

/* "foldSeg", "foldSeg'" or "fold1Seg" for an IR_FOLD_SEG node. */
static inline const char *ir_fold_seg_name(const ir_node *n)
{
    if (!n->u.seg.seeded)
        return "fold1Seg";
    return n->u.seg.offsets ? "foldSeg'" : "foldSeg";
}

#endif
