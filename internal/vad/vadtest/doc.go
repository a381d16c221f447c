// Package vadtest opens the real Silero speech detector for other packages' tests.
package vadtest
