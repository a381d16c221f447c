//go:build !goexperiment.jsonv2

package whisper

// jsonV2Parsers is empty without GOEXPERIMENT=jsonv2, which encoding/json/v2
// needs in this Go.
func jsonV2Parsers() []jsonParser { return nil }
