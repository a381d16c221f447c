package output

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/tabletest"
)

func TestJoiner(t *testing.T) {
	t0 := time.Unix(1000, 0)
	type call struct {
		text   string
		target uint64
		after  time.Duration // since the previous call
		want   string
	}
	tests := []struct {
		name   string
		window time.Duration
		calls  []call
	}{
		{name: "first dictation loses Whisper's leading space", window: time.Minute, calls: []call{
			{text: " Hello world.", target: 1, want: "Hello world."},
		}},
		{name: "continuation gets a space", window: time.Minute, calls: []call{
			{text: " Hello world.", target: 1, want: "Hello world."},
			{text: " How are you?", target: 1, after: 5 * time.Second, want: " How are you?"},
		}},
		{name: "continuation without Whisper's space", window: time.Minute, calls: []call{
			{text: "one", target: 1, want: "one"},
			{text: "two", target: 1, after: time.Second, want: " two"},
		}},
		{name: "punctuation continues without a space", window: time.Minute, calls: []call{
			{text: " Hello", target: 1, want: "Hello"},
			{text: " , world", target: 1, after: time.Second, want: ", world"},
		}},
		{name: "digit continues with a space", window: time.Minute, calls: []call{
			{text: "room", target: 1, want: "room"},
			{text: " 42", target: 1, after: time.Second, want: " 42"},
		}},
		{name: "opening bracket continues with a space", window: time.Minute, calls: []call{
			{text: "see", target: 1, want: "see"},
			{text: " (below)", target: 1, after: time.Second, want: " (below)"},
		}},
		{name: "previous ended in newline", window: time.Minute, calls: []call{
			{text: "line one\n", target: 1, want: "line one\n"},
			{text: " Line two", target: 1, after: time.Second, want: "Line two"},
		}},
		{name: "previous ended in space", window: time.Minute, calls: []call{
			{text: "word ", target: 1, want: "word "},
			{text: " next", target: 1, after: time.Second, want: "next"},
		}},
		{name: "previous ended with opening bracket", window: time.Minute, calls: []call{
			{text: "note (", target: 1, want: "note ("},
			{text: " inside", target: 1, after: time.Second, want: "inside"},
		}},
		{name: "too late", window: time.Minute, calls: []call{
			{text: "one", target: 1, want: "one"},
			{text: " two", target: 1, after: 2 * time.Minute, want: "two"},
		}},
		{name: "other window", window: time.Minute, calls: []call{
			{text: "one", target: 1, want: "one"},
			{text: " two", target: 2, after: time.Second, want: "two"},
		}},
		{name: "unknown window counts as the same", window: time.Minute, calls: []call{
			{text: "one", target: 0, want: "one"},
			{text: " two", target: 0, after: time.Second, want: " two"},
		}},
		{name: "joining off", window: -1, calls: []call{
			{text: "one", target: 1, want: "one"},
			{text: " two", target: 1, after: time.Second, want: "two"},
		}},
		{name: "Chinese gets no space", window: time.Minute, calls: []call{
			{text: " 你好。", target: 1, want: "你好。"},
			{text: " 今天天气很好", target: 1, after: time.Second, want: "今天天气很好"},
		}},
		{name: "Japanese after Latin gets no space", window: time.Minute, calls: []call{
			{text: "OK", target: 1, want: "OK"},
			{text: " ありがとう", target: 1, after: time.Second, want: "ありがとう"},
		}},
		{name: "accented letters are words", window: time.Minute, calls: []call{
			{text: "déjà", target: 1, want: "déjà"},
			{text: " été", target: 1, after: time.Second, want: " été"},
		}},
		{name: "empty text changes nothing", window: time.Minute, calls: []call{
			{text: "one", target: 1, want: "one"},
			{text: "   ", target: 1, after: time.Second, want: ""},
			{text: " two", target: 1, after: time.Second, want: " two"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := NewJoiner(tt.window)
			now := t0
			for i, c := range tt.calls {
				now = now.Add(c.after)
				if got := j.Join(c.text, c.target, now); got != c.want {
					t.Errorf("call %d: Join(%q) = %q, want %q", i, c.text, got, c.want)
				}
			}
		})
	}
}

func TestPasteBlocked(t *testing.T) {
	type args struct {
		self   bool
		target elevation
	}
	tabletest.Check(t, "pasteBlocked", func(a args) bool {
		return pasteBlocked(a.self, a.target)
	}, []tabletest.Case[args, bool]{
		{Name: "both normal", In: args{target: elevNo}, Want: false},
		{Name: "target elevated", In: args{target: elevYes}, Want: true},
		{Name: "target refuses to tell", In: args{target: elevDenied}, Want: true},
		{Name: "no focused window", In: args{target: elevUnknown}, Want: false},
		{Name: "we are elevated too", In: args{self: true, target: elevYes}, Want: false},
		{Name: "we are elevated, target refuses", In: args{self: true, target: elevDenied}, Want: false},
	})
}

func TestWinFormatKind(t *testing.T) {
	tabletest.Check(t, "winFormatKindOf", winFormatKindOf, []tabletest.Case[uint32, winFormatKind]{
		{Name: "CF_UNICODETEXT", In: 13, Want: winGlobal},
		{Name: "CF_TEXT", In: 1, Want: winGlobal},
		{Name: "CF_DIB", In: 8, Want: winGlobal},
		{Name: "CF_DIBV5", In: 17, Want: winGlobal},
		{Name: "CF_HDROP", In: 15, Want: winGlobal},
		{Name: "CF_LOCALE", In: 16, Want: winGlobal},
		{Name: "registered format (HTML Format)", In: 0xC0F1, Want: winGlobal},
		{Name: "CF_ENHMETAFILE", In: 14, Want: winEnhMetafile},
		{Name: "CF_BITMAP is synthesised from the DIB", In: 2, Want: winSkip},
		{Name: "CF_METAFILEPICT holds a handle", In: 3, Want: winSkip},
		{Name: "CF_PALETTE", In: 9, Want: winSkip},
		{Name: "CF_OWNERDISPLAY", In: 0x80, Want: winSkip},
		{Name: "CF_DSPBITMAP", In: 0x82, Want: winSkip},
		{Name: "GDI object range", In: 0x0300, Want: winSkip},
		{Name: "private range is memory", In: 0x0200, Want: winGlobal},
	})
}

func TestCheckMode(t *testing.T) {
	tests := []struct {
		name    string
		in      choice.PasteMode
		want    choice.PasteMode
		wantErr bool
	}{
		{name: "default", in: "", want: choice.Paste},
		{name: "paste", in: choice.Paste, want: choice.Paste},
		{name: "clipboard", in: choice.Clipboard, want: choice.Clipboard},
		{name: "paste-enter", in: choice.PasteEnter, want: choice.PasteEnter},
		{name: "type", in: choice.Type, want: choice.Type},
		{name: "unknown", in: "typing", wantErr: true},
		{name: "not the config's spelling", in: "Paste", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := checkMode(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidMode) || !strings.Contains(err.Error(), `"paste-enter"`) {
					t.Fatalf("checkMode(%q) error = %v", tt.in, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("checkMode(%q) = %v, %v", tt.in, got, err)
			}
		})
	}
}

func TestTerminalStyle(t *testing.T) {
	type args struct{ class, name string }
	tabletest.Check(t, "terminalStyle", func(a args) pasteStyle {
		return terminalStyle(a.class, a.name)
	}, []tabletest.Case[args, pasteStyle]{
		{In: args{"XTerm", "xterm"}, Want: pasteShiftInsert},
		{In: args{"URxvt", "urxvt"}, Want: pasteShiftInsert},
		{In: args{"Gnome-terminal", "gnome-terminal-server"}, Want: pasteCtrlShiftV},
		{In: args{"kitty", "kitty"}, Want: pasteCtrlShiftV},
		{In: args{"Alacritty", "Alacritty"}, Want: pasteCtrlShiftV},
		{In: args{"konsole", "konsole"}, Want: pasteCtrlShiftV},
		{In: args{"CASCADIA_HOSTING_WINDOW_CLASS", ""}, Want: pasteCtrlShiftV},
		{In: args{"ConsoleWindowClass", ""}, Want: pasteShiftInsert},
		{In: args{"mintty", ""}, Want: pasteShiftInsert},
		{In: args{"firefox", "Navigator"}, Want: pasteCtrlV},
		{In: args{"Chrome_WidgetWin_1", ""}, Want: pasteCtrlV},
		{In: args{"", ""}, Want: pasteCtrlV},
	})
}
