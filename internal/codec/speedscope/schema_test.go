package speedscope_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// validate checks v (decoded JSON) against a JSON schema that uses only
// the keywords speedscope's file-format-schema.json uses: $ref (to
// #/definitions/...), anyOf, const, enum, type, properties, required,
// items, title. Any other keyword is an error, so a schema update that
// needs more is noticed, not skipped.
type validator struct {
	defs map[string]map[string]any
}

func newValidator(schema []byte) (*validator, map[string]any, error) {
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, nil, err
	}
	v := &validator{defs: map[string]map[string]any{}}
	defs, _ := root["definitions"].(map[string]any)
	for k, d := range defs {
		v.defs[k] = d.(map[string]any)
	}
	return v, root, nil
}

func (v *validator) check(s map[string]any, x any, path string) error {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch k {
		case "$schema", "definitions", "title":
		case "$ref":
			ref := s[k].(string)
			name, ok := strings.CutPrefix(ref, "#/definitions/")
			d, found := v.defs[name]
			if !ok || !found {
				return fmt.Errorf("%s: unresolvable $ref %q", path, ref)
			}
			if err := v.check(d, x, path); err != nil {
				return err
			}
		case "anyOf":
			var errs []string
			ok := false
			for _, alt := range s[k].([]any) {
				err := v.check(alt.(map[string]any), x, path)
				if err == nil {
					ok = true
					break
				}
				errs = append(errs, err.Error())
			}
			if !ok {
				return fmt.Errorf("%s: matches no anyOf alternative (%s)", path, strings.Join(errs, "; "))
			}
		case "const":
			if x != s[k] {
				return fmt.Errorf("%s: %v, want const %v", path, x, s[k])
			}
		case "enum":
			found := false
			for _, e := range s[k].([]any) {
				if x == e {
					found = true
				}
			}
			if !found {
				return fmt.Errorf("%s: %v not in enum %v", path, x, s[k])
			}
		case "type":
			if err := checkType(s[k].(string), x); err != nil {
				return fmt.Errorf("%s: %v", path, err)
			}
		case "properties":
			obj, ok := x.(map[string]any)
			if !ok {
				continue // "type" reports it
			}
			for name, ps := range s[k].(map[string]any) {
				if val, ok := obj[name]; ok {
					if err := v.check(ps.(map[string]any), val, path+"."+name); err != nil {
						return err
					}
				}
			}
		case "required":
			obj, ok := x.(map[string]any)
			if !ok {
				continue
			}
			for _, r := range s[k].([]any) {
				if _, ok := obj[r.(string)]; !ok {
					return fmt.Errorf("%s: required property %q missing", path, r)
				}
			}
		case "items":
			arr, ok := x.([]any)
			if !ok {
				continue
			}
			is := s[k].(map[string]any)
			for i, e := range arr {
				if err := v.check(is, e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("%s: schema keyword %q is not supported by this validator", path, k)
		}
	}
	return nil
}

func checkType(t string, x any) error {
	ok := false
	switch t {
	case "object":
		_, ok = x.(map[string]any)
	case "array":
		_, ok = x.([]any)
	case "string":
		_, ok = x.(string)
	case "number":
		_, ok = x.(float64)
	case "boolean":
		_, ok = x.(bool)
	default:
		return fmt.Errorf("type %q is not supported by this validator", t)
	}
	if !ok {
		return fmt.Errorf("%T is not of type %s", x, t)
	}
	return nil
}
