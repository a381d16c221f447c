// Package models knows the Whisper models users can pick, and downloads them from Hugging Face into a verified per-user cache.
package models
