#!/usr/bin/env bash
# Runs a command inside a headless desktop made of real parts: an Xvfb display
# (autorepeat off), a session D-Bus, and PulseAudio with a null sink "vmic"
# whose monitor is the default microphone and a null sink "speakers" as the
# default output. Everything is torn down afterwards.
#   scripts/testenv.sh CMD [ARGS...]
set -euo pipefail
W=$(mktemp -d /tmp/whisperkey-env.XXXXXX)
PIDS=()
PULSE=0 # 1 once our own PulseAudio runs under $W/xdg
cleanup() {
  # The silence stream first, so it does not report its server's end.
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  # Only our own server: a bare --kill would stop the user's desktop sound.
  [ "$PULSE" = 1 ] && { XDG_RUNTIME_DIR="$W/xdg" pulseaudio --kill >/dev/null 2>&1 || true; }
  # A PulseAudio that is still exiting can write into $W/xdg while it is
  # removed ("Directory not empty"): try again briefly, and never let the
  # teardown turn a passing run into a failed one.
  for _ in 1 2 3 4 5; do rm -rf "$W" 2>/dev/null && break; sleep 0.2; done
}
trap cleanup EXIT
# Xvfb picks a free display itself and writes its number once it listens
# (-displayfd), so two runs started together cannot take the same one.
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp -r -maxclients 512 3>"$W/display" >"$W/xvfb.log" 2>&1 & XPID=$!; PIDS+=($XPID)
for _ in $(seq 100); do [ -s "$W/display" ] && break; kill -0 "$XPID" 2>/dev/null || break; sleep 0.1; done
[ -s "$W/display" ] || { echo "testenv: Xvfb did not start:"; cat "$W/xvfb.log"; exit 1; }
export DISPLAY=":$(head -1 "$W/display")"
xdpyinfo >/dev/null 2>&1 || { echo "testenv: Xvfb did not start on $DISPLAY:"; cat "$W/xvfb.log"; exit 1; }
mapfile -t DB < <(dbus-daemon --session --fork --print-address=1 --print-pid=1)
export DBUS_SESSION_BUS_ADDRESS="${DB[0]}"; PIDS+=("${DB[1]}")
export XDG_RUNTIME_DIR="$W/xdg"; mkdir -p -m 700 "$XDG_RUNTIME_DIR"
pulseaudio --start --exit-idle-time=-1 --log-target=file:"$W/pulse.log" >/dev/null 2>&1 ||
  { echo "testenv: PulseAudio did not start:"; cat "$W/pulse.log" 2>/dev/null; exit 1; }
PULSE=1
pactl load-module module-null-sink sink_name=vmic sink_properties=device.description=VirtualMic rate=16000 channels=1 >/dev/null
pactl set-default-source vmic.monitor
# The app's sound cues go to a speaker of their own: were the default sink the
# microphone, every cue would be recorded at full level, which no real
# machine's speakers and microphone do, and the speech detector would now and
# then take a chime for a word. Tests play speech into vmic by name.
pactl load-module module-null-sink sink_name=speakers sink_properties=device.description=Speakers rate=48000 >/dev/null
pactl set-default-sink speakers
# A real microphone delivers samples all the time; a null sink's monitor only
# while something plays. A stream of silence keeps it running like a real one.
pacat --playback -d vmic --rate=16000 --channels=1 --format=s16le --latency-msec=100 </dev/zero & PIDS+=($!)
"$@"
