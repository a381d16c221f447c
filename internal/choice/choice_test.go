package choice

import "testing"

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"ctrl", "ctrl", 0},
		{"ctlr", "ctrl", 1},     // neighbours swapped
		{"ctrl", "ctl", 1},      // one deleted
		{"paste", "pastes", 1},  // one inserted
		{"toggle", "toggel", 1}, // swap at the end
		{"hold", "bold", 1},     // one substituted
		{"", "esc", 3},          // all inserted
		{"größe", "grösse", 2},  // letters, not bytes
		{"cursor", "bottom", 5}, // unrelated
		{"indicator", "indicatro", 1},
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestValid(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
		want bool
	}{
		{"compute type", Int8BFloat16.Valid(), true},
		{"compute type in another case", ComputeType("INT8").Valid(), false},
		{"empty compute type", ComputeType("").Valid(), false},
		{"paste mode", PasteEnter.Valid(), true},
		{"paste mode in another case", PasteMode("Paste").Valid(), false},
		{"empty paste mode", PasteMode("").Valid(), false},
		{"hotkey mode", Toggle.Valid(), true},
		{"unknown hotkey mode", HotkeyMode("push").Valid(), false},
		{"placement", IndicatorOff.Valid(), true},
		{"unknown placement", Placement("top").Valid(), false},
	}
	for _, tt := range tests {
		if tt.ok != tt.want {
			t.Errorf("%s: Valid = %v, want %v", tt.name, tt.ok, tt.want)
		}
	}
}
