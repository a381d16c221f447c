#!/usr/bin/env bash
# The Windows build under wine: its unit tests (scripts/wine-test.sh), then the
# installed app end to end (TestWine* in wine_*linux_test.go). Run through
# scripts/testenv.sh (make test-wine does; scripts/test.sh runs it too), after
# make installer. Ends with a line "wine: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export WHISPERKEY_ENGINE_DIR="${WHISPERKEY_ENGINE_DIR:-$PWD/build/engine/cpu}"
LOG=$(mktemp)
trap 'rm -f "$LOG" "$LOG.e2e"' EXIT
bash scripts/wine-test.sh 2>&1 | tee "$LOG"
units=${PIPESTATUS[0]}
WINE_TEST_DISPLAY="$DISPLAY" bash scripts/wine-test.sh ./internal/tray 2>&1 | tee -a "$LOG"
[ "${PIPESTATUS[0]}" -eq 0 ] || units=1
go test -count=1 -timeout 40m -v -run '^TestWine' ./internal/e2e 2>&1 | tee "$LOG.e2e"
e2e=${PIPESTATUS[0]}
# Leaf results: wine-test.sh's "ok/FAIL  pkg" lines and each TestWine case that
# has no subtests of its own (a test alone, or a subtest); a failure outside
# them (setup, build) counts once.
leaves() { # prints "passed failed", then each failed leaf's name
  awk '/^ *--- (PASS|FAIL): TestWine/ { res[$3] = $2 }
    END { for (t in res) { leaf = 1; for (u in res) if (index(u, t "/") == 1) leaf = 0
            if (leaf) { if (res[t] == "PASS:") p++; else { f++; names = names t "\n" } } }
          printf "%d %d\n%s", p, f, names }' "$LOG.e2e"
}
read -r p_e2e f_e2e < <(leaves)
passed=$(( $(grep -c '^ok    ' "$LOG") + p_e2e ))
f_units=$(grep -c '^FAIL  ' "$LOG")
[ "$units" -ne 0 ] && [ "$f_units" -eq 0 ] && f_units=1
[ "$e2e" -ne 0 ] && [ "$f_e2e" -eq 0 ] && f_e2e=1
failed=$((f_units + f_e2e))
# The failed cases' own output again, last: CI shows the end of a long log,
# and a case's app log is printed where the case ran, far above.
if [ "$f_e2e" -gt 0 ]; then
  leaves | tail -n +2 | awk '
    NR == FNR { failed[$0] = 1; next }
    /^=== RUN / { cur = $3 }
    cur != "" { out[cur] = out[cur] $0 "\n" }
    END { for (t in failed) { printf "\n== the output of %s again (the last 150 lines):\n", t
      k = split(out[t], l, "\n"); for (i = (k > 151 ? k - 150 : 1); i <= k; i++) print l[i] } }' - "$LOG.e2e"
fi
echo "wine: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
