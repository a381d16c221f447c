// Package indicator shows a small always-on-top window that says what dictation is doing, without ever taking the focus or a click.
package indicator
