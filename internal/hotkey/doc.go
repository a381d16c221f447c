// Package hotkey parses key combinations and turns global hotkey presses into hold, toggle and cancel events.
package hotkey
