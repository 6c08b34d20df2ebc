# ggml alone, CPU only, from a llama-cpp-python sdist's vendored llama.cpp/ggml: for the corpus's
# ggml-alloc entry, which needs a ggml that llama.cpp's pinned build (scripts/lib/llama_build.sh)
# is not. The sdist is fetched with pip and checked against its sha256 (llama_sdist), built once into
# build/ggml/VERSION/install (about 45 s on two cores) and reused while a stamp names the version
# and digest. Sourced.
#   source bugs/ggml-output-view/ggml_build.sh; ensure_ggml 0.3.34 SHA256 || exit 2; "$ARENAREF_GGML"
_arenaref_ggml_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

ensure_ggml() {
  local version=$1 sha=$2 dir sdist stamp start
  dir=$_arenaref_ggml_root/build/ggml/$version
  ARENAREF_GGML=$dir/install
  export ARENAREF_GGML
  sdist=$dir/llama_cpp_python-$version.tar.gz
  stamp=$dir/.built-$version-${sha:0:16}
  [ -f "$stamp" ] && [ -f "$ARENAREF_GGML/include/ggml-alloc.h" ] && return 0
  start=$(date +%s)
  source "$_arenaref_ggml_root/scripts/lib/llama_build.sh"
  llama_sdist "$dir" "$version" "$sha" || return 1
  rm -rf "$dir/src" "$dir/cmake-build" "$ARENAREF_GGML"
  mkdir -p "$dir/src"
  tar -xzf "$sdist" -C "$dir/src" --strip-components=4 \
    "llama_cpp_python-$version/vendor/llama.cpp/ggml" \
    || { echo "arenaref: $sdist has no vendor/llama.cpp/ggml" >&2; return 1; }
  # The sdist leaves out ggml.pc.in, which ggml's install step reads: an empty one will do.
  [ -f "$dir/src/ggml.pc.in" ] || : >"$dir/src/ggml.pc.in"
  source "$_arenaref_ggml_root/scripts/lib/deps.sh"
  ensure_packages || return 1
  echo "arenaref: building ggml $version (CPU only) into $dir" >&2
  env -u CFLAGS -u CXXFLAGS -u LDFLAGS -u CC -u CXX \
    cmake -S "$dir/src" -B "$dir/cmake-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$ARENAREF_GGML" -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_SHARED_LIBS=ON \
    -DGGML_NATIVE=OFF -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF -DGGML_BLAS=OFF \
    -DGGML_CUDA=OFF -DGGML_METAL=OFF -DGGML_VULKAN=OFF -DGGML_OPENCL=OFF -DGGML_CCACHE=OFF \
    -DGGML_BACKEND_DL=OFF -DGGML_OPENMP=OFF >"$dir/configure.log" 2>&1 \
    || { echo "arenaref: configuring ggml $version failed, see $dir/configure.log" >&2; return 1; }
  env -u CFLAGS -u CXXFLAGS -u LDFLAGS cmake --build "$dir/cmake-build" -j"${ARENAREF_LLAMA_JOBS:-2}" \
    >"$dir/build.log" 2>&1 && cmake --install "$dir/cmake-build" >>"$dir/build.log" 2>&1 \
    || { echo "arenaref: building ggml $version failed, see $dir/build.log" >&2; return 1; }
  rm -f "$dir"/.built-*
  echo "$(( $(date +%s) - start ))" >"$stamp"
  echo "arenaref: ggml $version built in $(( $(date +%s) - start )) s" >&2
}
