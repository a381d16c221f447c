// Package tabletest runs the table tests that check what a function returns,
// case by case, so that a test's table holds only its cases.
package tabletest
