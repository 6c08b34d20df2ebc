# Shared by scripts/llama-build, scripts/llama-plan, scripts/test and scripts/bench: llama.cpp from
# pinned source. The llama-cpp-python sdist (which vendors llama.cpp under vendor/llama.cpp) is
# fetched with pip, checked against the sha256 below, built CPU-only once into
# build/llama.cpp/VERSION/ and reused while the version and digest are unchanged (a stamp
# names both). Sourced.
#   source scripts/lib/llama_build.sh; ensure_llama || exit 2; "$ARENAREF_LLAMA/lib/libllama.so"
ARENAREF_LLAMA_VERSION=0.3.36
ARENAREF_LLAMA_SHA256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
_arenaref_llama_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ARENAREF_LLAMA_DIR=${ARENAREF_LLAMA_DIR:-$_arenaref_llama_root/build/llama.cpp/$ARENAREF_LLAMA_VERSION}
ARENAREF_LLAMA=$ARENAREF_LLAMA_DIR/install
export ARENAREF_LLAMA ARENAREF_LLAMA_DIR

# The llama-cpp-python VERSION sdist in DIR (fetched with pip if missing), checked against SHA256
# (a file that differs is removed): 0 when DIR/llama_cpp_python-VERSION.tar.gz is the one pinned.
llama_sdist() {
  local dir=$1 version=$2 sha=$3 sdist got
  sdist=$dir/llama_cpp_python-$version.tar.gz
  mkdir -p "$dir"
  if [ ! -f "$sdist" ]; then
    source "$_arenaref_llama_root/scripts/lib/venv.sh"
    ensure_venv || return 1
    echo "arenaref: fetching llama-cpp-python $version (sdist) from PyPI" >&2
    "$ARENAREF_VENV/bin/python" -m pip download --disable-pip-version-check -q --no-deps \
      --no-binary llama-cpp-python -d "$dir" "llama-cpp-python==$version" \
      || { echo "arenaref: pip download llama-cpp-python==$version failed" >&2; return 1; }
  fi
  got=$(sha256sum "$sdist" | cut -d' ' -f1)
  if [ "$got" != "$sha" ]; then
    echo "arenaref: $sdist has sha256 $got, expected $sha; removed" >&2
    rm -f "$sdist"
    return 1
  fi
}

ensure_llama() {
  local dir=$ARENAREF_LLAMA_DIR sdist stamp start jobs
  sdist=$dir/llama_cpp_python-$ARENAREF_LLAMA_VERSION.tar.gz
  stamp=$dir/.built-$ARENAREF_LLAMA_VERSION-${ARENAREF_LLAMA_SHA256:0:16}
  [ -f "$stamp" ] && [ -f "$ARENAREF_LLAMA/lib/libllama.so" ] && return 0
  start=$(date +%s)
  llama_sdist "$dir" "$ARENAREF_LLAMA_VERSION" "$ARENAREF_LLAMA_SHA256" || return 1
  rm -rf "$dir/src" "$dir/cmake-build" "$ARENAREF_LLAMA"
  mkdir -p "$dir/src"
  tar -xzf "$sdist" -C "$dir/src" --strip-components=3 \
    "llama_cpp_python-$ARENAREF_LLAMA_VERSION/vendor/llama.cpp" \
    || { echo "arenaref: $sdist has no vendor/llama.cpp" >&2; return 1; }
  source "$_arenaref_llama_root/scripts/lib/deps.sh"
  ensure_packages || return 1
  jobs=${ARENAREF_LLAMA_JOBS:-2}
  echo "arenaref: building llama.cpp (CPU only, -j$jobs) into $dir" >&2
  # Clang and the sanitizers are the project's, not llama.cpp's: built with the system's
  # default compiler and without the caller's CFLAGS, so every CI stage shares one build.
  env -u CFLAGS -u CXXFLAGS -u LDFLAGS -u CC -u CXX \
    cmake -S "$dir/src" -B "$dir/cmake-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$ARENAREF_LLAMA" -DCMAKE_INSTALL_LIBDIR=lib \
    -DBUILD_SHARED_LIBS=ON -DGGML_NATIVE=OFF \
    -DLLAMA_BUILD_COMMON=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF \
    -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF \
    -DGGML_BLAS=OFF -DGGML_CUDA=OFF -DGGML_METAL=OFF -DGGML_VULKAN=OFF -DGGML_OPENCL=OFF \
    -DGGML_CCACHE=OFF -DGGML_BACKEND_DL=OFF -DGGML_OPENMP=OFF >"$dir/configure.log" 2>&1 \
    || { echo "arenaref: configuring llama.cpp failed, see $dir/configure.log" >&2; return 1; }
  env -u CFLAGS -u CXXFLAGS -u LDFLAGS cmake --build "$dir/cmake-build" -j"$jobs" >"$dir/build.log" 2>&1 \
    && cmake --install "$dir/cmake-build" >>"$dir/build.log" 2>&1 \
    || { echo "arenaref: building llama.cpp failed, see $dir/build.log" >&2; return 1; }
  rm -f "$dir"/.built-*
  echo "$(( $(date +%s) - start ))" >"$stamp"
  echo "arenaref: llama.cpp built in $(( $(date +%s) - start )) s" >&2
}
