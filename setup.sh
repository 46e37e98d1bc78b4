#!/usr/bin/env bash
# Installs what codesim needs from Debian's packages (only those missing), then configures and
# builds it into ./build: the codesim binary first, so that `build/codesim tables` can run as soon
# as it is linked (and does not wait on a test that fails to compile), then the tests and the
# Python module. Each phase's seconds go to build/setup-phases.txt, which `codesim bench` prints.
# `./setup.sh codesim` stops after the binary (the tables need nothing else; the tests and the
# Python module take as long again). Extra CMake arguments can be passed in CODESIM_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")"
case "${1:-}" in
  "") only_codesim=false ;;
  codesim) only_codesim=true ;;
  *) echo "usage: ./setup.sh [codesim]   (codesim: build the binary alone, not the tests and Python module)" >&2; exit 2 ;;
esac

phases=()
started=$SECONDS
phase() {  # phase NAME: the seconds since the last phase, under NAME
  phases+=("$1 $((SECONDS - started))")
  started=$SECONDS
}

# What the codesim binary needs to build; then what the tests, the Python module and analysis/ add
# (`./setup.sh codesim` installs only the first: matplotlib and pandas alone are a minute of downloads).
packages=(build-essential cmake pkg-config libsimgrid-dev libboost-graph-dev libboost-program-options-dev
          libeigen3-dev nlohmann-json3-dev catch2)
if ! $only_codesim; then
  packages+=(python3 python3-jsonschema python3-matplotlib pybind11-dev python3-dev python3-pandas python3-pytest
             python3-venv python3-pip python3-setuptools python3-wheel  # these four: pip install . (setup.py)
             clang-format)  # tests/check_format.py
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  rm -f build/CMakeCache.txt  # configured before they were there (`./setup.sh codesim`): look for them again
fi
phase packages

# shellcheck disable=SC2086
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${CODESIM_CMAKE_ARGS:-}
phase configure
cmake --build build -j"$(nproc)" --target codesim
phase codesim
if ! $only_codesim; then
  cmake --build build -j"$(nproc)"
  phase "tests and Python module"
fi
printf '%s\n' "${phases[@]}" > build/setup-phases.txt
