// Package envvars lists every environment variable WhisperKey reads, in one place.
package envvars
