package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
)

// scripted "recognises" a clip by its tag as one of its texts.
type scripted []string

func (s scripted) Transcribe(_ context.Context, _ Request, samples []float32) (Transcript, error) {
	return Transcript{Text: s[int(samples[0])]}, nil
}

// checked is scripted whose clip tagged undo the model's own check took for
// the undo command (dictation's Flow sets Transcript.Command from it).
type checked struct {
	scripted
	undo int
}

func (c checked) Transcribe(ctx context.Context, r Request, samples []float32) (Transcript, error) {
	tr, err := c.scripted.Transcribe(ctx, r, samples)
	if int(samples[0]) == c.undo {
		tr.Command = CommandUndo
	}
	return tr, err
}

// undoWords is the config's matcher, reduced: the whole text, any case, a period.
type undoWords struct{}

func (undoWords) Command(text string) Command {
	if strings.EqualFold(strings.Trim(strings.TrimSpace(text), "."), "scratch that") {
		return CommandUndo
	}
	return NoCommand
}

type editor struct {
	mu    sync.Mutex
	calls int
	err   error
}

func (e *editor) Undo(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls++
	return e.err
}

// Commands run in order with the dictations: an undo acts after the
// dictation before it was pasted, a spoken command is not typed, and paste
// again pastes the last dictation through the Paster.
func TestCommands(t *testing.T) {
	texts := checked{scripted{"", " Hello there.", " Scratch that.", " Please scratch that line.", " Stretch dat."}, 4}
	dictate := []Input{{Trigger: TriggerStart}, {Trigger: TriggerStop}}
	cases := []struct {
		name      string
		clips     [][]float32
		inputs    [][]Input
		undoErr   error
		wantPaste []string
		wantUndo  int
		want      []Outcome // the commands' and dictations' last events, in order
	}{
		{name: "paste again with nothing dictated", inputs: [][]Input{{{Trigger: TriggerPasteAgain}}},
			want: []Outcome{Refused}},
		{name: "dictate, paste again", clips: [][]float32{clip(1, 1)},
			inputs:    [][]Input{dictate, {{Trigger: TriggerPasteAgain}}},
			wantPaste: []string{" Hello there.", " Hello there."}, want: []Outcome{Delivered, Delivered}},
		{name: "spoken undo is not typed", clips: [][]float32{clip(1, 1), clip(1, 2)},
			inputs:    [][]Input{dictate, dictate},
			wantPaste: []string{" Hello there."}, wantUndo: 1, want: []Outcome{Delivered, Undone}},
		{name: "spoken undo misspelt, taken by the model's check", clips: [][]float32{clip(1, 1), clip(1, 4)},
			inputs:    [][]Input{dictate, dictate},
			wantPaste: []string{" Hello there."}, wantUndo: 1, want: []Outcome{Delivered, Undone}},
		{name: "inside a sentence it is text", clips: [][]float32{clip(1, 3)},
			inputs: [][]Input{dictate}, wantPaste: []string{" Please scratch that line."}, want: []Outcome{Delivered}},
		{name: "undo hotkey refused", clips: [][]float32{clip(1, 1)}, undoErr: errors.New("not undone: focus moved"),
			inputs:    [][]Input{dictate, {{Trigger: TriggerUndo}}},
			wantPaste: []string{" Hello there."}, wantUndo: 1, want: []Outcome{Delivered, Refused}},
		{name: "a command while recording is ignored", clips: [][]float32{clip(1, 1)},
			inputs:    [][]Input{{{Trigger: TriggerStart}, {Trigger: TriggerUndo}, {Trigger: TriggerStop}}},
			wantPaste: []string{" Hello there."}, want: []Outcome{Delivered}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, ed := &paster{}, &editor{err: tc.undoErr}
			a := New(Config{}, Deps{Recorder: &recorder{clips: tc.clips}, Transcriber: texts, Paster: p,
				Editor: ed, Commands: undoWords{}}, slog.New(slog.NewTextHandler(io.Discard, nil)))
			got := run(t, a, tc.inputs)
			if strings.Join(p.got, "|") != strings.Join(tc.wantPaste, "|") {
				t.Errorf("pasted %q, want %q", p.got, tc.wantPaste)
			}
			if ed.calls != tc.wantUndo {
				t.Errorf("Undo called %d times, want %d", ed.calls, tc.wantUndo)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("outcomes %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("outcomes %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// run feeds the app inputs, step by step, and returns the outcomes of its
// events in order once it has handled them all.
func run(t *testing.T, a *App, inputs [][]Input) []Outcome {
	t.Helper()
	var got []Outcome
	// The job queue keeps the order: no waiting between steps.
	for _, e := range drive(t, a, slices.Concat(inputs...)) {
		if e.Outcome != Pending {
			got = append(got, e.Outcome)
		}
	}
	return got
}

// rewriter records the instructions it was given and answers as told.
type rewriter struct {
	mu     sync.Mutex
	got    []string
	answer string
	err    error
}

func (r *rewriter) Rewrite(_ context.Context, _ Request, instruction string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, instruction)
	return r.answer, r.err
}

// The edit hotkey's words go to the Rewriter, never to the Paster, and not
// as a spoken command either; a rewrite that came but could not be put in
// is what Paste again pastes.
func TestEdit(t *testing.T) {
	texts := scripted{"", " Make this more formal.", " Scratch that.", " Hello there."}
	edit := []Input{{Trigger: TriggerStart, Edit: true}, {Trigger: TriggerStop}}
	dictate := []Input{{Trigger: TriggerStart}, {Trigger: TriggerStop}}
	focusMoved := errors.New("the focus moved to another window while the chat server answered")
	cases := []struct {
		name      string
		clips     [][]float32
		inputs    [][]Input
		answer    string
		err       error
		noRewrite bool
		wantAsked []string
		wantPaste []string
		want      []Outcome
	}{
		{name: "rewritten", clips: [][]float32{clip(1, 1)}, inputs: [][]Input{edit}, answer: "Good afternoon.",
			wantAsked: []string{" Make this more formal."}, want: []Outcome{Delivered}},
		{name: "a command's words are an instruction", clips: [][]float32{clip(1, 2)}, inputs: [][]Input{edit},
			answer: "x", wantAsked: []string{" Scratch that."}, want: []Outcome{Delivered}},
		{name: "refused, then paste again pastes the dictation", clips: [][]float32{clip(1, 3), clip(1, 1)},
			inputs: [][]Input{dictate, edit, {{Trigger: TriggerPasteAgain}}}, err: errors.New("nothing is selected"),
			wantAsked: []string{" Make this more formal."}, wantPaste: []string{" Hello there.", " Hello there."},
			want: []Outcome{Delivered, Refused, Delivered}},
		{name: "the focus moved: paste again pastes the rewrite", clips: [][]float32{clip(1, 1)},
			inputs: [][]Input{edit, {{Trigger: TriggerPasteAgain}}}, answer: "Good afternoon.", err: focusMoved,
			wantAsked: []string{" Make this more formal."}, wantPaste: []string{"Good afternoon."},
			want: []Outcome{Refused, Delivered}},
		{name: "no rewriter", clips: [][]float32{clip(1, 1)}, inputs: [][]Input{edit}, noRewrite: true,
			want: []Outcome{Refused}},
		{name: "nothing heard", clips: [][]float32{clip(1, 0)}, inputs: [][]Input{edit}, want: []Outcome{NothingHeard}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, rw := &paster{}, &rewriter{answer: tc.answer, err: tc.err}
			deps := Deps{Recorder: &recorder{clips: tc.clips}, Transcriber: texts, Paster: p,
				Editor: &editor{}, Commands: undoWords{}, Rewriter: rw}
			if tc.noRewrite {
				deps.Rewriter = nil
			}
			a := New(Config{}, deps, slog.New(slog.NewTextHandler(io.Discard, nil)))
			got := run(t, a, tc.inputs)
			if strings.Join(rw.got, "|") != strings.Join(tc.wantAsked, "|") {
				t.Errorf("asked %q, want %q", rw.got, tc.wantAsked)
			}
			if strings.Join(p.got, "|") != strings.Join(tc.wantPaste, "|") {
				t.Errorf("pasted %q, want %q", p.got, tc.wantPaste)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("outcomes %v, want %v", got, tc.want)
			}
		})
	}
}
