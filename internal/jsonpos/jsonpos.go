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
