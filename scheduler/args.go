package scheduler

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Args are one part's own arguments, by name, as a config writes them
// (numbers, booleans, strings): the part decodes them itself (Decode), so
// that no struct shared by every part carries each one's settings.
type Args map[string]any

// String writes the arguments as a config's --arg gives them, by name:
// "population=50, seed=2" (not Go's map[...]).
func (a Args) String() string {
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, a[k])
	}
	return strings.Join(parts, ", ")
}

// Run is what every part is told of the simulation it is made for.
type Run struct {
	// Seed seeds the part's randomness: each part draws from
	// rand.NewPCG(Seed, its own stream).
	Seed uint64
}

// Decode fills dst, a pointer to a struct whose fields carry yaml tags,
// from the arguments; an argument dst has no field for, or one of the
// wrong type, is an error that names the part and the setting, one line a
// setting (in the settings' order by name). A number with a fraction is
// refused for a whole-number setting and a string for a true/false one,
// where YAML's decoder would cut the fraction off or read "on" as true
// (`--arg placement.population=10.7` ran ga with 10, where a config's
// `ga: {population: 10.7}` was refused: a reviewer's find).
func (a Args) Decode(part string, dst any) error {
	if len(a) == 0 {
		return nil
	}
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	types := settingTypes(dst)
	why := map[string]string{} // the setting's trouble, by key
	for _, k := range keys {
		if t, ok := types[k]; ok {
			if msg := strictKind(a[k], t); msg != "" {
				why[k] = fmt.Sprintf("%s: %v: %s", k, a[k], msg)
			}
		}
	}
	err := decodeArgs(map[string]any(a), dst)
	if err != nil {
		if _, own := dst.(yaml.Unmarshaler); own {
			// settings that decode themselves, perhaps checking one
			// against another: their own reason, whole
			return fmt.Errorf("%s: arguments %v: %s", part, a, yamlReason(err))
		}
		// which setting: each decoded alone, into a fresh value of dst's
		// type where it has one
		for _, k := range keys {
			into := dst
			if t := reflect.TypeOf(dst); t != nil && t.Kind() == reflect.Pointer {
				into = reflect.New(t.Elem()).Interface()
			}
			if e := decodeArgs(map[string]any{k: a[k]}, into); e != nil && why[k] == "" {
				why[k] = argError(part, dst, k, a[k], types[k], e)
			}
		}
		if len(why) == 0 {
			return fmt.Errorf("%s: arguments %v: %s", part, a, yamlReason(err))
		}
	}
	if len(why) == 0 {
		return nil
	}
	var lines []string
	for _, k := range keys {
		if why[k] != "" {
			lines = append(lines, fmt.Sprintf("%s: arguments %v: %s", part, a, why[k]))
		}
	}
	return errors.New(strings.Join(lines, "\n"))
}

// yamlReason is a decoding error of the arguments without YAML's framing
// and its lines, which count the arguments as re-encoded here, not any
// file the user wrote.
func yamlReason(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  ")
	return decodedLine.ReplaceAllString(msg, "")
}

// decodeArgs decodes the arguments into dst as YAML, every key a field.
func decodeArgs(a map[string]any, dst any) error {
	raw, err := yaml.Marshal(a)
	if err != nil {
		return err
	}
	d := yaml.NewDecoder(bytes.NewReader(raw))
	d.KnownFields(true)
	return d.Decode(dst)
}

// argError says why setting k (value v, of field type t where dst has
// one) did not decode: not a setting of the part (its settings listed),
// or what the setting wants, in words rather than YAML's tags.
func argError(part string, dst any, k string, v any, t reflect.Type, err error) string {
	msg := err.Error()
	if unknownField.MatchString(msg) {
		if keys := settingKeys(dst); len(keys) > 0 {
			return fmt.Sprintf("%s is not a setting of %s (its settings: %s)", k, part, strings.Join(keys, ", "))
		}
		return fmt.Sprintf("%s is not a setting of %s", k, part)
	}
	if t != nil && strings.Contains(msg, "cannot unmarshal") {
		// YAML's type error, in words (a field's own UnmarshalYAML says
		// its own reason, kept below)
		return fmt.Sprintf("%s: %v: want %s", k, v, describeType(t))
	}
	return k + ": " + yamlReason(err)
}

