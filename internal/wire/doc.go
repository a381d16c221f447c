// Package wire holds what one window's decoding sends to the engine and gets back.
package wire
