package output

import (
	"errors"
	"testing"
	"time"
)

// The rule for when Undo may touch the window at all; the text check
// (the selection must be exactly the dictation) follows in Undo itself.
func TestUndoRefusal(t *testing.T) {
	pasted := insertion{text: "The coffee machine is broken.", target: 42}
	tests := []struct {
		name    string
		last    insertion
		focused uint64
		style   pasteStyle
		want    error
	}{
		{"same window, nothing since", pasted, 42, pasteCtrlV, nil},
		{"nothing pasted", insertion{}, 42, pasteCtrlV, ErrNothingToUndo},
		{"another window", pasted, 43, pasteCtrlV, ErrFocusMoved},
		{"focused window unknown", pasted, 0, pasteCtrlV, ErrFocusMoved},
		{"terminal, ctrl+shift+v", pasted, 42, pasteCtrlShiftV, ErrTerminal},
		{"terminal, shift+insert", pasted, 42, pasteShiftInsert, ErrTerminal},
		{"sent with Enter", insertion{text: "hi", target: 42, entered: true}, 42, pasteCtrlV, ErrSent},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := undoRefusal(tc.last, tc.focused, tc.style)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("undoRefusal = %v, want %v", err, tc.want)
			}
			if err != nil && !errors.Is(err, ErrNotUndone) {
				t.Fatalf("%v does not wrap ErrNotUndone", err)
			}
		})
	}
}

func TestCursorSteps(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"Hello.", 6},
		{" with a space", 13},
		{"Grüße ✓", 7},
		{"e\u0301te", 3}, // é as e and a combining acute: one cursor position
		{"two\nlines", 9},
	} {
		if got := cursorSteps(tc.text); got != tc.want {
			t.Errorf("cursorSteps(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

func TestMoveSeqHoldsShift(t *testing.T) {
	k := editKeys{shift: 1, left: 2}
	got := moveSeq(k, k.left, 2)
	want := []keyEvent{{1, true}, {2, true}, {2, false}, {2, true}, {2, false}, {1, false}}
	if len(got) != len(want) {
		t.Fatalf("moveSeq = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("moveSeq = %v, want %v", got, want)
		}
	}
}

// After an undo the next dictation continues the text that is still there.
func TestJoinerRevert(t *testing.T) {
	j := NewJoiner(time.Minute)
	now := time.Now()
	steps := []struct {
		text   string
		revert bool
		want   string
	}{
		{text: " First.", want: "First."},
		{text: " Second.", want: " Second.", revert: true},
		{text: " Third.", want: " Third."}, // after "First.", still in the window
		{text: " Fourth.", want: " Fourth.", revert: true},
		{text: " Fifth.", want: " Fifth.", revert: true},
		{text: " Sixth.", want: " Sixth."}, // one Revert per Join: "Third." stays the last
	}
	for i, s := range steps {
		if got := j.Join(s.text, 7, now.Add(time.Duration(i)*time.Second)); got != s.want {
			t.Fatalf("step %d: Join(%q) = %q, want %q", i, s.text, got, s.want)
		}
		if s.revert {
			j.Revert()
		}
	}
	j = NewJoiner(time.Minute)
	j.Join(" Only.", 7, now)
	j.Revert()
	if got := j.Join(" Again.", 7, now); got != "Again." {
		t.Fatalf("after reverting the only text: %q, want no leading space", got)
	}
}
