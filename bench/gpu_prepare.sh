#!/usr/bin/env bash
# Run HERE (the development machine) before a GPU session: downloads the Debian packages jarvis builds
# against into .gpu-deps/ (ignored by git through .git/info/exclude) so that the device tool can carry
# them to a GPU machine, whose image has nvcc, CMake, ninja and PyTorch but not these libraries.
# Then, with the device tool:  run(command="bash bench/gpu_check.sh", carry=[".gpu-deps"])
set -euo pipefail
cd "$(dirname "$0")/.."
excl=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$excl")"
grep -qx '/.gpu-deps/' "$excl" 2>/dev/null || echo '/.gpu-deps/' >> "$excl"
rm -rf .gpu-deps && mkdir -p .gpu-deps
[ "$(id -u)" -eq 0 ] && apt-get update -qq
(cd .gpu-deps && apt-get download -qq libcjson1 libcjson-dev libzip4 libzip-dev libxlsxwriter4 libxlsxwriter-dev \
    libminizip1 zlib1g-dev)
ls -la .gpu-deps
