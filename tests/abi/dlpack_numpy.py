#!/usr/bin/python3
"""dlpack_numpy.py -- numpy arrays in and out of accel through DLPack, with
nothing but ctypes (ctest: abi.dlpack_numpy).

Usage: dlpack_numpy.py LIBACCEL

numpy's __dlpack__ gives a "dltensor" capsule holding a DLManagedTensor
(numpy 1.24: the legacy struct); accel takes it with acc_array_from_dlpack
(no copy: the descriptor's buffer is the array's), the capsule is renamed
"used_dltensor" as the protocol requires, a text program runs on it, and
the library-owned result goes back to numpy with acc_array_to_dlpack and
numpy.from_dlpack (no copy either).  Arrays accel cannot take (strided,
complex, float16) are refused with the reason, and their capsules stay
numpy's.  Exits 0 when every check passes, 1 otherwise, 77 (skipped)
without numpy or DLPack support in numpy.
"""
import ctypes
import sys

try:
    import numpy as np
except ImportError:
    print("dlpack_numpy: numpy is missing (Debian: python3-numpy)")
    sys.exit(77)
if not hasattr(np, "from_dlpack"):
    print("dlpack_numpy: numpy %s has no DLPack support" % np.__version__)
    sys.exit(77)

c_int32, c_int64 = ctypes.c_int32, ctypes.c_int64


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice),
                ("ndim", c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(c_int64)),
                ("strides", ctypes.POINTER(c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor),
                            ("manager_ctx", ctypes.c_void_p),
                            ("deleter", DELETER)]


class AccArray(ctypes.Structure):  # acc_array
    _fields_ = [("struct_size", ctypes.c_size_t), ("type", ctypes.c_void_p),
                ("rank", c_int32), ("extents", c_int64 * 8),
                ("data", ctypes.c_void_p * 16), ("memory", ctypes.c_int),
                ("device", c_int32), ("ownership", ctypes.c_int),
                ("release", ctypes.c_void_p),
                ("release_state", ctypes.c_void_p)]


class ContextOptions(ctypes.Structure):
    """acc_context_options as first published (all this script sets),
    filled by acc_context_options_init_sized with its own size: the
    library writes and reads no more than that."""
    _fields_ = [("struct_size", ctypes.c_size_t), ("backend", ctypes.c_int),
                ("num_threads", c_int32), ("cache_dir", ctypes.c_char_p)]


ACC_OK, ACC_ERR_UNSUPPORTED = 0, 400
ACC_BACKEND_INTERP = 1
ACC_OWNERSHIP_LIBRARY = 1

# The capsule names of the protocol; they must outlive the capsules that
# point to them, so they live as long as the module.
DLTENSOR, USED = b"dltensor", b"used_dltensor"

api = ctypes.pythonapi
api.PyCapsule_GetPointer.restype = ctypes.c_void_p
api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_SetName.restype = ctypes.c_int
api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_IsValid.restype = ctypes.c_int
api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
api.PyCapsule_New.restype = ctypes.py_object
api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                              CAPSULE_DESTRUCTOR]
# The same functions on a raw PyObject*, for the capsule destructor.
raw_is_valid = api["PyCapsule_IsValid"]
raw_is_valid.restype = ctypes.c_int
raw_is_valid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
raw_get_pointer = api["PyCapsule_GetPointer"]
raw_get_pointer.restype = ctypes.c_void_p
raw_get_pointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]


@CAPSULE_DESTRUCTOR
def delete_unused_capsule(capsule):
    """A capsule nobody consumed still owns its tensor (the protocol)."""
    if raw_is_valid(capsule, DLTENSOR):
        t = ctypes.cast(raw_get_pointer(capsule, DLTENSOR),
                        ctypes.POINTER(DLManagedTensor))
        t.contents.deleter(t)


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


class Accel:
    def __init__(self, path):
        lib = ctypes.CDLL(path)
        lib.acc_last_error.restype = ctypes.c_char_p
        lib.acc_array_from_dlpack.argtypes = [ctypes.c_void_p,
                                              ctypes.POINTER(AccArray)]
        lib.acc_array_to_dlpack.argtypes = [
            ctypes.POINTER(AccArray),
            ctypes.POINTER(ctypes.POINTER(DLManagedTensor))]
        lib.acc_compile_text.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                         ctypes.c_size_t, ctypes.c_char_p,
                                         ctypes.POINTER(ctypes.c_void_p)]
        lib.acc_run.argtypes = [ctypes.c_void_p, ctypes.c_size_t,
                                ctypes.POINTER(AccArray), ctypes.c_size_t,
                                ctypes.POINTER(AccArray)]
        lib.acc_context_options_init_sized.argtypes = [
            ctypes.POINTER(ContextOptions), ctypes.c_size_t]
        lib.acc_program_free.argtypes = [ctypes.c_void_p]
        lib.acc_context_destroy.argtypes = [ctypes.c_void_p]
        lib.acc_array_release.argtypes = [ctypes.POINTER(AccArray)]
        self.lib = lib

    def check(self, status, what):
        if status != ACC_OK:
            raise Failure("%s: status %d: %s" % (
                what, status, self.lib.acc_last_error().decode()))

    def context(self):
        options = ContextOptions()
        self.check(self.lib.acc_context_options_init_sized(
            ctypes.byref(options), ctypes.sizeof(options)),
            "acc_context_options_init_sized")
        options.backend = ACC_BACKEND_INTERP
        ctx = ctypes.c_void_p()
        self.check(self.lib.acc_context_create(ctypes.byref(options),
                                               ctypes.byref(ctx)),
                   "acc_context_create")
        return ctx

    def import_array(self, array):
        """(status, descriptor, capsule) of array.__dlpack__()."""
        capsule = array.__dlpack__()
        tensor = api.PyCapsule_GetPointer(capsule, DLTENSOR)
        desc = AccArray()
        status = self.lib.acc_array_from_dlpack(tensor, ctypes.byref(desc))
        if status == ACC_OK:  # accel owns the tensor now
            expect(api.PyCapsule_SetName(capsule, USED) == 0, "rename")
        return status, desc, capsule


