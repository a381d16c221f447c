package tabletest

import (
	"strings"
	"testing"
	"time"
)

func TestShow(t *testing.T) {
	type args struct {
		id   string
		kind uint32
	}
	Check(t, "show", show, []Case[any, string]{
		{Name: "string is quoted", In: "a b", Want: `"a b"`},
		{Name: "Stringer by its String method", In: time.Second, Want: "1s"},
		{Name: "struct with named fields", In: args{"x", 0x10}, Want: `tabletest.args{id:"x", kind:0x10}`},
		{Name: "bool", In: true, Want: "true"},
	})
}

func TestCheckAndMentions(t *testing.T) {
	Check(t, "strings.ToUpper", strings.ToUpper, []Case[string, string]{
		{Name: "a string", In: "abc", Want: "ABC"},
	})
	Mentions(t, "strings.TrimSpace", strings.TrimSpace, []Case[string, string]{
		{Name: "no message wanted", In: "  ", Want: ""},
		{Name: "part of the message", In: " it failed here ", Want: "failed"},
	})
}

func TestCaseName(t *testing.T) {
	Check(t, "name", Case[string, bool].name, []Case[Case[string, bool], string]{
		{Name: "its Name", In: Case[string, bool]{Name: "a", In: "b"}, Want: "a"},
		{Name: "else its In", In: Case[string, bool]{In: "b"}, Want: "b"},
	})
}
