package testenv

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// SourceOutput is one PulseAudio recording stream.
type SourceOutput struct {
	App, Media, PID string // application.name, media.name, application.process.id
}

func (s SourceOutput) String() string { return s.App + " / " + s.Media }

// SourceOutputs lists PulseAudio's recording streams (pactl list
// source-outputs): what a desktop's microphone-in-use indicator counts. A
// corked stream is listed too.
func SourceOutputs(t testing.TB) []SourceOutput {
	t.Helper()
	out, err := exec.Command("pactl", "list", "source-outputs").CombinedOutput()
	if err != nil {
		t.Fatalf("pactl list source-outputs: %v: %s", err, out)
	}
	var streams []SourceOutput
	for _, block := range strings.Split(string(out), "Source Output #")[1:] {
		var s SourceOutput
		for _, line := range strings.Split(block, "\n") {
			line = strings.TrimSpace(line)
			if v, ok := strings.CutPrefix(line, "application.name = "); ok {
				s.App = strings.Trim(v, `"`)
			} else if v, ok := strings.CutPrefix(line, "media.name = "); ok {
				s.Media = strings.Trim(v, `"`)
			} else if v, ok := strings.CutPrefix(line, "application.process.id = "); ok {
				s.PID = strings.Trim(v, `"`)
			}
		}
		streams = append(streams, s)
	}
	return streams
}

// Recording lists the recording streams of process pid ("app / media"
// each), so tests running beside others count only their own.
func Recording(t testing.TB, pid int) []string {
	t.Helper()
	var ours []string
	for _, s := range SourceOutputs(t) {
		if s.PID == strconv.Itoa(pid) {
			ours = append(ours, s.String())
		}
	}
	return ours
}
