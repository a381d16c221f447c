package authenticode

import "errors"

// Status is what `whisperkey doctor` reports about the program's signature.
type Status struct {
	Signed bool `json:"signed"`
	// Signer and Issuer name the signing certificate and its issuer.
	Signer string `json:"signer,omitempty"`
	Issuer string `json:"issuer,omitempty"`
	// Trusted is Windows' verdict (Verify).
	Trusted bool `json:"trusted"`
	// Problem says why the signature is missing, unreadable or not trusted.
	Problem string `json:"problem,omitempty"`
}

// Check reads the signature of the program at path and asks Windows
// whether it trusts it.
func Check(path string) Status {
	s, err := Read(path)
	switch {
	case errors.Is(err, ErrUnsigned):
		return Status{Problem: "not signed: a developer's build; SmartScreen and antivirus tools may warn about it"}
	case err != nil:
		return Status{Problem: err.Error()}
	}
	st := Status{Signed: true, Signer: s.Subject, Issuer: s.Issuer}
	if err := Verify(path); err != nil {
		st.Problem = err.Error()
	} else {
		st.Trusted = true
	}
	return st
}
