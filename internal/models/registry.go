package models

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/whisperkey/whisperkey/internal/paths"
)

// Languages values of a Model.
const (
	LangMultilingual = "multilingual"
	LangEnglish      = "en"
)

// Model is one model users can pick: a built-in entry, a custom entry from
// the config, or a name given on the command line.
type Model struct {
	// Name is what users type: "base.en", a custom name, "owner/name" or a path.
	Name string
	// Repo is the Hugging Face repository id "owner/name"; empty for a local model.
	Repo string
	// Languages is what the model transcribes well: LangMultilingual or
	// LangEnglish. With LangEnglish the app should pass language "en".
	Languages string
	// Size is the approximate download in bytes (0 when unknown).
	Size int64
	// Multilingual reports the multilingual tokenizer (language tokens,
	// language detection). distil-large-v3 has it yet was trained on English
	// only, so it is Multilingual with Languages "en".
	Multilingual bool
	// Local is a directory holding the model files; empty for a hub model.
	Local string
	// Imported: Local is a copy in the cache made by Import, which Remove
	// deletes.
	Imported bool
}

// Registry lists the built-in CTranslate2 Whisper models, smallest first.
// Sizes are model.bin (float16) plus tokenizer and vocabulary, rounded.
func Registry() []Model {
	m := func(name, repo string, size int64) Model {
		english := strings.HasSuffix(name, ".en")
		lang := LangMultilingual
		if english || name == "distil-large-v3" {
			lang = LangEnglish
		}
		return Model{Name: name, Repo: repo, Languages: lang, Size: size, Multilingual: !english}
	}
	return []Model{
		m("tiny", "Systran/faster-whisper-tiny", 78_000_000),
		m("tiny.en", "Systran/faster-whisper-tiny.en", 78_000_000),
		m("base", "Systran/faster-whisper-base", 148_000_000),
		m("base.en", "Systran/faster-whisper-base.en", 148_000_000),
		m("small", "Systran/faster-whisper-small", 486_000_000),
		m("small.en", "Systran/faster-whisper-small.en", 486_000_000),
		m("distil-small.en", "Systran/faster-distil-whisper-small.en", 335_000_000),
		m("medium", "Systran/faster-whisper-medium", 1_530_000_000),
		m("medium.en", "Systran/faster-whisper-medium.en", 1_530_000_000),
		m("distil-large-v3", "Systran/faster-distil-whisper-large-v3", 1_515_000_000),
		m("large-v3-turbo", "mobiuslabsgmbh/faster-whisper-large-v3-turbo", 1_620_000_000),
		m("large-v3", "Systran/faster-whisper-large-v3", 3_090_000_000),
	}
}

// DefaultFor names the model to use when the config names none. On the CPU
// an English base model keeps push-to-talk latency around a second; a GPU
// runs large-v3-turbo (about 3 GB of VRAM in float16) at a similar latency,
// and a GPU with less memory gets small. vramBytes 0 means unknown: the GPU
// probe already judged the card capable, so trust it.
func DefaultFor(gpuCapable bool, vramBytes uint64) string {
	const gib = 1 << 30
	switch {
	case !gpuCapable:
		return "base.en"
	case vramBytes == 0 || vramBytes >= 4*gib:
		return "large-v3-turbo"
	case vramBytes >= 2*gib:
		return "small"
	default:
		return "base.en"
	}
}

// validRepoID reports whether s is a Hugging Face repository id "owner/name":
// letters, digits, '-', '_' and '.', no "--" or "..", neither part starting or
// ending with '-' or '.', at most 96 characters each.
func validRepoID(s string) bool {
	owner, name, ok := strings.Cut(s, "/")
	if !ok {
		return false
	}
	for _, part := range []string{owner, name} {
		if part == "" || len(part) > 96 || strings.Contains(part, "--") || strings.Contains(part, "..") {
			return false
		}
		if strings.ContainsAny(part[:1], "-.") || strings.ContainsAny(part[len(part)-1:], "-.") {
			return false
		}
		for _, r := range part {
			ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.'
			if !ok {
				return false
			}
		}
	}
	return true
}

// repoKey is the cache directory name of a repository: "owner--name" (the hub
// forbids "--" inside ids, so the mapping is one to one).
func repoKey(repo string) string { return strings.Replace(repo, "/", "--", 1) }

