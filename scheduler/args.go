package scheduler

import (
	"bytes"
	"fmt"
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

// Run is what every part is told of the simulation it is made for.
type Run struct {
	// Seed seeds the part's randomness: each part draws from
	// rand.NewPCG(Seed, its own stream).
	Seed uint64
}

// Decode fills dst, a pointer to a struct whose fields carry yaml tags,
// from the arguments; an argument dst has no field for, or one of the
// wrong type, is an error that names the part.
func (a Args) Decode(part string, dst any) error {
	if len(a) == 0 {
		return nil
	}
	raw, err := yaml.Marshal(map[string]any(a))
	if err != nil {
		return fmt.Errorf("%s: %w", part, err)
	}
	d := yaml.NewDecoder(bytes.NewReader(raw))
	d.KnownFields(true)
	if err := d.Decode(dst); err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "yaml: unmarshal errors:\n  ")
		// the decoder's "line N" counts lines of the arguments as
		// re-encoded here, not of any file the user wrote
		msg = decodedLine.ReplaceAllString(msg, "")
		// a key the part does not know: its settings, not the Go type
		// that holds them ("field populaton not found in type
		// scheduler.GAParams": a reviewer's find)
		msg = unknownField.ReplaceAllStringFunc(msg, func(m string) string {
			key := unknownField.FindStringSubmatch(m)[1]
			if keys := settingKeys(dst); len(keys) > 0 {
				return fmt.Sprintf("%s is not a setting of %s (its settings: %s)", key, part, strings.Join(keys, ", "))
			}
			return fmt.Sprintf("%s is not a setting of %s", key, part)
		})
		return fmt.Errorf("%s: arguments %v: %s", part, map[string]any(a), msg)
	}
	return nil
}

// unknownField is yaml.v3's word for a key no field of the struct takes.
var unknownField = regexp.MustCompile(`field (\S+) not found in type (?:struct \{[^\n]*\}|\S+)`)

// settingKeys are the YAML keys of the struct dst points to (its fields'
// yaml tags, else their names in lower case), in order, with those of a
// struct it holds inline (`yaml:",inline"`) in its place; none where dst
// is no pointer to a struct.
func settingKeys(dst any) []string {
	t := reflect.TypeOf(dst)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	return structKeys(t.Elem())
}

// structKeys are settingKeys of struct type t.
func structKeys(t reflect.Type) []string {
	var keys []string
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if inline := slices.Contains(strings.Split(opts, ","), "inline"); inline {
			// yaml.v3 inlines a struct or a pointer to one, exported or
			// embedded (a map inline takes any key: none to list)
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				keys = append(keys, structKeys(ft)...)
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
		keys = append(keys, name)
	}
	return keys
}

// decodedLine is the position yaml.v3 gives within what it decoded.
var decodedLine = regexp.MustCompile(`line \d+: `)
