package pprofextended

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/pprofx/pprofx/internal/model"
)

// ParseResource turns --resource arguments, each KEY=VALUE, into string
// attributes, in order; a later KEY replaces an earlier one.
func ParseResource(args []string) ([]model.Attribute, error) {
	var out []model.Attribute
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--resource %q: want KEY=VALUE", a)
		}
		out = mergeAttributes(out, []model.Attribute{{Key: k, Value: model.Value{Kind: model.KindString, Str: v}}})
	}
	return out, nil
}

// ParseProfileID turns a --profile-id argument, 32 hex digits, into the 16
// bytes of a profile id. All zeroes is invalid, as OTLP says.
func ParseProfileID(s string) ([]byte, error) {
	id, err := hex.DecodeString(s)
	if err != nil || len(id) != 16 {
		return nil, fmt.Errorf("--profile-id %q: want 32 hex digits (16 bytes)", s)
	}
	if allZero(id) {
		return nil, fmt.Errorf("--profile-id %q: an all-zero id is invalid", s)
	}
	return id, nil
}
