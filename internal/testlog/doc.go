// Package testlog gives tests a *slog.Logger that writes into the test's own output.
package testlog
