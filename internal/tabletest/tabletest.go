package tabletest

import (
	"fmt"
	"strings"
	"testing"
)

// Case is one row of a table: the subtest's name, the argument and the result
// wanted. A function of several arguments takes them as one struct. A case
// without a Name is named by its In.
type Case[In any, Out comparable] struct {
	Name string
	In   In
	Want Out
}

func (c Case[In, Out]) name() string {
	if c.Name != "" {
		return c.Name
	}
	return fmt.Sprint(c.In)
}

// Check runs each case as a subtest and reports where f(In) is not Want,
// naming the call name(In).
func Check[In any, Out comparable](t *testing.T, name string, f func(In) Out, cases []Case[In, Out]) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name(), func(t *testing.T) {
			if got := f(c.In); got != c.Want {
				t.Errorf("%s(%s) = %s, want %s", name, show(c.In), show(got), show(c.Want))
			}
		})
	}
}

// Mentions is Check for a function that returns a message: an empty Want wants
// no message, any other Want a message that contains it.
func Mentions[In any](t *testing.T, name string, f func(In) string, cases []Case[In, string]) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name(), func(t *testing.T) {
			if got := f(c.In); (c.Want == "") != (got == "") || !strings.Contains(got, c.Want) {
				t.Errorf("%s(%s) = %q, want one saying %q", name, show(c.In), got, c.Want)
			}
		})
	}
}

// show prints v by its String method where it has one, and as Go syntax
// otherwise, so that strings are quoted, struct fields named and unsigned
// numbers (flags, key codes) in hex.
func show(v any) string {
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprintf("%#v", v)
}
