package wire

import (
	"encoding/json"
	"fmt"
)

// Window is one 30-s window of features, shaped [NMels][Frames] row-major.
// The worker keeps the encoder output of the last ID, so repeated calls on
// one window (language detection, temperature fallback) encode it once.
type Window struct {
	ID       uint64
	NMels    int
	Frames   int
	Features []float32
}

// GenerateRequest mirrors CTranslate2's WhisperOptions plus the prompt ids.
type GenerateRequest struct {
	Prompt                   []int   `json:"prompt"`
	BeamSize                 int     `json:"beam_size"`
	Patience                 float32 `json:"patience"`
	LengthPenalty            float32 `json:"length_penalty"`
	RepetitionPenalty        float32 `json:"repetition_penalty"`
	NoRepeatNgramSize        int     `json:"no_repeat_ngram_size"`
	MaxLength                int     `json:"max_length"`
	SamplingTopK             int     `json:"sampling_topk"`
	SamplingTemperature      float32 `json:"sampling_temperature"`
	NumHypotheses            int     `json:"num_hypotheses"`
	ReturnScores             bool    `json:"return_scores"`
	ReturnNoSpeechProb       bool    `json:"return_no_speech_prob"`
	MaxInitialTimestampIndex int     `json:"max_initial_timestamp_index"`
	SuppressBlank            bool    `json:"suppress_blank"`
	SuppressTokens           []int   `json:"suppress_tokens"`
}

// GenerateResult holds the hypotheses, best first, without prompt and end token.
type GenerateResult struct {
	SequencesIDs [][]int   `json:"sequences_ids"`
	Scores       []float32 `json:"scores"`
	NoSpeechProb float32   `json:"no_speech_prob"`
}

// LangProb is one language's probability; on the wire it is the engine's
// pair ["en", 0.93].
type LangProb struct {
	Language    string
	Probability float32
}

// UnmarshalJSON reads the pair.
func (l *LangProb) UnmarshalJSON(b []byte) error {
	pair := [2]any{&l.Language, &l.Probability}
	if err := json.Unmarshal(b, &pair); err != nil {
		return fmt.Errorf("language pair %.40s: %w", b, err)
	}
	return nil
}

// AlignRequest asks for CTranslate2's alignment of a window's text tokens to
// its encoder frames, as faster-whisper's word timestamps ask for it.
type AlignRequest struct {
	// StartSequence is the SOT sequence the text was decoded after.
	StartSequence []int `json:"start_sequence"`
	// TextTokens are the window's text tokens: no timestamps, no EOT.
	TextTokens []int `json:"text_tokens"`
	// NumFrames is how many mel frames of the window hold audio.
	NumFrames         int `json:"num_frames"`
	MedianFilterWidth int `json:"median_filter_width"`
}

// AlignResult is the alignment path as [text index, time index] pairs (time
// in encoder frames of 20 ms) and the probability of each text token.
type AlignResult struct {
	Alignments     [][2]int  `json:"alignments"`
	TextTokenProbs []float32 `json:"text_token_probs"`
}
