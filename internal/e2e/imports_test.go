package e2e

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// allowedImports is every package of the module with the packages of ours
// it may import, one row each, for Linux and Windows together. Names drop
// the module path and "internal/"; "." is the root package. A new package
// or a new import is a one-line edit here, after which
// `go test ./internal/e2e -run TestAllowedImports -update` redraws the table in
// docs/architecture.md. The rules on OS libraries and on what a layer may
// reach at all stay in TestLayering.
var allowedImports = map[string][]string{
	".":                        {"commands"},
	"assets":                   nil,
	"assets/gen":               nil,
	"scripts/winget":           nil,
	"app":                      nil,
	"audio":                    nil,
	"audio/audiotest":          nil,
	"authenticode":             nil,
	"autostart":                {"paths"},
	"backend":                  {"audio", "authenticode", "choice", "cublas", "engine", "gpu", "models", "models/ct2bin", "whisper"},
	"choice":                   nil,
	"cleanup":                  {"textproc"},
	"config":                   {"choice"},
	"config/configtest":        {"config"},
	"control":                  {"hotkey", "paths", "textproc"},
	"cublas":                   {"models"},
	"cublas/cublastest":        {"cublas"},
	"desktop":                  {"app", "audio", "choice", "config", "control", "dictation", "engine", "feedback", "gpu", "hotkey", "indicator", "loader", "media", "models", "notify", "output", "power", "service", "tray", "vad"},
	"dictation":                {"app", "cleanup", "config", "textproc", "whisper"},
	"engine":                   {"choice", "paths", "wire"},
	"envvars":                  nil,
	"gpu":                      {"choice", "win32"},
	"history":                  {"paths"},
	"hotkey":                   {"choice"},
	"hotkey/evdev":             {"hotkey", "paths"},
	"hotkey/grab":              {"hotkey", "win32"},
	"indicator":                {"choice", "notify", "session", "win32", "wlwire"},
	"instance":                 {"paths"},
	"logging":                  nil,
	"models":                   {"choice", "models/ct2bin", "paths", "whisper"},
	"models/ct2bin":            nil,
	"models/ct2bin/ct2bintest": {"models/ct2bin"},
	"models/hubtest":           nil,
	"notify":                   {"win32"},
	"output":                   {"app", "choice", "cleanup", "config", "portal", "session", "textproc", "win32", "wlwire"},
	"portal":                   {"hotkey"},
	"power":                    nil,
	"remote":                   {"audio", "textproc", "whisper"},
	"server":                   {"audio", "choice", "whisper"},
	"server/servertest":        {"server"},
	"session":                  {"hotkey/evdev", "portal", "power", "wlwire"},
	"tabletest":                nil,
	"testenv":                  {"engine", "paths"},
	"testlog":                  nil,
	"textproc":                 nil,
	"tray":                     {"assets"},
	"tray/demo":                {"tray"},
	"tray/traytest":            nil,
	"vad":                      nil,
	"vad/vadtest":              {"testenv", "vad"},
	"whisper":                  {"choice", "models/ct2bin", "textproc", "wire"},
	"win32":                    nil,
	"wire":                     nil,
	"wlwire":                   nil,
	"commands":                 {"audio", "authenticode", "backend", "choice", "config", "control", "cublas", "desktop", "dictation", "engine", "envvars", "gpu", "history", "hotkey", "hotkey/evdev", "hotkey/grab", "instance", "loader", "logging", "models", "models/ct2bin", "notify", "paths", "portal", "power", "remote", "server", "session", "textproc", "vad", "whisper"},
	"e2e":                      nil,
	"feedback":                 {"app", "assets", "audio", "autostart", "choice", "config", "history", "indicator", "notify", "output", "paths", "tray", "whisper"},
	"loader":                   {"backend", "choice", "config", "cublas", "dictation", "engine", "gpu", "models", "notify", "tray", "whisper"},
	"media":                    {"choice", "win32"},
	"paths":                    nil,
	"service":                  nil,
}

var update = flag.Bool("update", false, "redraw the generated parts of docs/architecture.md")