// strictKind refuses what YAML's decoder would take loosely: a number with
// a fraction for a whole-number setting, anything but true or false for a
// true/false one. A type that decodes itself (yaml.Unmarshaler) is its own
// judge, and null leaves a pointer setting unset.
func strictKind(v any, t reflect.Type) string {
	unmarshaler := reflect.TypeFor[yaml.Unmarshaler]()
	if v == nil && t.Kind() == reflect.Pointer {
		return ""
	}
	for t.Kind() == reflect.Pointer {
		if t.Implements(unmarshaler) {
			return ""
		}
		t = t.Elem()
	}
	if t.Implements(unmarshaler) || reflect.PointerTo(t).Implements(unmarshaler) {
		return ""
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if f, ok := v.(float64); ok && f != math.Trunc(f) {
			return "want " + describeType(t)
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return "want true or false"
		}
	}
	return ""
}

// describeType says in words what a setting of type t takes.
func describeType(t reflect.Type) string {
	t = deref(t)
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		_, many := kindWords(deref(t.Elem()).Kind())
		return "a list of " + many
	case reflect.Map, reflect.Struct:
		return "a map of settings"
	}
	if one, _ := kindWords(t.Kind()); one != "" {
		return one
	}
	return "a value of type " + t.String()
}

// kindWords names a value of kind k, one and a list's elements ("" and
// "values" for a kind of none).
func kindWords(k reflect.Kind) (one, many string) {
	switch k {
	case reflect.Bool:
		return "true or false", "true or false values"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number", "whole numbers"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number, 0 or more", "whole numbers"
	case reflect.Float32, reflect.Float64:
		return "a number", "numbers"
	case reflect.String:
		return "a string", "strings"
	}
	return "", "values"
}

// deref is t without its pointers.
func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// settingTypes maps the YAML keys of the struct dst points to (as
// settingKeys finds them) to their fields' types; nil where dst is no
// pointer to a struct.
func settingTypes(dst any) map[string]reflect.Type {
	var m map[string]reflect.Type
	for _, f := range settingFields(dst) {
		if m == nil {
			m = map[string]reflect.Type{}
		}
		m[f.key] = f.typ
	}
	return m
}

// unknownField is yaml.v3's word for a key no field of the struct takes.
var unknownField = regexp.MustCompile(`field (\S+) not found in type (?:struct \{[^\n]*\}|\S+)`)

// settingKeys are the YAML keys of the struct dst points to (its fields'
// yaml tags, else their names in lower case), in order, with those of a
// struct it holds inline (`yaml:",inline"`) in its place; none where dst
// is no pointer to a struct.
func settingKeys(dst any) []string {
	var keys []string
	for _, f := range settingFields(dst) {
		keys = append(keys, f.key)
	}
	return keys
}

// setting is a field of a part's settings: its YAML key and type.
type setting struct {
	key string
	typ reflect.Type
}

// settingFields are the settings of the struct dst points to, in order
// (see settingKeys).
func settingFields(dst any) []setting {
	t := reflect.TypeOf(dst)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	return structFields(t.Elem())
}

// structFields are settingFields of struct type t.
func structFields(t reflect.Type) []setting {
	var out []setting
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if inline := slices.Contains(strings.Split(opts, ","), "inline"); inline {
			// yaml.v3 inlines a struct or a pointer to one, exported or
			// embedded (a map inline takes any key: none to list)
			if ft := deref(f.Type); ft.Kind() == reflect.Struct {
				out = append(out, structFields(ft)...)
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		switch name {
		case "-":
			continue
		case "":
			name = strings.ToLower(f.Name)
		}
		out = append(out, setting{name, f.Type})
	}
	return out
}

// decodedLine is the position yaml.v3 gives within what it decoded.
var decodedLine = regexp.MustCompile(`line \d+: `)
