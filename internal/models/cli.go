package models

import (
	"context"
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
  rm NAME      delete a downloaded model
`

// RunCLI runs "whisperkey models ARGS…" and returns the exit code: 0 done,
// 1 failed, 2 bad usage. Results go to stdout, progress and errors to stderr.
func RunCLI(ctx context.Context, args []string, stdout, stderr io.Writer, c *Cache) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, cliUsage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	want := map[string]int{"list": 0, "pull": 1, "rm": 1}
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
			size = fmtBytes(e.Size)
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

func cliPull(ctx context.Context, name string, stdout, stderr io.Writer, c *Cache) error {
	width := 0
	progress := func(p Progress) {
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
	dir, err := c.Pull(ctx, name, progress)
	if width > 0 {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, dir)
	return nil
}
