package e2e

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every package has exactly one package comment, one sentence in doc.go.
func TestPackageDocs(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.Name}}|{{.Dir}}|{{join .GoFiles ","}}`, "./...").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "|", 3)
		name, dir := f[0], f[1]
		var docs []string
		for _, file := range strings.Split(f[2], ",") {
			af, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, file), nil, parser.ParseComments|parser.PackageClauseOnly)
			if err != nil {
				t.Fatal(err)
			}
			if af.Doc != nil {
				docs = append(docs, file)
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

// pkgDeps is one package with its direct imports and all its dependencies.
type pkgDeps struct {
	path    string // relative to the module, e.g. internal/tray
	imports []string
	deps    []string // transitive
}

// layerRules says what a layer may not depend on: direct lists what its own
// files may not import; transitive what it may not reach through any path;
// leaf forbids every internal package outside the layer's own folder but the
// vocabulary.
type layerRules struct {
	direct, transitive []string
	leaf               bool
}

const mod = "github.com/whisperkey/whisperkey/"

// vocabulary is below every layer: the typed values the user picks (paste modes,
// placements), which config parses and the packages acting on them share.
const vocabulary = "internal/choice"

// layers: the state machine owns no OS calls and no engine; the decoder
// does not know the engine worker (internal/backend joins them; the per-window
// types are in internal/wire); the tray is a
// widget that knows nothing of what it controls; desktop composes the parts
// and touches no OS library itself. app, config, audio and wire are leaves,
// and textproc does not know config: desktop maps settings to its options.
var layers = map[string]layerRules{
	"internal/app": {leaf: true, transitive: []string{"github.com/gen2brain/malgo", "fyne.io/systray", "golang.design/x/hotkey",
		"golang.design/x/clipboard", "os/exec", "github.com/ebitengine/purego", "github.com/godbus/dbus/v5",
		mod + "internal/engine", mod + "internal/whisper", mod + "internal/audio", mod + "internal/output",
		mod + "internal/hotkey", mod + "internal/tray", mod + "internal/backend"}},
	"internal/whisper": {
		direct: []string{"github.com/ebitengine/purego", "os/exec"},
		transitive: []string{"fyne.io/systray", "github.com/gen2brain/malgo", "golang.design/x/clipboard",
			"github.com/godbus/dbus/v5", mod + "internal/audio", mod + "internal/output", mod + "internal/tray",
			mod + "internal/desktop", mod + "internal/config", mod + "internal/engine"}},
	"internal/wire": {leaf: true, transitive: []string{"github.com/ebitengine/purego", "os/exec"}},
	"internal/config": {leaf: true, transitive: []string{"golang.design/x/hotkey", "fyne.io/systray",
		"github.com/ebitengine/purego"}},
	"internal/audio": {leaf: true},
	// Every per-user path is worked out here, from the environment alone.
	"internal/paths":    {leaf: true},
	vocabulary:          {leaf: true},
	"internal/textproc": {transitive: []string{mod + "internal/config"}},
	"internal/gpu":      {transitive: []string{"github.com/ebitengine/purego", mod + "internal/engine"}},
	"internal/models":   {transitive: []string{mod + "internal/engine", "github.com/ebitengine/purego"}},
	"internal/tray": {transitive: []string{mod + "internal/engine", mod + "internal/whisper", mod + "internal/backend",
		mod + "internal/audio", mod + "internal/output", mod + "internal/hotkey", mod + "internal/models",
		mod + "internal/config", mod + "internal/app", mod + "internal/desktop", "github.com/ebitengine/purego",
		"github.com/gen2brain/malgo"}},
	// The dictation pipeline knows engines only through its Engine interface:
	// local or remote, the same stages run.
	"internal/dictation": {transitive: []string{"github.com/ebitengine/purego", "os/exec", "github.com/gen2brain/malgo",
		"fyne.io/systray", "golang.design/x/clipboard", "golang.design/x/hotkey", "github.com/godbus/dbus/v5",
		mod + "internal/engine", mod + "internal/backend", mod + "internal/remote", mod + "internal/server",
		mod + "internal/desktop", mod + "internal/audio", mod + "internal/output"}},
	"internal/desktop": {direct: []string{"github.com/ebitengine/purego", "github.com/gen2brain/malgo",
		"fyne.io/systray", "golang.design/x/clipboard", "golang.design/x/hotkey", "github.com/godbus/dbus/v5"}},
	// The command layer: arguments, subcommands and wiring, with no OS
	// library of its own.
	commandLayer: {direct: []string{"github.com/ebitengine/purego", "github.com/gen2brain/malgo",
		"fyne.io/systray", "golang.design/x/clipboard", "golang.design/x/hotkey", "github.com/godbus/dbus/v5"}},
}

// commandLayer is the top floor under main.go: no package but main imports it.
const commandLayer = "internal/commands"

// purego loads the engine library (engine) and X11/XTest (output) only; hotkey may.
var puregoUsers = []string{"internal/engine", "internal/output", "internal/hotkey"}

func under(rel, prefix string) bool { return rel == prefix || strings.HasPrefix(rel, prefix+"/") }

// layerViolations lists every rule that pkgs break.
func layerViolations(pkgs []pkgDeps, rules map[string]layerRules) []string {
	var bad []string
	for _, p := range pkgs {
		if p.path != strings.TrimSuffix(mod, "/") && !under(p.path, commandLayer) && slices.Contains(p.deps, mod+commandLayer) {
			bad = append(bad, p.path+" depends on "+mod+commandLayer+"; only main may, the commands are the top floor")
		}
		if slices.Contains(p.imports, "github.com/ebitengine/purego") &&
			!slices.ContainsFunc(puregoUsers, func(u string) bool { return under(p.path, u) }) {
			bad = append(bad, p.path+" imports purego; only "+strings.Join(puregoUsers, ", ")+" may")
		}
		for prefix, r := range rules {
			if !under(p.path, prefix) {
				continue
			}
			for _, b := range r.direct {
				if slices.Contains(p.imports, b) {
					bad = append(bad, p.path+" imports "+b+", which its layer forbids")
				}
			}
			for _, b := range r.transitive {
				if slices.Contains(p.deps, b) {
					bad = append(bad, p.path+" depends on "+b+" (directly or through another package), which its layer forbids")
				}
			}
			for _, d := range p.deps {
				if rel, ours := strings.CutPrefix(d, mod); r.leaf && ours && under(rel, "internal") && !under(rel, prefix) && !under(rel, vocabulary) {
					bad = append(bad, p.path+" depends on "+d+"; its layer imports nothing internal")
				}
			}
		}
	}
	slices.Sort(bad)
	return bad
}

// TestLayering checks every package's direct and transitive imports.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Imports ","}}|{{join .Deps ","}}`, "./...").Output()
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []pkgDeps
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "|", 3)
		p := pkgDeps{path: strings.TrimPrefix(f[0], mod), imports: strings.Split(f[1], ","), deps: strings.Split(f[2], ",")}
		seen[p.path] = true
		pkgs = append(pkgs, p)
	}
	for layer := range layers {
		if !seen[layer] {
			t.Errorf("layer %s names no package", layer)
		}
	}
	for _, v := range layerViolations(pkgs, layers) {
		t.Error(v)
	}
}

