// Package audiotest builds audio files for tests: hostile ones (absurd rates, hours of audio in a few bytes on disk) and float WAVs that keep every sample exactly.
package audiotest