// shortName is a package's name in allowedImports.
func shortName(importPath string) (string, bool) {
	if importPath == strings.TrimSuffix(mod, "/") {
		return ".", true
	}
	rel, ours := strings.CutPrefix(importPath, mod)
	if !ours {
		return "", false
	}
	return strings.TrimPrefix(rel, "internal/"), true
}

// moduleImports is each package's imports of ours, as go list reports them
// for Linux and for Windows together.
func moduleImports(t *testing.T) map[string][]string {
	got := map[string][]string{}
	for _, goos := range []string{"linux", "windows"} {
		cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Imports ","}}`, "./...")
		cmd.Env = append(os.Environ(), "GOOS="+goos)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list for %s: %v", goos, err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			path, imports, _ := strings.Cut(line, "|")
			p, _ := shortName(path)
			got[p] = append(got[p], []string(nil)...) // a package importing nothing of ours still has a row
			for _, i := range strings.Split(imports, ",") {
				if s, ours := shortName(i); ours && !slices.Contains(got[p], s) {
					got[p] = append(got[p], s)
				}
			}
		}
	}
	return got
}

// importTableProblems compares the packages' imports with the table: a
// package without a row, a row without a package, an import its row does
// not allow, and an allowance no file uses (the table says what is, so
// the drawing in docs/architecture.md is true).
func importTableProblems(imports, table map[string][]string) []string {
	var bad []string
	for p, is := range imports {
		allowed, ok := table[p]
		if !ok {
			row := "nil"
			if len(is) > 0 {
				row = "{" + quoteList(is) + "}"
			}
			bad = append(bad, fmt.Sprintf("package %s has no row in allowedImports (internal/e2e/imports_test.go): add the line %q: %s, and run `go test ./internal/e2e -run TestAllowedImports -update` to redraw docs/architecture.md",
				p, p, row))
			continue
		}
		for _, i := range is {
			if !slices.Contains(allowed, i) {
				bad = append(bad, fmt.Sprintf("%s imports %s, which its row in allowedImports (internal/e2e/imports_test.go) does not allow: if it belongs there add %q to the row, then run `go test ./internal/e2e -run TestAllowedImports -update`", p, i, i))
			}
		}
		for _, a := range allowed {
			if !slices.Contains(is, a) {
				bad = append(bad, fmt.Sprintf("%s's row in allowedImports allows %s, which it no longer imports: take %q out of the row", p, a, a))
			}
		}
	}
	for p := range table {
		if _, ok := imports[p]; !ok {
			bad = append(bad, fmt.Sprintf("allowedImports has a row for %s, which is no package of the module (moved or removed?): rename or delete the row", p))
		}
	}
	slices.Sort(bad)
	return bad
}

func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	slices.Sort(q)
	return strings.Join(q, ", ")
}

// floors numbers each package by the longest chain of imports below it:
// 0 for a package importing nothing of ours. A cycle in the table is an error.
func floors(table map[string][]string) (map[string]int, error) {
	floor := map[string]int{}
	visiting := map[string]bool{}
	var visit func(p string, path []string) error
	visit = func(p string, path []string) error {
		if _, done := floor[p]; done {
			return nil
		}
		if visiting[p] {
			return fmt.Errorf("allowedImports has a cycle: %s", strings.Join(append(path, p), " → "))
		}
		visiting[p] = true
		f := 0
		for _, i := range table[p] {
			if err := visit(i, append(path, p)); err != nil {
				return err
			}
			f = max(f, floor[i]+1)
		}
		floor[p] = f
		return nil
	}
	for p := range table {
		if err := visit(p, nil); err != nil {
			return nil, err
		}
	}
	return floor, nil
}

const (
	tableBegin = "<!-- allowed imports: drawn from allowedImports in internal/e2e/imports_test.go by `go test ./internal/e2e -run TestAllowedImports -update`; edit the table there -->"
	tableEnd   = "<!-- end of allowed imports -->"
)

// importTableMarkdown draws the table, top floor first.
func importTableMarkdown(table map[string][]string, floor map[string]int) string {
	pkgs := make([]string, 0, len(table))
	for p := range table {
		pkgs = append(pkgs, p)
	}
	slices.SortFunc(pkgs, func(a, b string) int {
		if floor[a] != floor[b] {
			return floor[b] - floor[a]
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	b.WriteString("| floor | package | may import (of ours) |\n| --- | --- | --- |\n")
	for _, p := range pkgs {
		allowed := slices.Sorted(slices.Values(table[p]))
		name := "`" + p + "`"
		if p == "." {
			name = "`main` (the root)"
		}
		uses := strings.Join(allowed, ", ")
		if uses == "" {
			uses = "—"
		}
		fmt.Fprintf(&b, "| %d | %s | %s |\n", floor[p], name, uses)
	}
	return b.String()
}

// TestAllowedImports holds every package to its row of allowedImports and
// docs/architecture.md to the table.
func TestAllowedImports(t *testing.T) {
	for _, p := range importTableProblems(moduleImports(t), allowedImports) {
		t.Error(p)
	}
	floor, err := floors(allowedImports)
	if err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join("docs", "architecture.md")
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(b), tableBegin+"\n")
	_, after, ok2 := strings.Cut(rest, tableEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s lacks the allowed-imports block: put the lines\n%s\n%s\nwhere the table belongs", doc, tableBegin, tableEnd)
	}
	want := before + tableBegin + "\n" + importTableMarkdown(allowedImports, floor) + tableEnd + after
	if want == string(b) {
		return
	}
	if *update {
		if err := os.WriteFile(doc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's table of allowed imports differs from allowedImports: run `go test ./internal/e2e -run TestAllowedImports -update`", doc)
}

func TestImportTableProblems(t *testing.T) {
	tests := []struct {
		name           string
		imports, table map[string][]string
		want           []string
	}{
		{"agrees", map[string][]string{"app": nil, "config": {"choice"}, "choice": nil},
			map[string][]string{"app": nil, "config": {"choice"}, "choice": nil}, nil},
		{"a new package without a row", map[string][]string{"paths": {"envvars"}, "envvars": nil, "e2e": nil},
			map[string][]string{"envvars": nil},
			[]string{`package e2e has no row in allowedImports (internal/e2e/imports_test.go): add the line "e2e": nil, and run ` + "`go test ./internal/e2e -run TestAllowedImports -update`" + ` to redraw docs/architecture.md`,
				`package paths has no row in allowedImports (internal/e2e/imports_test.go): add the line "paths": {"envvars"}, and run ` + "`go test ./internal/e2e -run TestAllowedImports -update`" + ` to redraw docs/architecture.md`}},
		{"an import the row does not allow", map[string][]string{"whisper": {"engine"}, "engine": nil},
			map[string][]string{"whisper": nil, "engine": nil},
			[]string{`whisper imports engine, which its row in allowedImports (internal/e2e/imports_test.go) does not allow: if it belongs there add "engine" to the row, then run ` + "`go test ./internal/e2e -run TestAllowedImports -update`"}},
		{"an allowance nothing uses", map[string][]string{"tray": nil, "assets": nil},
			map[string][]string{"tray": {"assets"}, "assets": nil},
			[]string{`tray's row in allowedImports allows assets, which it no longer imports: take "assets" out of the row`}},
		{"a row for a package that moved", map[string][]string{"commands": nil},
			map[string][]string{"commands": nil, ".": nil},
			[]string{"allowedImports has a row for ., which is no package of the module (moved or removed?): rename or delete the row"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := importTableProblems(tc.imports, tc.table); !slices.Equal(got, tc.want) {
				t.Fatalf("problems\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestFloors(t *testing.T) {
	f, err := floors(map[string][]string{"desktop": {"app", "config"}, "config": {"choice"}, "app": nil, "choice": nil})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{"desktop": 2, "config": 1, "app": 0, "choice": 0}; fmt.Sprint(f) != fmt.Sprint(want) {
		t.Fatalf("floors = %v, want %v", f, want)
	}
	if _, err := floors(map[string][]string{"a": {"b"}, "b": {"a"}}); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("a cycle gave %v, want an error naming it", err)
	}
}
