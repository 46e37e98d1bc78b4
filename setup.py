"""pip install . -- codesim's Python package, the `codesim` command and their data, built with
CMake by Debian's setuptools (offline: no build isolation, no downloads):

    python3 -m venv --system-site-packages venv        # Debian's numpy, pandas, setuptools, wheel
    venv/bin/pip install --no-build-isolation .

The package holds the module, the program (codesim/bin/codesim, which the `codesim` command runs)
and share/codesim/{data,scenarios}, where both look for their data. CODESIM_BUILD_DIR=DIR takes
the codesim and _codesim targets of an existing CMake build (configured with this interpreter)
instead of building them; CODESIM_CMAKE_ARGS adds arguments to the configure step.
"""
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
