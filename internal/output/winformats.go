package output

// winFormatKind says how a Windows clipboard format's handle is copied.
type winFormatKind int

const (
	winSkip        winFormatKind = iota // not copied
	winGlobal                           // an HGLOBAL: copied as bytes
	winEnhMetafile                      // an HENHMETAFILE: copied with GetEnhMetaFileBits
)

// Standard clipboard formats whose handles are not plain memory.
const (
	cfBitmap          = 2
	cfMetafilePict    = 3
	cfPalette         = 9
	cfEnhMetafile     = 14
	cfOwnerDisplay    = 0x0080
	cfDspBitmap       = 0x0082
	cfDspMetafilePict = 0x0083
	cfDspEnhMetafile  = 0x008E
	cfGDIObjFirst     = 0x0300
	cfGDIObjLast      = 0x03FF
)

// winFormatKindOf classifies a format from EnumClipboardFormats. Bitmaps and palettes
// are GDI objects that Windows synthesises from CF_DIB/CF_DIBV5, which are copied;
// metafile pictures embed a handle in their bytes; owner-display and GDI-object formats
// belong to the owning process. Everything else, registered formats included, is
// HGLOBAL memory.
func winFormatKindOf(format uint32) winFormatKind {
	switch {
	case format == cfEnhMetafile:
		return winEnhMetafile
	case format == cfBitmap, format == cfMetafilePict, format == cfPalette, format == cfOwnerDisplay,
		format == cfDspBitmap, format == cfDspMetafilePict, format == cfDspEnhMetafile:
		return winSkip
	case format >= cfGDIObjFirst && format <= cfGDIObjLast:
		return winSkip
	}
	return winGlobal
}
