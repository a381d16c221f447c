package testenv

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// patchMarker is a string only a CTranslate2 with patch 0001
// (native/ct2-patches) holds: the patch's environment switch.
const patchMarker = "CT2_PREFIX_ONE_PASS"

// PatchedEngineDir returns a CPU engine folder whose CTranslate2 carries our
// patches: $WHISPERKEY_PATCHED_ENGINE_DIR, else the EngineDir when it is one
// (ENGINE_BACKEND=source), else build/engine-source/cpu (scripts/test.sh
// builds it there when the default engine links the wheel's library); or
// stops the test.
func PatchedEngineDir(t testing.TB) string {
	t.Helper()
	dirs := []string{os.Getenv("WHISPERKEY_PATCHED_ENGINE_DIR")}
	if dirs[0] == "" {
		dirs = []string{EngineDir(t), filepath.Join(RepoRoot(t), "build", "engine-source", "cpu")}
	}
	for _, dir := range dirs {
		libs, _ := filepath.Glob(filepath.Join(dir, "libctranslate2*.so*"))
		for _, lib := range libs {
			if Patched(lib) {
				return dir
			}
		}
	}
	Require(t, "a CPU engine built from the patched CTranslate2 in "+dirs[len(dirs)-1],
		"ENGINE_BACKEND=source ENGINE_OUT=build/engine-source/cpu bash scripts/engine.sh")
	return ""
}

// Patched says whether the library at path (libctranslate2, or the Windows
// ct2engine.dll that links CTranslate2 statically) carries our patches.
func Patched(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && bytes.Contains(b, []byte(patchMarker))
}
