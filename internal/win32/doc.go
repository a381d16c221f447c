// Package win32 holds the Win32 window-class, window and message-pump calls that the Windows backends share, and COM method calls.
package win32
