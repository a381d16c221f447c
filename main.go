// Command whisperkey is a push-to-talk dictation app: hold a hotkey, speak,
// release, and the words appear at the cursor.
package main

import (
	_ "embed"
	"os"

	"github.com/whisperkey/whisperkey/internal/commands"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

//go:embed config.example.yaml
var configExample []byte

func main() {
	os.Exit(commands.Main(commands.Build{Version: version, ConfigExample: configExample}, os.Args[1:]))
}
