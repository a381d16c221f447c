package main

import (
	"context"
	"io"
)

func runApp(ctx context.Context, args []string, stderr io.Writer) error {
	return usageError{"the tray app is not built yet"}
}
