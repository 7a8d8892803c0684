"""program.py -- compiled programs and how Python calls them.

accel.compile(text) gives a Program: the entry points of a text program
(LANGUAGE.md section 4), each compiled on first use into a Function.  A
Function is also what accel.jit compiles for each signature.  Calling a
Function marshals its arguments (_arrays.py), runs the program with the
GIL released, and returns numpy arrays that own accel's memory.
"""
import ctypes
import json
import threading

from . import _arrays, _lib, errors
from ._arrays import WORDS, Spec, Where
from ._lib import lib
from .context import BACKEND_NAMES, _exiting, as_context
from .dtypes import elem_from_json

_run = lib.acc_run
_addressof = ctypes.addressof


def _param_groups(names):
    """The parameters of a text entry from its inputs' names: a tuple of
    arrays parameter xs is inputs "xs.0", "xs.1" ... (nested: "xs.1.0").
    Returns [(name, structure)], structure an input number or a list of
    structures."""
    groups = []
    for i, name in enumerate(names):
        parts = (name or "").split(".")
        path = parts[1:]
        if not path or not all(p.isdigit() for p in path):
            groups.append((name, i))
            continue
        if not groups or groups[-1][0] != parts[0] or \
                not isinstance(groups[-1][1], list):
            groups.append((parts[0], []))
        node = groups[-1][1]
        for p in path[:-1]:
            while len(node) <= int(p):
                node.append([])
            node = node[int(p)]
        node.append(i)
    return groups


