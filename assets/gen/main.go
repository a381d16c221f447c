package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
)

func main() {
	out := flag.String("out", ".", "directory to write icons/, sounds/ and whisperkey.ico into")
	flag.Parse()
	if err := generate(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// generate writes every asset under dir.
func generate(dir string) error {
	files, err := render()
	if err != nil {
		return err
	}
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(p), err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return nil
}

// render returns every asset by its slash-separated path relative to assets/.
func render() (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, ic := range icons() {
		// Linux's tray takes a 64 px PNG; the app icon is only the ICO.
		if ic.name != "app" {
			b, err := encodePNG(ic.draw(64))
			if err != nil {
				return nil, fmt.Errorf("icon %s: %w", ic.name, err)
			}
			files["icons/"+ic.name+"-64.png"] = b
		}
		// Windows picks 16/20/24/32 for the tray by DPI, 48 and up for Explorer.
		sizes := []int{16, 20, 24, 32, 48, 64}
		path := "icons/" + ic.name + ".ico"
		if ic.name == "app" {
			sizes, path = []int{16, 20, 24, 32, 48, 64, 128, 256}, "whisperkey.ico"
		}
		b, err := encodeICO(ic.draw, sizes)
		if err != nil {
			return nil, fmt.Errorf("icon %s: %w", ic.name, err)
		}
		files[path] = b
	}
	for _, s := range sounds() {
		files["sounds/"+s.name+".wav"] = encodeWAV(s.samples)
	}
	return files, nil
}

// ---- icons ----------------------------------------------------------------

// sdf is a signed distance in icon units (the icon spans 0..1): negative inside.
type sdf func(x, y float64) float64

type layer struct {
	shape sdf
	fill  color.NRGBA
}

type icon struct {
	name   string
	layers []layer
}

func (ic icon) draw(size int) *image.NRGBA {
	return rasterize(size, ic.layers)
}

func icons() []icon {
	white := color.NRGBA{0xff, 0xff, 0xff, 0xff}
	ink := color.NRGBA{0x3a, 0x26, 0x04, 0xff} // dark glyph on amber, for contrast
	disc := func(c color.NRGBA) []layer {
		// A darker rim keeps the disc visible on a panel of the same hue.
		return []layer{
			{circle(0.5, 0.5, 0.47), shade(c, 0.75)},
			{circle(0.5, 0.5, 0.43), c},
		}
	}
	with := func(base []layer, glyphs ...layer) []layer { return append(base, glyphs...) }
	blue := color.NRGBA{0x2f, 0x6f, 0xdb, 0xff}
	red := color.NRGBA{0xe2, 0x3b, 0x3b, 0xff}
	return []icon{
		{"idle", with(disc(color.NRGBA{0x5f, 0x6f, 0x86, 0xff}), layer{mic(), white})},
		// Recording adds a ring so it differs from idle by shape, not only by colour.
		{"recording", with(disc(red), layer{ring(0.5, 0.5, 0.385, 0.022), white}, layer{mic(), white})},
		{"transcribing", with(disc(color.NRGBA{0xf2, 0xa3, 0x1b, 0xff}), layer{dots(), ink})},
		{"error", with(disc(color.NRGBA{0xb3, 0x26, 0x1e, 0xff}), layer{exclamation(), white})},
		{"loading", with(disc(blue), layer{downloadArrow(), white})},
		// Warning (a config key ignored) is yellow with a dark mark: not the error's red.
		{"warning", with(disc(color.NRGBA{0xf0, 0xc8, 0x1e, 0xff}), layer{exclamation(), ink})},
		{"app", with(disc(blue), layer{mic(), white})},
	}
}

func shade(c color.NRGBA, f float64) color.NRGBA {
	return color.NRGBA{uint8(float64(c.R) * f), uint8(float64(c.G) * f), uint8(float64(c.B) * f), c.A}
}

// mic is a capsule on a U-shaped holder with a stem and a foot.
func mic() sdf {
	return union(
		capsule(0.5, 0.27, 0.5, 0.47, 0.095),
		lowerArc(0.5, 0.45, 0.175, 0.032),
		capsule(0.5, 0.625, 0.5, 0.74, 0.032),
		capsule(0.39, 0.75, 0.61, 0.75, 0.032),
	)
}

func dots() sdf {
	return union(circle(0.30, 0.5, 0.075), circle(0.5, 0.5, 0.075), circle(0.70, 0.5, 0.075))
}

func exclamation() sdf {
	return union(capsule(0.5, 0.25, 0.5, 0.56, 0.06), circle(0.5, 0.73, 0.068))
}

func downloadArrow() sdf {
	return union(
		capsule(0.5, 0.24, 0.5, 0.62, 0.05),
		capsule(0.5, 0.64, 0.34, 0.48, 0.05),
		capsule(0.5, 0.64, 0.66, 0.48, 0.05),
		capsule(0.30, 0.77, 0.70, 0.77, 0.045),
	)
}

func circle(cx, cy, r float64) sdf {
	return func(x, y float64) float64 { return math.Hypot(x-cx, y-cy) - r }
}

func ring(cx, cy, r, halfWidth float64) sdf {
	return func(x, y float64) float64 { return math.Abs(math.Hypot(x-cx, y-cy)-r) - halfWidth }
}

// capsule is the segment (ax,ay)-(bx,by) thickened by r.
func capsule(ax, ay, bx, by, r float64) sdf {
	return func(x, y float64) float64 {
		px, py := x-ax, y-ay
		dx, dy := bx-ax, by-ay
		h := 0.0
		if l := dx*dx + dy*dy; l > 0 {
			h = math.Max(0, math.Min(1, (px*dx+py*dy)/l))
		}
		return math.Hypot(px-dx*h, py-dy*h) - r
	}
}

// lowerArc is the lower half of a circle outline (y grows downwards).
func lowerArc(cx, cy, r, halfWidth float64) sdf {
	return func(x, y float64) float64 {
		if y >= cy {
			return math.Abs(math.Hypot(x-cx, y-cy)-r) - halfWidth
		}
		return math.Min(math.Hypot(x-(cx-r), y-cy), math.Hypot(x-(cx+r), y-cy)) - halfWidth
	}
}

func union(shapes ...sdf) sdf {
	return func(x, y float64) float64 {
		d := math.Inf(1)
		for _, s := range shapes {
			d = math.Min(d, s(x, y))
		}
		return d
	}
}

// rasterize draws the layers back to front; coverage comes from the distance
// to the edge (one pixel of anti-aliasing), so each size is drawn natively.
func rasterize(size int, layers []layer) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	s := float64(size)
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			x, y := (float64(px)+0.5)/s, (float64(py)+0.5)/s
			var r, g, b, a float64 // premultiplied
			for _, l := range layers {
				cov := math.Max(0, math.Min(1, 0.5-l.shape(x, y)*s))
				if cov == 0 {
					continue
				}
				la := cov * float64(l.fill.A) / 255
				r = float64(l.fill.R)/255*la + r*(1-la)
				g = float64(l.fill.G)/255*la + g*(1-la)
				b = float64(l.fill.B)/255*la + b*(1-la)
				a = la + a*(1-la)
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{to8(r / a), to8(g / a), to8(b / a), to8(a)})
		}
	}
	return img
}

