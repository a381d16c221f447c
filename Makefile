# WhisperKey — see README.md. Caches live in $(CACHE), outside the clone.
SHELL := /bin/bash
# The rule paths.CacheDir follows: $WHISPERKEY_CACHE, else the XDG cache folder.
CACHE ?= $(or $(WHISPERKEY_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/whisperkey)
export WHISPERKEY_CACHE := $(CACHE)
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
GOFLAGS_BUILD := -trimpath -ldflags "-X main.version=$(VERSION)"
# Where the CPU engine's CTranslate2 comes from: wheel (default), source (built here
# with our patches, native/ct2-patches), ruy or dnnl.
# docs/benchmarks.md says why.
export ENGINE_BACKEND ?= wheel
ENGINE_LIB := build/engine/cpu/libct2engine.so

.PHONY: all deps model engine engine-cuda build run test test-wine check lint bench soak windows installer clean FORCE

all: build engine

deps:
	bash scripts/deps.sh
	bash scripts/pyenv.sh

model:
	bash scripts/model.sh base tiny.en
	bash scripts/speech.sh
	bash scripts/speech-langs.sh
	bash scripts/llm.sh

engine: $(ENGINE_LIB)

# Holds the ENGINE_BACKEND the library was built with; rewritten (so newer than
# the library) only when the value changes, which then rebuilds the engine. A
# build from before the stamp existed is adopted when its BACKEND file agrees.
ENGINE_STAMP := build/engine-backend
FORCE:

$(ENGINE_STAMP): FORCE
	@mkdir -p $(@D)
	@if [ ! -f $@ ] && [ -f $(ENGINE_LIB) ] && [ "$$(cat $(dir $(ENGINE_LIB))BACKEND 2>/dev/null)" = "$(ENGINE_BACKEND)" ]; then \
	  echo "$(ENGINE_BACKEND)" > $@; touch -r $(ENGINE_LIB) $@; fi
	@[ "$$(cat $@ 2>/dev/null)" = "$(ENGINE_BACKEND)" ] || echo "$(ENGINE_BACKEND)" > $@

$(ENGINE_LIB): $(wildcard native/ct2engine/src/*) native/ct2engine/Cargo.toml native/ct2engine/build.rs scripts/engine.sh scripts/engine-link.sh scripts/engine-source.sh scripts/ct2-patch.sh $(wildcard native/ct2-patches/*.patch) $(ENGINE_STAMP)
	bash scripts/engine.sh

# The Linux CUDA engine, for this machine's GPU, with its CUDA toolkit
# (docs/building.md); no GPU is needed to build it.
engine-cuda:
	bash scripts/gpu-build.sh

build:
	go build $(GOFLAGS_BUILD) -o build/whisperkey .

# The app with your config; `make model` put base and tiny.en in the model
# cache under their names, so model: auto finds one with no download.
run: deps model engine build
	WHISPERKEY_CACHE=$(CACHE) ./build/whisperkey run

test: deps model engine build
	bash scripts/testenv.sh bash scripts/test.sh

# The fast unit tests alone: no engine, model, desktop or built app (-short).
check:
	go test -short -count=1 ./...

# gofmt, go vet (Linux and Windows), cargo fmt and clippy, staticcheck, dead code.
lint:
	bash scripts/lint.sh

bench: deps model engine build
	bash scripts/bench.sh

# A long day (not in make test): SOAK_N dictations (default 1000) through the real
# app, a model switch every SOAK_SWITCH_EVERY (100), the microphone unplugged and
# plugged back every SOAK_UNPLUG_EVERY (250); RSS, fds, goroutines, latency.
soak: deps model engine build
	bash scripts/testenv.sh go test -run '^$$' -bench '^BenchmarkSoak$$' -benchtime 1x -timeout 24h -v ./internal/e2e 2>&1 | \
		grep -E '^(Benchmark|    soak_linux_test|--- )'

# The exe and the CPU engine DLL, cross-built (the DLL is cached by source hash).
windows:
	bash scripts/windows.sh
	bash scripts/windows-engine.sh

installer: windows
	bash scripts/vad.sh
	bash scripts/installer.sh

# The Windows build end to end under wine: installer, dictation through a
# serve on loopback, doctor and transcribe (wine_linux_test.go).
test-wine: deps model engine build installer
	bash scripts/testenv.sh bash scripts/test-wine.sh

clean:
	rm -rf build
