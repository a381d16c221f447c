package cublastest

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/whisperkey/whisperkey/internal/cublas"
)

// Wheel is a stand-in nvidia-cublas-cu12 wheel: the real wheel's member
// paths for goos, small made-up libraries, and the pin that trusts it.
type Wheel struct {
	Data []byte
	Pin  cublas.Pin
	// Libs are the stand-in libraries' contents by file name.
	Libs map[string][]byte
}

// NewWheel builds the wheel. The libraries are a few kB of bytes derived
// from their names, so two wheels for one goos hold the same libraries.
func NewWheel(t testing.TB, goos string) Wheel {
	t.Helper()
	dir, names := "nvidia/cublas/lib/", []string{"libcublas.so.12", "libcublasLt.so.12", "libnvblas.so.12"}
	if goos == "windows" {
		dir, names = "nvidia/cublas/bin/", []string{"cublas64_12.dll", "cublasLt64_12.dll", "nvblas64_12.dll"}
	}
	w := Wheel{Libs: map[string][]byte{}}
	w.Pin = cublas.Pin{Version: "12.4.5.8", Major: 12, GOOS: goos}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name string, data []byte) {
		f, err := zw.Create(name)
		if err == nil {
			_, err = f.Write(data)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	add("nvidia/__init__.py", nil)
	add("nvidia/cublas/__init__.py", nil)
	add(dir+"__init__.py", nil)
	for i, n := range names {
		data := bytes.Repeat([]byte("stand-in "+n+"\n"), 200+100*i)
		add(dir+n, data)
		if i < 2 { // nvblas is not what the engine loads
			w.Libs[n] = data
			w.Pin.Libs = append(w.Pin.Libs, cublas.Lib{Member: dir + n, Size: int64(len(data)), SHA256: Sum(data)})
		}
	}
	add("nvidia_cublas_cu12-12.4.5.8.dist-info/License.txt", []byte("stand-in licence\n"))
	add("nvidia_cublas_cu12-12.4.5.8.dist-info/RECORD", []byte("stand-in record\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	w.Data = buf.Bytes()
	w.Pin.Size, w.Pin.SHA256 = int64(len(w.Data)), Sum(w.Data)
	return w
}

// Sum is the hex SHA-256 of b.
func Sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Server serves one file on loopback at /packages/NAME, honouring Range
// requests. CutAfter > 0 makes every answer stop after that many bytes of
// body, as a dropped connection would.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	data     []byte
	cutAfter int
	ranges   []string // the Range header of each request ("" for none)
}

// Serve starts a server for data; the test's end closes it.
func Serve(t testing.TB, name string, data []byte) *Server {
	s := &Server{data: data}
	mux := http.NewServeMux()
	mux.HandleFunc("/packages/"+name, s.serve)
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// URL is the file's address.
func (s *Server) FileURL(name string) string { return s.Server.URL + "/packages/" + name }

// Set changes what is served from now on.
func (s *Server) Set(data []byte, cutAfter int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data, s.cutAfter = data, cutAfter
}

// Ranges lists each request's Range header so far.
func (s *Server) Ranges() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ranges...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data, cut := s.data, s.cutAfter
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	s.mu.Unlock()
	start := 0
	if rg, ok := strings.CutPrefix(r.Header.Get("Range"), "bytes="); ok {
		first, _, _ := strings.Cut(rg, "-")
		n, err := strconv.Atoi(first)
		if err != nil || n >= len(data) {
			http.Error(w, "bad range", http.StatusRequestedRangeNotSatisfiable)
			return
		}
		start = n
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", n, len(data)-1, len(data)))
	}
	body := data[start:]
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if start > 0 {
		w.WriteHeader(http.StatusPartialContent)
	}
	if cut > 0 && cut < len(body) {
		_, _ = w.Write(body[:cut])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		// Drop the connection: the client sees fewer bytes than promised.
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				_ = c.Close()
			}
		}
		return
	}
	_, _ = w.Write(body)
}
