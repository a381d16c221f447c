# WhisperKey — see README.md. Caches live in $(CACHE), outside the clone.
SHELL := /bin/bash
CACHE ?= $(HOME)/.cache/whisperkey
export WHISPERKEY_CACHE := $(CACHE)
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
GOFLAGS_BUILD := -trimpath -ldflags "-X main.version=$(VERSION)"
# Where the CPU engine's CTranslate2 comes from: wheel (default), ruy or dnnl.
# docs/benchmarks.md says why.
export ENGINE_BACKEND ?= wheel
ENGINE_LIB := build/engine/cpu/libct2engine.so

.PHONY: all deps model engine build run test test-go test-wine lint bench windows installer clean

all: build engine

deps:
	bash scripts/deps.sh
	bash scripts/pyenv.sh

model:
	bash scripts/model.sh base tiny.en

engine: $(ENGINE_LIB)

$(ENGINE_LIB): $(wildcard native/ct2engine/src/*) native/ct2engine/Cargo.toml native/ct2engine/build.rs scripts/engine.sh
	bash scripts/engine.sh

build:
	go build $(GOFLAGS_BUILD) -o build/whisperkey .

# The app with the default config, on the CPU engine and the cached base model.
run: deps model engine build
	WHISPERKEY_MODEL=$${WHISPERKEY_MODEL:-$(CACHE)/models/whisper-base} ./build/whisperkey run

test: deps model engine build
	bash scripts/testenv.sh bash scripts/test.sh

lint:
	test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	go vet ./...
	cd native/ct2engine && cargo fmt --check

bench: deps model engine build
	bash scripts/bench.sh

windows:
	bash scripts/windows.sh

installer: windows
	bash scripts/installer.sh

# The Windows build end to end under wine: installer, dictation through a
# serve on loopback, doctor and transcribe (wine_linux_test.go).
test-wine: deps model engine build installer
	bash scripts/testenv.sh bash scripts/test-wine.sh

clean:
	rm -rf build
