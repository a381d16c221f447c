// Command winget writes the winget manifests (schema 1.10.0: version,
// defaultLocale, installer) for a built WhisperKey installer, in the layout
// of a submission to microsoft/winget-pkgs:
//
//	go run ./scripts/winget -installer build/windows/whisperkey-setup-1.2.3.exe \
//	    -url https://github.com/whisperkey/whisperkey/releases/download/v1.2.3/whisperkey-setup-1.2.3.exe -out build/winget
//
// writes build/winget/manifests/w/WhisperKey/WhisperKey/1.2.3/WhisperKey.WhisperKey{,.locale.en-US,.installer}.yaml.
// It is Go rather than a shell script because the values go through a YAML
// encoder (a version such as 1.10 must stay a string) and the SHA-256 is
// taken from the very file. make test validates its output against the
// schemas in testdata/winget (TestWingetManifest).
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

const (
	manifestVersion = "1.10.0"
	identifier      = "WhisperKey.WhisperKey"
	locale          = "en-US"
	// As installer/whisperkey.nsi writes them into Apps & features.
	displayName = "WhisperKey"
	publisher   = "WhisperKey contributors"
	uninstKey   = "WhisperKey"
	projectURL  = "https://github.com/whisperkey/whisperkey"
)

type versionManifest struct {
	PackageIdentifier string `yaml:"PackageIdentifier"`
	PackageVersion    string `yaml:"PackageVersion"`
	DefaultLocale     string `yaml:"DefaultLocale"`
	ManifestType      string `yaml:"ManifestType"`
	ManifestVersion   string `yaml:"ManifestVersion"`
}

type localeManifest struct {
	PackageIdentifier string   `yaml:"PackageIdentifier"`
	PackageVersion    string   `yaml:"PackageVersion"`
	PackageLocale     string   `yaml:"PackageLocale"`
	Publisher         string   `yaml:"Publisher"`
	PublisherURL      string   `yaml:"PublisherUrl"`
	PackageName       string   `yaml:"PackageName"`
	PackageURL        string   `yaml:"PackageUrl"`
	License           string   `yaml:"License"`
	ShortDescription  string   `yaml:"ShortDescription"`
	Description       string   `yaml:"Description"`
	Tags              []string `yaml:"Tags"`
	ReleaseNotesURL   string   `yaml:"ReleaseNotesUrl,omitempty"`
	ManifestType      string   `yaml:"ManifestType"`
	ManifestVersion   string   `yaml:"ManifestVersion"`
}

type installerManifest struct {
	PackageIdentifier string            `yaml:"PackageIdentifier"`
	PackageVersion    string            `yaml:"PackageVersion"`
	MinimumOSVersion  string            `yaml:"MinimumOSVersion"`
	InstallerType     string            `yaml:"InstallerType"`
	Scope             string            `yaml:"Scope"`
	InstallModes      []string          `yaml:"InstallModes"`
	InstallerSwitches map[string]string `yaml:"InstallerSwitches"`
	UpgradeBehavior   string            `yaml:"UpgradeBehavior"`
	ProductCode       string            `yaml:"ProductCode"`
	ReleaseDate       string            `yaml:"ReleaseDate,omitempty"`
	AppsAndFeatures   []arpEntry        `yaml:"AppsAndFeaturesEntries"`
	Installers        []installer       `yaml:"Installers"`
	ManifestType      string            `yaml:"ManifestType"`
	ManifestVersion   string            `yaml:"ManifestVersion"`
}

type arpEntry struct {
	DisplayName    string `yaml:"DisplayName"`
	Publisher      string `yaml:"Publisher"`
	DisplayVersion string `yaml:"DisplayVersion"`
	ProductCode    string `yaml:"ProductCode"`
}

type installer struct {
	Architecture    string `yaml:"Architecture"`
	InstallerURL    string `yaml:"InstallerUrl"`
	InstallerSha256 string `yaml:"InstallerSha256"`
}

type options struct {
	installer, url, version, out, license, date string
}

func main() {
	var o options
	flag.StringVar(&o.installer, "installer", "", "the built installer, build/windows/whisperkey-setup-VERSION.exe (required)")
	flag.StringVar(&o.url, "url", "", "where the release publishes that installer, https://… (required)")
	flag.StringVar(&o.version, "version", "", "the package version (default: from the installer's name)")
	flag.StringVar(&o.out, "out", "build/winget", "folder to write manifests/w/WhisperKey/WhisperKey/VERSION/ into")
	flag.StringVar(&o.license, "license", "Copyright (c) WhisperKey contributors", "the License field")
	flag.StringVar(&o.date, "date", time.Now().UTC().Format(time.DateOnly), "the release date, YYYY-MM-DD")
	flag.Parse()
	dir, err := write(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "winget:", err)
		os.Exit(1)
	}
	fmt.Println("winget: wrote", dir)
}

