package media

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/testlog"
	"github.com/whisperkey/whisperkey/internal/win32"
)

// The WASAPI session calls against the real audio system (scripts/wine-test.sh
// runs them under wine, on the test desktop's PulseAudio): another process
// plays a tone (winmm on WASAPI), and the controller lowers or mutes it and puts
// it back. Where the audio system offers no session of another process to
// reach (wine keeps a process's sessions to itself), the tests say so and skip.

const playEnv = "WHISPERKEY_MEDIA_TEST_PLAY" // seconds: the test binary plays a tone that long

func TestMain(m *testing.M) {
	if secs, err := strconv.Atoi(os.Getenv(playEnv)); err == nil {
		if err := playTone(time.Duration(secs) * time.Second); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// waveFormat is WAVEFORMATEX, waveHeader WAVEHDR (x64 layout).
type (
	waveFormat struct {
		FormatTag, Channels           uint16
		SamplesPerSec, AvgBytesPerSec uint32
		BlockAlign, BitsPerSample     uint16
		Size                          uint16
	}
	waveHeader struct {
		Data           *byte
		BufferLength   uint32
		BytesRecorded  uint32
		User           uintptr
		Flags, Loops   uint32
		Next, Reserved uintptr
	}
)

// tone is a player's audio, kept from the collector while winmm reads it.
var tone struct {
	pcm []byte
	hdr waveHeader
}

// playTone plays a quiet 440 Hz tone on the default output for d, through
// winmm's waveOut, which Windows (and wine) run on a WASAPI render stream
// of the calling process's audio session.
func playTone(d time.Duration) error {
	winmm := windows.NewLazySystemDLL("winmm.dll")
	const rate, wavePCM, waveMapper = 48000, 1, ^uintptr(0)
	tone.pcm = make([]byte, 2*rate) // one second, looped
	for i := range rate {
		v := int16(3000 * math.Sin(2*math.Pi*440*float64(i)/rate))
		tone.pcm[2*i], tone.pcm[2*i+1] = byte(v), byte(v>>8)
	}
	f := waveFormat{FormatTag: wavePCM, Channels: 1, SamplesPerSec: rate, AvgBytesPerSec: 2 * rate, BlockAlign: 2, BitsPerSample: 16}
	var h uintptr
	if rc, _, _ := winmm.NewProc("waveOutOpen").Call(uintptr(unsafe.Pointer(&h)), waveMapper, uintptr(unsafe.Pointer(&f)), 0, 0, 0); rc != 0 {
		return fmt.Errorf("waveOutOpen: MMRESULT %d", rc)
	}
	const beginLoop, endLoop = 0x4, 0x8 // WHDR_BEGINLOOP, WHDR_ENDLOOP
	tone.hdr = waveHeader{Data: &tone.pcm[0], BufferLength: uint32(len(tone.pcm)), Flags: beginLoop | endLoop, Loops: uint32(d.Seconds()) + 1}
	size := unsafe.Sizeof(tone.hdr)
	if rc, _, _ := winmm.NewProc("waveOutPrepareHeader").Call(h, uintptr(unsafe.Pointer(&tone.hdr)), size); rc != 0 {
		return fmt.Errorf("waveOutPrepareHeader: MMRESULT %d", rc)
	}
	if rc, _, _ := winmm.NewProc("waveOutWrite").Call(h, uintptr(unsafe.Pointer(&tone.hdr)), size); rc != 0 {
		return fmt.Errorf("waveOutWrite: MMRESULT %d", rc)
	}
	fmt.Println("playing")
	time.Sleep(d)
	return nil // the process's end closes the device
}

// startPlayer runs this test binary as another process that plays a tone,
// and returns its process ID once it plays.
func startPlayer(t *testing.T) uint32 {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), playEnv+"=30")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	playing := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "playing" {
				playing <- true
			}
		}
		close(playing)
	}()
	select {
	case ok := <-playing:
		if !ok {
			t.Fatalf("the player process ended without playing: %s", stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the player process did not start playing within 20 s")
	}
	time.Sleep(time.Second) // the render stream opened and started
	return uint32(cmd.Process.Pid)
}

// enter readies the test goroutine for COM as the controller's Run does.
func enter(t *testing.T) {
	t.Helper()
	leave, err := wasapiSessions{}.Enter()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(leave)
}

// skipWithoutSessions skips when listing fails because the audio system
// does not implement the session list, and fails on any other error.
func skipWithoutSessions(t *testing.T, err error) {
	t.Helper()
	const eNotImpl = 0x80004001
	if h := win32.HRESULT(0); errors.As(err, &h) && h == eNotImpl {
		t.Skipf("the audio system does not list sessions: %v (wine 8's IAudioSessionManager2::GetSessionEnumerator is a stub)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// find is the playing session of process pid in list.
func find(list []audioSession, pid uint32) *wasapiSession {
	for _, s := range list {
		if w := s.(*wasapiSession); w.pid == pid {
			if playing, err := w.Playing(); err == nil && playing {
				return w
			}
		}
	}
	return nil
}

func describe(list []audioSession) string {
	var b bytes.Buffer
	for _, s := range list {
		w := s.(*wasapiSession)
		playing, _ := w.Playing()
		v, _ := w.Volume()
		fmt.Fprintf(&b, "[%s pid %d playing %v volume %.2f] ", w.name, w.pid, playing, v)
	}
	return b.String()
}

// The session calls themselves, on this process's own playing session,
// which every audio system lists to its owner: state, level, mute.
func TestOwnSessionCalls(t *testing.T) {
	enter(t)
	played := make(chan error, 1)
	go func() { played <- playTone(5 * time.Second) }()
	time.Sleep(time.Second)
	select {
	case err := <-played:
		t.Skipf("no audio output: %v", err)
	default:
	}
	list, err := listSessions(0)
	skipWithoutSessions(t, err)
	defer func() {
		for _, s := range list {
			s.Release()
		}
	}()
	self := uint32(os.Getpid())
	s := find(list, self)
	if s == nil {
		t.Skipf("the audio system lists no playing session of this process while it plays: %s", describe(list))
	}
	v, err := s.Volume()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []float32{0.25, v} {
		if err := s.SetVolume(want); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Volume(); err != nil || math.Abs(float64(got-want)) > volumeSlack {
			t.Errorf("SetVolume(%.2f), then the level is %.3f (%v)", want, got, err)
		}
	}
	for _, want := range []bool{true, false} {
		if err := s.SetMuted(want); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Muted(); err != nil || got != want {
			t.Errorf("SetMuted(%v), then muted is %v (%v)", want, got, err)
		}
	}
	// The controller's own list leaves this process out.
	others, err := wasapiSessions{}.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range others {
		if o.(*wasapiSession).pid == self {
			t.Errorf("the controller's list holds this process's own session %s", o.Name())
		}
		o.Release()
	}
}

// Another program's playing session is lowered or muted by the controller
// during a recording and put back after.
func TestOtherProgramLoweredAndMuted(t *testing.T) {
	enter(t)
	pid := startPlayer(t)
	list, err := wasapiSessions{}.Sessions()
	skipWithoutSessions(t, err)
	s := find(list, pid)
	seen := describe(list)
	for _, s := range list {
		s.Release()
	}
	if s == nil {
		t.Skipf("the audio system lists no session of another process that plays (pid %d): sessions seen %s"+
			"(wine keeps each process's audio sessions to that process)", pid, seen)
	}
	for _, mode := range []choice.MediaMode{choice.MediaLower, choice.MediaPause} {
		t.Run(string(mode), func(t *testing.T) {
			c := New(mode, testlog.New(t, slog.LevelDebug))
			c.begin(context.Background(), mode)
			var during *wasapiSession
			for _, h := range c.sessions {
				if w := h.s.(*wasapiSession); w.pid == pid {
					during = w
				}
			}
			if during == nil {
				c.end(context.Background())
				t.Fatalf("the controller changed no session of the player (pid %d)", pid)
			}
			v, _ := during.Volume()
			m, _ := during.Muted()
			t.Logf("%s: during the recording %s has level %.2f, muted %v", mode, filepath.Base(during.name), v, m)
			switch mode {
			case choice.MediaLower:
				if m || v > 0.5 {
					t.Errorf("lower left the player at level %.2f, muted %v", v, m)
				}
			case choice.MediaPause:
				if !m {
					t.Error("pause left the player unmuted")
				}
			}
			c.end(context.Background())
			after, err := wasapiSessions{}.Sessions()
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				for _, s := range after {
					s.Release()
				}
			}()
			s := find(after, pid)
			if s == nil {
				t.Fatal("the player's session is gone after the recording")
			}
			v, _ = s.Volume()
			m, _ = s.Muted()
			if m || math.Abs(float64(v-1)) > volumeSlack {
				t.Errorf("after the recording the player has level %.2f, muted %v; want 1.00, unmuted", v, m)
			}
		})
	}
}
