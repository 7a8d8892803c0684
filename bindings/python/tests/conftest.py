"""Shared fixtures of the Python binding's tests (pytest, run by ctest as
python.pytest with /usr/bin/python3).  The package is imported from this
checkout (bindings/python) whatever PYTHONPATH says; the library from
$ACCEL_LIBRARY when set (ctest sets it), else this checkout's build."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # bindings/python
sys.path.insert(0, HERE)                   # programs.py

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import accel  # noqa: E402

# The backends the `backend` fixture runs on: the interpreter and the CPU
# backend by default; ACCEL_TEST_BACKENDS=interp,cpu,cuda adds CUDA on a
# machine with a GPU (make test stays device-free).
BACKENDS = os.environ.get("ACCEL_TEST_BACKENDS", "interp,cpu").split(",")


def _available(name):
    ok, why = accel.context("interp").available()[name]
    return ok, why


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Each test that takes it runs on the interpreter and the CPU
    backend."""
    ok, why = _available(request.param)
    if not ok:
        pytest.skip("the %s backend is not available: %s" % (request.param,
                                                             why))
    return request.param


@pytest.fixture
def rng():
    return np.random.default_rng(20261126)
