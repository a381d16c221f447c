//go:build linux

package indicator

import (
	"log/slog"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/whisperkey/whisperkey/internal/testenv"
)

// notifications is a notification server on the session bus that records
// the summaries it is sent.
type notifications struct {
	mu        sync.Mutex
	summaries []string
}

func (n *notifications) Notify(_ string, _ uint32, _, summary, _ string, _ []string, _ map[string]dbus.Variant, _ int32) (uint32, *dbus.Error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.summaries = append(n.summaries, summary)
	return uint32(len(n.summaries)), nil
}

func (n *notifications) got() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.summaries)
}

// Where no layer surface can show, the indicator's states that matter
// become one notification each: recording once per dictation (not once
// per live-text update), nothing heard; the level, transcribing and
// errors (the desktop notifies those itself) none.
func TestNoticeStandIn(t *testing.T) {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		testenv.Require(t, "a D-Bus session bus (DBUS_SESSION_BUS_ADDRESS)", "scripts/testenv.sh go test ./internal/indicator/")
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	srv := &notifications{}
	if err := conn.Export(srv, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.Notifications: %v %v", reply, err)
	}
	defer conn.ReleaseName("org.freedesktop.Notifications")

	b, err := newNotice(slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	b.show(view{state: Recording, text: "terminal"}, true)
	b.draw(view{state: Recording, level: 0.5})
	b.show(view{state: Recording, text: "live words so far"}, true) // the live text during the hold
	b.show(view{state: Transcribing}, false)
	b.show(view{state: NothingHeard}, false)
	b.hide()
	b.show(view{state: Error, text: "Not pasted — press Ctrl+V"}, false)
	if got, want := srv.got(), []string{"Recording", "Nothing heard"}; !slices.Equal(got, want) {
		t.Errorf("notifications %q, want %q", got, want)
	}
}
