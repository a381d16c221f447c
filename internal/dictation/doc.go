// Package dictation turns a recording into the text to insert, one way for the tray, `transcribe` and `transcribe --remote`: settings resolved once, then the speech gate, the engine, the AI cleanup and the text shaping.
package dictation
