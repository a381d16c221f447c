package whisper

import "context"

type yieldKey struct{}

// Yielding marks ctx as the context of work that gives way, such as a
// transcription started while the key is still held: when ctx ends,
// Transcribe returns its error before the next engine call instead of
// cutting the call in flight short, which would cost the engine worker its
// process (and the next dictation a model load).
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

// IsYielding reports whether ctx was made by Yielding.
func IsYielding(ctx context.Context) bool {
	y, _ := ctx.Value(yieldKey{}).(bool)
	return y
}
