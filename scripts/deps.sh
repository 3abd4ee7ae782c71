#!/usr/bin/env bash
# Installs the Debian packages jarvis needs to build and test, when missing.
# Sourced by example.sh and test.sh; safe to run again (installs nothing twice).
jv_deps() {
  local pkgs=(build-essential cmake ninja-build pkg-config zlib1g-dev libcjson-dev libzip-dev libdnnl-dev libisal-dev python3 gzip)
  # test: also what the tests run (Open MPI: the fleet replay is built and run under mpirun, ctest fleet_mpi)
  [ "${1:-}" = test ] && pkgs+=(clang libclang-rt-14-dev python3-openpyxl libbenchmark-tools python3-scipy python3-numpy hipcc python3-markdown-it chromium patchelf unzip python3-pip libopenmpi-dev openmpi-bin)
  local missing=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "jarvis: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}
