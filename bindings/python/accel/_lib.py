"""_lib.py -- finds libaccel, checks its ABI version and declares, with
ctypes, the C functions and structs of abi/include/accel.h that the binding
calls.  Nothing else in the package touches ctypes prototypes.

The library is looked for, in order:
  1. $ACCEL_LIBRARY, a path to libaccel.so (an error when it cannot load);
  2. when this package runs from an accel source tree (bindings/python/ of
     a checkout), that tree's build: build/libaccel.so.1 (`make`);
  3. the library `make install` put next to the installed package (its
     path is recorded in _install.py), then the system loader's
     libaccel.so.1.
Every ctypes call through CDLL releases the GIL while C runs, so long
acc_run calls let other Python threads go on.
"""
import ctypes
import os

# The ABI version this binding is written against (accel.h's
# ACC_ABI_VERSION); the loaded library must report the same.
ABI_VERSION = 1

MAX_RANK = 8
MAX_COMPONENTS = 16

c_int32, c_int64, c_uint32, c_size_t = (ctypes.c_int32, ctypes.c_int64,
                                        ctypes.c_uint32, ctypes.c_size_t)
c_void_p, c_char_p, c_int, c_double = (ctypes.c_void_p, ctypes.c_char_p,
                                       ctypes.c_int, ctypes.c_double)
P = ctypes.POINTER


class AccArray(ctypes.Structure):
    """acc_array: an array descriptor (one buffer per scalar leaf)."""
    _fields_ = [("struct_size", c_size_t), ("type", c_void_p),
                ("rank", c_int32), ("extents", c_int64 * MAX_RANK),
                ("data", c_void_p * MAX_COMPONENTS), ("memory", c_int),
                ("device", c_int32), ("ownership", c_int),
                ("release", c_void_p), ("release_state", c_void_p)]


class ContextOptions(ctypes.Structure):
    """acc_context_options up to the last field the binding sets.  It is
    filled by acc_context_options_init_sized with its own size, so the
    library writes and reads no more than this (fields a newer accel appends
    after fp_contract keep their defaults)."""
    _fields_ = [("struct_size", c_size_t), ("backend", c_int),
                ("num_threads", c_int32), ("cache_dir", c_char_p),
                ("fusion_duplicate_max_ops", c_int32),
                ("plugin_path", c_char_p), ("cuda_device", c_int32),
                ("run_deadline_seconds", c_double), ("plugins", c_char_p),
                ("mpi_comm", c_void_p), ("strict", c_int32),
                ("fp_contract", c_int32)]


class ExecOptions(ctypes.Structure):
    """acc_exec_options, filled by acc_exec_options_init_sized with its
    own size (see ContextOptions)."""
    _fields_ = [("struct_size", c_size_t), ("stream", c_void_p),
                ("async_", c_int32), ("deadline_seconds", c_double)]


class PlanSummary(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("backend", c_int),
                ("kernels", c_size_t), ("intermediates", c_size_t),
                ("foreign_calls", c_size_t), ("duplicated", c_size_t)]


class RunStats(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("kernels_launched", ctypes.c_uint64),
                ("bytes_allocated", ctypes.c_uint64),
                ("intermediate_bytes", ctypes.c_uint64),
                ("seconds", c_double)]


