#!/usr/bin/env bash
# make lint: formatting, vet (Linux and Windows), Rust fmt and clippy,
# staticcheck, a dead-code check and actionlint on the workflows. Tool versions are pinned here and built
# with `go install mod@version` into the cache (not on PATH): the Windows pass
# needs a Linux binary analysing with GOOS=windows, which `go run` cannot give.
set -euo pipefail
STATICCHECK=honnef.co/go/tools/cmd/staticcheck@v0.8.2
DEADCODE=golang.org/x/tools/cmd/deadcode@v0.52.0
ACTIONLINT=github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
step() { printf '\n== lint: %s\n' "$*"; }
TOOLS="$CACHE/tools"
tool() { # tool MOD@VERSION: path of the built binary
  local dir="$TOOLS/${1//[\/@]/_}"
  [ -x "$dir/$(basename "${1%@*}")" ] || GOBIN="$dir" GOOS= GOARCH= go install "$1"
  echo "$dir/$(basename "${1%@*}")"
}
WIN=(env GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc)

step gofmt
unformatted=$(gofmt -l $(git ls-files '*.go'))
[ -z "$unformatted" ] || { echo "gofmt would change: $unformatted"; exit 1; }

step "go vet (Linux and Windows)"
go vet ./...
"${WIN[@]}" go vet ./...

step "cargo fmt and clippy"
(
  cd native/ct2engine
  cargo fmt --check
  # The `system` feature links an existing libctranslate2, so checking needs no
  # CTranslate2 build; a separate target dir keeps it away from engine builds.
  CARGO_TARGET_DIR="$CACHE/cargo-target-lint" cargo clippy --locked --no-default-features --features system -- -D warnings
)

step "staticcheck (Linux and Windows)"
sc=$(tool "$STATICCHECK")
"$sc" ./...
"${WIN[@]}" "$sc" ./...

step "dead code"
# No -test: with it, production code that only tests call counted as used. The
# roots are the main packages, so test-helper packages (a name ending in "test",
# or internal/testenv and internal/testlog) are all unreachable and left out.
dc=$(tool "$DEADCODE")
deadcode() {
  "$@" "$dc" -f '{{range .Funcs}}{{printf "%s\t%s: unreachable func: %s\n" $.Path .Position .Name}}{{end}}' ./... |
    awk -F '\t' '$1 !~ /test$/ && $1 !~ /\/internal\/test(env|log)$/ { print $2 }'
}
dead=$(deadcode)
dead_win=$(deadcode "${WIN[@]}")
# A function unreachable on one OS may be the other OS's; report what neither reaches.
both=$(comm -12 <(sort <<<"$dead") <(sort <<<"$dead_win") | sed '/^$/d')
[ -z "$both" ] || { echo "unreachable code:"; echo "$both"; exit 1; }
step "actionlint (the workflows, their run: scripts through shellcheck)"
# actionlint checks run: blocks only when shellcheck is on PATH (scripts/deps.sh
# installs it), so its absence is an error, not a silent skip. pwsh blocks are
# not checked by anything here.
command -v shellcheck >/dev/null || { echo "shellcheck is not installed: run make deps (or apt-get install shellcheck)"; exit 1; }
"$(tool "$ACTIONLINT")" .github/workflows/*.yml
echo "lint: clean"
