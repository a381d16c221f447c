// Package win32 holds the Win32 window-class, window, message-pump and keyboard-input calls that the Windows backends share.
package win32
