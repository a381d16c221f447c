// Package config loads, validates, watches and edits WhisperKey's per-user YAML configuration.
package config
