// Package commands is whisperkey's command line: each subcommand parses its own flags and wires the parts below it.
package commands
