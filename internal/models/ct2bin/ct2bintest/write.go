package ct2bintest

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/whisperkey/whisperkey/internal/models/ct2bin"
)

// Variable is one named tensor of model.bin; Data is raw little-endian C-order bytes.
type Variable struct {
	Name  string
	Shape []int // empty for a scalar
	DType ct2bin.DType
	Data  []byte
}

// byteCount is what Shape and DType call for, or -1 when model.bin's u32 count cannot hold it
// or the dtype is unknown.
func (v Variable) byteCount() int64 {
	n := int64(v.DType.Size())
	if n == 0 {
		return -1
	}
	for _, s := range v.Shape {
		if s < 0 || s > 1<<32 {
			return -1
		}
		if n *= int64(s); n > 1<<32-1 {
			return -1
		}
	}
	return n
}

// WriteModel writes a binary-version-6 WhisperSpec (revision 3) model.bin: variables sorted by
// name, then the aliases (alias name → target variable), as CTranslate2's converter does.
func WriteModel(w io.Writer, vars []Variable, aliases map[string]string) error {
	sorted := append([]Variable(nil), vars...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	names := make(map[string]bool, len(sorted))
	for _, v := range sorted {
		switch n := v.byteCount(); {
		case names[v.Name]:
			return fmt.Errorf("write model: duplicate variable %q", v.Name)
		case v.DType.Size() == 0:
			return fmt.Errorf("write model: variable %q has unknown dtype id %d", v.Name, v.DType)
		case len(v.Shape) > 255:
			return fmt.Errorf("write model: variable %q has rank %d (max 255)", v.Name, len(v.Shape))
		case n < 0 || n != int64(len(v.Data)):
			return fmt.Errorf("write model: variable %q: shape %v of %s needs %d bytes, data has %d", v.Name, v.Shape, v.DType, n, len(v.Data))
		}
		names[v.Name] = true
	}
	akeys := make([]string, 0, len(aliases))
	for a := range aliases {
		akeys = append(akeys, a)
	}
	sort.Strings(akeys)

	// bufio.Writer keeps its first error, so only string validation and Flush are checked.
	bw := bufio.NewWriter(w)
	le := binary.LittleEndian
	u32 := func(x uint32) { _, _ = bw.Write(le.AppendUint32(nil, x)) }
	str := func(s string) error {
		if len(s)+1 > 0xffff || strings.IndexByte(s, 0) >= 0 || s == "" {
			return fmt.Errorf("write model: name %.40q is empty, too long or contains NUL", s)
		}
		_, _ = bw.Write(le.AppendUint16(nil, uint16(len(s)+1)))
		_, _ = bw.WriteString(s)
		return bw.WriteByte(0)
	}
	u32(ct2bin.BinaryVersion)
	_ = str(ct2bin.SpecName)
	u32(ct2bin.SpecRevision)
	u32(uint32(len(sorted)))
	for _, v := range sorted {
		if err := str(v.Name); err != nil {
			return err
		}
		_ = bw.WriteByte(uint8(len(v.Shape)))
		for _, s := range v.Shape {
			u32(uint32(s))
		}
		_ = bw.WriteByte(uint8(v.DType))
		u32(uint32(len(v.Data)))
		_, _ = bw.Write(v.Data)
	}
	u32(uint32(len(akeys)))
	for _, a := range akeys {
		if err := str(a); err != nil {
			return err
		}
		if err := str(aliases[a]); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write model: %w", err)
	}
	return nil
}
