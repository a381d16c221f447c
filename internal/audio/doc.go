// Package audio captures the microphone with malgo and reads, writes and resamples WAV audio.
package audio
