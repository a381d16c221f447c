package media

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/whisperkey/whisperkey/internal/win32"
)

// The programs' audio sessions on the default output, through WASAPI:
// IMMDeviceEnumerator → the default render endpoint → IAudioSessionManager2
// → IAudioSessionEnumerator → each IAudioSessionControl2 (this process's own
// and the system sounds skipped) → its ISimpleAudioVolume.

var (
	clsidMMDeviceEnumerator  = windows.GUID{Data1: 0xbcde0395, Data2: 0xe52f, Data3: 0x467c, Data4: [8]byte{0x8e, 0x3d, 0xc4, 0x57, 0x92, 0x91, 0x69, 0x2e}}
	iidIMMDeviceEnumerator   = windows.GUID{Data1: 0xa95664d2, Data2: 0x9614, Data3: 0x4f35, Data4: [8]byte{0xa7, 0x46, 0xde, 0x8d, 0xb6, 0x36, 0x17, 0xe6}}
	iidIAudioSessionManager2 = windows.GUID{Data1: 0x77aa99a0, Data2: 0x1bd6, Data3: 0x484f, Data4: [8]byte{0x8b, 0xc7, 0x2c, 0x65, 0x4c, 0x9a, 0x9b, 0x6f}}
	iidIAudioSessionControl2 = windows.GUID{Data1: 0xbfb7ff88, Data2: 0x7239, Data3: 0x4fc9, Data4: [8]byte{0x8f, 0xa2, 0x07, 0xc9, 0x50, 0xbe, 0x9c, 0x6d}}
	iidISimpleAudioVolume    = windows.GUID{Data1: 0x87ce5498, Data2: 0x68d6, Data3: 0x44e5, Data4: [8]byte{0x92, 0x15, 0x6d, 0xa4, 0x7e, 0xf8, 0x83, 0xd8}}
)

// Method slots, IUnknown's 0-2 first.
const (
	slotQueryInterface = 0
	// IMMDeviceEnumerator
	slotGetDefaultAudioEndpoint = 4
	// IMMDevice
	slotActivate = 3
	// IAudioSessionManager2 (IAudioSessionManager's 3-4 first)
	slotGetSessionEnumerator = 5
	// IAudioSessionEnumerator
	slotGetCount   = 3
	slotGetSession = 4
	// IAudioSessionControl, then IAudioSessionControl2
	slotGetState              = 3
	slotGetDisplayName        = 4
	slotGetProcessID          = 14
	slotIsSystemSoundsSession = 15
	// ISimpleAudioVolume
	slotSetMasterVolume = 3
	slotGetMasterVolume = 4
	slotSetMute         = 5
	slotGetMute         = 6

	eRender                 = 0
	eMultimedia             = 1
	audioSessionStateActive = 1
	sFalse                  = 1
)

// wasapiSessions is the sessionSystem of Windows.
type wasapiSessions struct{}

func osSessions() sessionSystem { return wasapiSessions{} }

// Enter keeps the goroutine on its thread and joins COM's multithreaded
// apartment there, where the session objects may be used from. The thread
// stays locked and in the apartment until the goroutine ends, when Go ends
// the thread: leave does not call CoUninitialize, which under wine 8 hung
// the app's exit once the session manager had been activated.
func (wasapiSessions) Enter() (func(), error) {
	runtime.LockOSThread()
	// S_FALSE: COM was already initialised on this thread, in the same
	// apartment.
	if err := windows.CoInitializeEx(0, windows.COINIT_MULTITHREADED); err != nil && !errors.Is(err, syscall.Errno(windows.S_FALSE)) {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("CoInitializeEx: %w", err)
	}
	return func() {}, nil
}

// Sessions lists the other programs' sessions on the default output.
func (wasapiSessions) Sessions() ([]audioSession, error) {
	return listSessions(uint32(os.Getpid()))
}

// listSessions lists the sessions on the default output but the system
// sounds and those of process skip (0: none skipped).
func listSessions(skip uint32) ([]audioSession, error) {
	enum, err := win32.CoCreateInstance(&clsidMMDeviceEnumerator, &iidIMMDeviceEnumerator)
	if err != nil {
		return nil, fmt.Errorf("the audio device list: %w", err)
	}
	defer win32.ComRelease(enum)
	var dev unsafe.Pointer
	if err := win32.ComCheck("GetDefaultAudioEndpoint", win32.ComCall(enum, slotGetDefaultAudioEndpoint, eRender, eMultimedia, uintptr(unsafe.Pointer(&dev)))); err != nil {
		return nil, fmt.Errorf("the default output: %w", err)
	}
	defer win32.ComRelease(dev)
	var mgr unsafe.Pointer
	if err := win32.ComCheck("IMMDevice::Activate(IAudioSessionManager2)", win32.ComCall(dev, slotActivate,
		uintptr(unsafe.Pointer(&iidIAudioSessionManager2)), win32.ClsctxInprocServer, 0, uintptr(unsafe.Pointer(&mgr)))); err != nil {
		return nil, err
	}
	defer win32.ComRelease(mgr)
	var list unsafe.Pointer
	if err := win32.ComCheck("GetSessionEnumerator", win32.ComCall(mgr, slotGetSessionEnumerator, uintptr(unsafe.Pointer(&list)))); err != nil {
		return nil, err
	}
	defer win32.ComRelease(list)
	var n int32
	if err := win32.ComCheck("IAudioSessionEnumerator::GetCount", win32.ComCall(list, slotGetCount, uintptr(unsafe.Pointer(&n)))); err != nil {
		return nil, err
	}
	var out []audioSession
	for i := range n {
		var ctl unsafe.Pointer
		if win32.ComCall(list, slotGetSession, uintptr(i), uintptr(unsafe.Pointer(&ctl))) != 0 || ctl == nil {
			continue
		}
		s, ok := openSession(ctl, skip)
		win32.ComRelease(ctl)
		if ok {
			out = append(out, s)
		}
	}
	return out, nil
}