func to8(v float64) uint8 { return uint8(math.Round(math.Max(0, math.Min(1, v)) * 255)) }

func encodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// encodeICO writes an ICONDIR whose entries are PNG images, a form Windows
// reads since Vista.
func encodeICO(draw func(int) *image.NRGBA, sizes []int) ([]byte, error) {
	pngs := make([][]byte, len(sizes))
	for i, size := range sizes {
		b, err := encodePNG(draw(size))
		if err != nil {
			return nil, fmt.Errorf("size %d: %w", size, err)
		}
		pngs[i] = b
	}
	var buf bytes.Buffer
	le := binary.LittleEndian
	w16 := func(v uint16) { buf.Write(le.AppendUint16(nil, v)) }
	w32 := func(v uint32) { buf.Write(le.AppendUint32(nil, v)) }
	w16(0) // reserved
	w16(1) // type: icon
	w16(uint16(len(sizes)))
	offset := 6 + 16*len(sizes)
	for i, size := range sizes {
		dim := byte(size)
		if size >= 256 {
			dim = 0 // 0 means 256
		}
		buf.Write([]byte{dim, dim, 0, 0}) // width, height, palette size, reserved
		w16(1)                            // colour planes
		w16(32)                           // bits per pixel
		w32(uint32(len(pngs[i])))
		w32(uint32(offset))
		offset += len(pngs[i])
	}
	for _, p := range pngs {
		buf.Write(p)
	}
	return buf.Bytes(), nil
}

