package authenticode

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Verify asks Windows (WinVerifyTrust, the check SmartScreen and the
// loader's policies build on) whether it trusts the signature of the
// program at path: nil when it does, ErrUnsigned when there is none, else
// an error saying in plain words why not. Revocation is not checked, so it
// needs no network.
func Verify(path string) error {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return err
	}
	file := windows.WinTrustFileInfo{Size: uint32(unsafe.Sizeof(windows.WinTrustFileInfo{})), FilePath: p}
	data := windows.WinTrustData{
		Size:                            uint32(unsafe.Sizeof(windows.WinTrustData{})),
		UIChoice:                        windows.WTD_UI_NONE,
		RevocationChecks:                windows.WTD_REVOKE_NONE,
		UnionChoice:                     windows.WTD_CHOICE_FILE,
		StateAction:                     windows.WTD_STATEACTION_VERIFY,
		FileOrCatalogOrBlobOrSgnrOrCert: unsafe.Pointer(&file),
	}
	verr := windows.WinVerifyTrustEx(windows.InvalidHWND, &windows.WINTRUST_ACTION_GENERIC_VERIFY_V2, &data)
	data.StateAction = windows.WTD_STATEACTION_CLOSE
	_ = windows.WinVerifyTrustEx(windows.InvalidHWND, &windows.WINTRUST_ACTION_GENERIC_VERIFY_V2, &data)
	return trustError(verr)
}

// trustError turns WinVerifyTrust's answer into words a user can act on.
func trustError(err error) error {
	if err == nil {
		return nil
	}
	var e windows.Errno
	if !errors.As(err, &e) {
		return err
	}
	why := map[windows.Errno]string{
		windows.Errno(windows.TRUST_E_BAD_DIGEST):          "the file was changed after it was signed",
		windows.Errno(windows.CERT_E_UNTRUSTEDROOT):        "its certificate is not from an authority Windows trusts (a self-signed or test certificate)",
		windows.Errno(windows.CERT_E_EXPIRED):              "its certificate has expired and the signature has no timestamp",
		windows.Errno(windows.CERT_E_REVOKED):              "its certificate was revoked",
		windows.Errno(windows.TRUST_E_EXPLICIT_DISTRUST):   "its certificate is marked as distrusted on this computer",
		windows.Errno(windows.TRUST_E_SUBJECT_NOT_TRUSTED): "this computer's policy does not trust it",
		windows.Errno(windows.CERT_E_CHAINING):             "its certificate chain cannot be built",
		windows.Errno(windows.CRYPT_E_SECURITY_SETTINGS):   "this computer's security settings reject it",
	}
	switch {
	case e == windows.Errno(windows.TRUST_E_NOSIGNATURE):
		return ErrUnsigned
	case why[e] != "":
		return fmt.Errorf("%s (%#x)", why[e], uint32(e))
	}
	return fmt.Errorf("WinVerifyTrust %#x: %w", uint32(e), err)
}
