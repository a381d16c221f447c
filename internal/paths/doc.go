// Package paths is where every per-user file and folder WhisperKey uses lives (config, state, cache, models, logs, runtime sockets, autostart), on each OS.
package paths
