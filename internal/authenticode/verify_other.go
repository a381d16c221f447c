//go:build !windows

package authenticode

import "errors"

// ErrNotWindows is Verify's answer where there is no Windows to ask.
var ErrNotWindows = errors.New("only Windows can say whether it trusts a signature")

// Verify is Windows' answer (WinVerifyTrust); elsewhere it is ErrNotWindows.
func Verify(string) error { return ErrNotWindows }