class Function:
    """One compiled entry point: call it with numpy arrays, scalars, tuples
    of arrays (for tuple element types and tuple parameters) or DLPack
    objects; it returns numpy arrays (a tuple when there are several
    results; 0-d arrays for Scalars).  out= writes the results into the
    given arrays instead.  Safe to call from several threads at once; the
    GIL is released while accel runs."""

    def __init__(self, handle, context, name, input_names=None,
                 structure=None, bound=()):
        self._h = handle  # acc_program*, freed with the Function
        self.context = context
        self.name = name
        sig = self._signature()
        self.signature = sig
        names = input_names or [i["name"] for i in sig["inputs"]]
        self.inputs = []
        for i, item in enumerate(sig["inputs"]):
            elem_ptr, rank = _lib.c_void_p(), ctypes.c_int32()
            errors.check(lib.acc_program_input(
                handle, i, ctypes.byref(elem_ptr), ctypes.byref(rank)))
            self.inputs.append(Spec(elem_from_json(item["elem"]),
                                    item["rank"], elem_ptr.value,
                                    names[i] if i < len(names) else None))
        self.outputs = []
        for i, item in enumerate(sig["outputs"]):
            elem_ptr, rank = _lib.c_void_p(), ctypes.c_int32()
            errors.check(lib.acc_program_output(
                handle, i, ctypes.byref(elem_ptr), ctypes.byref(rank)))
            self.outputs.append(Spec(elem_from_json(item["elem"]),
                                     item["rank"], elem_ptr.value))
        # Inputs the caller does not give (arrays a jit function captured
        # with accel.use): (input number, array), after the parameters.
        self._bound = list(bound)
        n_given = len(self.inputs) - len(self._bound)
        self._groups = _param_groups([s.name for s in
                                      self.inputs[:n_given]])
        self._simple = all(isinstance(g[1], int) for g in self._groups) \
            and not self._bound
        self._n_given = n_given
        self._structure = structure
        self._wheres = [Where(name, k + 1, s.name)
                        for k, s in enumerate(self.inputs)]
        self._out_wheres = [Where(name, k + 1, None, "output")
                            for k in range(len(self.outputs))]
        n_in, n_out = len(self.inputs), len(self.outputs)
        self._InWords = _arrays._Word * (WORDS * max(n_in, 1))
        self._OutWords = _arrays._Word * (WORDS * max(n_out, 1))
        self._in_tmpl = _arrays.template(self.inputs)
        self._out_tmpl = _arrays.empty_outputs(n_out)
        self._given_tmpl = _arrays.template(self.outputs)

    def __del__(self):
        if getattr(self, "_h", None) and not _exiting[0]:
            lib.acc_program_free(self._h)
            self._h = None

    def __repr__(self):
        params = ", ".join(g[0] or "in%d" % k
                           for k, g in enumerate(self._groups))
        return "<accel.Function %s(%s) on %s>" % (self.name, params,
                                                  self.backend)

    # --- what the program is --------------------------------------------
    def _signature(self):
        p = ctypes.c_void_p()
        self._check(lib.acc_program_signature_json(self._h, ctypes.byref(p)))
        return json.loads(_lib.take_string(p.value))

    @property
    def backend(self):
        """The backend the program runs on ("interp", "cpu", "cuda")."""
        return BACKEND_NAMES[lib.acc_program_backend(self._h)]

    @property
    def parameters(self):
        """The names of the parameters, in order."""
        return [g[0] for g in self._groups]

    def explain(self, text=False):
        """The plan: a dict (acc_program_explain's JSON: "backend",
        "kernels", "intermediates", "foreign_calls", "steps", each step
        with its operation, what was fused into it and, for foreign
        calls, the implementation chosen or why the fallback runs); the
        text for people with text=True."""
        p = ctypes.c_void_p()
        self._check(lib.acc_program_explain(self._h, 0 if text else 1,
                                            ctypes.byref(p)))
        s = _lib.take_string(p.value)
        return s if text else json.loads(s)

    def last_run(self):
        """Statistics of the last completed run: kernels_launched,
        bytes_allocated, intermediate_bytes, seconds."""
        st = _lib.RunStats()
        st.struct_size = ctypes.sizeof(st)
        self._check(lib.acc_program_last_run(self._h, ctypes.byref(st)))
        return {"kernels_launched": st.kernels_launched,
                "bytes_allocated": st.bytes_allocated,
                "intermediate_bytes": st.intermediate_bytes,
                "seconds": st.seconds}

    def _check(self, status):
        if status:
            msg = lib.acc_program_last_error(self._h).decode() or \
                errors.last_error()
            raise errors.make_error(status, "%s: %s" % (self.name, msg),
                                    function=self.name)

    # --- calls -------------------------------------------------------------
    def __call__(self, *args, out=None, **kwargs):
        if not self._h:
            raise errors.InvalidHandleError(
                "%s: the program was freed" % self.name,
                errors.ERR_INVALID_HANDLE)
        if self._simple and not kwargs and len(args) == len(self.inputs):
            flat = args
        else:
            flat = self._flatten(args, kwargs)
        inputs = self.inputs
        w = self._InWords.from_buffer_copy(self._in_tmpl)
        keep, imports = [], []
        try:
            for k, spec in enumerate(inputs):
                _arrays.put_input(spec, flat[k], w, k * WORDS, keep,
                                  imports, self._wheres[k])
            n_out = len(self.outputs)
            if out is None:
                o = self._OutWords.from_buffer_copy(self._out_tmpl)
            else:
                o = self._out_words(out, keep, imports)
            st = _run(self._h, len(inputs), _addressof(w), n_out,
                      _addressof(o))
        finally:
            if imports:
                _arrays.release_imports(imports)
        if st:
            msg = errors.last_error()
            raise errors.make_error(st, "%s: %s" % (self.name, msg),
                                    function=self.name)
        if out is not None:
            return out
        try:
            if n_out == 1 and self._structure is None:
                return _arrays.take_output(self.outputs[0], o, 0)
            results = [_arrays.take_output(s, o, k * WORDS)
                       for k, s in enumerate(self.outputs)]
        except BaseException:
            _arrays.release_outputs(o, n_out)
            raise
        if self._structure is None:
            return tuple(results)
        return _restructure(self._structure, results)

    def _flatten(self, args, kwargs):
        """The arguments in input order, from positional and keyword
        arguments of the parameters (or one per input), and the bound
        arrays."""
        groups = self._groups
        names = [g[0] for g in groups]
        if kwargs:
            args = self._with_keywords(args, kwargs, names)
        n_given = self._n_given
        if len(args) == len(groups):
            flat = [None] * n_given
            for k, (name, structure) in enumerate(groups):
                _spread(structure, args[k], flat,
                        Where(self.name, k + 1, name))
        elif len(args) == n_given:
            flat = list(args)
        else:
            raise errors.InvalidArgumentError(
                "%s() takes %d argument%s (%s), got %d" % (
                    self.name, len(groups), "" if len(groups) == 1 else "s",
                    ", ".join(str(n) for n in names), len(args)),
                errors.ERR_INVALID_ARGUMENT, function=self.name)
        for k, value in self._bound:
            flat.append(value)
        return flat

    def _with_keywords(self, args, kwargs, names):
        def bad(what):
            raise errors.InvalidArgumentError(
                "%s() %s (parameters: %s)" % (self.name, what, ", ".join(
                    map(str, names))), errors.ERR_INVALID_ARGUMENT,
                function=self.name)
        if len(args) > len(names):
            bad("takes %d arguments, got %d" % (len(names), len(args)))
        args = list(args) + [_MISSING] * (len(names) - len(args))
        for key, value in kwargs.items():
            if key not in names:
                bad("got an unexpected keyword argument '%s'" % key)
            k = names.index(key)
            if args[k] is not _MISSING:
                bad("got several values for '%s'" % key)
            args[k] = value
        missing = [n for n, a in zip(names, args) if a is _MISSING]
        if missing:
            bad("is missing %s" % ", ".join("'%s'" % m for m in missing))
        return args

    def _out_words(self, out, keep, imports):
        n_out = len(self.outputs)
        if self._structure is not None:
            parts = [None] * n_out
            _spread_out(self._structure, out, parts, self.name)
        elif n_out == 1:
            parts = [out]
        else:
            if not isinstance(out, (tuple, list)) or len(out) != n_out:
                raise errors.InvalidArgumentError(
                    "%s: out= must be a tuple of %d results" % (self.name,
                                                                n_out),
                    errors.ERR_INVALID_ARGUMENT, function=self.name)
            parts = list(out)
        o = self._OutWords.from_buffer_copy(self._given_tmpl)
        for k, spec in enumerate(self.outputs):
            _arrays.put_output(spec, parts[k], o, k * WORDS, keep, imports,
                               self._out_wheres[k])
        return o


