package models

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

const cliUsage = `usage: whisperkey models <command>

commands:
  list         show the models, their size, whether they are downloaded and where
  pull NAME    download a model (a name from the list, or a Hugging Face repo id owner/name)
  rm NAME      delete a downloaded or imported model
  import PATH [--name NAME]
               copy a CTranslate2 Whisper model folder, or a .zip of one, into
               the models; NAME (default: the folder's or zip's name) is what
               --model, the config's model and the tray's Model menu take
`

// RunCLI runs "whisperkey models ARGS…" and returns the exit code: 0 done,
// 1 failed, 2 bad usage. Results go to stdout, progress and errors to stderr.
func RunCLI(ctx context.Context, args []string, stdout, stderr io.Writer, c *Cache) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, cliUsage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	var name string
	if cmd == "import" {
		var err error
		if rest, name, err = importArgs(rest); err != nil {
			fmt.Fprintf(stderr, "whisperkey models import: %v\n%s", err, cliUsage)
			return 2
		}
	}
	want := map[string]int{"list": 0, "pull": 1, "rm": 1, "import": 1}
	n, known := want[cmd]
	switch {
	case cmd == "help" || cmd == "-h" || cmd == "--help":
		fmt.Fprint(stdout, cliUsage)
		return 0
	case !known:
		fmt.Fprintf(stderr, "whisperkey models: unknown command %q\n%s", cmd, cliUsage)
		return 2
	case len(rest) != n:
		fmt.Fprintf(stderr, "whisperkey models %s: takes %d argument(s), got %d\n%s", cmd, n, len(rest), cliUsage)
		return 2
	}
	var err error
	switch cmd {
	case "list":
		err = cliList(stdout, c)
	case "pull":
		err = cliPull(ctx, rest[0], stdout, stderr, c)
		if err != nil && !errors.Is(err, ErrNoSpace) && !errors.Is(err, ErrNotFound) && !errors.Is(err, context.Canceled) {
			defer fmt.Fprintln(stderr, OfflineHelp)
		}
	case "import":
		err = cliImport(ctx, rest[0], name, stdout, stderr, c)
	case "rm":
		if err = c.Remove(rest[0]); err == nil {
			fmt.Fprintf(stdout, "removed %s\n", rest[0])
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "whisperkey models %s: %v\n", cmd, err)
		return 1
	}
	return 0
}

func cliList(stdout io.Writer, c *Cache) error {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSIZE\tLANGUAGES\tDOWNLOADED\tPATH")
	for _, e := range c.List() {
		size, down, path := "-", "no", "-"
		if e.Size > 0 {
			size = FormatSize(e.Size)
			if !e.Downloaded {
				size = "~" + size
			}
		}
		if e.Downloaded {
			down, path = "yes", e.Path
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Name, size, e.Languages, down, path)
	}
	return tw.Flush()
}

// OfflineHelp says how to get a model in when Hugging Face cannot be reached.
const OfflineHelp = "Where Hugging Face is blocked, import a model copied from elsewhere with `whisperkey models import PATH` " +
	"(a faster-whisper model folder or a .zip of one), or set models.mirror in config.yaml to a mirror of it: see " + InstallingAtWorkDoc

// InstallingAtWorkDoc is the guide to models without Hugging Face (import,
// mirror), relative to the repository and the installed app.
const InstallingAtWorkDoc = "docs/installing-at-work.md"

// importArgs takes --name NAME (or --name=NAME) out of the import command's
// arguments, before or after the path.
func importArgs(args []string) (rest []string, name string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--name" || a == "-name":
			if i+1 >= len(args) {
				return nil, "", errors.New("--name needs a value")
			}
			name = args[i+1]
			i++
		case strings.HasPrefix(a, "--name="):
			name = strings.TrimPrefix(a, "--name=")
		case strings.HasPrefix(a, "-") && a != "-":
			return nil, "", fmt.Errorf("unknown flag %s", a)
		default:
			rest = append(rest, a)
		}
	}
	return rest, name, nil
}

func cliImport(ctx context.Context, src, name string, stdout, stderr io.Writer, c *Cache) error {
	draw, end := ProgressLine(stderr)
	r, err := c.Import(ctx, src, name, draw)
	end()
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "imported %s: %s, %d mel bins, %s\n", r.Name, langText(r.Info.Multilingual), r.Info.NMels, r.Info.DType)
	if r.NoTokenizer {
		fmt.Fprintf(stderr, "note: %s has no tokenizer.json, so the vocabulary and prompt settings cannot be used with it; copy tokenizer.json from the same model into %s to use them\n", r.Name, r.Dir)
	}
	fmt.Fprintf(stderr, "use it with: whisperkey transcribe --model %s FILE, `model: %s` in config.yaml, or the tray's Model menu\n", r.Name, r.Name)
	fmt.Fprintln(stdout, r.Dir)
	return nil
}

func langText(multilingual bool) string {
	if multilingual {
		return "multilingual"
	}
	return "English only"
}

// ProgressLine draws progress on one console line, redrawn in place; end
// finishes the line once the work is over.
func ProgressLine(stderr io.Writer) (draw func(Progress), end func()) {
	width := 0
	draw = func(p Progress) {
		pct := 0
		if p.Total > 0 {
			pct = int(100 * p.Done / p.Total)
		}
		line := fmt.Sprintf("%s %3d%% %s", Bar(p, 32), pct, p.String())
		n := utf8.RuneCountInString(line)
		// Carriage return, then blanks over what is left of a longer line.
		fmt.Fprintf(stderr, "\r%s%s", line, strings.Repeat(" ", max(0, width-n)))
		width = n
	}
	end = func() {
		if width > 0 {
			fmt.Fprintln(stderr)
		}
	}
	return draw, end
}

func cliPull(ctx context.Context, name string, stdout, stderr io.Writer, c *Cache) error {
	draw, end := ProgressLine(stderr)
	dir, err := c.Pull(ctx, name, draw)
	end()
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, dir)
	return nil
}
