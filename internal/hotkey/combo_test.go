package hotkey

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // canonical form
		mods Mods
		x11  uint32
		vk   uint32
	}{
		{name: "modifier only", in: "ctrl+win", want: "ctrl+win", mods: ModCtrl | ModWin},
		{name: "order and case do not matter", in: "Super+CONTROL", want: "ctrl+win", mods: ModCtrl | ModWin},
		{name: "three parts", in: "ctrl+shift+space", want: "ctrl+shift+space", mods: ModCtrl | ModShift, x11: 0x20, vk: 0x20},
		{name: "spaces around plus", in: " ctrl + shift + space ", want: "ctrl+shift+space", mods: ModCtrl | ModShift, x11: 0x20, vk: 0x20},
		{name: "function key alone", in: "f9", want: "f9", x11: 0xffc6, vk: 0x78},
		{name: "f24", in: "F24", want: "f24", x11: 0xffd5, vk: 0x87},
		{name: "backtick", in: "alt+`", want: "alt+`", mods: ModAlt, x11: 0x60, vk: 0xc0},
		{name: "grave alias", in: "option+grave", want: "alt+`", mods: ModAlt, x11: 0x60, vk: 0xc0},
		{name: "ctl alias", in: "ctl+alt+d", want: "ctrl+alt+d", mods: ModCtrl | ModAlt, x11: 'd', vk: 'D'},
		{name: "meta alias", in: "meta+shift+1", want: "shift+win+1", mods: ModShift | ModWin, x11: '1', vk: '1'},
		{name: "cmd alias", in: "cmd+alt", want: "alt+win", mods: ModAlt | ModWin},
		{name: "return alias", in: "ctrl+return", want: "ctrl+enter", mods: ModCtrl, x11: 0xff0d, vk: 0x0d},
		{name: "escape alone", in: "Escape", want: "esc", x11: 0xff1b, vk: 0x1b},
		{name: "esc alone", in: "esc", want: "esc", x11: 0xff1b, vk: 0x1b},
		{name: "pause alone", in: "pause", want: "pause", x11: 0xff13, vk: 0x13},
		{name: "backslash", in: `ctrl+\`, want: `ctrl+\`, mods: ModCtrl, x11: 0x5c, vk: 0xdc},
		{name: "ctrl+shift modifier only", in: "shift+ctrl", want: "ctrl+shift", mods: ModCtrl | ModShift},
		{name: "right ctrl alone", in: "rctrl", want: "rctrl", x11: 0xffe4, vk: 0xa3},
		{name: "right alt alone", in: "Right_Alt", want: "ralt", x11: 0xffea, vk: 0xa5},
		{name: "side button alone", in: "XButton1", want: "mouse4", vk: 0x05},
		{name: "side button with a modifier", in: "ctrl+mouse5", want: "ctrl+mouse5", mods: ModCtrl, vk: 0x06},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if got := c.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if c.Mods != tt.mods {
				t.Errorf("Mods = %v, want %v", c.Mods, tt.mods)
			}
			if c.Key.X11Keysym() != tt.x11 || c.Key.WindowsVK() != tt.vk {
				t.Errorf("key codes = %#x/%#x, want %#x/%#x", c.Key.X11Keysym(), c.Key.WindowsVK(), tt.x11, tt.vk)
			}
			again, err := Parse(c.String())
			if err != nil || again != c {
				t.Errorf("round trip of %q: %v, %v", c, again, err)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // substrings of the message
	}{
		{name: "empty", in: "  ", want: []string{"empty", "ctrl+shift+space"}},
		{name: "near miss key", in: "ctrl+spce", want: []string{`unknown key "spce"`, `did you mean "space"?`, "f1-f24"}},
		{name: "transposed modifier", in: "ctlr+space", want: []string{`did you mean "ctrl"?`}},
		{name: "near miss alias", in: "ctrl+escpe", want: []string{`did you mean "esc"?`}},
		{name: "nothing close", in: "ctrl+xyzzyq", want: []string{`unknown key "xyzzyq"`, "valid: modifiers ctrl, shift, alt, win"}},
		{name: "two keys", in: "ctrl+a+b", want: []string{`"a" and "b" are both keys`}},
		{name: "duplicate modifier", in: "ctrl+control+a", want: []string{"ctrl appears twice"}},
		{name: "single modifier", in: "ctrl", want: []string{"ctrl alone would swallow", "ctrl+win", "rctrl"}},
		{name: "right ctrl with a modifier", in: "shift+rctrl", want: []string{"rctrl is a hotkey only on its own", `just "rctrl"`}},
		{name: "right alt with a key", in: "ralt+space", want: []string{`"ralt" and "space" are both keys`}},
		{name: "typing key alone", in: "a", want: []string{"a alone would stop you typing", `"ctrl+alt+a"`}},
		{name: "space alone", in: "space", want: []string{"space alone would stop you typing"}},
		{name: "plus as key", in: "ctrl++", want: []string{"empty key name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want an error", tt.in)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestConfigParse(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{name: "defaults", cfg: Config{}},
		{name: "all set", cfg: Config{Record: "ctrl+shift+space", AutoSend: "ctrl+shift+enter", Cancel: "esc", Mode: "toggle"}},
		{name: "auto-send none", cfg: Config{AutoSend: "none", Cancel: "NONE"}},
		{name: "bad record names key", cfg: Config{Record: "ctrl+spce"}, wantErr: "hotkeys.record: invalid hotkey"},
		{name: "bad mode names key", cfg: Config{Mode: "push"}, wantErr: "hotkeys.mode:"},
		{name: "same combo twice", cfg: Config{Record: "f9", AutoSend: "F9"}, wantErr: "hotkeys.record and hotkeys.auto_send are both f9"},
		{name: "edit same as undo", cfg: Config{Undo: "ctrl+alt+z", Edit: "ctrl+alt+Z"}, wantErr: "hotkeys.undo and hotkeys.edit are both ctrl+alt+z"},
		{name: "cancel same as record", cfg: Config{Record: "esc"}, wantErr: "hotkeys.record and hotkeys.cancel are both esc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.cfg.parse()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("parse: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("parse error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestModKeys(t *testing.T) {
	tests := []struct {
		name string
		mod  Mods
		x11  []uint32
		vk   []uint32
	}{
		{name: "ctrl", mod: ModCtrl, x11: []uint32{0xffe3, 0xffe4}, vk: []uint32{0xa2, 0xa3}},
		{name: "win", mod: ModWin, x11: []uint32{0xffeb, 0xffec}, vk: []uint32{0x5b, 0x5c}},
		{name: "a set has none", mod: ModCtrl | ModWin},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.mod.X11Keysyms(); !slices.Equal(got, tt.x11) {
				t.Errorf("X11Keysyms = %#x, want %#x", got, tt.x11)
			}
			if got := tt.mod.WindowsVKs(); !slices.Equal(got, tt.vk) {
				t.Errorf("WindowsVKs = %#x, want %#x", got, tt.vk)
			}
		})
	}
}

// mustParse is Parse for the combinations written in tests; it panics on a bad one.
func mustParse(s string) Combo {
	c, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return c
}
