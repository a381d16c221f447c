// Package vad finds speech in audio with the Silero VAD v6 model, run through ONNX Runtime loaded at run time.
package vad