_MISSING = object()


def _spread(structure, value, flat, where):
    """Puts the arrays of one parameter's argument at their input
    numbers: a tuple-of-arrays parameter takes a tuple nested as its
    type."""
    if isinstance(structure, int):
        flat[structure] = value
        return
    if not isinstance(value, (tuple, list)) or len(value) != len(structure):
        where.fail(errors.TypeMismatchError, errors.ERR_TYPE,
                   "expected a tuple of %d arrays, got %s" % (
                       len(structure), _arrays.describe(value)))
    for s, v in zip(structure, value):
        _spread(s, v, flat, where)


def _restructure(structure, results):
    """The results nested as a jit function returned them: structure is
    an output number or a tuple of structures."""
    if isinstance(structure, int):
        return results[structure]
    return tuple(_restructure(s, results) for s in structure)


def _spread_out(structure, out, parts, name):
    if isinstance(structure, int):
        parts[structure] = out
        return
    if not isinstance(out, (tuple, list)) or len(out) != len(structure):
        raise errors.InvalidArgumentError(
            "%s: out= must be nested as the results are (a tuple of %d)" %
            (name, len(structure)), errors.ERR_INVALID_ARGUMENT,
            function=name)
    for s, o in zip(structure, out):
        _spread_out(s, o, parts, name)


class Program:
    """The entry points of a text program.  prog.entries lists their
    names; prog["dotp"] (or prog.dotp) is the compiled Function, compiled
    on first use and kept."""

    def __init__(self, source, context, origin=None):
        if isinstance(source, str):
            source = source.encode("utf-8")
        if not isinstance(source, bytes):
            raise errors.InvalidArgumentError(
                "a text program must be str or bytes, not %s" %
                type(source).__name__, errors.ERR_INVALID_ARGUMENT)
        self.source = source
        self.context = context
        self.origin = origin or "<text>"
        p = ctypes.c_void_p()
        st = lib.acc_parse_entries_json(source, len(source), ctypes.byref(p))
        if st:
            raise errors.make_error(st, "%s:%s" % (self.origin,
                                                   errors.last_error()))
        entries = json.loads(_lib.take_string(p.value))["entries"]
        self._entries = {e["name"]: e for e in entries}
        self.entries = [e["name"] for e in entries]
        self._functions = {}
        self._lock = threading.Lock()

    def __repr__(self):
        return "<accel.Program %s: %s on %s>" % (
            self.origin, ", ".join(self.entries), self.context.backend)

    def __contains__(self, name):
        return name in self._entries

    def __iter__(self):
        return iter(self.entries)

    def __len__(self):
        return len(self.entries)

    def __getitem__(self, name):
        f = self._functions.get(name)
        if f is not None:
            return f
        if name not in self._entries:
            raise errors.NotFoundError(
                "%s has no entry point %r (entry points: %s)" % (
                    self.origin, name, ", ".join(self.entries)),
                errors.ERR_NOT_FOUND)
        with self._lock:
            f = self._functions.get(name)
            if f is None:
                f = self._functions[name] = self._compile(name)
        return f

    def __getattr__(self, name):
        if name.startswith("_") or name not in self.__dict__.get(
                "_entries", ()):
            raise AttributeError(name)
        return self[name]

    def _compile(self, name):
        h = _lib.c_void_p()
        st = lib.acc_compile_text(self.context.handle, self.source,
                                  len(self.source), name.encode(),
                                  ctypes.byref(h))
        if st:
            raise errors.make_error(st, "%s: %s: %s" % (
                self.origin, name, errors.last_error()), function=name)
        names = [i["name"] for i in self._entries[name]["inputs"]]
        return Function(h.value, self.context, name, names)


def compile(source, backend="auto", *, context=None):
    """Compiles a text program: a Program of its entry points.  backend:
    "auto", "interp", "cpu" or "cuda" (a shared context per backend);
    context: an accel.Context instead."""
    return Program(source, as_context(backend, context))


def load(path, backend="auto", *, context=None):
    """accel.compile of the text in file `path`."""
    with open(path, "r", encoding="utf-8") as f:
        source = f.read()
    return Program(source, as_context(backend, context), origin=str(path))

