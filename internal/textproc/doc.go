// Package textproc shapes a transcript before it is pasted: spoken punctuation, the user's word replacements and output style.
package textproc
