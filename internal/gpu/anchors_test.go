package gpu

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/whisperkey/whisperkey/internal/tabletest"
)

// githubAnchors returns the anchors GitHub gives a Markdown file's headings:
// the text lower-cased, spaces turned into hyphens, everything but letters,
// digits, hyphens and underscores dropped, and "-1", "-2" added to repeats.
func githubAnchors(md string) map[string]bool {
	anchors := map[string]bool{}
	count := map[string]int{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		m := heading.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		slug := slugify(m[1])
		if n := count[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		count[slug]++
	}
	return anchors
}

var (
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	mdLink     = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	guideLink  = regexp.MustCompile(`gpu-setup\.md#([\p{L}\p{N}_-]+)`)
	sameLink   = regexp.MustCompile(`\]\(#([^)\s]+)\)`)
	skipFolder = map[string]bool{".git": true, "node_modules": true, "target": true, "vendor": true, "build": true, "dist": true}
)

func slugify(text string) string {
	text = mdLink.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func TestSlugify(t *testing.T) {
	tabletest.Check(t, "slugify", slugify, []tabletest.Case[string, string]{
		{Name: "plain", In: "AMD RDNA 2 and newer", Want: "amd-rdna-2-and-newer"},
		{Name: "dots and comma", In: "HIP SDK 6.2, not 7.x", Want: "hip-sdk-62-not-7x"},
		{Name: "underscore kept", In: "amd_comgr", Want: "amd_comgr"},
		{Name: "code span", In: "`amd_comgr` is missing", Want: "amd_comgr-is-missing"},
		{Name: "dash between spaces", In: "Detected — using CPU", Want: "detected--using-cpu"},
		{Name: "link text", In: "See [NVIDIA](#nvidia) docs", Want: "see-nvidia-docs"},
	})
	if a := githubAnchors("# A\n## A\n```\n# A\n```\n### A\n"); !a["a"] || !a["a-1"] || !a["a-2"] || a["a-3"] {
		t.Errorf("repeated headings: got %v, want a, a-1, a-2", a)
	}
}

// TestGuideLinksResolve checks that every link into the guide written in any
// .md, .yaml or .go file of the repository (this package's messages included),
// and every same-page link inside the guide, names a real heading of it.
func TestGuideLinksResolve(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	found, broken, err := guideLinks(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Error(b)
	}
	// This package's messages alone link these; missing any means the scan is broken.
	for _, a := range []string{"nvidia", "amd-rdna-1", "amd_comgr", "rocblas-kernels-for-gfx1010", "other-gpus", "the-gpu-engine-failed-to-start"} {
		if !found[a] {
			t.Errorf("no link to #%s found: the scan missed this package's messages", a)
		}
	}
}

func TestGuideLinksCatchesBrokenOnes(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{
		"docs/gpu-setup.md":   "# Guide\n## AMD RDNA 1\nSee [below](#nvidia).\n",
		"README.md":           "[ok](docs/gpu-setup.md#amd-rdna-1) [bad](docs/gpu-setup.md" + "#amd-rdna1)\n", // split so the real scan passes
		"config.example.yaml": "# docs/gpu-setup.md#cpu\n",
		"internal/x/x.go":     "const s = \"Setup: docs/gpu-setup.md#amd-rdna-1\"\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, broken, err := guideLinks(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"docs/gpu-setup.md links #nvidia, which is no heading of it",
		"README.md:1 links gpu-setup.md" + "#amd-rdna1, which is no heading of docs/gpu-setup.md",
		"config.example.yaml:1 links gpu-setup.md#cpu, which is no heading of docs/gpu-setup.md",
	}
	if strings.Join(sorted(broken), "\n") != strings.Join(sorted(want), "\n") {
		t.Errorf("broken links:\n%s\nwant:\n%s", strings.Join(broken, "\n"), strings.Join(want, "\n"))
	}
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

// guideLinks scans the repository at root for links into docs/gpu-setup.md.
func guideLinks(root string) (found map[string]bool, broken []string, err error) {
	guide, err := os.ReadFile(filepath.Join(root, "docs", "gpu-setup.md"))
	if err != nil {
		return nil, nil, fmt.Errorf("the guide must exist: %w", err)
	}
	anchors := githubAnchors(string(guide))
	for _, m := range sameLink.FindAllStringSubmatch(string(guide), -1) {
		if !anchors[m[1]] {
			broken = append(broken, fmt.Sprintf("docs/gpu-setup.md links #%s, which is no heading of it", m[1]))
		}
	}
	found = map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (skipFolder[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".md", ".yaml", ".yml", ".go":
		default:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range guideLink.FindAllStringSubmatch(line, -1) {
				found[m[1]] = true
				if !anchors[m[1]] {
					broken = append(broken, fmt.Sprintf("%s:%d links gpu-setup.md#%s, which is no heading of docs/gpu-setup.md", filepath.ToSlash(rel), i+1, m[1]))
				}
			}
		}
		return nil
	})
	return found, broken, err
}

// The guide's table of the rocm engine's targets is exactly the list
// detection uses, and gfx1010 is the rocm-rdna1 engine's.
func TestGuideROCmTargetsMatchDetection(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "gpu-setup.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(b)
	start := strings.Index(section, "## AMD RDNA 2 and newer")
	end := strings.Index(section, "## AMD RDNA 1")
	if start < 0 || end < start {
		t.Fatal("guide lacks the AMD sections")
	}
	rows := regexp.MustCompile(`(?m)^\| (gfx\d+) \|`).FindAllStringSubmatch(section[start:end], -1)
	var listed []string
	for _, r := range rows {
		listed = append(listed, r[1])
		if v := rocmVariant(r[1]); v != VariantROCm {
			t.Errorf("guide lists %s for the rocm engine; detection gives %q", r[1], v)
		}
	}
	for _, arch := range []string{"gfx1010", "gfx1012", "gfx1030", "gfx1031", "gfx1032", "gfx1034", "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1200", "gfx1201"} {
		inGuide := false
		for _, l := range listed {
			inGuide = inGuide || l == arch
		}
		switch v := rocmVariant(arch); {
		case arch == "gfx1010" && v != VariantRDNA1:
			t.Errorf("gfx1010 gets %q, want %s", v, VariantRDNA1)
		case arch != "gfx1010" && (v == VariantROCm) != inGuide:
			t.Errorf("%s: detection gives %q, guide lists it: %v", arch, v, inGuide)
		}
	}
}