// The rules catch a dependency that only arrives through another package.
func TestLayerViolations(t *testing.T) {
	tests := []struct {
		name string
		pkgs []pkgDeps
		want []string
	}{
		{"tray reaching the engine through a helper", []pkgDeps{{path: "internal/tray",
			imports: []string{mod + "internal/tray/helper"}, deps: []string{mod + "internal/tray/helper", mod + "internal/engine"}}},
			[]string{"internal/tray depends on " + mod + "internal/engine (directly or through another package), which its layer forbids"}},
		{"app reaching os/exec through a dependency", []pkgDeps{{path: "internal/app",
			imports: []string{mod + "internal/app/x"}, deps: []string{mod + "internal/app/x", "os/exec"}}},
			[]string{"internal/app depends on os/exec (directly or through another package), which its layer forbids"}},
		{"whisper may not reach the engine", []pkgDeps{{path: "internal/whisper",
			imports: []string{mod + "internal/engine"}, deps: []string{mod + "internal/engine", "github.com/ebitengine/purego"}}},
			[]string{"internal/whisper depends on " + mod + "internal/engine (directly or through another package), which its layer forbids"}},
		{"whisper may not import purego itself", []pkgDeps{{path: "internal/whisper",
			imports: []string{"github.com/ebitengine/purego"}, deps: []string{"github.com/ebitengine/purego"}}},
			[]string{"internal/whisper imports github.com/ebitengine/purego, which its layer forbids",
				"internal/whisper imports purego; only internal/engine, internal/output, internal/hotkey may"}},
		{"config may import nothing internal", []pkgDeps{{path: "internal/config",
			imports: []string{mod + "internal/envvars"}, deps: []string{mod + "internal/envvars"}}},
			[]string{"internal/config depends on " + mod + "internal/envvars; its layer imports nothing internal"}},
		{"config may use the vocabulary", []pkgDeps{{path: "internal/config",
			imports: []string{mod + vocabulary}, deps: []string{mod + vocabulary}}}, nil},
		{"the vocabulary is a leaf", []pkgDeps{{path: vocabulary,
			imports: []string{mod + "internal/envvars"}, deps: []string{mod + "internal/envvars"}}},
			[]string{vocabulary + " depends on " + mod + "internal/envvars; its layer imports nothing internal"}},
		{"audio's own test helpers are its own", []pkgDeps{{path: "internal/audio/audiotest",
			imports: []string{mod + "internal/audio"}, deps: []string{mod + "internal/audio"}}}, nil},
		{"the commands call no OS library themselves", []pkgDeps{{path: "internal/commands",
			imports: []string{"golang.design/x/clipboard"}, deps: []string{"golang.design/x/clipboard"}}},
			[]string{"internal/commands imports golang.design/x/clipboard, which its layer forbids"}},
		{"no package below reaches back up to the commands", []pkgDeps{{path: "internal/desktop",
			imports: []string{mod + "internal/desktop/x"}, deps: []string{mod + "internal/desktop/x", mod + commandLayer}}},
			[]string{"internal/desktop depends on " + mod + commandLayer + "; only main may, the commands are the top floor"}},
		{"main may import the commands", []pkgDeps{{path: strings.TrimSuffix(mod, "/"),
			imports: []string{mod + commandLayer}, deps: []string{mod + commandLayer}}}, nil},
		{"textproc may not reach config", []pkgDeps{{path: "internal/textproc",
			imports: []string{mod + "internal/config"}, deps: []string{mod + "internal/config"}}},
			[]string{"internal/textproc depends on " + mod + "internal/config (directly or through another package), which its layer forbids"}},
		{"the pipeline may not reach the engine", []pkgDeps{{path: "internal/dictation",
			imports: []string{mod + "internal/backend"}, deps: []string{mod + "internal/backend", mod + "internal/engine"}}},
			[]string{"internal/dictation depends on " + mod + "internal/backend (directly or through another package), which its layer forbids",
				"internal/dictation depends on " + mod + "internal/engine (directly or through another package), which its layer forbids"}},
		{"desktop imports malgo directly", []pkgDeps{{path: "internal/desktop",
			imports: []string{"github.com/gen2brain/malgo"}, deps: []string{"github.com/gen2brain/malgo"}}},
			[]string{"internal/desktop imports github.com/gen2brain/malgo, which its layer forbids"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := layerViolations(tc.pkgs, layers); !slices.Equal(got, tc.want) {
				t.Fatalf("violations\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func mustGetwd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// Every per-user folder is worked out in internal/paths: the OS's folder
// lookups appear nowhere else in the program (tests aside).
func TestPathsHaveOneOwner(t *testing.T) {
	lookups := []string{"os.UserCacheDir", "os.UserConfigDir", "os.UserHomeDir"}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (path == "native" || path == "build" || strings.HasPrefix(d.Name(), ".") && path != "."):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || under(filepath.ToSlash(path), "internal/paths"):
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, l := range lookups {
			if strings.Contains(string(src), l+"(") {
				t.Errorf("%s calls %s; ask internal/paths instead", path, l)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
