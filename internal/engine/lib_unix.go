//go:build !windows

package engine

import "github.com/ebitengine/purego"

func openLibrary(path string, _ []string) (uintptr, error) {
	// Dependencies in the variant folder are found through the worker's
	// LD_LIBRARY_PATH (see workerEnv) or the library's $ORIGIN rpath.
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
}

func symbol(h uintptr, name string) (uintptr, error) { return purego.Dlsym(h, name) }
