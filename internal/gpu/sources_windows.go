package gpu

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/whisperkey/whisperkey/internal/win32"
)

// SystemSources reads this machine: DXGI adapters (WMI if DXGI fails),
// nvidia-smi, the HIP SDK folders and the CUDA toolkit's libraries.
func SystemSources() Sources {
	pf := os.Getenv("ProgramFiles")
	if pf == "" {
		pf = `C:\Program Files`
	}
	var dirs []string
	if cp := os.Getenv("CUDA_PATH"); cp != "" {
		dirs = append(dirs, filepath.Join(cp, "bin"), filepath.Join(cp, "bin", "x64"))
	}
	// CUDA 13 keeps its DLLs one level down, in bin\x64.
	for _, sub := range []string{"bin", `bin\x64`} {
		toolkits, _ := filepath.Glob(filepath.Join(pf, "NVIDIA GPU Computing Toolkit", "CUDA", "v*", sub))
		dirs = append(dirs, toolkits...)
	}
	dirs = append(dirs, pathDirs(os.Getenv("PATH"))...)
	return Sources{GOOS: "windows", Adapters: windowsAdapters, Run: runCommand, HIPDevices: hipDevices,
		ROCmRoots: []string{filepath.Join(pf, "AMD", "ROCm")}, CUDALibDirs: dirs, HIPPath: os.Getenv("HIP_PATH")}
}

func toolDirs(name string) []string {
	return []string{
		filepath.Join(os.Getenv("SystemRoot"), "System32", name+".exe"),
		filepath.Join(os.Getenv("ProgramFiles"), "NVIDIA Corporation", "NVSMI", name+".exe"),
	}
}

func hideWindow(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true, CreationFlags: windows.CREATE_NO_WINDOW}
}

func windowsAdapters(ctx context.Context) ([]Adapter, error) {
	ads, err := dxgiAdapters()
	if err == nil {
		return ads, nil
	}
	out, werr := runCommand(ctx, "powershell", "-NoProfile", "-NonInteractive", "-Command",
		"Get-CimInstance Win32_VideoController | Select-Object Name,PNPDeviceID,AdapterRAM,DriverVersion | ConvertTo-Json")
	if werr != nil {
		return nil, errors.Join(err, werr)
	}
	return ParseWMI(out)
}

// dxgiAdapterDesc1 is DXGI_ADAPTER_DESC1.
type dxgiAdapterDesc1 struct {
	Description           [128]uint16
	VendorID, DeviceID    uint32
	SubSysID, Revision    uint32
	DedicatedVideoMemory  uintptr
	DedicatedSystemMemory uintptr
	SharedSystemMemory    uintptr
	AdapterLUID           uint64
	Flags                 uint32
}

// Method slots: IUnknown 0-2, IDXGIObject 3-6, IDXGIFactory 7-11, IDXGIFactory1
// 12-13; IDXGIAdapter 7-9, IDXGIAdapter1 10.
const (
	slotEnumAdapters1         = 12
	slotCheckInterfaceSupport = 9
	slotGetDesc1              = 10
	dxgiErrorNotFound         = 0x887A0002
	dxgiAdapterFlagSoftware   = 2
	dxgiAdapterFlagRemote     = 1
)

func call(obj unsafe.Pointer, slot int, args ...uintptr) uintptr {
	return win32.ComCall(obj, slot, args...)
}

// dxgiAdapters lists adapters with DXGI: unlike WMI it reports 64-bit memory
// sizes, and the user-mode driver version comes from CheckInterfaceSupport.
func dxgiAdapters() ([]Adapter, error) {
	iidIDXGIFactory1 := windows.GUID{Data1: 0x770aae78, Data2: 0xf26f, Data3: 0x4dba, Data4: [8]byte{0xa8, 0x29, 0x25, 0x3c, 0x83, 0xd1, 0xb3, 0x87}}
	iidIDXGIDevice := windows.GUID{Data1: 0x54ec77fa, Data2: 0x1377, Data3: 0x44e6, Data4: [8]byte{0x8c, 0x32, 0x88, 0xfd, 0x5f, 0x44, 0xc8, 0x4c}}
	proc := windows.NewLazySystemDLL("dxgi.dll").NewProc("CreateDXGIFactory1")
	if err := proc.Find(); err != nil {
		return nil, fmt.Errorf("load dxgi.dll: %w", err)
	}
	var factory unsafe.Pointer
	if hr, _, _ := proc.Call(uintptr(unsafe.Pointer(&iidIDXGIFactory1)), uintptr(unsafe.Pointer(&factory))); hr != 0 {
		return nil, fmt.Errorf("CreateDXGIFactory1: HRESULT 0x%08x", uint32(hr))
	}
	defer win32.ComRelease(factory)
	var ads []Adapter
	for i := uintptr(0); ; i++ {
		var adapter unsafe.Pointer
		hr := call(factory, slotEnumAdapters1, i, uintptr(unsafe.Pointer(&adapter)))
		if uint32(hr) == dxgiErrorNotFound {
			return ads, nil
		}
		if hr != 0 {
			return ads, fmt.Errorf("EnumAdapters1(%d): HRESULT 0x%08x", i, uint32(hr))
		}
		var d dxgiAdapterDesc1
		hr = call(adapter, slotGetDesc1, uintptr(unsafe.Pointer(&d)))
		var umd int64
		umdHR := call(adapter, slotCheckInterfaceSupport, uintptr(unsafe.Pointer(&iidIDXGIDevice)), uintptr(unsafe.Pointer(&umd)))
		win32.ComRelease(adapter)
		if hr != 0 {
			return ads, fmt.Errorf("GetDesc1(%d): HRESULT 0x%08x", i, uint32(hr))
		}
		a := Adapter{Name: windows.UTF16ToString(d.Description[:]), VendorID: uint16(d.VendorID), DeviceID: uint16(d.DeviceID),
			VRAM: uint64(d.DedicatedVideoMemory), Source: "dxgi",
			Software: d.Flags&(dxgiAdapterFlagSoftware|dxgiAdapterFlagRemote) != 0 || d.VendorID == pciMicrosoft}
		if umdHR == 0 {
			a.Driver = fmt.Sprintf("%d.%d.%d.%d", umd>>48&0xffff, umd>>32&0xffff, umd>>16&0xffff, umd&0xffff)
		}
		if !a.Software {
			a.PCIBus = adapterBus(d.AdapterLUID)
		}
		ads = append(ads, a)
	}
}

