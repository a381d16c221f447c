//go:build !unix

package history_test

var unixOnly []notAHistory