// ---- sounds ---------------------------------------------------------------

const sampleRate = 22050

type sound struct {
	name    string
	samples []float64
}

func sounds() []sound {
	const d5, a5 = 587.33, 880.0
	return []sound{
		{"start", twoTone(d5, a5)},
		{"stop", twoTone(a5, d5)},
		{"done", tick()},
	}
}

// twoTone is two 60 ms notes, each with its own smooth envelope so neither
// the joins nor the ends click.
func twoTone(f1, f2 float64) []float64 {
	const noteMS, overlapMS = 64, 8
	n := ms(2*noteMS - overlapMS)
	out := make([]float64, n)
	for i, f := range []float64{f1, f2} {
		start := i * ms(noteMS-overlapMS)
		note := ms(noteMS)
		for j := 0; j < note && start+j < n; j++ {
			t := float64(j) / sampleRate
			env := envelope(j, note, ms(6), ms(24))
			v := math.Sin(2*math.Pi*f*t) + 0.12*math.Sin(4*math.Pi*f*t)
			out[start+j] += 0.2 * env * v
		}
	}
	return out
}

// tick is a short, soft decaying blip.
func tick() []float64 {
	n := ms(60)
	out := make([]float64, n)
	for j := range out {
		t := float64(j) / sampleRate
		decay := math.Exp(-t / 0.014)
		env := envelope(j, n, ms(2), ms(12)) * decay
		out[j] = 0.22 * env * (math.Sin(2*math.Pi*1320*t) + 0.35*math.Sin(2*math.Pi*660*t))
	}
	return out
}

// envelope is a raised-cosine fade in over in samples and out over out samples.
func envelope(j, n, in, out int) float64 {
	e := 1.0
	if j < in {
		e = 0.5 - 0.5*math.Cos(math.Pi*float64(j)/float64(in))
	}
	if r := n - 1 - j; r < out {
		e *= 0.5 - 0.5*math.Cos(math.Pi*float64(r)/float64(out))
	}
	return e
}

func ms(v int) int { return v * sampleRate / 1000 }

// encodeWAV writes 16-bit mono PCM.
func encodeWAV(samples []float64) []byte {
	le := binary.LittleEndian
	data := make([]byte, 0, 2*len(samples))
	for _, s := range samples {
		v := math.Round(math.Max(-1, math.Min(1, s)) * 32767)
		data = le.AppendUint16(data, uint16(int16(v)))
	}
	b := make([]byte, 0, 44+len(data))
	b = append(b, "RIFF"...)
	b = le.AppendUint32(b, uint32(36+len(data)))
	b = append(b, "WAVEfmt "...)
	b = le.AppendUint32(b, 16)
	b = le.AppendUint16(b, 1) // PCM
	b = le.AppendUint16(b, 1) // mono
	b = le.AppendUint32(b, sampleRate)
	b = le.AppendUint32(b, sampleRate*2)
	b = le.AppendUint16(b, 2)
	b = le.AppendUint16(b, 16)
	b = append(b, "data"...)
	b = le.AppendUint32(b, uint32(len(data)))
	return append(b, data...)
}
