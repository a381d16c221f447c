package cublas

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path"
	"strings"
)

// Pin is one cuBLAS download WhisperKey trusts: NVIDIA's nvidia-cublas-cu12
// wheel for one OS, and the two libraries the engine loads from it.
type Pin struct {
	Version string `json:"version"` // cuBLAS's own version, e.g. "12.4.5.8"
	Major   int    `json:"major"`   // the CUDA major it belongs to
	GOOS    string `json:"goos"`
	URL     string `json:"url"`
	Size    int64  `json:"size"`
	SHA256  string `json:"sha256"` // of the whole wheel
	Libs    []Lib  `json:"libs"`
}

// Lib is one library in the wheel, with the size and SHA-256 its RECORD lists.
type Lib struct {
	Member string `json:"member"` // path inside the wheel
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Name is the library's file name, as it is installed.
func (l Lib) Name() string { return path.Base(l.Member) }

// File is the wheel's file name.
func (p Pin) File() string {
	if u, err := url.Parse(p.URL); err == nil {
		return path.Base(u.Path)
	}
	return path.Base(p.URL)
}

// Unpacked is the bytes the libraries take once installed.
func (p Pin) Unpacked() int64 {
	var n int64
	for _, l := range p.Libs {
		n += l.Size
	}
	return n
}

// Name is what messages and progress call the download.
func (p Pin) Name() string { return "cuBLAS " + p.Version }

// The pins were taken from PyPI (pip install --dry-run --report gives the
// wheel's URL and SHA-256) and from each wheel's own RECORD, read through
// HTTP range requests on the wheel (its zip directory and RECORD only):
// sizes and member sums are NVIDIA's as published. 12.4.5.8 is CUDA
// 12.4's cuBLAS, the CUDA the engine's driver minimum (550) stands for.
var builtin = []Pin{
	{Version: "12.4.5.8", Major: 12, GOOS: "windows",
		URL:    "https://files.pythonhosted.org/packages/e2/2a/4f27ca96232e8b5269074a72e03b4e0d43aa68c9b965058b1684d07c6ff8/nvidia_cublas_cu12-12.4.5.8-py3-none-win_amd64.whl",
		Size:   396895858,
		SHA256: "5a796786da89203a0657eda402bcdcec6180254a8ac22d72213abc42069522dc",
		Libs: []Lib{
			{Member: "nvidia/cublas/bin/cublas64_12.dll", Size: 100033536, SHA256: "e40202fe4223c1cd2d2dce7beec59e1ed61c7801bd827309183be9b50e358f4c"},
			{Member: "nvidia/cublas/bin/cublasLt64_12.dll", Size: 473551360, SHA256: "2a896460bef60ed57ef32b0875812f355a6984e671d638bb632f5e8c1d7a831f"},
		}},
	{Version: "12.4.5.8", Major: 12, GOOS: "linux",
		URL:    "https://files.pythonhosted.org/packages/ae/71/1c91302526c45ab494c23f61c7a84aa568b8c1f9d196efa5993957faf906/nvidia_cublas_cu12-12.4.5.8-py3-none-manylinux2014_x86_64.whl",
		Size:   363438805,
		SHA256: "2fc8da60df463fdefa81e323eef2e36489e1c94335b5358bcb38360adf75ac9b",
		Libs: []Lib{
			{Member: "nvidia/cublas/lib/libcublas.so.12", Size: 109604768, SHA256: "4cc45526449a95d3985389785e985b7832460ea3db178bc9e9963be2111fbee8"},
			{Member: "nvidia/cublas/lib/libcublasLt.so.12", Size: 441938896, SHA256: "44a813aa2da08830f9083f81d0eb73f1ae4052a4d9b0b0de480a8f6cd9eb3078"},
		}},
}

// PinEnv names a JSON file holding a Pin that replaces the built-in one:
// for a mirror inside a company network, and for tests.
const PinEnv = "WHISPERKEY_CUBLAS_PIN"

// For is the pin for a CUDA major on goos: the one in the file named by
// pinFile when that is set, else the built-in one.
func For(major int, goos, pinFile string) (Pin, error) {
	if pinFile != "" {
		return readPin(pinFile)
	}
	for _, p := range builtin {
		if p.Major == major && p.GOOS == goos {
			return p, nil
		}
	}
	return Pin{}, fmt.Errorf("WhisperKey has no cuBLAS download for CUDA %d on %s: install cuBLAS %d from NVIDIA's CUDA Toolkit %d.x (docs/gpu-setup.md#install-the-cuda-12-libraries)", major, goos, major, major)
}

func readPin(file string) (Pin, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return Pin{}, fmt.Errorf("read the cuBLAS pin named by %s: %w", PinEnv, err)
	}
	var p Pin
	if err := json.Unmarshal(b, &p); err != nil {
		return Pin{}, fmt.Errorf("%s (named by %s) is not a cuBLAS pin: %w", file, PinEnv, err)
	}
	if err := p.validate(); err != nil {
		return Pin{}, fmt.Errorf("%s (named by %s): %w", file, PinEnv, err)
	}
	return p, nil
}

func (p Pin) validate() error {
	if p.Version == "" || p.URL == "" || p.Size <= 0 || !isSHA256(p.SHA256) || len(p.Libs) == 0 {
		return fmt.Errorf("a pin needs version, url, size, a 64-digit sha256 and libs")
	}
	for _, l := range p.Libs {
		if l.Member == "" || l.Size <= 0 || !isSHA256(l.SHA256) || strings.ContainsAny(l.Name(), `/\`) || l.Name() == ".." {
			return fmt.Errorf("lib %q needs a member path, a size and a 64-digit sha256", l.Member)
		}
	}
	return nil
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}
