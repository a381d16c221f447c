package vad_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/vad"
	"github.com/whisperkey/whisperkey/internal/vad/vadtest"
)

// Agreement with faster-whisper's Silero, which runs the same model through
// ONNX Runtime: probabilities within probTolerance, segment edges within one
// 32-ms window.
const (
	probTolerance = 1e-3
	edgeTolerance = vad.Window
)

type clip struct {
	name    string
	samples []float32
	speech  bool
}

func clips(t *testing.T) []clip {
	var cs []clip
	for _, c := range testenv.RealSpeech(t) {
		cs = append(cs, clip{c.Name, c.Samples, true})
	}
	spoken := testenv.Speech(t, "Please call me back when you get this message.")
	padded := append(append(make([]float32, 16000), spoken...), make([]float32, 24000)...)
	cs = append(cs,
		clip{"espeak with silence around", padded, true},
		clip{"pink noise", testenv.PinkNoise(3, 1), false},
		clip{"clicks", testenv.Clicks(3, 2), false},
		clip{"breathing", testenv.Breathing(4, 3), false},
	)
	return cs
}

type reference struct {
	Probs    []float32 `json:"probs"`
	Segments [][2]int  `json:"segments"`
}

func references(t *testing.T, cs []clip, padMs int) []reference {
	dir := t.TempDir()
	args := []string{filepath.Join("testdata", "vad_ref.py"), strconv.Itoa(padMs)}
	for i, c := range cs {
		var buf bytes.Buffer
		if err := binary.Write(&buf, binary.LittleEndian, c.samples); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, strconv.Itoa(i)+".f32")
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	out, err := exec.Command(testenv.Python(t), args...).Output()
	if err != nil {
		t.Fatalf("vad_ref.py: %v", err)
	}
	var refs []reference
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r reference
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, r)
	}
	if len(refs) != len(cs) {
		t.Fatalf("vad_ref.py gave %d results for %d clips", len(refs), len(cs))
	}
	return refs
}

func TestMatchesFasterWhisper(t *testing.T) {
	d := vadtest.Open(t)
	cs := clips(t)
	for _, padMs := range []int{400, 300} {
		refs := references(t, cs, padMs)
		for i, c := range cs {
			t.Run(strconv.Itoa(padMs)+"ms/"+c.name, func(t *testing.T) {
				probs, err := d.Probs(c.samples)
				if err != nil {
					t.Fatal(err)
				}
				want := refs[i]
				if len(probs) != len(want.Probs) {
					t.Fatalf("%d probabilities, faster-whisper has %d", len(probs), len(want.Probs))
				}
				worst := 0.0
				for k := range probs {
					worst = max(worst, math.Abs(float64(probs[k]-want.Probs[k])))
				}
				for k := range probs {
					if math.Abs(float64(probs[k]-want.Probs[k])) > probTolerance {
						t.Logf("window %d of %d: %g vs %g", k, len(probs), probs[k], want.Probs[k])
					}
				}
				if worst > probTolerance {
					t.Errorf("probabilities differ by up to %.2g (tolerance %g)", worst, probTolerance)
				}
				o := vad.DefaultOptions()
				o.SpeechPadMs = padMs
				segs, err := d.Segments(c.samples, o)
				if err != nil {
					t.Fatal(err)
				}
				if len(segs) != len(want.Segments) {
					t.Fatalf("segments %v, faster-whisper %v", segs, want.Segments)
				}
				for k, s := range segs {
					w := want.Segments[k]
					if abs(s.Start-w[0]) > edgeTolerance || abs(s.End-w[1]) > edgeTolerance {
						t.Errorf("segment %d = [%d, %d), faster-whisper [%d, %d)", k, s.Start, s.End, w[0], w[1])
					}
				}
				if c.speech != (len(segs) > 0) {
					t.Errorf("speech found: %v, want %v (segments %v)", len(segs) > 0, c.speech, segs)
				}
			})
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// A folder without the model or the library is a clear error, not a crash:
// callers then run without a detector.
func TestFindReportsWhatIsMissing(t *testing.T) {
	empty := t.TempDir()
	if _, _, err := vad.Find(empty); err == nil || !strings.Contains(err.Error(), "speech detector model") {
		t.Errorf("Find(empty folder) = %v, want an error naming the model", err)
	}
	onlyModel := t.TempDir()
	if err := os.WriteFile(filepath.Join(onlyModel, vad.ModelFile), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := vad.Find(onlyModel); err == nil || !strings.Contains(err.Error(), "ONNX Runtime library") {
		t.Errorf("Find(model only) = %v, want an error naming the library", err)
	}
}

// TestSpeechGateIsConservative: the gate in front of decoding skips a press
// only when it is sure nobody spoke. Whispers, quiet and far-away speech,
// clipped speech and one-word answers count as speech (Silero's own 0.5
// threshold drops several of them); noise-only presses (seeds the tuning
// did not use) do not.
func TestSpeechGateIsConservative(t *testing.T) {
	d := vadtest.Open(t)
	const sentence = "Please call me back when you get this message."
	whisper := func(text string) []float32 { return testenv.SpeechWith(t, text, "-v", "en+whisper") }
	speech := []struct {
		name    string
		samples []float32
	}{
		{"whispered sentence", whisper(sentence)},
		{"whispered sentence at -30 dBFS", testenv.AtPeak(whisper("So I was thinking we could meet at the cafe near the station tomorrow morning."), -30)},
		{"female whisper at -30 dBFS", testenv.AtPeak(testenv.SpeechWith(t, sentence, "-v", "en+whisperf"), -30)},
		{"sentence at -30 dBFS", testenv.AtPeak(testenv.Speech(t, sentence), -30)},
		{"far field", testenv.FarField(t, testenv.Speech(t, sentence), 80, -12)},
		{"clipped", testenv.Clipped(testenv.Speech(t, sentence), 20)},
		{"yes", testenv.Speech(t, "yes")},
		{"okay", testenv.Speech(t, "okay")},
		{"whispered okay", whisper("okay")},
		{"whispered yes at -30 dBFS", testenv.AtPeak(whisper("yes"), -30)},
	}
	for _, tc := range speech {
		t.Run("speech/"+tc.name, func(t *testing.T) {
			start, end, ok, err := d.Speech(tc.samples)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Fatalf("no speech found in %.2f s of %s", float64(len(tc.samples))/16000, tc.name)
			}
			// The range's end must not cut the words (its start is not
			// used: Silero cannot place the start of a whisper).
			if end < len(tc.samples)*3/4 {
				t.Errorf("speech range [%d, %d) of %d samples cuts into the words", start, end, len(tc.samples))
			}
		})
	}
	for seed := uint64(101); seed < 111; seed++ {
		for _, tc := range []struct {
			name    string
			samples []float32
		}{
			{"pink noise", testenv.PinkNoise(3, seed)},
			{"clicks", testenv.Clicks(3, seed)},
			{"breathing", testenv.Breathing(4, seed)},
			{"typing", testenv.Typing(4, seed)},
			{"typing over pink noise", addTo(testenv.Typing(4, seed), testenv.PinkNoise(4, seed+1000))},
		} {
			t.Run(fmt.Sprintf("noise/%s/%d", tc.name, seed), func(t *testing.T) {
				start, end, ok, err := d.Speech(tc.samples)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					t.Errorf("speech found in %s: [%d, %d)", tc.name, start, end)
				}
			})
		}
	}
}

// addTo adds b onto a, over a's length.
func addTo(a, b []float32) []float32 {
	for i := range min(len(a), len(b)) {
		a[i] += b[i]
	}
	return a
}