var setupName = regexp.MustCompile(`^whisperkey-setup-(.+)\.exe$`)

// write makes the three manifests and returns the folder holding them.
func write(o options) (string, error) {
	if o.installer == "" || o.url == "" {
		return "", errors.New("-installer and -url are required (go run ./scripts/winget -h)")
	}
	if !strings.HasPrefix(o.url, "https://") {
		return "", fmt.Errorf("-url %q: winget downloads installers over https://", o.url)
	}
	if o.version == "" {
		m := setupName.FindStringSubmatch(filepath.Base(o.installer))
		if m == nil {
			return "", fmt.Errorf("cannot tell the version from %s (not whisperkey-setup-VERSION.exe); pass -version", o.installer)
		}
		o.version = m[1]
	}
	o.version = strings.TrimPrefix(o.version, "v")
	if _, err := time.Parse(time.DateOnly, o.date); err != nil {
		return "", fmt.Errorf("-date %q: want YYYY-MM-DD", o.date)
	}
	sum, err := sha256File(o.installer)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(o.out, "manifests", "w", "WhisperKey", "WhisperKey", o.version)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	files := []struct {
		name, kind string
		doc        any
	}{
		{identifier + ".yaml", "version", versionManifest{PackageIdentifier: identifier, PackageVersion: o.version,
			DefaultLocale: locale, ManifestType: "version", ManifestVersion: manifestVersion}},
		{identifier + ".locale." + locale + ".yaml", "defaultLocale", localeManifest{PackageIdentifier: identifier,
			PackageVersion: o.version, PackageLocale: locale, Publisher: publisher, PublisherURL: projectURL,
			PackageName: displayName, PackageURL: projectURL, License: o.license,
			ShortDescription: "Push-to-talk dictation: hold a hotkey, speak, release, and the words appear at the cursor.",
			Description: "WhisperKey types what you say into any application. Speech is recognised on your own computer " +
				"by Whisper models running in CTranslate2, on an NVIDIA or AMD GPU or the CPU; only model downloads use the network.",
			Tags:            []string{"dictation", "speech-to-text", "whisper", "voice-typing", "transcription"},
			ReleaseNotesURL: releaseNotes(o.version),
			ManifestType:    "defaultLocale", ManifestVersion: manifestVersion}},
		{identifier + ".installer.yaml", "installer", installerManifest{PackageIdentifier: identifier, PackageVersion: o.version,
			MinimumOSVersion: "10.0.0.0", InstallerType: "nullsoft", Scope: "user",
			InstallModes: []string{"interactive", "silent", "silentWithProgress"},
			// NSIS: /S is silent; /D= must come last and unquoted, and winget puts it last.
			InstallerSwitches: map[string]string{"Silent": "/S", "SilentWithProgress": "/S", "InstallLocation": "/D=<INSTALLPATH>"},
			UpgradeBehavior:   "install", ProductCode: uninstKey, ReleaseDate: o.date,
			AppsAndFeatures: []arpEntry{{DisplayName: displayName, Publisher: publisher, DisplayVersion: o.version, ProductCode: uninstKey}},
			Installers:      []installer{{Architecture: "x64", InstallerURL: o.url, InstallerSha256: sum}},
			ManifestType:    "installer", ManifestVersion: manifestVersion}},
	}
	for _, f := range files {
		body, err := yaml.Marshal(f.doc)
		if err != nil {
			return "", fmt.Errorf("%s: %w", f.name, err)
		}
		// The header winget-pkgs' own manifests carry: editors validate with it.
		head := fmt.Sprintf("# yaml-language-server: $schema=https://aka.ms/winget-manifest.%s.%s.schema.json\n\n",
			strings.ToLower(f.kind), manifestVersion)
		if err := os.WriteFile(filepath.Join(dir, f.name), append([]byte(head), body...), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// sha256File is the installer's SHA-256 in upper-case hex, as winget-pkgs writes it.
func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("the installer: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return strings.ToUpper(hex.EncodeToString(h.Sum(nil))), nil
}

// releaseNotes is the GitHub release page of a tagged version ("" for a
// development build, which has none).
func releaseNotes(version string) string {
	if !regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`).MatchString(version) {
		return ""
	}
	return projectURL + "/releases/tag/v" + version
}
