package main

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every package has exactly one package comment, one sentence in doc.go.
func TestPackageDocs(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", "./...").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range strings.Fields(string(out)) {
		pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi os.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			t.Fatal(err)
		}
		for name, pkg := range pkgs {
			var docs []string
			for file, f := range pkg.Files {
				if f.Doc != nil {
					docs = append(docs, filepath.Base(file))
				}
			}
			rel, _ := filepath.Rel(mustGetwd(t), dir)
			switch {
			case len(docs) != 1:
				t.Errorf("package %s (%s) has package docs in %v, want exactly one", name, rel, docs)
			case name != "main" && docs[0] != "doc.go":
				t.Errorf("package %s (%s) has its doc in %s, want doc.go", name, rel, docs[0])
			}
		}
	}
}

// Layering: the state machine owns no OS calls, and only internal/engine
// touches the native library.
func TestLayering(t *testing.T) {
	forbidden := map[string][]string{
		"internal/app": {"github.com/gen2brain/malgo", "fyne.io/systray", "golang.design/x/hotkey",
			"golang.design/x/clipboard", "os/exec", "github.com/ebitengine/purego",
			"github.com/whisperkey/whisperkey/internal/engine"},
		"internal/whisper": {"github.com/ebitengine/purego", "os/exec", "fyne.io/systray", "github.com/gen2brain/malgo"},
		"internal/config":  {"golang.design/x/hotkey", "github.com/whisperkey/whisperkey/internal/hotkey/grab", "fyne.io/systray"},
		"internal/gpu":     {"github.com/ebitengine/purego", "github.com/whisperkey/whisperkey/internal/engine"},
		"internal/models":  {"github.com/whisperkey/whisperkey/internal/engine", "github.com/ebitengine/purego"},
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports ","}}`, "./...").Output()
	if err != nil {
		t.Fatal(err)
	}
	const mod = "github.com/whisperkey/whisperkey/"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		rel := strings.TrimPrefix(pkg, mod)
		for _, imp := range strings.Split(imports, ",") {
			if imp == "github.com/ebitengine/purego" && !strings.HasPrefix(rel, "internal/engine") &&
				!strings.HasPrefix(rel, "internal/output") && !strings.HasPrefix(rel, "internal/hotkey") {
				// purego loads the engine library (engine) and X11/XTest (output, hotkey) only.
				t.Errorf("%s imports purego; only internal/engine, internal/output and internal/hotkey may", rel)
			}
			for prefix, bad := range forbidden {
				if rel != prefix && !strings.HasPrefix(rel, prefix+"/") {
					continue
				}
				for _, b := range bad {
					if imp == b {
						t.Errorf("%s imports %s, which its layer forbids", rel, imp)
					}
				}
			}
		}
	}
}

func mustGetwd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
