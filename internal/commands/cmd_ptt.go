package commands

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/whisperkey/whisperkey/internal/control"
	"github.com/whisperkey/whisperkey/internal/hotkey"
	"github.com/whisperkey/whisperkey/internal/notify"
)

// runPTT is `whisperkey ptt press|release|toggle|cancel`: the record hotkey of the
// running app, for a compositor's key binding (Wayland desktops let no
// application grab keys for itself).
func runPTT(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("ptt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	socket := fs.String("socket", control.DefaultPath(), "the running app's control socket")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: whisperkey ptt press|release|toggle|cancel [--socket PATH]\n"+
			"  press, release: the record hotkey goes down, comes up (bind both: key press and key release)\n"+
			"  toggle: start dictating, or stop and paste (one binding that fires once per press)\n"+
			"  cancel: throw the recording away, as hotkeys.cancel does\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return usageError{}
	}
	if fs.NArg() < 1 {
		fs.Usage()
		return usageError{}
	}
	verb := fs.Arg(0)
	if err := fs.Parse(fs.Args()[1:]); err != nil { // flags after the command
		return usageError{}
	}
	if runtime.GOOS == "windows" {
		return errors.New("ptt is for Linux desktops whose compositor runs the key binding (Wayland); on Windows the hotkey (hotkeys.record) works in every window")
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return usageError{}
	}
	cmd, err := hotkey.ParseCommand(verb)
	if err != nil {
		return usageError{err.Error()}
	}
	// A key binding must not hang the compositor's spawner for long.
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err = control.Send(ctx, *socket, cmd)
	if errors.Is(err, control.ErrNotRunning) && !isTerminal(stderr) {
		// Run by a key binding, whose output nobody sees: say it on the desktop.
		if n, nerr := notify.New(notify.Config{}, slog.New(slog.NewTextHandler(stderr, nil))); nerr == nil {
			n.Notify(notify.NotRunning(err.Error()))
			n.Close()
		}
	}
	return err
}

// isTerminal says w is a terminal someone reads.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