// D3DKMT's structures for asking the kernel-mode driver an adapter's PCI
// location by its LUID (DXGI gives the LUID, not the bus).
type (
	d3dkmtOpenAdapterFromLUID struct {
		luid    uint64
		adapter uint32
	}
	d3dkmtQueryAdapterInfo struct {
		adapter uint32
		kind    uint32
		data    uintptr
		size    uint32
	}
	d3dkmtAdapterAddress struct{ bus, device, function uint32 }
)

const kmtqaiTypeAdapterAddress = 6 // KMTQAITYPE_ADAPTERADDRESS

// adapterBus is the PCI address of the adapter with this LUID, "" when the
// driver does not say. Windows gives no PCI domain; it is 0 on desktops.
func adapterBus(luid uint64) string {
	gdi := windows.NewLazySystemDLL("gdi32.dll")
	open, query, closeAdapter := gdi.NewProc("D3DKMTOpenAdapterFromLuid"), gdi.NewProc("D3DKMTQueryAdapterInfo"), gdi.NewProc("D3DKMTCloseAdapter")
	if open.Find() != nil || query.Find() != nil || closeAdapter.Find() != nil {
		return ""
	}
	o := d3dkmtOpenAdapterFromLUID{luid: luid}
	if st, _, _ := open.Call(uintptr(unsafe.Pointer(&o))); st != 0 {
		return ""
	}
	defer closeAdapter.Call(uintptr(unsafe.Pointer(&o.adapter)))
	var addr d3dkmtAdapterAddress
	q := d3dkmtQueryAdapterInfo{adapter: o.adapter, kind: kmtqaiTypeAdapterAddress, data: uintptr(unsafe.Pointer(&addr)), size: uint32(unsafe.Sizeof(addr))}
	if st, _, _ := query.Call(uintptr(unsafe.Pointer(&q))); st != 0 {
		return ""
	}
	return fmt.Sprintf("0000:%02x:%02x.%x", addr.bus, addr.device, addr.function)
}

// hipDevices asks the HIP runtime in libDir (amdhip64_N.dll) for its
// devices' PCI addresses, in HIP's order: on Windows nothing else knows it.
// The library stays loaded (unloading HIP's runtime is not safe), and this
// runs only when two AMD GPUs are present.
func hipDevices(_ context.Context, libDir string) ([]string, error) {
	dlls, _ := filepath.Glob(filepath.Join(libDir, "amdhip64_*.dll"))
	if len(dlls) == 0 {
		return nil, fmt.Errorf("no amdhip64_*.dll in %s", libDir)
	}
	h, err := windows.LoadLibraryEx(dlls[0], 0, windows.LOAD_WITH_ALTERED_SEARCH_PATH)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", dlls[0], err)
	}
	count, err1 := windows.GetProcAddress(h, "hipGetDeviceCount")
	busID, err2 := windows.GetProcAddress(h, "hipDeviceGetPCIBusId")
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("%s lacks hipGetDeviceCount or hipDeviceGetPCIBusId", dlls[0])
	}
	var n int32
	if rc, _, _ := syscall.SyscallN(count, uintptr(unsafe.Pointer(&n))); rc != 0 {
		return nil, fmt.Errorf("hipGetDeviceCount: hipError %d", rc)
	}
	var order []string
	for i := int32(0); i < n; i++ {
		var buf [64]byte
		if rc, _, _ := syscall.SyscallN(busID, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(i)); rc != 0 {
			return nil, fmt.Errorf("hipDeviceGetPCIBusId(%d): hipError %d", i, rc)
		}
		b := NormalizeBus(windows.ByteSliceToString(buf[:]))
		if b == "" {
			return nil, fmt.Errorf("hipDeviceGetPCIBusId(%d) gave %q", i, windows.ByteSliceToString(buf[:]))
		}
		order = append(order, b)
	}
	return order, nil
}
