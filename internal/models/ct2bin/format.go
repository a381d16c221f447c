package ct2bin

import "fmt"

// The model.bin constants this package reads (CTranslate2 4.x).
const (
	BinaryVersion = 6
	SpecName      = "WhisperSpec"
	SpecRevision  = 3
)

// DType is a model.bin dtype id; the order is CTranslate2's enum DataType.
type DType uint8

// The dtype ids stored in model.bin since binary version 4.
const (
	Float32 DType = iota
	Int8
	Int16
	Int32
	Float16
	BFloat16
)

func (d DType) valid() bool { return d <= BFloat16 }

// String returns CTranslate2's name for the dtype ("float16").
func (d DType) String() string {
	if !d.valid() {
		return fmt.Sprintf("dtype(%d)", uint8(d))
	}
	return [...]string{"float32", "int8", "int16", "int32", "float16", "bfloat16"}[d]
}

// Size is the byte size of one element.
func (d DType) Size() int {
	if !d.valid() {
		return 0
	}
	return [...]int{4, 1, 2, 4, 2, 2}[d]
}

// numBytes is the byte count Shape and DType call for, or -1 if it cannot be stored (u32 count).
func numBytes(shape []int, d DType) int64 {
	n := int64(d.Size())
	for _, s := range shape {
		if s < 0 || s > 1<<32 {
			return -1
		}
		if n *= int64(s); n > 1<<32-1 {
			return -1
		}
	}
	return n
}
