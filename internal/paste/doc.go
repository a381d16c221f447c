// Package paste puts a dictation's text at the cursor with its profile's paste settings, and rewrites the selected text by voice.
package paste
