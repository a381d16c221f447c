// Package remote transcribes through an OpenAI-compatible speech-to-text server, falling back to a local engine when it fails.
package remote
