// Package authenticode reads who signed a Windows program (its Authenticode signature) and, on Windows, asks Windows whether it trusts that signature.
package authenticode
