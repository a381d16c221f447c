package e2e

import (
	"bytes"
	"crypto/sha256"
	"debug/pe"
	binenc "encoding/binary" // "binary" is a helper in main_test.go
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/whisperkey/whisperkey/internal/authenticode"
	"github.com/whisperkey/whisperkey/internal/testenv"
)

// The Windows artefacts: `make windows` builds the exe, `make installer` the setup.
const (
	windowsExe      = "build/windows/whisperkey.exe"
	windowsSetupGlb = "build/windows/whisperkey-setup-*.exe"
)

// Resource types (winuser.h).
const (
	rtIcon      = 3
	rtGroupIcon = 14
	rtVersion   = 16
	rtManifest  = 24
)

func TestWindowsExe(t *testing.T) {
	if _, err := os.Stat(windowsExe); err != nil {
		testenv.Require(t, windowsExe, "make windows")
	}
	f, err := pe.Open(windowsExe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
		t.Errorf("machine = %#x, want AMD64 (%#x)", f.Machine, pe.IMAGE_FILE_MACHINE_AMD64)
	}
	oh, ok := f.OptionalHeader.(*pe.OptionalHeader64)
	if !ok {
		t.Fatalf("optional header is %T, want PE32+ (*pe.OptionalHeader64)", f.OptionalHeader)
	}
	if oh.Subsystem != pe.IMAGE_SUBSYSTEM_WINDOWS_GUI {
		t.Errorf("subsystem = %d, want %d (GUI: no console window; built with -H windowsgui)", oh.Subsystem, pe.IMAGE_SUBSYSTEM_WINDOWS_GUI)
	}
	res, err := peResources(f, oh)
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []struct {
		id   uint32
		name string
	}{{rtIcon, "RT_ICON"}, {rtGroupIcon, "RT_GROUP_ICON"}, {rtVersion, "RT_VERSION"}, {rtManifest, "RT_MANIFEST"}} {
		if len(res[typ.id]) == 0 {
			t.Errorf("no %s resource (have types %v); scripts/windows.sh embeds installer/whisperkey.rc", typ.name, keys(res))
		}
	}
	if v := res[rtVersion]; len(v) > 0 {
		ver := v[0]
		// VS_FIXEDFILEINFO starts with this signature after the VS_VERSION_INFO header.
		if !bytes.Contains(ver, []byte{0xbd, 0x04, 0xef, 0xfe}) {
			t.Error("RT_VERSION has no VS_FIXEDFILEINFO")
		}
		for _, s := range []string{"ProductName", "WhisperKey", "FileVersion", "CompanyName", "LegalCopyright"} {
			if !bytes.Contains(ver, utf16le(s)) {
				t.Errorf("RT_VERSION lacks %q", s)
			}
		}
	}
	if m := res[rtManifest]; len(m) > 0 {
		for _, s := range []string{`level="asInvoker"`, "PerMonitorV2", "Microsoft.Windows.Common-Controls",
			"{8e0f7a12-bfb3-4fe8-b9a5-48fd50a15a9a}"} {
			if !bytes.Contains(m[0], []byte(s)) {
				t.Errorf("manifest lacks %s", s)
			}
		}
	}
}

