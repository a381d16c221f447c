// Package audiotest builds hostile audio files for tests: files small
// on disk that declare absurd rates or hours of audio.
package audiotest
