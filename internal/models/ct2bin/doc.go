// Package ct2bin reads and validates CTranslate2 Whisper model directories (model.bin, config.json, vocabulary).
package ct2bin
