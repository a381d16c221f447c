package main

import (
	"context"
	"io"
)

func runApp(ctx context.Context, args []string, stderr io.Writer) error {
	return usageError{"the tray app is not built yet"}
}

func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return usageError{"doctor is not built yet"}
}

func runModels(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return usageError{"models is not built yet"}
}

func runConfig(args []string, stdout, stderr io.Writer) error {
	return usageError{"config is not built yet"}
}
