// Package app is the dictation state machine that turns hotkey presses into recordings, transcripts and pastes.
package app
