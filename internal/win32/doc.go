// Package win32 holds the Win32 window, message-pump, keyboard-input and COM method calls that the Windows backends share.
package win32
