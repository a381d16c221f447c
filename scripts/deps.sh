#!/usr/bin/env bash
# Installs what building and testing WhisperKey needs on Debian 12, as root.
# Idempotent: a second run with everything present does nothing.
set -euo pipefail
PKGS=(
  build-essential cmake pkg-config git ca-certificates python3-venv
  libx11-dev libxtst-dev libxext-dev libxrandr-dev libxi-dev xinput
  xvfb xauth x11-utils x11-xserver-utils x11-apps xdotool xclip tk xterm
  dbus dbus-x11
  # Wayland (docs/wayland.md): headless sway for the end-to-end test, the Wayland
  # clipboard tools, wtype for typing, and a native GTK window as the paste target.
  sway wl-clipboard wtype python3-gi gir1.2-gtk-3.0
  # grim: screenshots of headless sway, to see the layer-shell indicator (internal/indicator).
  grim
  pulseaudio pulseaudio-utils espeak-ng sox
  ffmpeg
  # A load balancer in front of two `serve` instances (TestTwoServersBehindNginx).
  nginx-light
  gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64 nsis p7zip-full file
  # Authenticode signing and verifying of the Windows build (scripts/sign.sh).
  osslsigncode openssl
  # make lint: actionlint runs the workflows' run: scripts through it.
  shellcheck
  # The Windows engine (scripts/windows-engine.sh): mingw's posix C++ and Rust
  # 1.96 with its std source, to build std for x86_64-pc-windows-gnu.
  g++-mingw-w64-x86-64-posix rustc-web cargo-web rust-web-src
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
for tool in go cargo; do
  command -v "$tool" >/dev/null || { echo "deps: $tool is not installed (Go ≥ 1.26 and Rust ≥ 1.85 are needed; see README)" >&2; exit 1; }
done
# make lint runs cargo fmt and clippy; rustup adds them when missing.
if ! cargo clippy --version >/dev/null 2>&1 || ! cargo fmt --version >/dev/null 2>&1; then
  command -v rustup >/dev/null && rustup component add clippy rustfmt ||
    { echo "deps: cargo clippy and cargo fmt are needed by make lint (rustup component add clippy rustfmt)" >&2; exit 1; }
fi
