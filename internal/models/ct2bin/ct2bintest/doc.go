// Package ct2bintest writes CTranslate2 Whisper models for tests: any model.bin from its variables, and a tiny random-weight model directory.
package ct2bintest
