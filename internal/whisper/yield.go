package whisper

import "context"

type (
	yieldKey    struct{}
	rememberKey struct{}
)

// Yielding marks ctx as the context of work that gives way, such as a
// transcription started while the key is still held: when ctx ends,
// Transcribe returns its error before the next engine call instead of
// cutting the call in flight short, which would cost the engine worker its
// process (and the next dictation a model load) — unless UseForYielding
// gave such work an engine of its own.
func Yielding(ctx context.Context) context.Context {
	return context.WithValue(ctx, yieldKey{}, true)
}

// engineContext is the context for one engine call: ctx itself, or for a
// Yielding ctx, its values without its end, after checking it has not ended.
func engineContext(ctx context.Context) (context.Context, error) {
	if !IsYielding(ctx) {
		return ctx, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return context.WithoutCancel(ctx), nil
}

// UseForYielding runs the engine calls of Yielding work on eng, an engine
// of its own whose call in flight ctx's end may cut short: the work given
// way to then waits for no engine call at all. nil sends that work back to
// the Transcriber's own engine. It may be called while transcriptions run:
// each engine call takes the engine set when it starts. While eng says it
// has no model loaded (a Loaded() bool method returning false: its worker
// loads again), that work runs on the Transcriber's own engine meanwhile,
// rather than waiting for the load.
func (t *Transcriber) UseForYielding(eng Engine) {
	if eng == nil {
		t.yielding.Store(nil)
		return
	}
	t.yielding.Store(&engineRef{eng})
}

// engineRef holds an Engine for an atomic.Pointer.
type engineRef struct{ Engine }

// remembered marks ctx as that of a decode the memo keeps: another
// transcription may be waiting for it (windowMemo.begin), so a call in
// flight is finished even when ctx's own work is given up.
func remembered(ctx context.Context) context.Context {
	return context.WithValue(ctx, rememberKey{}, true)
}

// engineFor is the engine and context for one engine call of ctx's work.
func (t *Transcriber) engineFor(ctx context.Context) (Engine, context.Context, error) {
	own := t.yielding.Load()
	if own == nil || !IsYielding(ctx) || !loaded(own.Engine) {
		ectx, err := engineContext(ctx)
		return t.eng, ectx, err
	}
	if r, _ := ctx.Value(rememberKey{}).(bool); r {
		ectx, err := engineContext(ctx)
		return own.Engine, ectx, err
	}
	return own.Engine, ctx, ctx.Err()
}

// loaded reports whether eng has its model loaded, when it can tell.
func loaded(eng Engine) bool {
	l, ok := eng.(interface{ Loaded() bool })
	return !ok || l.Loaded()
}

// IsYielding reports whether ctx was made by Yielding.
func IsYielding(ctx context.Context) bool {
	y, _ := ctx.Value(yieldKey{}).(bool)
	return y
}
