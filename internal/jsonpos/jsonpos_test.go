package jsonpos

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestAt(t *testing.T) {
	type sheet struct {
		Name string  `json:"Device"`
		BW   float64 `json:"Mem_Bw"`
	}
	decode := func(s string) error {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.DisallowUnknownFields()
		var v sheet
		return dec.Decode(&v)
	}
	for _, c := range []struct{ in, want string }{
		// a value of the wrong type: where its key is
		{"{\n \"Device\": \"X\",\n \"Mem_Bw\": \"fast\"\n}\n", "f.json:3:2: cannot unmarshal string into Go struct field sheet.Mem_Bw of type float64"},
		// a syntax error: where the parser stopped
		{"{\n \"Device\": \"X\",\n \"Mem_Bw\": 12,,\n}", "f.json:3:15: invalid character ',' looking for beginning of object key string"},
		// an unknown field: its key
		{"{\"Device\": \"Mem_Bandwidth\",\n   \"Mem_Bandwidth\": 1}", "f.json:2:4: unknown field \"Mem_Bandwidth\""},
		// the column counts runes
		{"{\"Device\": \"Tésla\", \"Mem_Bw\": true}", "f.json:1:21: cannot unmarshal bool"},
	} {
		err := At("f.json", []byte(c.in), decode(c.in))
		var e *Error
		if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q…", c.in, err, c.want)
		}
	}
	// where encoding/json says nothing of a place, the name and the error
	err := At("f.json", []byte("{}"), errors.New("boom"))
	if err.Error() != "f.json: boom" {
		t.Errorf("no position: %v", err)
	}
	if At("f.json", nil, nil) != nil {
		t.Error("nil error located")
	}
	// unexpected end: the end of the data
	in := "{\n\"Device\": \"X\""
	err = At("f.json", []byte(in), decode(in))
	if err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("truncated: %v", err)
	}
}

// FuzzAt: any data and any decoding error is located inside the data
// (line and column from 1, the line within its lines), without panicking.
func FuzzAt(f *testing.F) {
	f.Add([]byte("{\n \"Device\": \"X\",\n \"Mem_Bw\": \"fast\"\n}\n"))
	f.Add([]byte("{\"a\": [1, 2,, 3]}"))
	f.Add([]byte("\xff\xfe{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var v struct {
			A []int  `json:"a"`
			B string `json:"Device"`
		}
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		err := At("x", data, dec.Decode(&v))
		var e *Error
		if errors.As(err, &e) {
			if e.Line < 1 || e.Col < 1 || e.Line > 1+strings.Count(string(data), "\n") {
				t.Fatalf("%q: at %d:%d", data, e.Line, e.Col)
			}
		}
	})
}

func TestKey(t *testing.T) {
	data := []byte("{\"a\": \"b\",\n  \"b\" : {\"c\": 1}}")
	// "b" as a value is not the key; the key is on line 2
	if line, col, ok := Key(data, "b"); !ok || line != 2 || col != 3 {
		t.Errorf("b at %d:%d %v, want 2:3", line, col, ok)
	}
	if line, col, ok := Key(data, "c"); !ok || line != 2 || col != 10 {
		t.Errorf("c at %d:%d %v, want 2:10", line, col, ok)
	}
	if _, _, ok := Key(data, "d"); ok {
		t.Error("found a key that is not there")
	}
}

func TestFields(t *testing.T) {
	data := []byte("{\n  \"a\": 1,\n  \"b\": 2\n}")
	err := Fields("f.json", data, errors.Join(errors.New("b: 2: too big"), errors.New("c: missing"), errors.New("no key here")))
	want := "f.json:3:3: b: 2: too big\nf.json: c: missing\nf.json: no key here"
	if err == nil || err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	var e *Error
	if !errors.As(err, &e) || e.Line != 3 || e.Col != 3 {
		t.Errorf("no placed error in %v", err)
	}
	if Fields("f.json", data, nil) != nil {
		t.Error("nil error placed")
	}
}

// TestDuplicates: a key given twice in one object, at any depth, is found
// at its second occurrence, up to case where asked; the same key in two
// objects, or in an array's objects, is not a duplicate.
func TestDuplicates(t *testing.T) {
	for _, c := range []struct {
		in   string
		fold bool
		want string
	}{
		{"{\"a\": 1,\n \"b\": 2,\n \"a\": 3}", false, "f.json:3:2: a: given twice (first at line 1, column 2;"},
		{`{"a": {"x": 1, "y": [1, {"x": 2}], "x": 3}}`, false, `f.json:1:36: x: given twice (first at line 1, column 8;`},
		{`{"E2E": 1, "e2e": 2}`, true, `f.json:1:12: e2e: given twice (first as "E2E", at line 1, column 2;`},
		{`{"E2E": 1, "e2e": 2}`, false, ""},
		{`{"a": {"x": 1}, "b": {"x": 1}, "c": [{"x": 1}, {"x": 2}]}`, false, ""},
		{`{"a\u0062": 1, "ab": 2}`, false, `f.json:1:16: ab: given twice (first at line 1, column 2;`},
		{`{"a": 1,`, false, ""},
		{`[1, 2, 1]`, false, ""},
	} {
		err := Duplicates("f.json", []byte(c.in), c.fold)
		var e *Error
		if c.want == "" && err != nil || c.want != "" && (!errors.As(err, &e) || !strings.HasPrefix(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
}

// FuzzDuplicates: Duplicates never panics, and finds a duplicate only in
// JSON that decodes, at a position within the text.
func FuzzDuplicates(f *testing.F) {
	f.Add([]byte(`{"a": 1, "a": 2}`), false)
	f.Add([]byte(`{"a": {"B": [1, {"b": 2}], "b": 3}}`), true)
	f.Fuzz(func(t *testing.T, in []byte, fold bool) {
		err := Duplicates("f.json", in, fold)
		if err == nil {
			return
		}
		var e *Error
		if !errors.As(err, &e) || e.Line < 1 || e.Col < 1 || e.Line > 1+strings.Count(string(in), "\n") {
			t.Fatalf("%q: %v", in, err)
		}
		var v any
		if json.Unmarshal(in, &v) != nil && json.NewDecoder(strings.NewReader(string(in))).Decode(&v) != nil {
			t.Fatalf("%q: a duplicate in what does not decode: %v", in, err)
		}
	})
}
