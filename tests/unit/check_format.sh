#!/usr/bin/env bash
# check_format.sh SRC_DIR: every C, header and CUDA source of the project is formatted with the repository's
# .clang-format (clang-format --dry-run --Werror). Lists each file that is not and exits 1; exits 77 (skipped)
# when clang-format is not installed. Fix with: git ls-files '*.c' '*.h' '*.cu' | xargs clang-format -i
set -uo pipefail
src=${1:?usage: check_format.sh SRC_DIR}
cd "$src" || exit 1
cf=${CLANG_FORMAT:-clang-format}
if ! command -v "$cf" >/dev/null; then
  echo "skipped: $cf not found"
  exit 77
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.c' '*.h' '*.cu')
else
  mapfile -t files < <(find . -path ./build -prune -o -path './build-*' -prune -o -path ./gpu-bundle -prune -o \
                         \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) -print | sed 's|^\./||' | sort)
fi
bad=0
for f in "${files[@]}"; do
  if ! "$cf" --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "not clang-formatted: $f"
    bad=$((bad + 1))
  fi
done
echo "check_format: ${#files[@]} files, $bad not formatted ($("$cf" --version | head -1))"
[ "$bad" -eq 0 ]
