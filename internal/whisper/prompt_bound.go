package whisper

import (
	"strings"
	"unicode/utf8"
)

// maxPromptBytes bounds the text tokenised for a prompt, so the cost of a
// prompt follows what the decoder uses, not what a client sends: at most
// maxLength/2-1 (223) prompt tokens are kept, and no Whisper token is longer
// than 33 bytes, so 8 KiB of text always yields more tokens than are kept.
const maxPromptBytes = 8 << 10

// promptTail is the end of s that can reach the prompt (the initial prompt
// keeps its last tokens), cleaned by cleanPrompt. It starts at a word, where tokenising starts
// afresh, so its tokens are the whole text's last tokens.
func promptTail(s string) string {
	if len(s) <= maxPromptBytes {
		return cleanPrompt(s)
	}
	cut := len(s) - maxPromptBytes
	for i := cut; i+1 < len(s) && i < cut+maxPromptBytes/4; i++ {
		if s[i] == ' ' && s[i+1] != ' ' {
			return cleanPrompt(s[i:])
		}
	}
	// A character is at most 4 bytes; past that the bytes are not UTF-8 anyway.
	for i := 0; i < utf8.UTFMax-1 && !utf8.RuneStart(s[cut]); i++ {
		cut++
	}
	return cleanPrompt(s[cut:])
}

// promptHead is the start of s that can reach the prompt (hotwords and a
// prefix keep their first tokens), ending before a word.
func promptHead(s string) string {
	if len(s) <= maxPromptBytes {
		return cleanPrompt(s)
	}
	cut := maxPromptBytes
	for i := cut; i > 0 && i > cut-maxPromptBytes/4; i-- {
		if s[i] == ' ' && s[i-1] != ' ' {
			return cleanPrompt(s[:i])
		}
	}
	for i := 0; i < utf8.UTFMax-1 && !utf8.RuneStart(s[cut]); i++ {
		cut--
	}
	return cleanPrompt(s[:cut])
}

// maxPromptWord is the longest run of non-space bytes kept in a prompt:
// Whisper's longest token is 33 bytes, and no word of any language comes
// near 1 KiB, so a longer run is not text the model could use.
const maxPromptWord = maxBPEWord

// cleanPrompt drops what no prompt can usefully hold: bytes that are not
// UTF-8 and runs of non-space longer than maxPromptWord. Text without
// either is returned unchanged; a prompt of nothing else becomes empty,
// the same as no prompt.
func cleanPrompt(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	long := false
	for _, w := range strings.Fields(s) {
		if len(w) > maxPromptWord {
			long = true
			break
		}
	}
	if !long {
		return s
	}
	words := strings.Fields(s)
	kept := words[:0]
	for _, w := range words {
		if len(w) <= maxPromptWord {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	return " " + strings.Join(kept, " ")
}
