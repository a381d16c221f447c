//go:build linux

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/models/ct2bin/ct2bintest"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

// forgedReasons is what the refusal of each forgery says was wrong.
var forgedReasons = map[ct2bintest.Forgery]string{
	ct2bintest.AlignmentHeadsPastLayers: "alignment_heads holds [1073741824, 0], but the model's decoder has layers 0-1",
	ct2bintest.ProjectionShape:          `variable "decoder/projection/weight" has shape [890 64]`,
	ct2bintest.SwappedShapes:            `variable "decoder/layer_0/ffn/linear_0/weight" has shape [64 256]`,
	ct2bintest.BrokenTokenizer:          "tokenizer.json is damaged or not this model's",
	ct2bintest.ConfigInvalidUTF8:        "config.json holds bytes that are not UTF-8",
	ct2bintest.NMels240:                 "takes 240 mel bins, but Whisper models take 80",
}

// Each forged model that used to pass the import and crash or fail the
// engine worker later is refused by `models import` and by `transcribe
// --model DIR` with its reason and the fix, before any worker starts.
func TestForgedModelsRefused(t *testing.T) {
	modelsDir := isolatedCache(t, "")
	wav := speechWAV(t, "Open the door.")
	if err := os.MkdirAll(modelsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	before := listTree(t, modelsDir)
	for _, f := range ct2bintest.Forgeries() {
		t.Run(string(f), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "forged")
			if err := ct2bintest.Forge(dir, ct2bintest.TinyOptions{}, f); err != nil {
				t.Fatal(err)
			}
			want := forgedReasons[f]
			r := whisperkey(t, "models", "import", dir)
			if r.code != 1 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "re-download") || !strings.Contains(r.stderr, "nothing was imported") {
				t.Errorf("import: exit %d, stderr %q; want exit 1, %q, the fix and nothing imported", r.code, r.stderr, want)
			}
			if after := listTree(t, modelsDir); after != before {
				t.Errorf("the models folder changed:\n%s\nwas:\n%s", after, before)
			}
			r = whisperkey(t, "transcribe", "--model", dir, "--json", wav)
			if r.code == 0 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "re-download") {
				t.Errorf("transcribe --model DIR: exit %d, stderr %q; want a failure saying %q and the fix", r.code, r.stderr, want)
			}
			if strings.Contains(r.stderr, "engine worker") {
				t.Errorf("transcribe --model DIR reached the engine worker:\n%s", r.stderr)
			}
		})
	}
}

// A model's JSON files are read under caps: a 4 GB config.json or
// vocabulary.json, or a 1 GB tokenizer.json (sparse, no disk), is refused at
// once by `models import` and `transcribe --model DIR` running with 1 GiB of
// memory (RLIMIT_DATA, which counts the heap Go maps and not the address
// space it only reserves), with no Go out-of-memory death. Before the caps,
// each read the whole file: 4.2 GB and 12-24 s, or Go's fatal out of memory
// under the limit.
func TestModelFileSizeCaps(t *testing.T) {
	modelsDir := isolatedCache(t, "")
	wav := speechWAV(t, "Open the door.")
	for _, tc := range []struct {
		file string
		size int64
		want string
	}{
		{"config.json", 4 << 30, "config.json is 4.0 GiB, more than the 1.0 MiB any Whisper model's config.json is (the real ones are far smaller): the file is damaged or not this model's — re-download the model"},
		{"vocabulary.json", 4 << 30, "vocabulary.json is 4.0 GiB, more than the 16.0 MiB"},
		{"tokenizer.json", 1 << 30, "tokenizer.json is 1.0 GiB, more than the 32.0 MiB"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "huge")
			if err := ct2bintest.GenerateTiny(dir, ct2bintest.TinyOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(filepath.Join(dir, tc.file), tc.size); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"models", "import", dir}, {"transcribe", "--model", dir, wav}} {
				cmd := exec.Command("prlimit", append([]string{"--data=" + strconv.Itoa(1<<30), "--", binary(t)}, args...)...)
				cmd.Env = append(os.Environ(), "WHISPERKEY_ENGINE_ROOT="+filepath.Dir(testenv.EngineDir(t)))
				start := time.Now()
				r := runCmd(t, cmd)
				took := time.Since(start)
				t.Logf("%s: exit %d in %v", args[0], r.code, took.Round(time.Millisecond))
				// transcribe exits 2 for a --model it cannot use, as for its other arguments.
				if r.code == 0 || !strings.Contains(r.stderr, "whisperkey") || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "out of memory") {
					t.Errorf("%v: exit %d, stderr %q; want a failure saying %q", args[:2], r.code, r.stderr, tc.want)
				}
				if took > 20*time.Second { // it read nothing: a fraction of a second; 12-21 s when it read the file
					t.Errorf("%v took %v", args[:2], took)
				}
			}
			if entries, _ := os.ReadDir(filepath.Join(modelsDir, "imported")); len(entries) != 0 {
				t.Errorf("something was imported: %v", entries)
			}
		})
	}
}

