//go:build linux && cgo

package grab

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

// TestMain gives the tests an X server of their own when Xvfb is installed: go test
// runs packages in parallel, and another package's keystrokes on a shared display would
// reach our grabs. Without Xvfb the tests use DISPLAY, and without that they stop in
// needDisplay.
func TestMain(m *testing.M) {
	stop := func() {}
	if os.Getenv("GRAB_HELPER") == "" { // the helper process must share its parent's display
		var err error
		if stop, err = testenv.PrivateXvfb(); err != nil {
			fmt.Fprintln(os.Stderr, "no private Xvfb, using DISPLAY:", err)
		}
	}
	code := 0
	if code = m.Run(); code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	stop()
	os.Exit(code)
}
