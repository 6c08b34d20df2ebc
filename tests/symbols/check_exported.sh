#!/usr/bin/env bash
# check_exported.sh LIBDIR INCLUDEDIR...: what the built libraries in LIBDIR export.
#   - Every global symbol named ar_* that a library (lib*.a and lib*.so, static and shared)
#     defines is declared in a header under an INCLUDEDIR (a function `ar_name(` or an
#     `extern` object).
#   - A shared library (lib*.so) exports nothing else: internal names (arp_, and any other)
#     stay local (exports.map); a static archive needs them between its objects.
# Exit status: 0 all good, 1 some not (each named with its library), 2 bad usage.
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

libraries=0 exported=0 missing=0 leaked=0
for lib in "$libdir"/lib*.a "$libdir"/lib*.so; do
  [ -e "$lib" ] || continue
  libraries=$((libraries + 1))
  case $lib in *.so) flags=(-D --defined-only) ;; *) flags=(-g --defined-only) ;; esac
  names=$(nm "${flags[@]}" "$lib" 2>/dev/null | awk 'NF >= 3 && $2 ~ /^[A-TV-Z]$/ {print $3}' |
          sed 's/@.*//' | sort -u)
  while read -r name; do
    [ -n "$name" ] || continue
    exported=$((exported + 1))
    if ! grep -qx "$name" "$declared"; then
      echo "$(basename "$lib"): $name is exported but no public header declares it"
      missing=$((missing + 1))
    fi
  done < <(grep -E '^ar_' <<< "$names" || true)
  case $lib in
  *.so)
    while read -r name; do
      [ -n "$name" ] || continue
      echo "$(basename "$lib"): $name is exported but only ar_ names may leave a shared library"
      leaked=$((leaked + 1))
    done < <(grep -vE '^ar_' <<< "$names" || true) ;;
  esac
done
echo "$libraries libraries, $exported exported ar_ names (per library), $missing undeclared," \
     "$leaked other names exported by a shared library"
[ "$libraries" -gt 0 ] && [ "$exported" -gt 0 ] || { echo "nothing to check" >&2; exit 1; }
[ "$missing" -eq 0 ] && [ "$leaked" -eq 0 ]
