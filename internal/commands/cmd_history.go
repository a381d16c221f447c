package commands

import (
	"fmt"
	"io"
	"strings"

	"github.com/whisperkey/whisperkey/internal/history"
	"github.com/whisperkey/whisperkey/internal/textproc"
)

// runHistory prints the dictations kept on disk (history.keep_on_disk), oldest first
// so the newest ends next to the prompt: the ones the app keeps, each on one
// line of plain text (the file may hold anything, and the terminal would
// run its escape sequences).
func runHistory(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		return usageError{"whisperkey history takes no arguments"}
	}
	env, err := cliEnvironment(cliLogger(stderr, false))
	if err != nil {
		return err
	}
	path := history.Path(env.stateDir)
	entries, err := history.Read(path)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		_, err := fmt.Fprintf(stdout, "No dictations are kept on disk (%s).\n"+
			"The tray's Recent menu holds the last %d in memory; set history.keep_on_disk: true to keep them across restarts.\n",
			path, history.DefaultMax)
		return err
	}
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		tags := ""
		if profile, cleanup := textproc.Sanitize(e.Profile), textproc.Sanitize(e.Cleanup); profile != "" || cleanup != "" {
			tags = "[" + strings.Trim(profile+", "+cleanup, ", ") + "]  "
		}
		text := textproc.Sanitize(e.Text)
		if e.Cancelled {
			text = "(cancelled; the tray's Recent menu can retry it)"
		}
		if _, err := fmt.Fprintf(stdout, "%s  %s%s\n", e.At.Local().Format("2006-01-02 15:04:05"), tags, text); err != nil {
			return err
		}
		if raw := textproc.Sanitize(e.Raw); raw != "" {
			if _, err := fmt.Fprintf(stdout, "                     as heard: %s\n", raw); err != nil {
				return err
			}
		}
		for _, a := range e.Again {
			if _, err := fmt.Fprintf(stdout, "                     again (%s, %s): %s\n",
				textproc.Sanitize(a.Model), textproc.Sanitize(a.Language), textproc.Sanitize(a.Text)); err != nil {
				return err
			}
		}
	}
	return nil
}
