package server

import (
	"fmt"
	"math"
	"net/http"
	"strings"

	"github.com/whisperkey/whisperkey/internal/whisper"
)

// usage is OpenAI's duration-billed usage object.
type usage struct {
	Type    string  `json:"type"`
	Seconds float64 `json:"seconds"`
}

type segment struct {
	ID               int     `json:"id"`
	Seek             int     `json:"seek"`
	Start            float64 `json:"start"`
	End              float64 `json:"end"`
	Text             string  `json:"text"`
	Tokens           []int   `json:"tokens"`
	Temperature      float32 `json:"temperature"`
	AvgLogProb       float64 `json:"avg_logprob"`
	CompressionRatio float64 `json:"compression_ratio"`
	NoSpeechProb     float64 `json:"no_speech_prob"`
}

// word is OpenAI's timed word: the text without the space before it.
type word struct {
	Word  string  `json:"word"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// words lists the segments' words for verbose_json when asked, nil otherwise.
func words(segs []whisper.Segment, asked bool) *[]word {
	if !asked {
		return nil
	}
	out := []word{}
	for _, sg := range segs {
		for _, w := range sg.Words {
			out = append(out, word{Word: strings.TrimSpace(w.Word), Start: w.Start, End: w.End})
		}
	}
	return &out
}

// write answers in the requested response_format, shaped as OpenAI's are.
func (s *Server) write(w http.ResponseWriter, req *request, res *whisper.Result) {
	u := usage{Type: "duration", Seconds: math.Ceil(res.Duration)}
	segments := whisper.WithinAudio(res.Segments, res.Duration) // any engine's
	switch req.format {
	case "text":
		writeText(w, "text/plain; charset=utf-8", res.Text+"\n")
	case "srt":
		writeText(w, "text/plain; charset=utf-8", subtitles(segments, false))
	case "vtt":
		writeText(w, "text/vtt; charset=utf-8", subtitles(segments, true))
	case "verbose_json":
		segs := make([]segment, len(segments))
		for i, sg := range segments {
			tokens := sg.Tokens
			if tokens == nil {
				tokens = []int{}
			}
			segs[i] = segment{ID: i, Seek: int(math.Round(sg.Start * 100)), Start: sg.Start, End: sg.End,
				Text: sg.Text, Tokens: tokens, Temperature: sg.Temperature, AvgLogProb: sg.AvgLogProb,
				CompressionRatio: sg.CompressionRatio, NoSpeechProb: sg.NoSpeechProb}
		}
		writeJSON(w, http.StatusOK, struct {
			Task     string    `json:"task"`
			Language string    `json:"language"`
			Duration float64   `json:"duration"`
			Text     string    `json:"text"`
			Words    *[]word   `json:"words,omitempty"` // when asked for: present even if empty
			Segments []segment `json:"segments"`
			Usage    usage     `json:"usage"`
			// Ours, beside OpenAI's: what the local engine reports too, so a
			// WhisperKey client gets the same result either way.
			LanguageProb float32 `json:"language_probability"`
			Path         string  `json:"path,omitempty"`
		}{"transcribe", whisper.LanguageName(res.Language), res.Duration, res.Text, words(segments, req.words), segs, u, res.LanguageProb, res.Path})
	default:
		writeJSON(w, http.StatusOK, struct {
			Text  string `json:"text"`
			Usage usage  `json:"usage"`
		}{res.Text, u})
	}
}

func writeText(w http.ResponseWriter, ctype, body string) {
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(body))
}

// subtitles renders segments as SubRip (numbered cues, comma decimals) or
// WebVTT (a header, dot decimals).
func subtitles(segs []whisper.Segment, vtt bool) string {
	var b strings.Builder
	if vtt {
		b.WriteString("WEBVTT\n\n")
	}
	for i, sg := range segs {
		if !vtt {
			fmt.Fprintf(&b, "%d\n", i+1)
		}
		fmt.Fprintf(&b, "%s --> %s\n%s\n\n", stamp(sg.Start, vtt), stamp(sg.End, vtt), strings.TrimSpace(sg.Text))
	}
	return b.String()
}

// stamp formats seconds as HH:MM:SS,mmm (SRT) or HH:MM:SS.mmm (VTT).
func stamp(sec float64, vtt bool) string {
	ms := int64(math.Round(max(sec, 0) * 1000))
	sep := ","
	if vtt {
		sep = "."
	}
	return fmt.Sprintf("%02d:%02d:%02d%s%03d", ms/3_600_000, ms/60_000%60, ms/1000%60, sep, ms%1000)
}
