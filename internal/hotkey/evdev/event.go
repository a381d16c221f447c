//go:build linux

package evdev

import (
	"encoding/binary"
	"strconv"
	"time"
)

// Event types and codes of the kernel's input protocol
// (linux/input-event-codes.h) that the reader acts on.
const (
	evSyn      = 0x00
	evKey      = 0x01
	synReport  = 0
	synDropped = 3

	keyUp     = 0 // value of an EV_KEY event
	keyDown   = 1
	keyRepeat = 2

	keyMax = 0x2ff // KEY_MAX: the key bitmaps hold keyMax+1 bits
)

// wordSize is the size of a C long: struct input_event starts with a
// struct timeval of two longs, so it is 24 bytes on 64-bit Linux and 16 on
// 32-bit.
const wordSize = strconv.IntSize / 8

// eventSize is sizeof(struct input_event): the timeval, then __u16 type,
// __u16 code and __s32 value. A read of an event device returns whole events.
const eventSize = 2*wordSize + 8

// event is one struct input_event.
type event struct {
	at    time.Time // the kernel's timestamp (CLOCK_REALTIME unless a client changed its own clock)
	typ   uint16
	code  uint16
	value int32
}

// decode reads one event from b (len(b) >= eventSize) in the machine's own
// byte order, as the kernel writes it.
func decode(b []byte) event {
	var sec, usec int64
	if wordSize == 8 {
		sec, usec = int64(binary.NativeEndian.Uint64(b)), int64(binary.NativeEndian.Uint64(b[8:]))
	} else {
		sec, usec = int64(int32(binary.NativeEndian.Uint32(b))), int64(int32(binary.NativeEndian.Uint32(b[4:])))
	}
	b = b[2*wordSize:]
	return event{
		at:    time.Unix(sec, usec*1000),
		typ:   binary.NativeEndian.Uint16(b),
		code:  binary.NativeEndian.Uint16(b[2:]),
		value: int32(binary.NativeEndian.Uint32(b[4:])),
	}
}