# --- DLPack (accel.h's acc_dl_* structs are DLPack's own layout) ----------
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice), ("ndim", c_int32),
                ("dtype", DLDataType), ("shape", P(c_int64)),
                ("strides", P(c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DL_DELETER = ctypes.CFUNCTYPE(None, P(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor),
                            ("manager_ctx", c_void_p),
                            ("deleter", DL_DELETER)]


class DLVersion(ctypes.Structure):
    _fields_ = [("major", c_uint32), ("minor", c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DLV_DELETER = ctypes.CFUNCTYPE(None, P(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [
    ("version", DLVersion), ("manager_ctx", c_void_p),
    ("deleter", DLV_DELETER), ("flags", ctypes.c_uint64),
    ("dl_tensor", DLTensor)]

# acc_array field offsets, for the call path's direct writes.
ARRAY_SIZE = ctypes.sizeof(AccArray)
OFF_EXTENTS = AccArray.extents.offset
OFF_DATA = AccArray.data.offset

# (name, restype, argtypes) of every function the binding calls.
_H = c_void_p  # every handle, type and node is an opaque pointer
_PROTOTYPES = [
    ("acc_abi_version", c_uint32, []),
    ("acc_version_string", c_char_p, []),
    ("acc_status_string", c_char_p, [c_int]),
    ("acc_last_error", c_char_p, []),
    ("acc_backend_name", c_char_p, [c_int]),
    ("acc_context_options_init_sized", c_int, [P(ContextOptions), c_size_t]),
    ("acc_context_create", c_int, [P(ContextOptions), P(_H)]),
    ("acc_context_destroy", None, [_H]),
    ("acc_context_last_error", c_char_p, [_H]),
    ("acc_context_backend", c_int, [_H, P(c_int)]),
    ("acc_context_backend_available", c_int,
     [_H, c_int, P(c_int), P(c_char_p)]),
    ("acc_plugin_load", c_int, [_H, c_char_p]),
    ("acc_plugin_status", c_int, [_H, P(c_void_p)]),
    ("acc_foreign_list", c_int, [_H, P(c_void_p)]),
    ("acc_register_c_function", c_int,
     [_H, c_char_p, c_char_p, c_char_p, c_char_p]),
    # types
    ("acc_type_scalar", _H, [c_int]),
    ("acc_type_shape", _H, [c_int32]),
    ("acc_type_tuple", _H, [_H, c_size_t, P(_H)]),
    ("acc_type_array", _H, [_H, _H, c_int32]),
    ("acc_type_get_kind", c_int, [_H]),
    ("acc_type_get_scalar", c_int, [_H]),
    ("acc_type_get_rank", c_int32, [_H]),
    ("acc_type_get_elem", _H, [_H]),
    ("acc_type_get_arity", c_size_t, [_H]),
    ("acc_type_get_field", _H, [_H, c_size_t]),
    ("acc_type_leaf_count", c_size_t, [_H]),
    ("acc_type_leaf", c_int, [_H, c_size_t]),
    # arrays and DLPack
    ("acc_array_release", None, [c_void_p]),
    ("acc_array_from_dlpack", c_int, [c_void_p, c_void_p]),
    ("acc_array_from_dlpack_versioned", c_int, [c_void_p, c_void_p]),
    # graphs and the builder
    ("acc_graph_create", c_int, [_H, P(_H)]),
    ("acc_graph_free", None, [_H]),
    ("acc_graph_last_error", c_char_p, [_H]),
    ("acc_graph_status", c_int, [_H]),
    ("acc_node_type", _H, [_H]),
    ("acc_input", _H, [_H, _H, c_int32]),
    ("acc_const_i64", _H, [_H, c_int, c_int64]),
    ("acc_const_u64", _H, [_H, c_int, ctypes.c_uint64]),
    ("acc_const_f64", _H, [_H, c_int, c_double]),
    ("acc_const_bool", _H, [_H, c_int]),
    ("acc_unop", _H, [_H, c_int, _H]),
    ("acc_binop", _H, [_H, c_int, _H, _H]),
    ("acc_round_to", _H, [_H, c_int, _H, c_int]),
    ("acc_convert", _H, [_H, _H, c_int]),
    ("acc_cond", _H, [_H, _H, _H, _H]),
    ("acc_tuple", _H, [_H, c_size_t, P(_H)]),
    ("acc_get", _H, [_H, _H, c_size_t]),
    ("acc_index", _H, [_H, c_size_t, P(_H)]),
    ("acc_param", _H, [_H, _H]),
    ("acc_lambda", _H, [_H, c_size_t, P(_H), _H]),
    ("acc_while", _H, [_H, _H, _H, _H]),
    ("acc_read", _H, [_H, _H, _H]),
    ("acc_read_linear", _H, [_H, _H, _H]),
    ("acc_shape", _H, [_H, _H]),
    ("acc_size", _H, [_H, _H]),
    ("acc_the", _H, [_H, _H]),
    ("acc_unit", _H, [_H, _H]),
    ("acc_generate", _H, [_H, _H, _H]),
    ("acc_fill", _H, [_H, _H, _H]),
    ("acc_map", _H, [_H, _H, _H]),
    ("acc_zipwith", _H, [_H, _H, c_size_t, P(_H)]),
    ("acc_backpermute", _H, [_H, _H, _H, _H]),
    ("acc_reshape", _H, [_H, _H, _H]),
    ("acc_fold", _H, [_H, _H, _H, _H]),
    ("acc_fold1", _H, [_H, _H, _H]),
    ("acc_all", _H, [_H]),
    ("acc_replicate", _H, [_H, c_size_t, P(_H), _H]),
    ("acc_slice", _H, [_H, _H, c_size_t, P(_H)]),
    ("acc_fold_seg", _H, [_H, _H, _H, _H, _H]),
    ("acc_fold_seg_offsets", _H, [_H, _H, _H, _H, _H]),
    ("acc_fold1_seg", _H, [_H, _H, _H, _H]),
    ("acc_scan", _H, [_H, c_int, _H, _H, _H]),
    ("acc_scan_seg", _H, [_H, c_int, _H, _H, _H, _H]),
    ("acc_ignore", _H, [_H, c_int32]),
    ("acc_permute", _H, [_H, _H, _H, _H, _H]),
    ("acc_permute_pairs", _H, [_H, _H, _H, _H]),
    ("acc_stencil", _H, [_H, _H, P(c_int32), c_int, _H, _H]),
    ("acc_stencil2", _H, [_H, _H, P(c_int32), c_int, _H, _H,
                          P(c_int32), c_int, _H, _H]),
    ("acc_expand", _H, [_H, _H, _H, _H]),
    ("acc_acond", _H, [_H, _H, _H, _H]),
    ("acc_awhile", _H, [_H, _H, _H, _H]),
    ("acc_foreign", _H, [_H, c_char_p, _H, _H]),
    ("acc_foreign_exp", _H, [_H, c_char_p, _H, _H]),
    # standard library
    ("acc_even", _H, [_H, _H]), ("acc_odd", _H, [_H, _H]),
    ("acc_sum", _H, [_H, _H]), ("acc_product", _H, [_H, _H]),
    ("acc_maximum", _H, [_H, _H]), ("acc_minimum", _H, [_H, _H]),
    ("acc_and", _H, [_H, _H]), ("acc_or", _H, [_H, _H]),
    ("acc_all_of", _H, [_H, _H, _H]), ("acc_any", _H, [_H, _H, _H]),
    ("acc_fold_all", _H, [_H, _H, _H, _H]),
    ("acc_fold1_all", _H, [_H, _H, _H]),
    ("acc_enum_from_n", _H, [_H, _H, _H]),
    ("acc_enum_from_step_n", _H, [_H, _H, _H, _H]),
    ("acc_zip", _H, [_H, _H, _H]), ("acc_unzip", _H, [_H, _H]),
    ("acc_zip_n", _H, [_H, c_size_t, P(_H)]), ("acc_length", _H, [_H, _H]),
    ("acc_indexed", _H, [_H, _H]),
    ("acc_reverse", _H, [_H, _H]), ("acc_transpose", _H, [_H, _H]),
    ("acc_flatten", _H, [_H, _H]),
    ("acc_take", _H, [_H, _H, _H]), ("acc_drop", _H, [_H, _H, _H]),
    ("acc_init", _H, [_H, _H]), ("acc_tail", _H, [_H, _H]),
    ("acc_slit", _H, [_H, _H, _H, _H]),
    ("acc_concat", _H, [_H, _H, _H]),
    ("acc_gather", _H, [_H, _H, _H]),
    ("acc_scatter", _H, [_H, _H, _H, _H]),
    ("acc_compact", _H, [_H, _H, _H]),
    ("acc_filter", _H, [_H, _H, _H]),
    ("acc_dot", _H, [_H, _H, _H]), ("acc_gemv", _H, [_H, _H, _H]),
    ("acc_gemm", _H, [_H, _H, _H]),
    ("acc_fft", _H, [_H, _H]), ("acc_ifft", _H, [_H, _H]),
    # programs
    ("acc_compile", c_int, [_H, _H, c_size_t, P(_H), P(_H)]),
    ("acc_program_free", None, [_H]),
    ("acc_program_last_error", c_char_p, [_H]),
    ("acc_program_num_inputs", c_size_t, [_H]),
    ("acc_program_num_outputs", c_size_t, [_H]),
    ("acc_program_input", c_int, [_H, c_size_t, P(_H), P(c_int32)]),
    ("acc_program_output", c_int, [_H, c_size_t, P(_H), P(c_int32)]),
    ("acc_program_backend", c_int, [_H]),
    ("acc_program_signature_json", c_int, [_H, P(c_void_p)]),
    ("acc_program_plan", c_int, [_H, P(PlanSummary)]),
    ("acc_program_explain", c_int, [_H, c_int, P(c_void_p)]),
    ("acc_program_last_run", c_int, [_H, P(RunStats)]),
    # acc_run's arguments are plain integers (addresses) on the call path.
    ("acc_run", c_int, [_H, c_size_t, c_void_p, c_size_t, c_void_p]),
    ("acc_exec_options_init_sized", c_int, [P(ExecOptions), c_size_t]),
    ("acc_exec_create", c_int, [_H, P(ExecOptions), P(_H)]),
    ("acc_exec_destroy", None, [_H]),
    ("acc_run_exec", c_int, [_H, _H, c_size_t, c_void_p, c_size_t,
                             c_void_p]),
    ("acc_exec_cancel", c_int, [_H]),
    ("acc_free", None, [c_void_p]),
    # text programs
    ("acc_parse_entries_json", c_int, [c_char_p, c_size_t, P(c_void_p)]),
    ("acc_compile_text", c_int, [_H, c_char_p, c_size_t, c_char_p, P(_H)]),
]


class LibraryNotFound(ImportError):
    pass


def _source_tree_build():
    """build/libaccel.so.1 of the source tree this package lives in, or
    None when the package is not in a source tree."""
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, "..", "..", ".."))
    if not os.path.isfile(os.path.join(root, "abi", "include", "accel.h")):
        return None, None
    return root, os.path.join(root, "build", "libaccel.so.%d" % ABI_VERSION)


def _candidates():
    """(path, why) pairs in the order they are tried."""
    env = os.environ.get("ACCEL_LIBRARY")
    if env:
        return [(env, "$ACCEL_LIBRARY")]
    found = []
    root, built = _source_tree_build()
    if built:
        found.append((built, "the build tree of %s" % root))
    try:
        from . import _install  # written by `make install`
        found.append((_install.LIBRARY, "the installed library"))
    except ImportError:
        pass
    found.append(("libaccel.so.%d" % ABI_VERSION, "the system loader"))
    return found


def _load():
    tried = []
    for path, why in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append("%s (%s): no such file" % (path, why))
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append("%s (%s): %s" % (path, why, e))
    root, _ = _source_tree_build()
    hint = ("run `make` in %s" % root if root else
            "run `make install` in an accel checkout")
    raise LibraryNotFound(
        "accel: cannot load libaccel; tried\n  " + "\n  ".join(tried) +
        "\n%s, or set ACCEL_LIBRARY to the path of libaccel.so" % hint)


def _declare(lib):
    for name, restype, argtypes in _PROTOTYPES:
        try:
            f = getattr(lib, name)
        except AttributeError:
            raise ImportError(
                "accel: %s has no %s: it is older than this binding; "
                "rebuild it (make) or point ACCEL_LIBRARY at a newer "
                "libaccel.so" % (lib._name, name)) from None
        f.restype = restype
        f.argtypes = argtypes


lib, path = _load()
_abi = lib.acc_abi_version
_abi.restype = c_uint32
if _abi() != ABI_VERSION:
    raise ImportError(
        "accel: %s has ABI version %d, this binding needs ABI version %d; "
        "install the binding that comes with that library (make install in "
        "its checkout), or set ACCEL_LIBRARY to a libaccel.so.%d"
        % (path, _abi(), ABI_VERSION, ABI_VERSION))
_declare(lib)
version = lib.acc_version_string().decode()


def take_string(ptr):
    """The text of a char* that accel allocated, which is then freed."""
    if not ptr:
        return ""
    try:
        return ctypes.string_at(ptr).decode("utf-8", "replace")
    finally:
        lib.acc_free(ptr)
