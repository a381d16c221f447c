package authenticode

import (
	"crypto/x509"
	"debug/pe"
	"encoding/asn1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"time"
)

// ErrUnsigned is returned for a program with no Authenticode signature.
var ErrUnsigned = errors.New("not signed")

// Signer is the certificate that made a program's (first) signature.
type Signer struct {
	// Subject and Issuer are the certificates' common names (or their whole
	// distinguished names when they have none).
	Subject, Issuer string
	// Organization is the subject's O, "" when it has none.
	Organization string
	NotBefore    time.Time
	NotAfter     time.Time
}

// Read returns the signer of the PE file at path, or ErrUnsigned. It only
// reads the signature: whether it is valid and trusted is Windows' answer
// (Verify) or osslsigncode verify's.
func Read(path string) (Signer, error) {
	f, err := os.Open(path)
	if err != nil {
		return Signer{}, err
	}
	defer f.Close()
	blob, err := securityBlob(f)
	if err != nil {
		return Signer{}, fmt.Errorf("%s: %w", path, err)
	}
	s, err := parseSignedData(blob)
	if err != nil {
		return Signer{}, fmt.Errorf("%s: the signature cannot be read: %w", path, err)
	}
	return s, nil
}

const (
	winCertTypePKCSSignedData = 0x0002
	// A signature holds certificates and a timestamp: a few KB, far below this.
	maxSignatureBytes = 1 << 20
)

// securityBlob returns the PKCS#7 data of the first WIN_CERTIFICATE in the
// PE security directory, whose address, unlike the other directories', is
// a file offset.
func securityBlob(f *os.File) ([]byte, error) {
	p, err := pe.NewFile(f)
	if err != nil {
		return nil, fmt.Errorf("not a Windows program: %w", err)
	}
	var dir pe.DataDirectory
	switch oh := p.OptionalHeader.(type) {
	case *pe.OptionalHeader64:
		if oh.NumberOfRvaAndSizes > pe.IMAGE_DIRECTORY_ENTRY_SECURITY {
			dir = oh.DataDirectory[pe.IMAGE_DIRECTORY_ENTRY_SECURITY]
		}
	case *pe.OptionalHeader32:
		if oh.NumberOfRvaAndSizes > pe.IMAGE_DIRECTORY_ENTRY_SECURITY {
			dir = oh.DataDirectory[pe.IMAGE_DIRECTORY_ENTRY_SECURITY]
		}
	default:
		return nil, errors.New("not a Windows program: no optional header")
	}
	if dir.VirtualAddress == 0 || dir.Size == 0 {
		return nil, ErrUnsigned
	}
	if dir.Size < 8 || dir.Size > maxSignatureBytes {
		return nil, fmt.Errorf("security directory of %d bytes", dir.Size)
	}
	buf := make([]byte, dir.Size)
	if _, err := f.ReadAt(buf, int64(dir.VirtualAddress)); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("the security directory (%d bytes at %#x) runs past the end of the file", dir.Size, dir.VirtualAddress)
		}
		return nil, err
	}
	// WIN_CERTIFICATE: dwLength, wRevision, wCertificateType, then the data.
	n := binary.LittleEndian.Uint32(buf)
	typ := binary.LittleEndian.Uint16(buf[6:])
	if n < 8 || n > dir.Size {
		return nil, fmt.Errorf("WIN_CERTIFICATE length %d in a directory of %d bytes", n, dir.Size)
	}
	if typ != winCertTypePKCSSignedData {
		return nil, fmt.Errorf("WIN_CERTIFICATE type %#x, want PKCS#7 signed data (2)", typ)
	}
	return buf[8:n], nil
}

var oidSignedData = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 2}

// The parts of PKCS#7 SignedData (RFC 2315) that name the signer.
type contentInfo struct {
	ContentType asn1.ObjectIdentifier
	Content     asn1.RawValue `asn1:"tag:0"`
}

type signedData struct {
	Version          int
	DigestAlgorithms asn1.RawValue
	ContentInfo      asn1.RawValue
	Certificates     asn1.RawValue `asn1:"optional,tag:0"`
	CRLs             asn1.RawValue `asn1:"optional,tag:1"`
	SignerInfos      []signerInfo  `asn1:"set"`
}

type signerInfo struct {
	Version         int
	IssuerAndSerial struct {
		Issuer asn1.RawValue
		Serial *big.Int
	}
	// The digests and the signature follow; asn1 ignores what is not named.
}

func parseSignedData(der []byte) (Signer, error) {
	var ci contentInfo
	if _, err := asn1.Unmarshal(der, &ci); err != nil {
		return Signer{}, fmt.Errorf("PKCS#7: %w", err)
	}
	if !ci.ContentType.Equal(oidSignedData) {
		return Signer{}, fmt.Errorf("PKCS#7 content type %v, want signed data", ci.ContentType)
	}
	var sd signedData
	// Content is the [0] EXPLICIT wrapper: SignedData is inside it.
	if _, err := asn1.Unmarshal(ci.Content.Bytes, &sd); err != nil {
		return Signer{}, fmt.Errorf("PKCS#7 signed data: %w", err)
	}
	if len(sd.SignerInfos) == 0 {
		return Signer{}, errors.New("PKCS#7 signed data without a signer")
	}
	certs, err := x509.ParseCertificates(sd.Certificates.Bytes)
	if err != nil {
		return Signer{}, fmt.Errorf("certificates: %w", err)
	}
	want := sd.SignerInfos[0].IssuerAndSerial
	for _, c := range certs {
		if string(c.RawIssuer) == string(want.Issuer.FullBytes) && want.Serial != nil && c.SerialNumber.Cmp(want.Serial) == 0 {
			return Signer{Subject: name(c.Subject.CommonName, c.Subject.String()), Issuer: name(c.Issuer.CommonName, c.Issuer.String()),
				Organization: first(c.Subject.Organization), NotBefore: c.NotBefore, NotAfter: c.NotAfter}, nil
		}
	}
	return Signer{}, fmt.Errorf("the signer's certificate (serial %v) is not among the %d in the signature", want.Serial, len(certs))
}

func name(cn, dn string) string {
	if cn != "" {
		return cn
	}
	return dn
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
