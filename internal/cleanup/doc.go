// Package cleanup rewrites a dictation with a chat model behind an OpenAI-compatible /v1/chat/completions endpoint, and hands back the text as heard whenever the answer is late, failed or not a rewrite.
package cleanup
