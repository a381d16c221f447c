package paths

import (
	"runtime"
	"strings"
	"testing"
)

func TestPathFor(t *testing.T) {
	tests := []struct {
		name    string
		goos    string
		env     map[string]string
		home    string
		want    string
		wantErr string
		state   bool // StateDir's rule, not ConfigFile's
	}{
		{name: "windows", goos: "windows", env: map[string]string{"APPDATA": `C:\Users\ana\AppData\Roaming`}, home: `C:\Users\ana`,
			want: `C:\Users\ana\AppData\Roaming\whisperkey\config.yaml`},
		{name: "windows without APPDATA", goos: "windows", home: `C:\Users\ana`,
			want: `C:\Users\ana\AppData\Roaming\whisperkey\config.yaml`},
		{name: "windows with nothing", goos: "windows", wantErr: "APPDATA is not set"},
		{name: "linux XDG", goos: "linux", env: map[string]string{"XDG_CONFIG_HOME": "/home/ana/.cfg/"}, home: "/home/ana",
			want: "/home/ana/.cfg/whisperkey/config.yaml"},
		{name: "linux default", goos: "linux", home: "/home/ana", want: "/home/ana/.config/whisperkey/config.yaml"},
		{name: "linux relative XDG is ignored", goos: "linux", env: map[string]string{"XDG_CONFIG_HOME": "cfg"}, home: "/home/ana",
			want: "/home/ana/.config/whisperkey/config.yaml"},
		{name: "freebsd follows XDG", goos: "freebsd", home: "/home/ana", want: "/home/ana/.config/whisperkey/config.yaml"},
		{name: "macos", goos: "darwin", env: map[string]string{"XDG_CONFIG_HOME": "/ignored"}, home: "/Users/ana",
			want: "/Users/ana/Library/Application Support/whisperkey/config.yaml"},
		{name: "no home", goos: "linux", wantErr: "home directory is unknown"},
		{state: true, name: "state: windows", goos: "windows", env: map[string]string{"LOCALAPPDATA": `C:\Users\ana\AppData\Local\`}, home: `C:\Users\ana`,
			want: `C:\Users\ana\AppData\Local\whisperkey`},
		{state: true, name: "state: windows without LOCALAPPDATA", goos: "windows", home: `C:\Users\ana`, want: `C:\Users\ana\AppData\Local\whisperkey`},
		{state: true, name: "state: windows with nothing", goos: "windows", wantErr: "LOCALAPPDATA is not set"},
		{state: true, name: "state: linux XDG", goos: "linux", env: map[string]string{"XDG_STATE_HOME": "/home/ana/st"}, home: "/home/ana",
			want: "/home/ana/st/whisperkey"},
		{state: true, name: "state: linux default", goos: "linux", home: "/home/ana", want: "/home/ana/.local/state/whisperkey"},
		{state: true, name: "state: linux relative XDG is ignored", goos: "linux", env: map[string]string{"XDG_STATE_HOME": "st"}, home: "/home/ana",
			want: "/home/ana/.local/state/whisperkey"},
		{state: true, name: "state: macos", goos: "darwin", home: "/Users/ana", want: "/Users/ana/Library/Application Support/whisperkey"},
		{state: true, name: "state: no home", goos: "linux", wantErr: "state folder: the home directory is unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rule := pathFor
			if tt.state {
				rule = statePlace.dir
			}
			got, err := rule(tt.goos, func(k string) string { return tt.env[k] }, tt.home)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestPathOnThisOS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Linux rule is checked here; pathFor covers the others on every OS")
	}
	t.Setenv("WHISPERKEY_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", "/tmp/xdg")
	if got, err := ConfigFile(); err != nil || got != "/tmp/xdg/whisperkey/config.yaml" {
		t.Errorf("ConfigFile() = %q, %v", got, err)
	}
	t.Setenv("WHISPERKEY_CONFIG", "/srv/wk.yaml")
	if got, err := ConfigFile(); err != nil || got != "/srv/wk.yaml" {
		t.Errorf("ConfigFile() with WHISPERKEY_CONFIG = %q, %v", got, err)
	}
}

// The cache folder: WHISPERKEY_CACHE wins, else the OS's cache folder (the
// XDG rule on Linux, which the scripts and the Makefile follow too).
func TestCacheDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Linux rule is checked here; os.UserCacheDir gives the others")
	}
	tests := []struct {
		name, cache, xdg, want string
	}{
		{name: "WHISPERKEY_CACHE wins", cache: "/srv/wk", xdg: "/tmp/xdg", want: "/srv/wk"},
		{name: "XDG_CACHE_HOME", xdg: "/tmp/xdg", want: "/tmp/xdg/whisperkey"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("WHISPERKEY_CACHE", tt.cache)
			t.Setenv("XDG_CACHE_HOME", tt.xdg)
			if got, err := CacheDir(); err != nil || got != tt.want {
				t.Errorf("CacheDir() = %q, %v; want %q", got, err, tt.want)
			}
			if got, err := ModelsDir(); err != nil || got != tt.want+"/models" {
				t.Errorf("ModelsDir() = %q, %v; want %q", got, err, tt.want+"/models")
			}
		})
	}
}
