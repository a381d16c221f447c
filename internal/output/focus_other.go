//go:build !windows && !linux

package output

func (b *osBackend) describe(uint64) (Window, error) { return Window{}, errNoWindow }
