//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/audio"
	"github.com/whisperkey/whisperkey/internal/audio/audiotest"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/whisper"
)

// underAddressLimit runs the built whisperkey with its address space, and
// so its engine worker's, capped at limit bytes (ulimit -v), and returns
// what it printed and its peak resident memory in bytes. It gets this
// process's environment.
func underAddressLimit(t *testing.T, limit int64, args ...string) (result, int64) {
	t.Helper()
	script := fmt.Sprintf(`ulimit -v %d && exec "$@"`, limit>>10)
	cmd := exec.Command("sh", append([]string{"-c", script, "sh", binary(t)}, args...)...)
	r := runCmd(t, cmd)
	return r, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
}

// Issue 34 item 1: transcribe decoded whatever a file declared. A 12.9 KB
// FLAC of 18 hours at 1 kHz cost 8.47 GB and died with "fatal error: out of
// memory" under a 4 GB address-space limit; an Ogg patched to 1 kHz cost
// 3.7 GB. Now decoding stops at --max-audio (2 h by default), as serve's
// does, with one line that names the file, the limit and the flag.
//
// The bound: under a 4 GiB address-space limit (the program maps about
// 2 GB of that before it decodes anything) each is refused, holding at most
// the limit's 16 kHz samples (460 MB for 2 h) and 256 MiB besides at its
// peak; speech still transcribes under the same limit.
func TestTranscribeBoundedUnderAddressLimit(t *testing.T) {
	const addressLimit = 4 << 30
	transcribeMaxAudio := flagDefault(t, "transcribe", "max-audio")
	rssBound := int64(transcribeMaxAudio.Seconds()*audio.SampleRate*4) + 256<<20
	dir := t.TempDir()
	write := testenv.FileWriter(t, dir)
	eighteenHours := audiotest.SilentFLAC(1000, 18*3600)
	// Ten minutes of silence at 48 kHz, which the patched header stretches to 8 hours.
	silence := audiotest.FFmpeg(t, "silence.ogg", "-f", "lavfi", "-i", "anullsrc=r=48000:cl=mono", "-t", "600", "-c:a", "libvorbis")
	declared := write("declared.flac", eighteenHours)
	cases := []struct {
		name string
		file string
		args []string
		says string
	}{
		{"FLAC of 18 h at 1 kHz, length declared", declared, nil, "longer than " + transcribeMaxAudio.String()},
		{"FLAC of 18 h at 1 kHz, length not declared", write("undeclared.flac", audiotest.HideLength(eighteenHours)), nil, "longer than " + transcribeMaxAudio.String()},
		{"Ogg Vorbis of 10 min patched to 1 kHz", write("slow.ogg", audiotest.PatchVorbisRate(t, silence, 1000)), nil, "longer than " + transcribeMaxAudio.String()},
		{"FLAC of 18 h, --max-audio 30m", declared, []string{"--max-audio", "30m"}, "longer than 30m0s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			info, err := os.Stat(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			r, rss := underAddressLimit(t, addressLimit, append([]string{"transcribe", tc.file}, tc.args...)...)
			t.Logf("%d-byte file: exit %d, peak RSS %d MiB: %s", info.Size(), r.code, rss>>20, strings.TrimSpace(r.stderr))
			msg := strings.TrimSpace(r.stderr)
			if r.code != 2 || strings.Contains(msg, "\n") || !strings.Contains(msg, tc.file) || !strings.Contains(msg, tc.says) || !strings.Contains(msg, "--max-audio") {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line naming the file, %q and --max-audio", r.code, r.stderr, tc.says)
			}
			if rss > rssBound {
				t.Fatalf("peak RSS %d MiB; the bound is %d MiB", rss>>20, rssBound>>20)
			}
		})
	}
	t.Run("speech under the same limit", func(t *testing.T) {
		const said = "Remember to buy milk, bread and eggs on the way home."
		t.Setenv("WHISPERKEY_ENGINE_ROOT", filepath.Dir(testenv.EngineDir(t)))
		r, rss := underAddressLimit(t, addressLimit, "transcribe", speechWAV(t, said), "--model", testenv.Model(t, "base"), "--device", "cpu")
		t.Logf("exit %d, peak RSS %d MiB: %q", r.code, rss>>20, r.stdout)
		if r.code != 0 || whisper.WordErrorRate(said, r.stdout) > 0.15 {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
}

// flagDefault is the default of a command's --name flag as its --help prints
// it: the built binary's own value, not a copy of it.
func flagDefault(t *testing.T, command, name string) time.Duration {
	t.Helper()
	r := whisperkey(t, command, "--help")
	_, after, ok := strings.Cut(r.stdout+r.stderr, "\n  -"+name+" ")
	if !ok {
		t.Fatalf("%s --help names no --%s:\n%s", command, name, r.stderr)
	}
	_, def, ok := strings.Cut(strings.SplitN(after, "\n  -", 2)[0], "(default ")
	if !ok {
		t.Fatalf("%s --help gives --%s no default:\n%s", command, name, after)
	}
	d, err := time.ParseDuration(strings.TrimSuffix(strings.TrimSpace(def), ")"))
	if err != nil {
		t.Fatalf("%s --%s default: %v", command, name, err)
	}
	return d
}
