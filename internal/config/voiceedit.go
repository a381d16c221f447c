package config

import "time"

// Keys of rewriting the selection by voice.
const (
	KeyEditTimeout        = "edit.timeout"
	KeyEditInsertAtCursor = "edit.insert_at_cursor"

	// EditDocAnchor is where the docs explain the edit hotkey.
	EditDocAnchor = "docs/configuration.md#rewrite-the-selection-by-voice"
)

// Edit is what the edit hotkey does: the words said while it is held are an
// instruction for the selected text, sent with it to the chat server of
// cleanup.url (cleanup.model, cleanup.api_key), whose answer replaces the
// selection. cleanup.enabled need not be on: that is the rewrite of every
// dictation, this one is asked for each time.
type Edit struct {
	// Timeout bounds the chat server's answer; default 15s, since a
	// rewrite of a paragraph is longer than a dictation's cleanup.
	Timeout time.Duration
	// InsertAtCursor: with nothing selected, the answer to the instruction
	// alone is inserted at the cursor. Default false: nothing selected is
	// then an error, so a missed selection never inserts a chat reply.
	InsertAtCursor bool
}

func editFields() []field {
	return []field{
		durField(KeyEditTimeout, func(c *Config) any { return &c.Edit.Timeout }, time.Second, 2*time.Minute),
		boolField(KeyEditInsertAtCursor, func(c *Config) any { return &c.Edit.InsertAtCursor }),
	}
}
