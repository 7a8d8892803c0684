"""Every program of LANGUAGE.md section 4 (and the section 3.6 sieve),
through accel.compile (the text exactly as written) and as accel.jit
functions, on the interpreter and the CPU backend, against numpy."""
import pytest

import accel
import programs

_compiled = {}
_jitted = {}


def text_function(name, backend):
    if backend not in _compiled:
        _compiled[backend] = accel.compile(programs.SECTION4, backend=backend)
    return _compiled[backend][name]


def jit_function(name, backend):
    key = (name, backend)
    if key not in _jitted:
        _jitted[key] = accel.jit(programs.JIT[name], backend=backend)
    return _jitted[key]


def test_entries_are_listed_in_order():
    prog = accel.compile(programs.SECTION4, backend="interp")
    assert prog.entries == programs.ENTRIES
    assert "dotp" in prog and "cnd" not in prog
    assert prog["dotp"].parameters == ["xs", "ys"]
    assert prog["blackscholes"].inputs[0].describe() == \
        "Vector (f32, f32, f32)"


@pytest.mark.parametrize("name", programs.ENTRIES)
def test_text_program(name, backend, rng):
    f = text_function(name, backend)
    assert f.backend == backend
    args = programs.inputs(name, rng)
    programs.check(name, args, f(*args))


@pytest.mark.parametrize("name", programs.ENTRIES)
def test_jit_program(name, backend, rng):
    f = jit_function(name, backend)
    args = programs.inputs(name, rng)
    programs.check(name, args, f(*args))
    assert f.compiled(*args).backend == backend


@pytest.mark.parametrize("name", ["dotp", "blackscholes", "mandelbrot"])
def test_text_and_jit_agree_bit_for_bit(name, rng):
    """The embedded program is the text program: the same values (on the
    interpreter, where both run the same operations in the same order)."""
    args = programs.inputs(name, rng)
    a = text_function(name, "interp")(*args)
    b = jit_function(name, "interp")(*args)
    for x, y in zip(a if isinstance(a, tuple) else (a,),
                    b if isinstance(b, tuple) else (b,)):
        assert x.dtype == y.dtype and x.shape == y.shape
        if name == "blackscholes":
            # The text computes r + 0.5 * v * v in f32, Python in f64.
            assert abs(x - y).max() <= 1e-4
        else:
            assert (x == y).all()


def test_keywords_and_tuple_argument(rng):
    f = text_function("blackscholes", "interp")
    (opts,) = programs.inputs("blackscholes", rng)
    a = f(opts)
    b = f(opts=opts)
    c = f(list(opts))
    for x, y, z in zip(a, b, c):
        assert (x == y).all() and (x == z).all()
    xs, ys = programs.inputs("dotp", rng)
    g = text_function("dotp", "interp")
    assert g(ys=ys, xs=xs) == g(xs, ys)


def test_fused_plan_of_dotp():
    plan = text_function("dotp", "interp").explain()
    assert plan["kernels"] == 1 and plan["intermediates"] == 0
    assert plan["steps"][0]["fused"] == ["zipWith", "fold"]
    assert "fold" in text_function("dotp", "interp").explain(text=True)
    jplan = jit_function("dotp", "interp").explain(
        *programs.inputs("dotp", __import__("numpy").random.default_rng(1)))
    assert jplan["kernels"] == 1 and jplan["intermediates"] == 0


def test_foreign_choice_in_plan():
    plan = text_function("dotBlas", "interp").explain()
    (step,) = plan["steps"]
    assert step["name"] == "blas.dot"
    # the cblas plugin when it loaded, else the fallback (and why)
    assert "implementation" in step or "fallback" in str(step)