// A model that crashes the engine worker is run once, not five times per
// request: serve's first worker loads a good model; its files are then
// replaced by a forged model.bin (a projection of the wrong shape, which
// aborts every decode) and the worker is killed from outside (SIGKILL, as
// the OS's out-of-memory killer does), which is retried; the new worker
// loads the forgery and aborts on its first decode; from then on every
// request is refused with the reason and no worker starts again.
func TestModelThatCrashesTheWorkerRunsOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "swapped-under-serve")
	if err := ct2bintest.GenerateTiny(dir, ct2bintest.TinyOptions{}); err != nil {
		t.Fatal(err)
	}
	forged := filepath.Join(t.TempDir(), "forged")
	if err := ct2bintest.Forge(forged, ct2bintest.TinyOptions{}, ct2bintest.ProjectionShape); err != nil {
		t.Fatal(err)
	}
	srv := startServe(t, "--model", dir)
	workers, err := testenv.Children(srv.cmd.Process.Pid)
	if err != nil || len(workers) != 1 {
		t.Fatalf("serve's engine workers: %v %v, want one", workers, err)
	}
	if err := os.Rename(filepath.Join(forged, "model.bin"), filepath.Join(dir, "model.bin")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(workers[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wav, err := os.ReadFile(speechWAV(t, "Open the door."))
	if err != nil {
		t.Fatal(err)
	}
	const reason = `the model "swapped-under-serve" crashed the engine worker (signal: aborted) the first time the worker decoded audio with it`
	var first string
	for i := range 3 {
		start := time.Now()
		status, _, body := send(t, formRequest(t, srv.url, [][2]string{{"response_format", "json"}}, "s.wav", wav))
		var e struct{ Error struct{ Message string } }
		_ = json.Unmarshal([]byte(body), &e)
		t.Logf("request %d: %d in %v: %s", i+1, status, time.Since(start).Round(time.Millisecond), e.Error.Message)
		if status < 500 || !strings.Contains(e.Error.Message, reason) || !strings.Contains(e.Error.Message, "re-download it") {
			t.Fatalf("request %d: %d %s; want an error saying %q and the fix", i+1, status, body, reason)
		}
		_, why, _ := strings.Cut(e.Error.Message, `the model "`) // after what the transcriber was doing
		if i == 0 {
			first = why
		} else if why != first {
			t.Errorf("request %d says %q, request 1 %q", i+1, why, first)
		}
	}
	log := srv.stderr.String()
	if n := strings.Count(log, `msg="engine worker ready"`); n != 2 {
		t.Errorf("%d engine workers started, want 2 (the first, and one after the SIGKILL)", n)
	}
	if n := strings.Count(log, "engine worker crashed; restarting"); n != 1 {
		t.Errorf("%d restarts after a crash, want 1 (the SIGKILL's)", n)
	}
	if workers, _ := testenv.Children(srv.cmd.Process.Pid); len(workers) != 0 {
		t.Errorf("serve still has engine workers %v after refusing the model", workers)
	}
}
