// Package jsonpos locates encoding/json's errors in the text they came
// from: a syntax error, a value of the wrong type or an unknown field (from
// a decoder that disallows them) becomes NAME:LINE:COLUMN: message, so a
// user sees where in their file to look.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Error is a JSON error at a line and column (both from 1) of File.
type Error struct {
	File      string
	Line, Col int
	Err       error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, strings.TrimPrefix(e.Err.Error(), "json: "))
}

func (e *Error) Unwrap() error { return e.Err }

// At returns err, returned by decoding data, located in data under name:
// an *Error where encoding/json says where it happened (a syntax error, a
// value of the wrong type: the offset it reports, or the key before the
// value) or names an unknown field (its first key in data), else err
// prefixed by name, as is an error a custom UnmarshalJSON returned (whose
// offsets count from its own value). nil for nil.
func At(name string, data []byte, err error) error {
	if err == nil {
		return nil
	}
	off := -1
	// only an error of encoding/json's own, not one a custom unmarshaler
	// wrapped: its offsets count from the value that method was given
	switch te := err.(type) {
	case *json.SyntaxError:
		off = int(te.Offset) - 1 // the offset is of the byte after the error
	case *json.UnmarshalTypeError:
		off = int(te.Offset) - 1 // after the value read
		if te.Field != "" && te.Value != "" {
			// the value begins after its key; the offset ends it
			if i := keyOffset(data, te.Field[strings.LastIndex(te.Field, ".")+1:]); i >= 0 && i < off {
				off = i
			}
		}
	default:
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if k, uerr := strconv.Unquote(f); uerr == nil {
				off = keyOffset(data, k)
			}
		}
	}
	if off < 0 {
		return fmt.Errorf("%s: %w", name, err)
	}
	line, col := Position(data, off)
	return &Error{File: name, Line: line, Col: col, Err: err}
}

// Key is the line and column of the first "key": in data (an object's
// member of that name, wherever it is nested); ok is false where there is
// none.
func Key(data []byte, key string) (line, col int, ok bool) {
	off := keyOffset(data, key)
	if off < 0 {
		return 0, 0, false
	}
	line, col = Position(data, off)
	return line, col, true
}

// keyOffset is the offset of the first "key": in data, -1 where there is
// none.
func keyOffset(data []byte, key string) int {
	q, err := json.Marshal(key)
	if err != nil {
		return -1
	}
	for from := 0; from < len(data); {
		i := bytes.Index(data[from:], q)
		if i < 0 {
			return -1
		}
		i += from
		rest := bytes.TrimLeft(data[i+len(q):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return i
		}
		from = i + len(q)
	}
	return -1
}

// Position is the line and column (from 1, the column counted in runes) of
// byte offset off in data, clamped to data.
func Position(data []byte, off int) (line, col int) {
	off = max(0, min(off, len(data)))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	start := bytes.LastIndexByte(before, '\n') + 1
	col = 1 + len([]rune(string(before[start:])))
	return line, col
}

// Fields places a checker's errors about data's members: each of err's
// errors (one, or those errors.Join joined) whose message begins "KEY: ",
// KEY a member of data, is an *Error at KEY's line and column; the others
// are prefixed by name. The errors stay joined. nil for nil.
func Fields(name string, data []byte, err error) error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, Fields(name, data, e))
		}
		return errors.Join(out...)
	}
	if key, _, ok := strings.Cut(err.Error(), ": "); ok && key != "" && !strings.ContainsAny(key, " \t\n") {
		if line, col, found := Key(data, key); found {
			return &Error{File: name, Line: line, Col: col, Err: err}
		}
	}
	return fmt.Errorf("%s: %w", name, err)
}

// Duplicates finds a key given twice in one object of data, at any depth,
// which encoding/json (and Python's json) read without a word, keeping the
// last: an *Error at its second occurrence naming the key and where it was
// first given; nil where every object's keys differ or data is not JSON
// (whose decoding says so). fold matches keys up to case, as encoding/json
// matches a struct's fields.
func Duplicates(name string, data []byte, fold bool) error {
	type frame struct {
		keys map[string]int // an object's keys, as matched, and their offsets; nil for an array
		key  bool           // the object's next token is a key (or its end)
	}
	var stack []*frame
	var dup error // the first found, returned where data decodes to its end
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		from := int(dec.InputOffset())
		t, err := dec.Token()
		if err != nil {
			if err == io.EOF && len(stack) == 0 {
				return dup
			}
			return nil
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if k, ok := t.(string); ok && top != nil && top.keys != nil && top.key {
			// the key starts after the separator and space before it
			off := from
			for off < len(data) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
				off++
			}
			match := k
			if fold {
				match = strings.ToLower(k)
			}
			if first, twice := top.keys[match]; twice && dup == nil {
				fl, fc := Position(data, first)
				line, col := Position(data, off)
				as := ""
				if fk := firstKey(data[first:]); fk != k {
					as = fmt.Sprintf(" as %q,", fk)
				}
				dup = &Error{File: name, Line: line, Col: col,
					Err: fmt.Errorf("%s: given twice (first%s at line %d, column %d; a JSON reader keeps one of them without a word): give it once", k, as, fl, fc)}
			}
			if _, twice := top.keys[match]; !twice {
				top.keys[match] = off
			}
			top.key = false
			continue
		}
		switch t {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]int{}, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				continue
			}
			top = stack[len(stack)-1]
		}
		// a value ended: an object's next token is a key
		if top != nil && top.keys != nil {
			top.key = true
		}
	}
}

// firstKey is the JSON string that starts data, unquoted ("" where none).
func firstKey(data []byte) string {
	var s string
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&s); err != nil {
		return ""
	}
	return s
}
