//go:build windows

package engine

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// openLibrary adds the variant folder (and e.g. the HIP SDK's bin) to the DLL
// search path before loading, so the right CUDA/ROCm DLLs are found; HIP_PATH is
// never consulted because it may name an incompatible SDK.
func openLibrary(path string, dirs []string) (uintptr, error) {
	for _, d := range dirs {
		p, err := windows.UTF16PtrFromString(d)
		if err != nil {
			return 0, err
		}
		if _, err := windows.AddDllDirectory(p); err != nil {
			return 0, fmt.Errorf("add DLL directory %s: %w", d, err)
		}
	}
	h, err := windows.LoadLibraryEx(path, 0,
		windows.LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR|windows.LOAD_LIBRARY_SEARCH_DEFAULT_DIRS|windows.LOAD_LIBRARY_SEARCH_USER_DIRS)
	if err != nil {
		return 0, err
	}
	return uintptr(h), nil
}

func symbol(h uintptr, name string) (uintptr, error) {
	p, err := windows.GetProcAddress(windows.Handle(h), name)
	return p, err
}
