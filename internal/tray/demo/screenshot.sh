#!/usr/bin/env bash
# Takes docs/tray.png: the demo tray in a real StatusNotifierItem host
# (gtk-sni-tray-standalone) under Xvfb, with the Model submenu open.
# Needs: apt-get install --no-install-recommends xvfb xdotool imagemagick x11-xserver-utils dbus \
#          haskell-status-notifier-item-utils haskell-gtk-sni-tray-utils
#   internal/tray/demo/screenshot.sh [OUT.png]
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=${1:-docs/tray.png}
W=$(mktemp -d /tmp/whisperkey-shot.XXXXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$W"; }
trap cleanup EXIT
go build -o "$W/demo" ./internal/tray/demo
for n in $(seq 90 140); do [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || { D=$n; break; }; done
export DISPLAY=":$D"
Xvfb "$DISPLAY" -screen 0 640x400x24 -nolisten tcp -r >"$W/xvfb.log" 2>&1 & PIDS+=($!)
for _ in $(seq 100); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
export W
dbus-run-session -- bash -c '
  set -e
  status-notifier-watcher >"$W/watcher.log" 2>&1 & P1=$!
  sleep 1; gtk-sni-tray-standalone --top --size 30 >"$W/host.log" 2>&1 & P2=$!
  sleep 2; "$W/demo" -secs 30 >"$W/demo.log" 2>&1 & P3=$!
  sleep 3
  xdotool mousemove 15 15 click 1; sleep 1.5      # open the tray menu
  xdotool mousemove 80 60; sleep 0.3
  xdotool mousemove 80 72; sleep 1.5              # hover "Model": its submenu opens
  import -window root "$W/shot.png"
  xdotool mousemove 330 72 click 1; sleep 1       # click "tiny.en" through the host
  kill $P3 $P2 $P1 2>/dev/null || true; wait 2>/dev/null || true'
grep -q 'ACTION SelectModel "tiny.en"' "$W/demo.log" || { echo "screenshot: the click through the tray host did not arrive:"; cat "$W/demo.log"; exit 1; }
# Xvfb's root stays black in the capture; paint the backdrop, keep the menus.
convert "$W/shot.png" -fill '#3c4452' -draw 'color 620 390 floodfill' -crop 600x330+0+0 +repage "$OUT"
echo "wrote $OUT"
