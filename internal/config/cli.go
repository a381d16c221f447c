package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

const cliUsage = `usage: whisperkey config path|show|validate [--allow-unknown] [FILE]
  path      print where the config file is
  show      print the settings in effect: the file, defaults for what it leaves out, and WHISPERKEY_* overrides
  validate  check the file (or FILE); print "ok", or each problem and exit 1.
            An unknown key is a problem (a misspelt key does nothing);
            --allow-unknown only warns about it`

// AllowUnknownFlag makes validate accept unknown keys, warning about them.
const AllowUnknownFlag = "--allow-unknown"

// RunCLI runs "whisperkey config ARGS" for the file at path and returns the exit
// code: 0 ok, 1 invalid config or an unknown key, 2 usage error.
func RunCLI(args []string, stdout, stderr io.Writer, path string, opts Options) int {
	allowUnknown := false
	if len(args) == 2 && args[0] == "validate" && (args[1] == AllowUnknownFlag || args[1] == AllowUnknownFlag[1:]) {
		allowUnknown, args = true, args[:1]
	}
	if len(args) == 2 && args[0] == "validate" && strings.HasPrefix(args[1], "-") {
		fmt.Fprintf(stderr, "config validate: unknown flag %s (its one flag is %s)\n%s\n", args[1], AllowUnknownFlag, cliUsage)
		return 2
	}
	if len(args) != 1 {
		fmt.Fprintln(stderr, cliUsage)
		return 2
	}
	switch args[0] {
	case "path":
		fmt.Fprintln(stdout, path)
		return 0
	case "show", "validate":
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, cliUsage)
		return 0
	default:
		fmt.Fprintf(stderr, "unknown config command %q\n%s\n", args[0], cliUsage)
		return 2
	}
	cfg, warns, err := Load(path, opts)
	for _, w := range warns {
		fmt.Fprintln(stderr, "warning: "+w.String())
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if args[0] == "validate" {
		if hasUnknown(warns) && !allowUnknown {
			fmt.Fprintf(stderr, "an unknown key is ignored, so its line does nothing: correct or delete it "+
				"(docs/configuration.md lists the keys), or pass %s to accept unknown keys\n", AllowUnknownFlag)
			return 1
		}
		if note := MediaNote(cfg, runtime.GOOS); note != "" {
			fmt.Fprintln(stderr, "warning: "+note)
		}
		if opts.CheckVocabulary != nil {
			for _, w := range opts.CheckVocabulary(cfg) {
				fmt.Fprintln(stderr, "warning: "+w)
			}
		}
		if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
			fmt.Fprintf(stdout, "ok (%s does not exist; the defaults apply)\n", path)
			return 0
		}
		fmt.Fprintln(stdout, "ok")
		return 0
	}
	out, err := effectiveYAML(cfg, path)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	_, _ = stdout.Write(out)
	return 0
}

// hasUnknown reports a key in warns that the app does not know.
func hasUnknown(warns []Warning) bool {
	return slices.ContainsFunc(warns, func(w Warning) bool { return w.Unknown })
}

// effectiveYAML writes every key of c in file order, marking values set by the environment.
func effectiveYAML(c Config, path string) ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	root.HeadComment = "Settings in effect: " + path + ", defaults for keys it leaves out, WHISPERKEY_* overrides."
	groups := map[string]*yaml.Node{}
	for _, f := range fields() {
		if f.renamedTo != "" { // Load moved its value to the new key
			continue
		}
		shown := render(f.ptr(&c))
		if (f.key == KeyRemoteAPIKey && c.Remote.APIKey != "") || (f.key == KeyCleanupAPIKey && c.Cleanup.APIKey != "") {
			shown = "(set, not shown)" // a secret stays off screens and pasted bug reports
		}
		val, err := encodeValue(shown)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", f.key, err)
		}
		if env := envName(f.key); os.Getenv(env) != "" {
			val.LineComment = "from " + env
		}
		m, name := root, f.key
		if group, leaf, nested := strings.Cut(f.key, "."); nested {
			if groups[group] == nil {
				groups[group] = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: group}, groups[group])
			}
			m, name = groups[group], leaf
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}, val)
	}
	return encodeYAML(root)
}