// peResources walks the .rsrc tree (type → name → language → data), which
// debug/pe does not parse, and returns each type's data blobs.
func peResources(f *pe.File, oh *pe.OptionalHeader64) (map[uint32][][]byte, error) {
	dir := oh.DataDirectory[pe.IMAGE_DIRECTORY_ENTRY_RESOURCE]
	if dir.VirtualAddress == 0 || dir.Size == 0 {
		return nil, errors.New("the exe has no resource directory")
	}
	var sec *pe.Section
	for _, s := range f.Sections {
		if dir.VirtualAddress >= s.VirtualAddress && dir.VirtualAddress < s.VirtualAddress+max(s.VirtualSize, s.Size) {
			sec = s
		}
	}
	if sec == nil {
		return nil, fmt.Errorf("no section holds the resource directory at RVA %#x", dir.VirtualAddress)
	}
	data, err := sec.Data()
	if err != nil {
		return nil, fmt.Errorf("read section %s: %w", sec.Name, err)
	}
	base := dir.VirtualAddress - sec.VirtualAddress
	rsrc := data[base:]
	u32 := func(off uint32) (uint32, error) {
		if uint64(off)+4 > uint64(len(rsrc)) {
			return 0, fmt.Errorf("resource offset %#x out of range", off)
		}
		return binenc.LittleEndian.Uint32(rsrc[off:]), nil
	}
	// entries lists a directory's (id, offset) pairs; named entries get id 0.
	entries := func(off uint32) ([][2]uint32, error) {
		if uint64(off)+16 > uint64(len(rsrc)) {
			return nil, fmt.Errorf("resource directory at %#x out of range", off)
		}
		n := uint32(binenc.LittleEndian.Uint16(rsrc[off+12:])) + uint32(binenc.LittleEndian.Uint16(rsrc[off+14:]))
		var out [][2]uint32
		for i := uint32(0); i < n; i++ {
			e := off + 16 + 8*i
			name, err := u32(e)
			if err != nil {
				return nil, err
			}
			child, err := u32(e + 4)
			if err != nil {
				return nil, err
			}
			if name&0x80000000 != 0 {
				name = 0
			}
			out = append(out, [2]uint32{name, child})
		}
		return out, nil
	}
	const subdir = 0x80000000
	res := map[uint32][][]byte{}
	types, err := entries(0)
	if err != nil {
		return nil, err
	}
	for _, typ := range types {
		if typ[1]&subdir == 0 {
			return nil, fmt.Errorf("resource type %d is not a directory", typ[0])
		}
		names, err := entries(typ[1] &^ subdir)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			langs := [][2]uint32{name}
			if name[1]&subdir != 0 {
				if langs, err = entries(name[1] &^ subdir); err != nil {
					return nil, err
				}
			}
			for _, lang := range langs {
				if lang[1]&subdir != 0 {
					return nil, fmt.Errorf("resource tree deeper than type/name/language")
				}
				rva, err := u32(lang[1])
				if err != nil {
					return nil, err
				}
				size, err := u32(lang[1] + 4)
				if err != nil {
					return nil, err
				}
				// Data entries hold RVAs, not offsets into .rsrc.
				start := uint64(rva) - uint64(sec.VirtualAddress)
				if rva < sec.VirtualAddress || start+uint64(size) > uint64(len(data)) {
					return nil, fmt.Errorf("resource data at RVA %#x (+%d) outside %s", rva, size, sec.Name)
				}
				res[typ[0]] = append(res[typ[0]], data[start:start+uint64(size)])
			}
		}
	}
	return res, nil
}

func utf16le(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = binenc.LittleEndian.AppendUint16(b, u)
	}
	return b
}

func keys(m map[uint32][][]byte) []uint32 {
	var k []uint32
	for id := range m {
		k = append(k, id)
	}
	sort.Slice(k, func(i, j int) bool { return k[i] < k[j] })
	return k
}

