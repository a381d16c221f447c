// Package output puts dictated text at the cursor: clipboard save, paste keystroke, clipboard restore.
package output
