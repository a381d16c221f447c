package backend

import (
	"testing"

	"github.com/whisperkey/whisperkey/internal/models"
)

func TestDownloadedFallback(t *testing.T) {
	entry := func(name string, downloaded bool) models.Entry {
		for _, m := range models.Registry() {
			if m.Name == name {
				return models.Entry{Model: m, Downloaded: downloaded, Path: "/cache/" + name}
			}
		}
		return models.Entry{Model: models.Model{Name: name, Repo: name}, Downloaded: downloaded}
	}
	imported := func(name string, size int64) models.Entry {
		return models.Entry{Model: models.Model{Name: name, Local: "/cache/imported/" + name, Imported: true, Size: size},
			Downloaded: true, Path: "/cache/imported/" + name}
	}
	tests := []struct {
		name string
		list []models.Entry
		want string
		got  string // "" when none fits
	}{
		{"make model's pair on a CPU", []models.Entry{entry("tiny.en", true), entry("base", true), entry("base.en", false)}, "base.en", "base"},
		{"only a bigger one", []models.Entry{entry("small", true)}, "base.en", "small"},
		{"largest that fits", []models.Entry{entry("tiny", true), entry("small", true), entry("medium", true)}, "large-v3-turbo", "medium"},
		{"nothing downloaded", []models.Entry{entry("base.en", false)}, "base.en", ""},
		{"custom repos are not guessed", []models.Entry{entry("someone/whisper-x", true)}, "base.en", ""},
		{"an import when no built-in is downloaded", []models.Entry{entry("base.en", false), imported("office-small", 486e6), imported("office-base", 148e6)},
			"base.en", "office-base"},
		{"the smallest import when none fits", []models.Entry{imported("office-small", 486e6), imported("office-medium", 1.5e9)}, "base.en", "office-small"},
		{"a downloaded built-in before an import", []models.Entry{imported("office-base", 148e6), entry("tiny.en", true)}, "base.en", "tiny.en"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := downloadedFallback(tt.list, tt.want)
			if got := map[bool]string{true: e.Name, false: ""}[ok]; got != tt.got {
				t.Fatalf("downloadedFallback(%s) = %q, want %q", tt.want, got, tt.got)
			}
		})
	}
}
