//go:build linux && !cgo

package output

import (
	"context"
	"errors"
	"log/slog"
)

// Without cgo there is no selection owner of our own: the clipboard goes through
// x/clipboard and is restored after RestoreDelay; typing is unavailable.
type xOwner struct{}

type xOffer struct {
	read, lost chan struct{}
	primary    bool
}

var errNoCgo = errors.New("built without cgo")

func newXOwner(*slog.Logger) (*xOwner, error)               { return nil, errNoCgo }
func (*xOwner) offer(string, uint64, bool) (*xOffer, error) { return nil, errNoCgo }
func (*xOwner) releasePrimary()                             {}
func (*xOwner) windowClass(uint64) (string, string)         { return "", "" }
func (*xOwner) titlePID(uint64) (string, int)               { return "", 0 }
func (*xOwner) typeText(context.Context, string) error      { return errNoCgo }
func (*xOwner) close()                                      {}
