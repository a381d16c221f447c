package libcompare

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// realTranscripts are the human transcripts of the real-speech set, as
// Whisper writes them (a leading space).
func realTranscripts() []string {
	b, err := os.ReadFile(os.Getenv("LIBCOMPARE_MANIFEST"))
	if err != nil {
		panic(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		_, t, _ := strings.Cut(l, "\t")
		out = append(out, " "+t)
	}
	return out
}

// adversarial are texts built to stress the parse: Whisper-style loops of the
// real sentences, periodic strings of every period to 300 at lengths around
// zlib's limits, small alphabets and runs with noise, raw bytes included.
func adversarial() []string {
	rng := rand.New(rand.NewPCG(48, 5))
	real := realTranscripts()
	var t []string
	// Whisper-style loops of the real sentences, with variations.
	for _, s := range real {
		for _, k := range []int{2, 3, 7, 20, 60, 200} {
			t = append(t, strings.Repeat(s, k))
			t = append(t, strings.Repeat(strings.TrimSuffix(s, ".")+",", k)+s)
		}
	}
	var all strings.Builder
	for _, s := range real {
		all.WriteString(s)
		t = append(t, all.String())
	}
	// periodic strings of every period 1..300 at several lengths
	for p := 1; p <= 300; p++ {
		unit := make([]byte, p)
		for i := range unit {
			unit[i] = byte('a' + rng.IntN(26))
		}
		for _, n := range []int{p * 2, 259, 1000 + p, 4096 + p, 20000 + 7*p} {
			t = append(t, string(bytes.Repeat(unit, n/p+1)[:n]))
		}
	}
	// small alphabets
	for _, a := range []int{1, 2, 3, 4, 8, 16, 64, 256} {
		for _, n := range []int{10, 100, 1000, 5000, 16383, 16384, 32768, 50000, 65000} {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(rng.IntN(a))
			}
			t = append(t, string(b))
		}
	}
	// runs with rare noise
	for _, n := range []int{300, 3000, 30000, 65000} {
		b := bytes.Repeat([]byte{'x'}, n)
		for i := 0; i < n/50; i++ {
			b[rng.IntN(n)] = byte(rng.IntN(256))
		}
		t = append(t, string(b))
	}
	return t
}

func beyond() []string { // past the documented 65274-byte exact range
	real := realTranscripts()
	var b strings.Builder
	var t []string
	rng := rand.New(rand.NewPCG(1, 2))
	for b.Len() < 200000 {
		b.WriteString(real[rng.IntN(len(real))])
		if l := b.Len(); l > 65274 && len(t) < 8 && rng.IntN(20) == 0 {
			t = append(t, b.String())
		}
	}
	return append(t, b.String())
}

// pySizes are Python's len(zlib.compress(text)), the texts passed as base64
// so that bytes outside UTF-8 arrive as they are.
func pySizes(t testing.TB, texts []string) []int {
	var enc []string
	for _, x := range texts {
		enc = append(enc, base64.StdEncoding.EncodeToString([]byte(x)))
	}
	b, _ := json.Marshal(enc)
	f := t.TempDir() + "/t.json"
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(os.Getenv("LIBCOMPARE_PYTHON"), "ref64.py", f).Output()
	if err != nil {
		t.Fatal(err)
	}
	var r []int
	for _, f := range strings.Fields(string(out)) {
		n, _ := strconv.Atoi(f)
		r = append(r, n)
	}
	return r
}

func goZlib(data []byte) int {
	var buf bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&buf, 6)
	zw.Write(data)
	zw.Close()
	return buf.Len()
}

// TestExactness prints, per set, how often each encoder's size differs from
// Python's, and fails where zlibSize does.
func TestExactness(t *testing.T) {
	m := newModernc()
	for _, set := range []struct {
		name  string
		texts []string
	}{{"repo test corpus", compressionTexts()}, {"real transcripts", realTranscripts()}, {"adversarial", adversarial()}, {"beyond 65274 B", beyond()}} {
		want := pySizes(t, set.texts)
		var ours, mzd, god int
		var maxRatioErrOurs, maxRatioErrGo float64
		var bytesTot int
		for i, s := range set.texts {
			bytesTot += len(s)
			w := want[i]
			o := zlibSize([]byte(s))
			if o != w {
				ours++
				if ours <= 3 {
					t.Logf("%s: ours differs on %d bytes: %d vs %d", set.name, len(s), o, w)
				}
				if e := abs(float64(len(s))/float64(o) - float64(len(s))/float64(w)); e > maxRatioErrOurs {
					maxRatioErrOurs = e
				}
			}
			if mm := m.size([]byte(s)); mm != w {
				mzd++
			}
			if g := goZlib([]byte(s)); g != w {
				god++
				if e := abs(float64(len(s))/float64(g) - float64(len(s))/float64(w)); e > maxRatioErrGo {
					maxRatioErrGo = e
				}
			}
		}
		if ours > 0 {
			t.Errorf("%s: zlibSize differs from Python's zlib on %d texts", set.name, ours)
		}
		fmt.Printf("| %s | %d texts, %d B | ours differs %d (max ratio err %.3f) | modernc.org/z differs %d | compress/zlib differs %d (max ratio err %.3f) |\n",
			set.name, len(set.texts), bytesTot, ours, maxRatioErrOurs, mzd, god, maxRatioErrGo)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// benchTexts: window-sized decodes (the real transcripts and loops), what the rule sees.
func benchTexts() [][]byte {
	var r [][]byte
	for _, s := range compressionTexts()[:1209] {
		r = append(r, []byte(s))
	}
	return r
}

func bench(b *testing.B, f func([]byte) int) {
	texts := benchTexts()
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range texts {
			f(t)
		}
	}
}

func BenchmarkOurs(b *testing.B)    { bench(b, zlibSize) }
func BenchmarkModernc(b *testing.B) { m := newModernc(); bench(b, m.size) }
func BenchmarkGoZlib(b *testing.B)  { bench(b, goZlib) }

// TestWritePyBench writes the benchmark's texts for pytime.py.
func TestWritePyBench(t *testing.T) {
	var s []string
	for _, x := range benchTexts() {
		s = append(s, string(x))
	}
	b, _ := json.Marshal(s)
	if err := os.WriteFile(os.Getenv("LIBCOMPARE_TEXTS"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}
