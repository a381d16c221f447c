package hotkey

import "testing"

// The translate hotkey records like the record key, its events naming it
// and its cancel variant carrying its modifiers; the language hotkey is a
// press, once per press.
func TestListenerTranslateAndLanguageHotkeys(t *testing.T) {
	g := newChanGrabber()
	l := newListener(t, Config{Record: "ctrl+win", Translate: "ctrl+alt+t", Language: "ctrl+alt+l"}, g)

	recordsLikeRecord(t, g, l, "ctrl+alt+t", Translate)

	g.edge(t, "ctrl+alt+l", true, 2000)
	expect(t, l, Pressed, Language)
	g.edge(t, "ctrl+alt+l", false, 2100)
	g.edge(t, "ctrl+alt+l", true, 2200)
	expect(t, l, Pressed, Language)
	g.edge(t, "ctrl+win", true, 3000)
	expect(t, l, Start, Record)
}

func TestTranslateAndLanguageMustDiffer(t *testing.T) {
	for _, cfg := range []Config{{Record: "ctrl+alt+t", Translate: "ctrl+alt+t"}, {Edit: "ctrl+alt+l", Language: "ctrl+alt+l"},
		{Translate: "ctrl+alt+x", Language: "ctrl+alt+x"}} {
		if _, err := cfg.parse(); err == nil {
			t.Errorf("%+v: accepted two hotkeys on one combination", cfg)
		}
	}
}
