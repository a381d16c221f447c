package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/whisperkey/whisperkey/internal/tray"
)

func main() {
	state := flag.String("state", string(tray.StateIdle), "icon state: idle, recording, transcribing, error, loading")
	status := flag.String("status", "Model base.en · CPU int8 · ready", "status line")
	progress := flag.String("progress", "small — 42/480 MB · 12 MB/s · ETA 30s", "label of the model being downloaded; empty for none")
	secs := flag.Int("secs", 0, "quit after this many seconds (0: on Quit or Ctrl+C)")
	flag.Parse()

	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if *secs > 0 {
		var c context.CancelFunc
		ctx, c = context.WithTimeout(ctx, time.Duration(*secs)*time.Second)
		defer c()
	}
	if err := run(ctx, log, *state, *status, *progress); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, log *slog.Logger, state, status, progress string) error {
	t := tray.New(tray.Config{Title: "WhisperKey"}, log)
	defer t.Close()
	m := demoMenu("base.en", "cpu")
	t.SetMenu(m)
	t.SetState(tray.State(state), status)
	if err := t.Start(); err != nil {
		return err
	}
	if progress != "" {
		t.SetItemLabel(tray.SelectModel, "small", progress)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case a := <-t.Actions():
			fmt.Printf("ACTION %s %q\n", a.Kind, a.Value)
			switch a.Kind {
			case tray.Quit:
				return nil
			case tray.SelectModel:
				m = demoMenu(a.Value, checkedID(m.Devices))
				t.SetMenu(m)
				t.SetState(tray.StateIdle, "Model "+a.Value+" · CPU int8 · ready")
			case tray.SelectDevice:
				m = demoMenu(checkedID(m.Models), a.Value)
				t.SetMenu(m)
			}
		}
	}
}

func checkedID(items []tray.Item) string {
	for _, it := range items {
		if it.Checked {
			return it.ID
		}
	}
	return ""
}

func demoMenu(model, device string) tray.Menu {
	mark := func(items []tray.Item, id string) []tray.Item {
		for i := range items {
			items[i].Checked = items[i].ID == id
		}
		return items
	}
	return tray.Menu{
		Models: mark([]tray.Item{
			{ID: "tiny.en", Label: "tiny.en"},
			{ID: "base.en", Label: "base.en"},
			{ID: "small", Label: "small (464 MB)"},
			{ID: "medium", Label: "medium (1.5 GB)"},
			{ID: "large-v3-turbo", Label: "large-v3-turbo (1.6 GB)"},
		}, model),
		Devices: mark([]tray.Item{
			{ID: "auto", Label: "Auto"},
			{ID: "rocm:0", Label: "AMD Radeon RX 5700 XT (RDNA 1)"},
			{ID: "cpu", Label: "CPU"},
		}, device),
		ComputeTypes: []tray.Item{
			{ID: "auto", Label: "Auto"},
			{ID: "int8", Label: "int8", Checked: true},
			{ID: "float16", Label: "float16"},
			{ID: "float32", Label: "float32"},
		},
		Languages: []tray.Item{
			{ID: "auto", Label: "Detect automatically"},
			{ID: "en", Label: "English", Checked: true},
			{ID: "de", Label: "German"},
			{ID: "fr", Label: "French"},
		},
		InputDevices: []tray.Item{
			{ID: "", Label: "System default", Checked: true},
			{ID: "usb", Label: "USB Microphone"},
		},
		PasteModes: []tray.Item{
			{ID: "paste", Label: "Paste (Ctrl+V)", Checked: true},
			{ID: "clipboard", Label: "Copy to clipboard only"},
		},
	}
}
