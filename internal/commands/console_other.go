//go:build !windows

package commands

func attachConsole() {}
