//go:build linux

package output

import (
	"os"
	"testing"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

// TestMain gives this package an X server of its own when Xvfb is installed: go test
// runs packages in parallel, and another package's keystrokes or focus changes on a
// shared display would land in our paste target.
func TestMain(m *testing.M) {
	if os.Getenv(wlChildEnv) != "" {
		os.Exit(waylandChild())
	}
	testenv.MainOnPrivateXvfb(m)
}
