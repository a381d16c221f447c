package testenv

import (
	"bytes"
	"testing"
)

func TestDecodeXWDRejectsJunk(t *testing.T) {
	if _, err := DecodeXWD(bytes.Repeat([]byte{0}, 10)); err == nil {
		t.Error("10 bytes decoded")
	}
}
