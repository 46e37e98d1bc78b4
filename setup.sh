#!/usr/bin/env bash
# Installs what codesim needs from Debian's packages (only those missing), then configures and
# builds it into ./build. Extra CMake arguments can be passed in CODESIM_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")"

packages=(build-essential cmake pkg-config libsimgrid-dev libboost-graph-dev libboost-program-options-dev
          libeigen3-dev nlohmann-json3-dev catch2 python3 python3-jsonschema python3-matplotlib
          pybind11-dev python3-dev python3-pandas python3-pytest)
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
fi

# shellcheck disable=SC2086
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${CODESIM_CMAKE_ARGS:-}
cmake --build build -j"$(nproc)"
