// Package server answers OpenAI-style speech-to-text requests (POST /v1/audio/transcriptions, GET /v1/models) with one shared engine.
package server