func TestWindowsInstaller(t *testing.T) {
	setups, _ := filepath.Glob(windowsSetupGlb)
	if len(setups) == 0 {
		// make test builds the exe but not the installer; the release
		// workflow builds it and sets WHISPERKEY_REQUIRE_INSTALLER=1.
		if os.Getenv("WHISPERKEY_REQUIRE_INSTALLER") == "1" {
			testenv.Require(t, windowsSetupGlb, "make installer")
		}
		t.Skip("no installer built; make installer builds one, and this test then checks its contents")
	}
	sevenZip, err := exec.LookPath("7z")
	if err != nil {
		testenv.Require(t, "7z", "apt-get install p7zip-full (make deps)")
		return
	}
	for _, setup := range setups {
		out, err := exec.Command(sevenZip, "l", "-slt", setup).CombinedOutput()
		if err != nil {
			t.Fatalf("7z l %s: %v\n%s", setup, err, out)
		}
		have := map[string]bool{}
		for _, line := range strings.Split(string(out), "\n") {
			if p, ok := strings.CutPrefix(strings.TrimSpace(line), "Path = "); ok {
				have[strings.ReplaceAll(p, `\`, "/")] = true
			}
		}
		for _, want := range []string{"whisperkey.exe", "config.example.yaml", "docs/gpu-setup.md",
			"docs/configuration.md", "docs/installing-at-work.md", "docs/models.md", "uninstall.exe"} {
			if !have[want] {
				t.Errorf("%s does not contain %s; it has %v", setup, want, sortedKeys(have))
			}
		}
		engine := false
		for p := range have {
			engine = engine || strings.HasPrefix(p, "engine/cpu/")
		}
		if !engine {
			t.Errorf("%s has no engine/cpu folder", setup)
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}

// TestReleaseWorkflow checks that .github/workflows/release.yml is valid YAML
// and has the jobs and steps the release depends on, and that what it
// publishes is what make test built and tested (issue #35): the exe, the CPU
// engine and the installer come from make test's own scripts in a Debian 12
// job, nothing rebuilds them after the tests, and only CUDA and ROCm are
// built on Windows. It cannot run the workflow; this is what can be checked
// without GitHub.
func TestReleaseWorkflow(t *testing.T) {
	data, err := os.ReadFile(".github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		Name string            `yaml:"name"`
		Uses string            `yaml:"uses"`
		Run  string            `yaml:"run"`
		With map[string]any    `yaml:"with"`
		Env  map[string]string `yaml:"env"`
	}
	var wf struct {
		On   map[string]any    `yaml:"on"`
		Env  map[string]string `yaml:"env"`
		Jobs map[string]struct {
			RunsOn    string         `yaml:"runs-on"`
			Container any            `yaml:"container"`
			Needs     any            `yaml:"needs"`
			Env       map[string]any `yaml:"env"`
			Steps     []step         `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("release.yml is not valid YAML: %v", err)
	}
	if _, ok := wf.On["push"]; !ok {
		t.Error("release.yml does not run on push (tags)")
	}
	// The GPU engines build with one MSVC toolset, a version (14.44), not
	// whatever the runner image carries next.
	if v := wf.Env["MSVC_TOOLSET"]; !regexp.MustCompile(`^14\.[0-9]+$`).MatchString(v) {
		t.Errorf("env MSVC_TOOLSET = %q, want a pinned MSVC toolset such as 14.44", v)
	}
	tests := []struct {
		name      string
		job       string
		runsOn    string
		container string
		needs     []string
		steps     []string // substrings of some step's run or uses
	}{
		{name: "cuda engine", job: "engine-cuda", runsOn: "windows", steps: []string{"cuda-toolkit", "build-windows.ps1 -Variant cuda", "-MsvcToolset $env:MSVC_TOOLSET"}},
		{name: "rocm engines", job: "engine-rocm", runsOn: "windows", steps: []string{"-InstallHipSdk", "build-windows.ps1 -Variant ${{ matrix.variant }}", "-MsvcToolset $env:MSVC_TOOLSET"}},
		{name: "make test builds, signs and tests what is published", job: "build", runsOn: "ubuntu", container: "debian:12",
			needs: []string{"engine-cuda", "engine-rocm"},
			steps: []string{"actions/download-artifact", "WINDOWS_SIGN_PFX_BASE64", "make deps", "make test", "scripts/winget", "actions/upload-artifact"}},
		{name: "smoke test", job: "smoke", runsOn: "windows", needs: []string{"build"},
			steps: []string{"installer/smoke-test.ps1"}},
		{name: "draft release", job: "release", runsOn: "ubuntu", needs: []string{"build", "smoke"},
			steps: []string{"actions/download-artifact", "gh release create", "winget-manifests.zip"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job, ok := wf.Jobs[tt.job]
			if !ok {
				t.Fatalf("no job %q", tt.job)
			}
			if !strings.Contains(job.RunsOn, tt.runsOn) {
				t.Errorf("runs-on %q, want a %s runner", job.RunsOn, tt.runsOn)
			}
			if c := fmt.Sprint(job.Container); tt.container != "" && c != tt.container {
				t.Errorf("container %q, want %s", c, tt.container)
			}
			needs := fmt.Sprint(job.Needs)
			for _, n := range tt.needs {
				if !strings.Contains(needs, n) {
					t.Errorf("needs %v, want %s", job.Needs, n)
				}
			}
			for _, s := range job.Steps {
				// A version tag (v4, v0.2.35, 1.95.0), not a branch.
				if _, ver, _ := strings.Cut(s.Uses, "@"); s.Uses != "" && strings.TrimLeft(ver, "v") == strings.TrimLeft(ver, "v0123456789") {
					t.Errorf("step %q uses %s without a pinned version", s.Name, s.Uses)
				}
			}
			for _, want := range tt.steps {
				found := false
				for _, s := range job.Steps {
					found = found || strings.Contains(s.Run, want) || strings.Contains(s.Uses, want) || strings.Contains(fmt.Sprint(s.Env), want)
				}
				if !found {
					t.Errorf("no step runs or uses %q", want)
				}
			}
		})
	}

	// Release = test. No job builds the CPU engine, the exe or the installer
	// other than through make test, and after make test nothing rebuilds them:
	// the uploaded installer is the one the wine tests ran.
	builds := []string{"-Variant cpu", "scripts/windows.sh", "scripts/windows-engine.sh", "scripts/installer.sh",
		"make windows", "make installer", "scripts/sign.sh"}
	for name, job := range wf.Jobs {
		tested := false
		for _, s := range job.Steps {
			tested = tested || strings.Contains(s.Run, "make test")
			for _, b := range builds {
				if strings.Contains(s.Run, b) {
					t.Errorf("job %s, step %q runs %s itself; the release must take it from make test", name, s.Name, b)
				}
			}
			if s.Uses != "" && strings.HasPrefix(s.Uses, "actions/upload-artifact") && strings.Contains(fmt.Sprint(s.With["path"]), "whisperkey-setup") && !tested {
				t.Errorf("job %s uploads the installer without running make test first", name)
			}
		}
	}
	// ...and make test builds them with the scripts the release relies on.
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^test:.*\n\t.*scripts/test\.sh`).Match(mk) {
		t.Error("make test does not run scripts/test.sh")
	}
	sh, err := os.ReadFile("scripts/test.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"scripts/sign.sh throwaway", "scripts/windows.sh", "scripts/windows-engine.sh",
		"WHISPERKEY_REQUIRE_ENGINE=1 bash scripts/installer.sh", "scripts/test-wine.sh"} {
		if !bytes.Contains(sh, []byte(want)) {
			t.Errorf("scripts/test.sh does not run %s", want)
		}
	}
}

// TestEngineLoadCheckIsStrict: build-windows.ps1 fails the build when the
// engine it built does not load, for every variant (the ROCm ones only
// warned, so a broken gfx1010 engine would have shipped), and enters the
// developer shell with the pinned MSVC toolset, checking it got it.
func TestEngineLoadCheckIsStrict(t *testing.T) {
	src, err := os.ReadFile("native/ct2engine/build-windows.ps1")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	body := regexp.MustCompile(`(?s)\nfunction Test-Engine\b.*?\n}\n\n# --- main`).FindString(s)
	if body == "" {
		t.Fatal("no Test-Engine function")
	}
	for _, bad := range []string{"Write-Warning", "$Strict"} {
		if strings.Contains(body, bad) {
			t.Errorf("Test-Engine contains %q: a failed load must fail the build", bad)
		}
	}
	if !regexp.MustCompile(`\} catch \{\s*throw `).MatchString(body) {
		t.Error("Test-Engine's catch does not throw")
	}
	if regexp.MustCompile(`-Strict[^M]`).MatchString(s) || !strings.Contains(s, "\nTest-Engine -ExtraDirs $external\n") {
		t.Error("Test-Engine is not called once, strictly, for every variant")
	}
	for _, want := range []string{"[string]$MsvcToolset = '14.44'", "-vcvars_ver=$Toolset", `StartsWith("$Toolset.")`} {
		if !strings.Contains(s, want) {
			t.Errorf("build-windows.ps1 lacks %q (the pinned MSVC toolset and its check)", want)
		}
	}
}

// TestPowerShellScriptsBalanced is a structural check of the PowerShell
// scripts, for machines without pwsh (Debian has none): braces, brackets and
// parentheses balance outside strings, comments and here-strings.
func TestPowerShellScriptsBalanced(t *testing.T) {
	for _, p := range []string{"native/ct2engine/build-windows.ps1", "installer/smoke-test.ps1"} {
		t.Run(filepath.Base(p), func(t *testing.T) {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := psBalanced(string(src)); err != nil {
				t.Error(err)
			}
		})
	}
}

// psBalanced tokenises just enough PowerShell to skip strings ('…' with ” escapes,
// "…" with ` escapes), here-strings (@'…'@, @"…"@), # and <#…#> comments.
func psBalanced(src string) error {
	var stack []rune
	line := 1
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	r := []rune(src)
	for i := 0; i < len(r); i++ {
		c := r[i]
		next := func(k int) rune {
			if i+k < len(r) {
				return r[i+k]
			}
			return 0
		}
		switch {
		case c == '\n':
			line++
		case c == '`': // escape: the next character is literal
			if next(1) == '\n' {
				line++
			}
			i++
		case c == '<' && next(1) == '#':
			j := i + 2
			for ; j+1 < len(r) && (r[j] != '#' || r[j+1] != '>'); j++ {
				if r[j] == '\n' {
					line++
				}
			}
			if j+1 >= len(r) {
				return fmt.Errorf("line %d: unterminated <# comment", line)
			}
			i = j + 1
		case c == '#':
			for i+1 < len(r) && r[i+1] != '\n' {
				i++
			}
		case c == '@' && (next(1) == '\'' || next(1) == '"') && (next(2) == '\n' || next(2) == '\r'):
			// A here-string ends at a line starting with the quote and @.
			q := next(1)
			j := i + 2
			for ; j+2 < len(r) && (r[j] != '\n' || r[j+1] != q || r[j+2] != '@'); j++ {
				if r[j] == '\n' {
					line++
				}
			}
			if j+2 >= len(r) {
				return fmt.Errorf("line %d: unterminated here-string", line)
			}
			line++
			i = j + 2
		case c == '\'':
			j := i + 1
			for ; j < len(r); j++ {
				if r[j] == '\'' {
					if j+1 < len(r) && r[j+1] == '\'' {
						j++
						continue
					}
					break
				}
			}
			if j >= len(r) {
				return fmt.Errorf("line %d: unterminated '…' string", line)
			}
			line += strings.Count(string(r[i:j]), "\n")
			i = j
		case c == '"':
			// Sub-expressions $(…) inside "…" are checked for balance as code.
			j, err := psDoubleQuoted(r, i+1)
			if err != nil {
				return fmt.Errorf("line %d: %v", line, err)
			}
			line += strings.Count(string(r[i:j]), "\n")
			i = j
		case c == '(' || c == '[' || c == '{':
			stack = append(stack, c)
		case c == ')' || c == ']' || c == '}':
			if len(stack) == 0 || stack[len(stack)-1] != pairs[c] {
				return fmt.Errorf("line %d: unexpected %c", line, c)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("end of file: %d unclosed %q", len(stack), string(stack))
	}
	return nil
}

// psDoubleQuoted returns the index of the closing quote of a "…" string
// starting at i, checking that $(…) sub-expressions inside it balance.
func psDoubleQuoted(r []rune, i int) (int, error) {
	for ; i < len(r); i++ {
		switch {
		case r[i] == '`':
			i++
		case r[i] == '"' && i+1 < len(r) && r[i+1] == '"':
			i++
		case r[i] == '"':
			return i, nil
		case r[i] == '$' && i+1 < len(r) && r[i+1] == '(':
			depth := 0
			j := i + 1
			for ; j < len(r); j++ {
				if r[j] == '(' {
					depth++
				} else if r[j] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			if j >= len(r) {
				return 0, errors.New("unterminated $( in a string")
			}
			i = j
		}
	}
	return 0, errors.New(`unterminated "…" string`)
}

func TestPSBalanced(t *testing.T) {
	tests := []struct {
		name string
		src  string
		ok   bool
	}{
		{name: "blocks", src: "function f { if ($a) { @(1, 2)[0] } }\n", ok: true},
		{name: "braces in strings", src: "$a = '{'; $b = \"}\"; $c = 'it''s {'\n", ok: true},
		{name: "subexpression in string", src: "Write-Host \"x $($a.b) y\"\n", ok: true},
		{name: "comments", src: "# { \n<# } ( #>\n{ }\n", ok: true},
		{name: "here-string", src: "$s = @'\n{ ( [\n'@\n$t = @\"\n}\n\"@\n", ok: true},
		{name: "backtick escapes", src: "Write-Host `{ \"a`\"b\"\n", ok: true},
		{name: "missing brace", src: "function f { if ($a) { }\n", ok: false},
		{name: "wrong order", src: "( [ ) ]\n", ok: false},
		{name: "unterminated string", src: "$a = 'abc\n", ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := psBalanced(tt.src)
			if (err == nil) != tt.ok {
				t.Errorf("psBalanced = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

// winSignedByUs are the files scripts/installer.sh signs with our
// certificate: the exe, the DLLs our builds make, the uninstaller (inside the
// setup) and the setup itself. Other DLLs in the build (the Visual C++
// runtime, cuBLAS, ONNX Runtime) must carry their makers' signatures.
var winSignedByUs = regexp.MustCompile(`(^|/)(whisperkey\.exe|uninstall\.exe|ct2engine\.dll|ctranslate2\.dll|whisperkey-setup-[^/]+\.exe)$`)

// TestWindowsSignatures checks every signature the signing step
// (scripts/sign.sh, run by scripts/installer.sh) made, with osslsigncode
// verify (scripts/sign.sh verify): the files in build/windows and the same
// files inside the installer, which must be byte for byte the ones that were
// signed and tested. make test signs with a throwaway certificate and names
// it in WHISPERKEY_SIGN_CAFILE; with a release's certificate, scripts/test.sh
// names the system's roots.
func TestWindowsSignatures(t *testing.T) {
	ca := os.Getenv("WHISPERKEY_SIGN_CAFILE")
	if ca == "" {
		// A developer's make installer signs nothing; scripts/test.sh always signs.
		testenv.Require(t, "a signed build (WHISPERKEY_SIGN_CAFILE)", "make test, which signs with a throwaway certificate (scripts/sign.sh)")
	}
	setups, _ := filepath.Glob(windowsSetupGlb)
	if len(setups) != 1 {
		testenv.Require(t, fmt.Sprintf("one %s (found %d)", windowsSetupGlb, len(setups)), "make installer")
	}
	if _, err := exec.LookPath("7z"); err != nil {
		testenv.Require(t, "7z", "apt-get install p7zip-full (make deps)")
	}
	// The setup's contents, unpacked: 7z writes the uninstaller as NSIS stored it.
	inside := t.TempDir()
	if out, err := exec.Command("7z", "x", "-y", "-o"+inside, setups[0]).CombinedOutput(); err != nil {
		t.Fatalf("7z x %s: %v\n%s", setups[0], err, out)
	}
	var files []string
	for _, root := range []string{"build/windows/whisperkey.exe", "build/windows/engine", "build/windows/vad", setups[0], inside} {
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			// $PLUGINSDIR holds NSIS's own plugins (System.dll, nsDialogs.dll):
			// unpacked to a temporary folder while the setup runs, never
			// installed, and covered by the setup's signature.
			if err == nil && d.IsDir() && d.Name() == "$PLUGINSDIR" {
				return filepath.SkipDir
			}
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".exe") || strings.HasSuffix(p, ".dll")) {
				files = append(files, p)
			}
			return err
		})
	}
	ours := 0
	for _, f := range files {
		name := strings.TrimPrefix(strings.TrimPrefix(f, inside), "/")
		signer, err := authenticode.Read(f)
		if !winSignedByUs.MatchString(filepath.ToSlash(f)) {
			if err != nil {
				t.Errorf("%s: %v; a DLL we do not build must carry its maker's signature", name, err)
			} else {
				t.Logf("%s: signed by %s (its maker)", name, signer.Subject)
			}
			continue
		}
		ours++
		// scripts/sign.sh verify: osslsigncode verify against ca, the one
		// place that knows the flags.
		cmd := exec.Command("bash", "scripts/sign.sh", "verify", f)
		cmd.Env = append(os.Environ(), "WHISPERKEY_SIGN_CAFILE="+ca)
		if out, verr := cmd.CombinedOutput(); verr != nil {
			t.Errorf("%s: %v (signer %q, %v)\n%s", name, verr, signer.Subject, err, out)
		}
	}
	// The exe, the CPU engine and the uninstaller inside, the exe and engine
	// outside, and the setup: at least six.
	if ours < 6 {
		t.Errorf("checked %d of our signed files, want at least 6: %v", ours, files)
	}
	// What the installer carries is what was signed (and tested) here.
	for _, f := range []string{"whisperkey.exe", "engine/cpu/ct2engine.dll"} {
		a, err1 := os.ReadFile(filepath.Join("build/windows", f))
		b, err2 := os.ReadFile(filepath.Join(inside, f))
		if err := errors.Join(err1, err2); err != nil {
			t.Error(err)
		} else if !bytes.Equal(a, b) {
			t.Errorf("the installer's %s differs from build/windows/%s", f, f)
		}
	}
}

// TestWingetManifest writes the winget manifests for the built installer
// with scripts/winget, as the release does, and validates each against its
// 1.10.0 schema (testdata/winget, Microsoft's published schemas).
func TestWingetManifest(t *testing.T) {
	setups, _ := filepath.Glob(windowsSetupGlb)
	if len(setups) != 1 {
		if os.Getenv("WHISPERKEY_REQUIRE_INSTALLER") == "1" {
			testenv.Require(t, fmt.Sprintf("one %s (found %d)", windowsSetupGlb, len(setups)), "make installer")
		}
		t.Skip("no installer built; make installer builds one, and this test then writes and checks its winget manifests")
	}
	setup := setups[0]
	version := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(setup), "whisperkey-setup-"), ".exe")
	url := "https://github.com/whisperkey/whisperkey/releases/download/v" + version + "/" + filepath.Base(setup)
	out := t.TempDir()
	cmd := exec.Command("go", "run", "./scripts/winget", "-installer", setup, "-url", url, "-out", out, "-date", "2026-01-02")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./scripts/winget: %v\n%s", err, b)
	}
	dir := filepath.Join(out, "manifests", "w", "WhisperKey", "WhisperKey", version)
	data, err := os.ReadFile(setup)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)

	c := jsonschema.NewCompiler()
	c.AssertFormat()
	schema := func(kind string) *jsonschema.Schema {
		s, err := c.Compile(filepath.Join("internal", "e2e", "testdata", "winget", "manifest."+kind+".1.10.0.json"))
		if err != nil {
			t.Fatalf("schema %s: %v", kind, err)
		}
		return s
	}
	manifests := map[string]map[string]any{}
	for _, f := range []struct{ file, kind string }{
		{"WhisperKey.WhisperKey.yaml", "version"},
		{"WhisperKey.WhisperKey.locale.en-US.yaml", "defaultLocale"},
		{"WhisperKey.WhisperKey.installer.yaml", "installer"},
	} {
		b, err := os.ReadFile(filepath.Join(dir, f.file))
		if err != nil {
			t.Fatal(err)
		}
		m, err := yamlAsJSON(b)
		if err != nil {
			t.Fatalf("%s: %v\n%s", f.file, err, b)
		}
		if err := schema(f.kind).Validate(m); err != nil {
			t.Errorf("%s does not match the %s schema: %v\n%s", f.file, f.kind, err, b)
		}
		manifests[f.kind] = m.(map[string]any)
	}
	for kind, m := range manifests {
		if m["PackageIdentifier"] != "WhisperKey.WhisperKey" || m["PackageVersion"] != version || m["ManifestType"] != kind {
			t.Errorf("%s manifest: identifier %v, version %v, type %v; want WhisperKey.WhisperKey, %s, %s",
				kind, m["PackageIdentifier"], m["PackageVersion"], m["ManifestType"], version, kind)
		}
	}
	inst := manifests["installer"]
	sw, _ := inst["InstallerSwitches"].(map[string]any)
	list, _ := inst["Installers"].([]any)
	if len(list) != 1 {
		t.Fatalf("Installers = %v, want one", inst["Installers"])
	}
	one, _ := list[0].(map[string]any)
	for _, chk := range []struct {
		name      string
		got, want any
	}{
		{"InstallerType", inst["InstallerType"], "nullsoft"},
		{"Scope (the installer is per user)", inst["Scope"], "user"},
		{"Silent switch", sw["Silent"], "/S"},
		{"InstallLocation switch", sw["InstallLocation"], "/D=<INSTALLPATH>"},
		{"InstallerUrl", one["InstallerUrl"], url},
		{"InstallerSha256", one["InstallerSha256"], strings.ToUpper(hex.EncodeToString(sum[:]))},
		{"Architecture", one["Architecture"], "x64"},
	} {
		if chk.got != chk.want {
			t.Errorf("%s = %v, want %v", chk.name, chk.got, chk.want)
		}
	}

	// The schemas catch what winget would refuse: the validator is not idle.
	for _, bad := range []struct {
		name, field string
		value       any
	}{
		{"a truncated SHA-256", "InstallerSha256", "43C3"},
		{"a machine scope misspelt", "Scope", "computer"},
		{"an installer type winget does not know", "InstallerType", "nsis"},
	} {
		m, _ := yamlAsJSON(mustYAML(t, inst))
		mm := m.(map[string]any)
		if bad.field == "InstallerSha256" {
			mm["Installers"].([]any)[0].(map[string]any)[bad.field] = bad.value
		} else {
			mm[bad.field] = bad.value
		}
		if err := schema("installer").Validate(mm); err == nil {
			t.Errorf("%s passes the installer schema", bad.name)
		}
	}
}

// yamlAsJSON decodes YAML into the values JSON decoding gives (maps of
// string keys, float64 numbers), which is what the schema validator reads.
func yamlAsJSON(b []byte) (any, error) {
	var v any
	if err := yaml.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(j))
}

func mustYAML(t *testing.T, v any) []byte {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
