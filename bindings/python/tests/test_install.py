"""Finding the library: `make install` (cmake --install) puts a package
that imports with no environment from outside any source tree; a missing
library or one of another ABI version is an ImportError that says what
to do."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

PYTHON = sys.executable
BUILD = os.environ.get("ACC_TEST_BUILD_DIR")
BINDING = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(code, env_extra, cwd):
    env = {k: v for k, v in os.environ.items()
           if k not in ("ACCEL_LIBRARY", "PYTHONPATH")}
    env.update(env_extra)
    return subprocess.run([PYTHON, "-c", textwrap.dedent(code)], env=env,
                          cwd=cwd, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.skipif(not BUILD, reason="ACC_TEST_BUILD_DIR is not set (ctest "
                    "sets it to the build folder to install from)")
def test_installed_package_imports_and_runs(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", BUILD, "--prefix", str(prefix)],
                   check=True, capture_output=True, timeout=120)
    sites = list(prefix.glob("lib/python3*/dist-packages"))
    assert len(sites) == 1, sites
    assert (sites[0] / "accel" / "_install.py").is_file()
    r = run("""
        import accel, numpy as np
        f = accel.compile("d (xs : Vector f32) : Scalar f32 = "
                          "fold (+) 0 xs", backend="interp")["d"]
        print(accel.library_path, f(np.ones(4, np.float32)))
        """, {"PYTHONPATH": str(sites[0])}, str(tmp_path))
    assert r.returncode == 0, r.stderr
    lib, value = r.stdout.split()
    assert lib == str(prefix / "lib" / "libaccel.so.1") and value == "4.0"


def test_missing_library_says_what_to_do(tmp_path):
    r = run("import accel", {"PYTHONPATH": BINDING,
                             "ACCEL_LIBRARY": str(tmp_path / "nope.so")},
            str(tmp_path))
    assert r.returncode != 0
    assert "cannot load libaccel" in r.stderr
    assert "ACCEL_LIBRARY" in r.stderr and "make" in r.stderr


def test_other_abi_version_says_what_to_do(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler to build a library of another ABI")
    src = tmp_path / "fake.c"
    src.write_text("unsigned acc_abi_version(void) { return 99; }\n")
    lib = tmp_path / "libfake.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(src)],
                   check=True, timeout=60)
    r = run("import accel", {"PYTHONPATH": BINDING, "ACCEL_LIBRARY": str(lib)},
            str(tmp_path))
    assert r.returncode != 0
    assert "ABI version 99" in r.stderr and "needs ABI version 1" in r.stderr
    assert "make install" in r.stderr
