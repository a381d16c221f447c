//go:build linux

package indicator

import (
	"image"
	"log/slog"
	"strings"
	"testing"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/testenv"
	"github.com/whisperkey/whisperkey/internal/testlog"
)

// Live text on the layer surface under real headless sway: what the
// output shows is, pixel for pixel, the frame with the newest whole words
// fitted at the Go font, and a newer text replaces it in place.
func TestLayerShellLiveText(t *testing.T) {
	s := testenv.StartSway(t, "")
	env := map[string]string{}
	for _, kv := range s.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	ind, err := New(Config{Placement: choice.Bottom, Getenv: func(k string) string { return env[k] }},
		testlog.New(t, slog.LevelDebug))
	if err != nil {
		t.Fatal(err)
	}
	defer ind.Close()
	face, err := newFace()
	if err != nil {
		t.Fatal(err)
	}
	r := image.Rect((1280-Width)/2, 800-Height-48, (1280+Width)/2, 800-48) // bottom centre of the 1280x800 output
	ind.Show(Recording, "")
	var last string
	for _, said := range []string{
		"The quarterly report is due on Friday afternoon.",
		"The quarterly report is due on Friday afternoon. Let us meet in the small conference room at ten.",
	} {
		ind.Live(said)
		shot := s.Screenshot(t)
		v := view{state: Recording, text: said, live: true}
		label := recordingLabel(measurer(face), v, contentRight-contentLeft)
		if !strings.HasSuffix(said, strings.TrimPrefix(label, "…")) || label == last {
			t.Errorf("label %q: not the newest words of %q, or not new", label, said)
		}
		last = label
		want := image.NewRGBA(image.Rect(0, 0, Width, Height))
		render(want, face, v)
		diff := 0
		for y := range Height {
			for x := range Width {
				if shot.RGBAAt(r.Min.X+x, r.Min.Y+y) != want.RGBAAt(x, y) {
					diff++
				}
			}
		}
		if diff != 0 {
			t.Errorf("live %q: %d pixels on the output differ from the frame", label, diff)
		}
		t.Logf("shown %q", label)
	}
}
