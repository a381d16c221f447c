// Command demo shows WhisperKey's tray with a realistic menu and prints the clicks, for screenshots and manual checks.
package main
