// Package testenv decides, in tests, whether a missing external part is a skip or a failure.
package testenv
