// Package e2e tests the built whisperkey end to end: the real binary, engine, model, desktop and Windows build.
package e2e
