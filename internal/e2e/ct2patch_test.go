package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runCT2Patch runs scripts/ct2-patch.sh with the extra environment and returns
// its stdout, its stderr and its error.
func runCT2Patch(t *testing.T, env []string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"scripts/ct2-patch.sh"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return strings.TrimSpace(stdout.String()), stderr.String(), err
}

// treeHash hashes every file's path and content under dir.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		h.Write([]byte(rel + "\x00"))
		h.Write(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// pristineCT2 returns the CTranslate2 source that the pinned ct2rs crate carries.
func pristineCT2(t *testing.T) string {
	t.Helper()
	home := os.Getenv("CARGO_HOME")
	if home == "" {
		home = filepath.Join(os.Getenv("HOME"), ".cargo")
	}
	dirs, _ := filepath.Glob(filepath.Join(home, "registry/src/*/ct2rs-0.10.3/CTranslate2"))
	if len(dirs) == 0 {
		if out, err := exec.Command("bash", "-c", "cd native/ct2engine && cargo fetch --locked -q").CombinedOutput(); err != nil {
			t.Fatalf("cargo fetch: %v\n%s", err, out)
		}
		dirs, _ = filepath.Glob(filepath.Join(home, "registry/src/*/ct2rs-0.10.3/CTranslate2"))
	}
	if len(dirs) == 0 {
		t.Fatal("no ct2rs 0.10.3 source after cargo fetch")
	}
	return dirs[0]
}

// The patch script gives the same patched tree on a second run, and that tree
// holds each patch (it reverse-applies) and the one-pass prefix code.
func TestCT2PatchIdempotent(t *testing.T) {
	env := []string{"WHISPERKEY_CACHE=" + t.TempDir()}
	first, stderr, err := runCT2Patch(t, env)
	if err != nil {
		t.Fatalf("ct2-patch.sh: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "applied 0001-") {
		t.Errorf("first run did not apply patch 0001; stderr:\n%s", stderr)
	}
	before := treeHash(t, first)
	second, stderr, err := runCT2Patch(t, env)
	if err != nil {
		t.Fatalf("second ct2-patch.sh: %v\n%s", err, stderr)
	}
	if second != first {
		t.Errorf("second run gave %s, first %s", second, first)
	}
	if !strings.Contains(stderr, "0001-decoding-forced-prefix-in-one-pass.patch already applied") {
		t.Errorf("second run did not find patch 0001 applied; stderr:\n%s", stderr)
	}
	if after := treeHash(t, second); after != before {
		t.Errorf("second run changed the tree")
	}
	src, err := os.ReadFile(filepath.Join(first, "src/decoding.cc"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), `read_bool_from_env("CT2_PREFIX_ONE_PASS", true)`) {
		t.Error("patched decoding.cc has no CT2_PREFIX_ONE_PASS switch")
	}
	orig, err := os.ReadFile(filepath.Join(pristineCT2(t), "src/decoding.cc"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(orig, src) {
		t.Error("the crate's own decoding.cc is patched: the script must patch a copy")
	}
}

// A source line that a patch's context needs, changed, makes the script fail
// and name that patch, leaving no tree behind.
func TestCT2PatchFailsOnMovedSource(t *testing.T) {
	moved := filepath.Join(t.TempDir(), "CTranslate2")
	if out, err := exec.Command("cp", "-R", pristineCT2(t), moved).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	if out, err := exec.Command("chmod", "-R", "u+w", moved).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v\n%s", err, out)
	}
	file := filepath.Join(moved, "src/decoding.cc")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const line = "    for (dim_t step = 0; step < max_step; ++step) {\n      const bool is_expanded"
	if !bytes.Contains(b, []byte(line)) {
		t.Fatalf("decoding.cc has no %q: update this test with the patch", line)
	}
	b = bytes.Replace(b, []byte(line), []byte("    for (dim_t step = 0; step < max_step; step++) {\n      const bool is_expanded"), 1)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	out, stderr, err := runCT2Patch(t, []string{"WHISPERKEY_CACHE=" + cache, "CT2_PRISTINE=" + moved})
	if err == nil {
		t.Fatalf("ct2-patch.sh succeeded on a changed source, printed %q", out)
	}
	if !strings.Contains(stderr, "0001-decoding-forced-prefix-in-one-pass.patch does not apply") {
		t.Errorf("the error does not name the patch:\n%s", stderr)
	}
	if entries, _ := filepath.Glob(filepath.Join(cache, "ct2-src/*")); len(entries) != 0 {
		t.Errorf("a failed run left %v", entries)
	}
}

// The key that names the patched tree and the engine builds changes with any
// patch's content, so no cache built from other patches is reused.
func TestCT2PatchKeyFollowsPatches(t *testing.T) {
	key := func(dir string) string {
		k, stderr, err := runCT2Patch(t, []string{"CT2_PATCHES=" + dir}, "--key")
		if err != nil {
			t.Fatalf("ct2-patch.sh --key: %v\n%s", err, stderr)
		}
		return k
	}
	orig, _ := filepath.Glob("native/ct2-patches/*.patch")
	if len(orig) == 0 {
		t.Fatal("no patches in native/ct2-patches")
	}
	dir := t.TempDir()
	for _, p := range orig {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := key(dir)
	if base != key("native/ct2-patches") {
		t.Fatalf("the same patches in another folder give another key")
	}
	first := filepath.Join(dir, filepath.Base(orig[0]))
	b, _ := os.ReadFile(first)
	if err := os.WriteFile(first, append(b, []byte("-- \n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if key(dir) == base {
		t.Error("changing a patch's content kept the key")
	}
	if err := os.WriteFile(filepath.Join(dir, "0099-extra.patch"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if key(dir) == base {
		t.Error("adding a patch kept the key")
	}
}
