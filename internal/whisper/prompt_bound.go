package whisper

import "unicode/utf8"

// maxPromptBytes bounds the text tokenised for a prompt, so the cost of a
// prompt follows what the decoder uses, not what a client sends: at most
// maxLength/2-1 (223) prompt tokens are kept, and no Whisper token is longer
// than 33 bytes, so 8 KiB of text always yields more tokens than are kept.
const maxPromptBytes = 8 << 10

// promptTail is the end of s that can reach the prompt (the initial prompt
// keeps its last tokens). It starts at a word, where tokenising starts
// afresh, so its tokens are the whole text's last tokens.
func promptTail(s string) string {
	if len(s) <= maxPromptBytes {
		return s
	}
	cut := len(s) - maxPromptBytes
	for i := cut; i+1 < len(s) && i < cut+maxPromptBytes/4; i++ {
		if s[i] == ' ' && s[i+1] != ' ' {
			return s[i:]
		}
	}
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return s[cut:]
}

// promptHead is the start of s that can reach the prompt (hotwords and a
// prefix keep their first tokens), ending before a word.
func promptHead(s string) string {
	if len(s) <= maxPromptBytes {
		return s
	}
	cut := maxPromptBytes
	for i := cut; i > 0 && i > cut-maxPromptBytes/4; i-- {
		if s[i] == ' ' && s[i-1] != ' ' {
			return s[:i]
		}
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
