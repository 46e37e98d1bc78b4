"""pip install . -- codesim's Python package, the `codesim` command and their data, built with
CMake by Debian's setuptools (offline: no build isolation, no downloads):

    /usr/bin/python3 -m venv --system-site-packages venv   # Debian's numpy, pandas, setuptools, wheel
    venv/bin/pip install --no-build-isolation .

The package holds the module, the program (codesim/bin/codesim, which the `codesim` command runs)
and share/codesim/{data,scenarios}, where both look for their data. CODESIM_BUILD_DIR=DIR takes
the codesim and _codesim targets of an existing CMake build (configured with this interpreter)
instead of building them; CODESIM_CMAKE_ARGS adds arguments to the configure step.

Before building, it checks for what the build needs (setuptools' wheel support, the `wheel`
package; and where it builds, cmake and pybind11's CMake files) and, where one is missing, stops
with one line naming it and the Debian package that provides it.
"""
import glob
import importlib.util
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = pathlib.Path(__file__).resolve().parent
VERSION = re.search(r"project\(codesim VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)

# The setup.py commands that need wheel support (pip's metadata step, dist_info, runs bdist_wheel's
# code; a pip that finds no wheel package falls back to install), and those that build with CMake.
NEED_WHEEL = {"dist_info", "bdist_wheel", "install", "editable_wheel"}
BUILDING = {"build", "build_py", "bdist_wheel", "install", "develop", "editable_wheel"}


def has_wheel_support():
    """setuptools can build a wheel: its own bdist_wheel (setuptools 70.1 and later) or the wheel package's."""
    return any(importlib.util.find_spec(name) is not None for name in ("setuptools.command.bdist_wheel", "wheel"))


def has_pybind11():
    """pybind11's CMake package is where CMake's find_package(pybind11 CONFIG) looks for it."""
    if importlib.util.find_spec("pybind11") is not None or "pybind11_DIR" in os.environ.get("CODESIM_CMAKE_ARGS", ""):
        return True
    prefixes = [p for p in os.environ.get("CMAKE_PREFIX_PATH", "").split(os.pathsep) if p]
    prefixes += [os.environ.get("pybind11_DIR", ""), sys.prefix, sys.base_prefix, "/usr/local", "/usr"]
    patterns = ["", "lib/cmake/pybind11", "lib/*/cmake/pybind11", "share/cmake/pybind11", "share/pybind11/cmake"]
    return any(glob.glob(os.path.join(prefix, pattern, name)) for prefix in prefixes if prefix
               for pattern in patterns for name in ("pybind11Config.cmake", "pybind11-config.cmake"))


def check_build_needs(commands):
    """One line naming what the commands need and lack, with the Debian package that provides it (exit 1)."""
    missing = [("wheel", "python3-wheel")] if NEED_WHEEL & commands and not has_wheel_support() else []
    if BUILDING & commands and not os.environ.get("CODESIM_BUILD_DIR"):
        if shutil.which("cmake") is None:
            missing.append(("cmake", "cmake"))
        if not has_pybind11():
            missing.append(("pybind11", "pybind11-dev"))
    if missing:
        what = ", ".join(f"{name} (Debian: {package})" for name, package in missing)
        fix = "apt-get install " + " ".join(package for _, package in missing)
        if missing[0][0] == "wheel":  # a Python that does not see Debian's packages gains nothing from them
            fix += ", for a Python that sees Debian's packages: /usr/bin/python3, or a venv made by /usr/bin/python3 -m venv --system-site-packages"
        sys.exit(f"setup.py: {sys.executable} lacks {what}; {fix}")


check_build_needs(set(sys.argv[1:]))


class BuildWithCMake(build_py):
    """Builds the module and the program with CMake, then puts them and the data in the package."""

    def run(self):
        super().run()
        build = os.environ.get("CODESIM_BUILD_DIR")
        if build:
            build = pathlib.Path(build).resolve()
        else:
            build = pathlib.Path(self.get_finalized_command("build").build_temp).resolve() / "cmake"
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                                   f"-DPython3_EXECUTABLE={sys.executable}", *shlex.split(os.environ.get("CODESIM_CMAKE_ARGS", ""))])
            subprocess.check_call(["cmake", "--build", str(build), "-j", str(os.cpu_count() or 1), "--target", "codesim", "codesim_python"])
        package = pathlib.Path(self.build_lib) / "codesim"
        modules = sorted((build / "python" / "codesim").glob("_codesim*.so"))
        if not modules or not (build / "codesim").exists():
            sys.exit(f"setup.py: {build} has no codesim program or _codesim module; build the codesim and codesim_python targets")
        shutil.copy2(modules[0], package / modules[0].name)
        (package / "bin").mkdir(exist_ok=True)
        shutil.copy2(build / "codesim", package / "bin" / "codesim")
        for folder in ("data", "scenarios"):
            target = package / "share" / "codesim" / folder
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(ROOT / folder, target)


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True  # a wheel for this platform and interpreter: it holds a compiled module


(ROOT / "build-python").mkdir(exist_ok=True)  # setuptools' own build files, beside CMake's build/
setup(
    name="codesim",
    version=VERSION,
    description="Simulator of large-model training and inference clusters",
    packages=["codesim"],
    package_dir={"": "python"},
    python_requires=">=3.9",
    cmdclass={"build_py": BuildWithCMake},
    distclass=BinaryDistribution,
    entry_points={"console_scripts": ["codesim = codesim._cli:main"]},
    options={"build": {"build_base": "build-python"}, "egg_info": {"egg_base": "build-python"}},
    zip_safe=False,
)
