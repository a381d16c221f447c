package win32

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// COM without cgo: an interface pointer's first word points at its method
// table, the interface's methods in declaration order after IUnknown's
// QueryInterface (0), AddRef (1) and Release (2); each method takes the
// interface pointer first and returns an HRESULT.

var (
	ole32                = windows.NewLazySystemDLL("ole32.dll")
	procCoCreateInstance = ole32.NewProc("CoCreateInstance")
)

// comObject is any COM interface pointer. The table's length only bounds
// the slots that may be indexed; no interface used here has more methods.
type comObject struct{ vtbl *[64]uintptr }

const slotRelease = 2

// ComCall calls method slot of the interface obj with args and returns its
// HRESULT.
func ComCall(obj unsafe.Pointer, slot int, args ...uintptr) uintptr {
	r, _, _ := syscall.SyscallN((*comObject)(obj).vtbl[slot], append([]uintptr{uintptr(obj)}, args...)...)
	return r
}

// ComRelease releases obj; nil is ignored.
func ComRelease(obj unsafe.Pointer) {
	if obj != nil {
		ComCall(obj, slotRelease)
	}
}

// HRESULT is a failed COM call's result as an error.
type HRESULT uint32

func (h HRESULT) Error() string { return fmt.Sprintf("HRESULT 0x%08x", uint32(h)) }

// ComCheck is nil for a success code (S_OK, S_FALSE), else the HRESULT as
// an error naming what failed.
func ComCheck(what string, hr uintptr) error {
	if int32(hr) >= 0 {
		return nil
	}
	return fmt.Errorf("%s: %w", what, HRESULT(hr))
}

// ClsctxInprocServer is CLSCTX_INPROC_SERVER: the object lives in this
// process, as MMDevAPI's do; COM is never asked to start a server process.
const ClsctxInprocServer = 0x1

// CoCreateInstance makes an in-process object of class clsid and returns
// its interface iid.
func CoCreateInstance(clsid, iid *windows.GUID) (unsafe.Pointer, error) {
	var obj unsafe.Pointer
	hr, _, _ := procCoCreateInstance.Call(uintptr(unsafe.Pointer(clsid)), 0, ClsctxInprocServer,
		uintptr(unsafe.Pointer(iid)), uintptr(unsafe.Pointer(&obj)))
	if err := ComCheck("CoCreateInstance", hr); err != nil {
		return nil, err
	}
	return obj, nil
}
