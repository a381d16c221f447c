package indicator

import (
	"fmt"
	"log/slog"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/whisperkey/whisperkey/internal/choice"
	"github.com/whisperkey/whisperkey/internal/win32"
)

// Windows: a layered, topmost tool window that is never activated
// (WS_EX_NOACTIVATE) and lets the mouse through (WS_EX_TRANSPARENT with
// WS_EX_LAYERED). It is painted through GetDC on every change, so its class can use
// DefWindowProc and no Go callback is needed. One goroutine on a locked OS thread
// owns it, since a window belongs to the thread that created it.

var (
	user32                = windows.NewLazySystemDLL("user32.dll")
	gdi32                 = windows.NewLazySystemDLL("gdi32.dll")
	procSetLayeredAttrs   = user32.NewProc("SetLayeredWindowAttributes")
	procSetWindowPos      = user32.NewProc("SetWindowPos")
	procShowWindow        = user32.NewProc("ShowWindow")
	procGetDC             = user32.NewProc("GetDC")
	procReleaseDC         = user32.NewProc("ReleaseDC")
	procFillRect          = user32.NewProc("FillRect")
	procDrawText          = user32.NewProc("DrawTextW")
	procMonitorFromWindow = user32.NewProc("MonitorFromWindow")
	procMonitorFromPoint  = user32.NewProc("MonitorFromPoint")
	procGetMonitorInfo    = user32.NewProc("GetMonitorInfoW")
	procGetCursorPos      = user32.NewProc("GetCursorPos")
	procCreateSolidBrush  = gdi32.NewProc("CreateSolidBrush")
	procDeleteObject      = gdi32.NewProc("DeleteObject")
	procSelectObject      = gdi32.NewProc("SelectObject")
	procGetStockObject    = gdi32.NewProc("GetStockObject")
	procEllipse           = gdi32.NewProc("Ellipse")
	procSetBkMode         = gdi32.NewProc("SetBkMode")
	procSetTextColor      = gdi32.NewProc("SetTextColor")
	procGetTextExtent     = gdi32.NewProc("GetTextExtentPoint32W")
)

const (
	wsPopup                    = 0x80000000
	wsExTopmost                = 0x00000008
	wsExTransparent            = 0x00000020
	wsExToolWindow             = 0x00000080
	wsExLayered                = 0x00080000
	wsExNoActivate             = 0x08000000
	lwaAlpha                   = 0x2
	swpNoActivate              = 0x0010
	swpShowWindow              = 0x0040
	hwndTopmost                = ^uintptr(0) // (HWND)-1
	monitorNearest             = 2
	nullPen                    = 8
	bkTransparent              = 1
	dtLeft, dtRight, dtVCenter = 0x0, 0x2, 0x4
	dtSingleLine               = 0x20
	dtEndEllipsis              = 0x8000
	dtNoPrefix                 = 0x800
	className                  = "WhisperKeyIndicator"
	windowAlpha                = 235
)

type rect struct{ Left, Top, Right, Bottom int32 }

type point struct{ X, Y int32 }

type monitorInfo struct {
	Size    uint32
	Monitor rect
	Work    rect
	Flags   uint32
}

type osWindow struct {
	cfg Config
	log *slog.Logger
	*windowThread[uintptr]

	hwnd uintptr // set by open before New returns

	windowState
}

func newOSWindow(cfg Config, log *slog.Logger) (*osWindow, error) {
	w := &osWindow{cfg: cfg, log: log}
	t, err := startWindowThread(w.open, 50*time.Millisecond, w.pump)
	if err != nil {
		return nil, err
	}
	w.windowThread = t
	return w, nil
}

func (w *osWindow) open() (uintptr, func(), error) {
	hwnd, err := createWindow()
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	w.hwnd = hwnd
	return hwnd, func() { win32.DestroyWindow(hwnd) }, nil
}

// pump handles what the system sent the window and repaints what it may have erased.
func (w *osWindow) pump(hwnd uintptr) {
	repaint := win32.PumpMessages() > 0
	v := w.shown()
	if repaint && v.state != Hidden {
		paint(hwnd, v)
	}
}

func createWindow() (uintptr, error) {
	bg, _, _ := procCreateSolidBrush.Call(colorRef(colourBackground))
	hwnd, err := win32.Window(win32.Class{Name: className, WndProc: win32.DefWindowProcAddr(), Background: bg},
		wsExLayered|wsExNoActivate|wsExTransparent|wsExTopmost|wsExToolWindow, "WhisperKey indicator", wsPopup, 0, 0, Width, Height, 0)
	if err != nil {
		return 0, fmt.Errorf("the indicator window: %w", err)
	}
	procSetLayeredAttrs.Call(hwnd, 0, windowAlpha, lwaAlpha)
	return hwnd, nil
}

// colorRef turns 0xRRGGBB into a COLORREF (0x00BBGGRR).
func colorRef(c uint32) uintptr {
	return uintptr(c>>16&0xff | c&0xff00 | (c&0xff)<<16)
}

func fill(dc uintptr, r rect, c uint32) {
	b, _, _ := procCreateSolidBrush.Call(colorRef(c))
	procFillRect.Call(dc, uintptr(unsafe.Pointer(&r)), b)
	procDeleteObject.Call(b)
}

