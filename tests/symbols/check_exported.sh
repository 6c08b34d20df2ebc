#!/usr/bin/env bash
# check_exported.sh LIBDIR INCLUDEDIR...: every global symbol named ar_* that a library in
# LIBDIR (lib*.a and lib*.so, static and shared) defines is declared in a header under an
# INCLUDEDIR (a function `ar_name(` or an `extern` object); internal names take arp_.
# Exit status: 0 all declared, 1 some not (each named with its library), 2 bad usage.
set -euo pipefail
usage() { echo "usage: check_exported.sh LIBDIR INCLUDEDIR..." >&2; }
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then usage 2>&1; exit 0; fi
if [ $# -lt 2 ] || [ ! -d "$1" ]; then usage; exit 2; fi
libdir=$1; shift
for dir in "$@"; do [ -d "$dir" ] || { echo "check_exported.sh: no folder $dir" >&2; exit 2; }; done

declared=$(mktemp)
trap 'rm -f "$declared"' EXIT
find "$@" -name '*.h' -print0 | xargs -0 cat |
  grep -oE '\bar_[A-Za-z0-9_]+[[:space:]]*\(|extern[^;(]*\bar_[A-Za-z0-9_]+' |
  grep -oE '\bar_[A-Za-z0-9_]+' | sort -u > "$declared"

libraries=0 exported=0 missing=0
for lib in "$libdir"/lib*.a "$libdir"/lib*.so; do
  [ -e "$lib" ] || continue
  libraries=$((libraries + 1))
  case $lib in *.so) flags=(-D --defined-only) ;; *) flags=(-g --defined-only) ;; esac
  while read -r name; do
    exported=$((exported + 1))
    if ! grep -qx "$name" "$declared"; then
      echo "$(basename "$lib"): $name is exported but no public header declares it"
      missing=$((missing + 1))
    fi
  done < <(nm "${flags[@]}" "$lib" 2>/dev/null | awk 'NF >= 3 && $2 ~ /^[A-TV-Z]$/ {print $3}' |
           sed 's/@.*//' | grep -E '^ar_' | sort -u)
done
echo "$libraries libraries, $exported exported ar_ names (per library), $missing undeclared"
[ "$libraries" -gt 0 ] && [ "$exported" -gt 0 ] || { echo "nothing to check" >&2; exit 1; }
[ "$missing" -eq 0 ]
