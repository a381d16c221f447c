// Package servertest runs the real transcription server on a loopback port for tests.
package servertest
