// Package engine runs CTranslate2 in a supervised worker process and is the only code that touches the native library.
package engine
