// Package assets embeds WhisperKey's icons and sounds.
package assets
