#!/usr/bin/env bash
# Takes docs/tray-app.png: the real app (make build) in a real StatusNotifierItem host
# (gtk-sni-tray-standalone) under Xvfb, tray menu and Model submenu open.
# Needs what make deps installs plus:
#   apt-get install --no-install-recommends imagemagick haskell-status-notifier-item-utils haskell-gtk-sni-tray-utils
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-docs/tray-app.png}
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
W=$(mktemp -d /tmp/whisperkey-shot.XXXXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; pulseaudio --kill 2>/dev/null || true; rm -rf "$W"; }
trap cleanup EXIT
mkdir -p "$W/config/whisperkey"
printf 'model: %s\n' "$CACHE/models/whisper-base" >"$W/config/whisperkey/config.yaml"
for n in $(seq 90 140); do [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || { D=$n; break; }; done
export DISPLAY=":$D" W XDG_CONFIG_HOME="$W/config" XDG_STATE_HOME="$W/state" XDG_RUNTIME_DIR="$W/xdg"
export WHISPERKEY_ENGINE_ROOT="$PWD/build/engine"
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
pulseaudio --start --exit-idle-time=-1 --log-target=file:"$W/pulse.log" >/dev/null 2>&1
pactl load-module module-null-sink sink_name=vmic sink_properties=device.description=VirtualMic >/dev/null
pactl set-default-source vmic.monitor
Xvfb "$DISPLAY" -screen 0 1280x720x24 -nolisten tcp -r >"$W/xvfb.log" 2>&1 & PIDS+=($!)
for _ in $(seq 100); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
dbus-run-session -- bash -c '
  set -e
  status-notifier-watcher >"$W/watcher.log" 2>&1 & P1=$!
  sleep 1; gtk-sni-tray-standalone --top --size 30 >"$W/host.log" 2>&1 & P2=$!
  sleep 2; ./build/whisperkey run >"$W/app.log" 2>&1 & P3=$!
  for _ in $(seq 60); do grep -q "state=idle" "$XDG_STATE_HOME/whisperkey/logs/whisperkey.log" 2>/dev/null && break; sleep 0.5; done
  sleep 2
  xdotool mousemove 15 15 click 1; sleep 1.5      # open the tray menu
  xdotool mousemove 80 60; sleep 0.3
  xdotool mousemove 80 72; sleep 1.5              # hover "Model": its submenu opens
  import -window root "$W/shot.png"
  xdotool key Escape; sleep 0.3
  kill $P3 $P2 $P1 2>/dev/null || true; wait 2>/dev/null || true'
convert "$W/shot.png" -fill '#3c4452' -draw 'color 1270 710 floodfill' -crop 940x400+0+0 +repage "$OUT"
echo "wrote $OUT"