// pathLike reports whether a name is meant as a directory rather than a
// model name or repo id.
func pathLike(s string) bool {
	if filepath.IsAbs(s) || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "~") {
		return true
	}
	if runtime.GOOS == "windows" && (filepath.VolumeName(s) != "" || strings.Contains(s, `\`)) {
		return true
	}
	return strings.Count(s, "/") > 1
}

// expandHome turns a leading "~" into the home directory.
func expandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, `~\`) {
		return p
	}
	home := paths.Home()
	if home == "" {
		return p
	}
	return filepath.Join(home, p[1:])
}

// langFromRepo guesses the languages of a repository that is not in the
// registry: Whisper's English-only checkpoints end in ".en".
func langFromRepo(repo string) string {
	if strings.HasSuffix(strings.ToLower(repo), ".en") || strings.HasSuffix(strings.ToLower(repo), "-en") {
		return LangEnglish
	}
	return LangMultilingual
}

// registryNames lists the built-in names for error messages.
func registryNames() string {
	var names []string
	for _, m := range Registry() {
		names = append(names, m.Name)
	}
	return strings.Join(names, ", ")
}

// validateCustom checks one custom entry from the config.
func validateCustom(m Model) error {
	switch {
	case m.Name == "":
		return fmt.Errorf("custom model with repo %q and dir %q has no name: give it a name", m.Repo, m.Local)
	case m.Repo != "" && m.Local != "":
		return fmt.Errorf("custom model %q has both a repo (%s) and a dir (%s): keep one", m.Name, m.Repo, m.Local)
	case m.Repo == "" && m.Local == "":
		return fmt.Errorf("custom model %q has neither a repo nor a dir: set a Hugging Face repo id owner/name or a directory containing model.bin", m.Name)
	case m.Repo != "" && !validRepoID(m.Repo):
		return fmt.Errorf("custom model %q: %q is not a Hugging Face repo id: write it as owner/name, e.g. Systran/faster-whisper-small", m.Name, m.Repo)
	case m.Languages != "" && m.Languages != LangMultilingual && m.Languages != LangEnglish:
		return fmt.Errorf("custom model %q: languages %q is not %q or %q", m.Name, m.Languages, LangMultilingual, LangEnglish)
	}
	for _, b := range Registry() {
		if b.Name == m.Name {
			return fmt.Errorf("custom model name %q is a built-in model: pick another name", m.Name)
		}
	}
	return nil
}

// CannotTranslate says why m has no use for Whisper's translate task, or ""
// when it translates: English-only models have no task token for it, and
// large-v3-turbo was fine-tuned without translation data, so it answers in
// the language spoken.
func (m Model) CannotTranslate() string {
	switch {
	case !m.Multilingual || m.Languages == LangEnglish:
		return fmt.Sprintf("%s is an English-only model and cannot translate; choose a multilingual model such as base, small or medium", m.Name)
	case strings.Contains(strings.ToLower(m.Name+" "+m.Repo), "turbo"):
		return fmt.Sprintf("%s was trained without translation and writes the language spoken; choose small, medium or large-v3 to translate", m.Name)
	}
	return ""
}

// CannotTranslate says why the model a config names (a built-in name or a
// Hugging Face repo id) cannot translate, or "" when it can or when only
// the loaded model can tell (a folder).
func CannotTranslate(name string) string {
	for _, m := range Registry() {
		if m.Name == name {
			return m.CannotTranslate()
		}
	}
	if !validRepoID(name) {
		return ""
	}
	lang := langFromRepo(name)
	return Model{Name: name, Repo: name, Languages: lang, Multilingual: lang == LangMultilingual}.CannotTranslate()
}

// CannotTranslateDir is CannotTranslate for a loaded model's folder: a
// built-in model's download by its name, any other by what its tokenizer
// says (multilingual) and its folder's name.
func CannotTranslateDir(dir string, multilingual bool) string {
	base := filepath.Base(dir)
	for _, m := range Registry() {
		if repoKey(m.Repo) == base {
			return m.CannotTranslate()
		}
	}
	lang := LangMultilingual
	if !multilingual {
		lang = LangEnglish
	}
	return Model{Name: base, Languages: lang, Multilingual: multilingual}.CannotTranslate()
}