func paint(hwnd uintptr, v view) {
	dc, _, _ := procGetDC.Call(hwnd)
	if dc == 0 {
		return
	}
	defer procReleaseDC.Call(hwnd, dc)
	fill(dc, rect{0, 0, Width, Height}, colourBackground)
	fill(dc, rect{0, 0, 4, Height}, DotColour(v.state))
	const r = 14
	top := int32(Height-r) / 2
	b, _, _ := procCreateSolidBrush.Call(colorRef(DotColour(v.state)))
	pen, _, _ := procGetStockObject.Call(nullPen)
	oldB, _, _ := procSelectObject.Call(dc, b)
	oldP, _, _ := procSelectObject.Call(dc, pen)
	procEllipse.Call(dc, 12, uintptr(top), 12+r+1, uintptr(top+r+1))
	procSelectObject.Call(dc, oldB)
	procSelectObject.Call(dc, oldP)
	procDeleteObject.Call(b)
	left, right := int32(12+r+12), int32(Width-14)
	if v.state == Recording {
		// The profile or the words so far, right of a shorter bar, fitted
		// with the DC's own font.
		measure := func(s string) int { return textWidth(dc, s) }
		if l := recordingLabel(measure, v, int(right-left)); l != "" {
			text, _ := windows.UTF16FromString(l)
			procSetBkMode.Call(dc, bkTransparent)
			procSetTextColor.Call(dc, colorRef(colourText))
			tw := int32(measure(l))
			tr := rect{right - tw, 0, right, Height}
			procDrawText.Call(dc, uintptr(unsafe.Pointer(&text[0])), ^uintptr(0), uintptr(unsafe.Pointer(&tr)),
				dtRight|dtVCenter|dtSingleLine|dtNoPrefix)
			right -= tw + labelGap
		}
		const h = 8
		y := int32(Height-h) / 2
		fill(dc, rect{left, y, right, y + h}, colourLevelTrack)
		if n := int32(float32(right-left) * v.level); n > 0 {
			fill(dc, rect{left, y, left + n, y + h}, colourLevel)
		}
		return
	}
	text, _ := windows.UTF16FromString(v.label())
	procSetBkMode.Call(dc, bkTransparent)
	procSetTextColor.Call(dc, colorRef(colourText))
	tr := rect{left, 0, right, Height}
	procDrawText.Call(dc, uintptr(unsafe.Pointer(&text[0])), ^uintptr(0), uintptr(unsafe.Pointer(&tr)),
		dtLeft|dtVCenter|dtSingleLine|dtEndEllipsis|dtNoPrefix)
}

// textWidth is how wide s draws in dc's font, in pixels.
func textWidth(dc uintptr, s string) int {
	text, _ := windows.UTF16FromString(s)
	if len(text) <= 1 {
		return 0
	}
	var size struct{ CX, CY int32 }
	if r, _, _ := procGetTextExtent.Call(dc, uintptr(unsafe.Pointer(&text[0])), uintptr(len(text)-1), uintptr(unsafe.Pointer(&size))); r == 0 {
		return 0
	}
	return int(size.CX)
}

// monitor returns the work area of the monitor with the foreground window (or the
// pointer, for choice.Cursor), and the pointer position.
func (w *osWindow) monitor() (Rect, int, int) {
	var p point
	procGetCursorPos.Call(uintptr(unsafe.Pointer(&p)))
	var mon uintptr
	if fg := windows.GetForegroundWindow(); fg != 0 && w.cfg.Placement != choice.Cursor {
		mon, _, _ = procMonitorFromWindow.Call(uintptr(fg), monitorNearest)
	} else {
		mon, _, _ = procMonitorFromPoint.Call(uintptr(uint32(p.X))|uintptr(uint32(p.Y))<<32, monitorNearest)
	}
	mi := monitorInfo{}
	mi.Size = uint32(unsafe.Sizeof(mi))
	if r, _, _ := procGetMonitorInfo.Call(mon, uintptr(unsafe.Pointer(&mi))); r == 0 {
		return Rect{W: 1280, H: 800}, int(p.X), int(p.Y)
	}
	a := mi.Work
	return Rect{int(a.Left), int(a.Top), int(a.Right - a.Left), int(a.Bottom - a.Top)}, int(p.X), int(p.Y)
}

func (w *osWindow) show(v view, relocate bool) {
	w.shows(v)
	w.do(func(hwnd uintptr) {
		if relocate {
			mon, px, py := w.monitor()
			r := place(w.cfg.Placement, mon, px, py, Width, Height, w.cfg.Margin)
			w.placed(r)
		}
		r := w.bounds()
		procSetWindowPos.Call(hwnd, hwndTopmost, uintptr(r.X), uintptr(r.Y), Width, Height, swpNoActivate|swpShowWindow)
		paint(hwnd, v)
	})
}

func (w *osWindow) draw(v view) {
	w.shows(v)
	w.do(func(hwnd uintptr) { paint(hwnd, v) })
}

func (w *osWindow) hide() {
	w.shows(view{})
	w.do(func(hwnd uintptr) { procShowWindow.Call(hwnd, windows.SW_HIDE) })
}
