//go:build !unix

package history_test

import "testing"

var unixOnly []struct {
	name string
	make func(t *testing.T, path string)
	want []string
}
