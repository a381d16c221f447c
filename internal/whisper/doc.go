// Package whisper turns 16 kHz audio into text with a Whisper model: log-mel features, tokenizer, prompts and faster-whisper's decoding policy.
package whisper
