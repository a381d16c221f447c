package libcompare

import (
	"unsafe"

	"modernc.org/libc"
	"modernc.org/libc/sys/types"
	z "modernc.org/z/lib"
)

// modernc compresses through modernc.org/z, zlib 1.2.11 translated to Go,
// reusing its C-heap buffers from call to call.
type modernc struct {
	tls        *libc.TLS
	dst, src   uintptr
	dstN, srcN int
	lenp       uintptr
}

func newModernc() *modernc {
	t := libc.NewTLS()
	return &modernc{tls: t, lenp: libc.Xmalloc(t, 8)}
}

// size is len(zlib.compress(data)) at level 6.
func (m *modernc) size(data []byte) int {
	if need := int(z.XcompressBound(m.tls, z.ULong(len(data)))); need > m.dstN {
		libc.Xfree(m.tls, m.dst)
		m.dst, m.dstN = libc.Xmalloc(m.tls, types.Size_t(need)), need
	}
	if len(data)+1 > m.srcN {
		libc.Xfree(m.tls, m.src)
		m.src, m.srcN = libc.Xmalloc(m.tls, types.Size_t(len(data)+1)), len(data)+1
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(m.src)), len(data)), data)
	*(*z.ULong)(unsafe.Pointer(m.lenp)) = z.ULong(m.dstN)
	if rc := z.Xcompress2(m.tls, m.dst, m.lenp, m.src, z.ULong(len(data)), 6); rc != z.Z_OK {
		panic(rc)
	}
	return int(*(*z.ULong)(unsafe.Pointer(m.lenp)))
}