class Exported:
    """An object numpy.from_dlpack takes: a capsule of accel's tensor."""

    def __init__(self, tensor):
        self.capsule = api.PyCapsule_New(ctypes.cast(tensor, ctypes.c_void_p),
                                         DLTENSOR, delete_unused_capsule)

    def __dlpack__(self, stream=None):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


def round_trip(acc):
    x = (np.arange(12, dtype=np.float32) * 0.25 - 1).reshape(3, 4)
    refs = sys.getrefcount(x)
    status, desc, _ = acc.import_array(x)
    acc.check(status, "acc_array_from_dlpack")
    expect(desc.data[0] == x.ctypes.data, "the input was copied: %x vs %x" %
           (desc.data[0], x.ctypes.data))
    expect(desc.rank == 2 and list(desc.extents[:2]) == [3, 4], "shape")
    expect(desc.ownership == ACC_OWNERSHIP_LIBRARY, "ownership")
    expect(sys.getrefcount(x) == refs + 1, "the tensor keeps x alive")

    ctx = acc.context()
    prog = ctypes.c_void_p()
    src = b"f (xs : Matrix f32) : Matrix f32 = map (\\x -> 2 * x + 1) xs"
    acc.check(acc.lib.acc_compile_text(ctx, src, len(src), None,
                                       ctypes.byref(prog)), "compile")
    out = AccArray()
    out.struct_size = ctypes.sizeof(AccArray)
    acc.check(acc.lib.acc_run(prog, 1, ctypes.byref(desc), 1,
                              ctypes.byref(out)), "acc_run")
    result = out.data[0]
    tensor = ctypes.POINTER(DLManagedTensor)()
    acc.check(acc.lib.acc_array_to_dlpack(ctypes.byref(out),
                                          ctypes.byref(tensor)),
              "acc_array_to_dlpack")
    expect(tensor.contents.dl_tensor.data == result, "export copied")
    acc.lib.acc_program_free(prog)
    acc.lib.acc_context_destroy(ctx)  # the result outlives the context

    y = np.from_dlpack(Exported(tensor))
    expect(y.ctypes.data == result, "numpy copied the result")
    expect(y.shape == (3, 4) and y.dtype == np.float32, "%r" % (y,))
    expect(np.array_equal(y, 2 * x + 1), "values: %r" % (y,))
    del y  # numpy calls accel's deleter

    acc.lib.acc_array_release(ctypes.byref(desc))  # numpy's deleter, once
    expect(desc.data[0] is None, "released")
    expect(sys.getrefcount(x) == refs, "numpy's deleter ran once: %d refs, "
           "%d before" % (sys.getrefcount(x), refs))


def refusals(acc):
    base = np.arange(16, dtype=np.float64).reshape(4, 4)
    cases = [
        (base[:, ::2], "its strides are not compact row-major: dimension 1 "
                       "has stride 2, a C-contiguous array has 1"),
        (base.T, "its strides are not compact row-major"),
        (np.zeros(3, dtype=np.complex64), "its dtype is complex64"),
        (np.zeros(3, dtype=np.float16), "its dtype is float16"),
    ]
    for array, want in cases:
        refs = sys.getrefcount(array)
        status, desc, capsule = acc.import_array(array)
        message = acc.lib.acc_last_error().decode()
        expect(status == ACC_ERR_UNSUPPORTED, "status %d for %r" % (
            status, want))
        expect("accel cannot take the tensor without a copy: " in message and
               want in message, "%r lacks %r" % (message, want))
        expect(api.PyCapsule_IsValid(capsule, DLTENSOR) == 1,
               "the refused capsule is still numpy's")
        del capsule  # numpy's destructor releases the tensor
        expect(sys.getrefcount(array) == refs, "refused tensor released")
    # a contiguous copy is what a binding would hand over instead
    status, desc, _ = acc.import_array(np.ascontiguousarray(base[:, ::2]))
    acc.check(status, "contiguous copy")
    acc.lib.acc_array_release(ctypes.byref(desc))


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    acc = Accel(sys.argv[1])
    failed = 0
    for fn in (round_trip, refusals):
        try:
            fn(acc)
            print("ok    dlpack_numpy.%s" % fn.__name__)
        except Failure as e:
            failed += 1
            print("FAIL  dlpack_numpy.%s: %s" % (fn.__name__, e))
    print("dlpack_numpy (numpy %s): %d of 2 passed" % (np.__version__,
                                                       2 - failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
