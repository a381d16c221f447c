// Package ct2bin reads, validates and writes CTranslate2 Whisper model directories (model.bin, config.json, vocabulary).
package ct2bin