// openSession is the session behind ctl, unless it is process skip's or the
// system sounds.
func openSession(ctl unsafe.Pointer, skip uint32) (*wasapiSession, bool) {
	var ctl2 unsafe.Pointer
	if win32.ComCall(ctl, slotQueryInterface, uintptr(unsafe.Pointer(&iidIAudioSessionControl2)), uintptr(unsafe.Pointer(&ctl2))) != 0 {
		return nil, false
	}
	var pid uint32
	// GetProcessId says AUDCLNT_S_NO_SINGLE_PROCESS (a success) for a
	// session shared by several processes; pid is then one of them.
	hr := win32.ComCall(ctl2, slotGetProcessID, uintptr(unsafe.Pointer(&pid)))
	if int32(hr) < 0 || skip != 0 && pid == skip || win32.ComCall(ctl2, slotIsSystemSoundsSession) != sFalse {
		win32.ComRelease(ctl2)
		return nil, false
	}
	var vol unsafe.Pointer
	if win32.ComCall(ctl2, slotQueryInterface, uintptr(unsafe.Pointer(&iidISimpleAudioVolume)), uintptr(unsafe.Pointer(&vol))) != 0 {
		win32.ComRelease(ctl2)
		return nil, false
	}
	return &wasapiSession{ctl: ctl2, vol: vol, pid: pid, name: sessionName(ctl2, pid)}, true
}

// sessionName is the program's file name, else the session's display name,
// else its process ID.
func sessionName(ctl2 unsafe.Pointer, pid uint32) string {
	if h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid); err == nil {
		buf := make([]uint16, windows.MAX_PATH)
		size := uint32(len(buf))
		err := windows.QueryFullProcessImageName(h, 0, &buf[0], &size)
		_ = windows.CloseHandle(h)
		if err == nil {
			return filepath.Base(windows.UTF16ToString(buf[:size]))
		}
	}
	var p *uint16
	if win32.ComCall(ctl2, slotGetDisplayName, uintptr(unsafe.Pointer(&p))) == 0 && p != nil {
		name := windows.UTF16PtrToString(p)
		windows.CoTaskMemFree(unsafe.Pointer(p))
		if name != "" && name[0] != '@' { // "@%SystemRoot%\…,-123" is a resource reference
			return name
		}
	}
	return fmt.Sprintf("process %d", pid)
}

// wasapiSession holds one session's IAudioSessionControl2 and ISimpleAudioVolume.
type wasapiSession struct {
	ctl, vol unsafe.Pointer
	pid      uint32
	name     string
}

var errReleased = errors.New("audio session released")

func (s *wasapiSession) Name() string { return s.name }

func (s *wasapiSession) Playing() (bool, error) {
	if s.ctl == nil {
		return false, errReleased
	}
	var state int32
	if err := win32.ComCheck("IAudioSessionControl::GetState", win32.ComCall(s.ctl, slotGetState, uintptr(unsafe.Pointer(&state)))); err != nil {
		return false, err
	}
	return state == audioSessionStateActive, nil
}

func (s *wasapiSession) Volume() (float32, error) {
	if s.vol == nil {
		return 0, errReleased
	}
	var v float32
	err := win32.ComCheck("ISimpleAudioVolume::GetMasterVolume", win32.ComCall(s.vol, slotGetMasterVolume, uintptr(unsafe.Pointer(&v))))
	return v, err
}

// SetVolume passes the level as a float's bits: Go's Windows system call
// copies the first four integer arguments into XMM0-XMM3 too, where the
// x64 calling convention puts a float argument.
func (s *wasapiSession) SetVolume(v float32) error {
	if s.vol == nil {
		return errReleased
	}
	return win32.ComCheck("ISimpleAudioVolume::SetMasterVolume", win32.ComCall(s.vol, slotSetMasterVolume, uintptr(math.Float32bits(v)), 0))
}

func (s *wasapiSession) Muted() (bool, error) {
	if s.vol == nil {
		return false, errReleased
	}
	var m int32
	err := win32.ComCheck("ISimpleAudioVolume::GetMute", win32.ComCall(s.vol, slotGetMute, uintptr(unsafe.Pointer(&m))))
	return m != 0, err
}

func (s *wasapiSession) SetMuted(m bool) error {
	if s.vol == nil {
		return errReleased
	}
	var b uintptr
	if m {
		b = 1
	}
	return win32.ComCheck("ISimpleAudioVolume::SetMute", win32.ComCall(s.vol, slotSetMute, b, 0))
}

func (s *wasapiSession) Release() {
	win32.ComRelease(s.vol)
	win32.ComRelease(s.ctl)
	s.vol, s.ctl = nil, nil
}
