// Package csvtab decodes the CSV tables of trace files into rows of string
// fields with gocsv, keeping each row's line number, and parses those fields
// into numbers with errors that name the file, line and column.
package csvtab

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gocarina/gocsv"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/internal/gzfile"
)

// MaxErrors bounds the errors one read reports.
const MaxErrors = 10

// Table says how a file's table is laid out.
type Table struct {
	// Columns are the table's column names in order. With a header row,
	// Required of them must be there (in any order) and the rest may be
	// missing; without one, every row has exactly these columns.
	Columns  []string
	Required []string
	// Header says whether the first row names the columns.
	Header bool
}

// Read decodes the CSV in r (gzip-compressed or not) into out, a pointer to
// a slice of structs whose string fields carry csv tags. It returns the
// header (Columns when the file has none) and the line of every row.
func (t Table) Read(r io.Reader, name string, out any) (header []string, lines []int, err error) {
	zr, err := gzfile.NewReader(r)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	defer zr.Close()
	br := bufio.NewReader(zr)
	if head, _ := br.Peek(262); len(head) == 262 && string(head[257:262]) == "ustar" {
		// the published tables come as .tar.gz archives of the CSV
		return nil, nil, fmt.Errorf("%s: a tar archive, not a table: unpack it (tar xzf) and give the CSV inside", name)
	}
	capped := &lineCap{r: br, line: 1}
	cr := csv.NewReader(capped)
	if !t.Header {
		cr.FieldsPerRecord = len(t.Columns)
	}
	lr := &lineReader{r: cr, header: t.Header}
	if !t.Header {
		lr.columns = t.Columns
	}
	if t.Header {
		err = gocsv.UnmarshalCSV(lr, out)
	} else {
		err = gocsv.UnmarshalCSVWithoutHeaders(lr, out)
	}
	var perr *csv.ParseError
	var long *tooLong
	var lone *loneCR
	var head *headerLine
	switch {
	case errors.As(err, &head):
		return nil, nil, &datasets.ColumnError{File: name, Line: head.line, Msg: fmt.Sprintf("a header (%s): this table has none, its columns are %s in that order; remove the line",
			strings.Join(head.names, ","), strings.Join(t.Columns, ","))}
	case errors.As(err, &long):
		return nil, nil, &datasets.ColumnError{File: name, Line: long.line, Msg: fmt.Sprintf("line longer than %d bytes: not a table of this kind?", MaxLine)}
	case errors.As(err, &lone):
		return nil, nil, &datasets.ColumnError{File: name, Line: lone.line, Msg: "a carriage return not followed by a line feed: " + datasets.LoneCR(name)}
	case errors.Is(err, gzfile.ErrTruncated):
		return nil, nil, &datasets.ColumnError{File: name, Line: capped.line, Msg: err.Error()}
	case errors.As(err, &perr) && errors.Is(perr.Err, csv.ErrFieldCount) && t.Header && len(lr.head) > 0 && len(t.Required) > 0 &&
		!slices.ContainsFunc(t.Required, func(c string) bool { return slices.Contains(lr.head, c) }):
		// rows of other lengths under a first line naming none of the
		// columns: not a table of this kind (a README read as one said
		// "wrong number of fields: want 1": a reviewer's find)
		return nil, nil, &datasets.ColumnError{File: name, Line: 1,
			Msg: fmt.Sprintf("not a table of this kind: its first line names none of the columns %s (it reads %q), and its lines hold different numbers of fields",
				strings.Join(t.Required, ", "), strings.Join(lr.head, ","))}
	case errors.As(err, &perr):
		msg := perr.Err.Error()
		if errors.Is(perr.Err, csv.ErrFieldCount) {
			want := len(t.Columns)
			if t.Header {
				want = len(lr.head)
			}
			msg = fmt.Sprintf("%s: want %d", msg, want)
		}
		// an unterminated quote is where it began, not where the file ends
		return nil, nil, &datasets.ColumnError{File: name, Line: cmp.Or(perr.StartLine, perr.Line), Msg: msg}
	case errors.Is(err, gocsv.ErrEmptyCSVFile):
		if t.Header {
			return nil, nil, fmt.Errorf("%s: empty file: no header", name)
		}
		return t.Columns, nil, nil
	case err != nil:
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if !t.Header {
		return t.Columns, lr.lines, nil
	}
	var missing []string
	for _, c := range t.Required {
		if !slices.Contains(lr.head, c) {
			missing = append(missing, c)
		}
	}
	// a table of no header, its first row data, misses every column it
	// needs and names none it may have, in any case or spelling of - and
	// space: said as that, before its repeated values read as names given
	// twice
	norm := strings.NewReplacer("-", "_", " ", "_")
	named := func(c string) bool {
		return slices.ContainsFunc(t.Columns, func(w string) bool { return strings.EqualFold(norm.Replace(c), w) })
	}
	if len(missing) > 0 && len(missing) == len(t.Required) && !slices.ContainsFunc(lr.head, named) {
		return nil, nil, &datasets.ColumnError{File: name, Line: 1,
			Msg: fmt.Sprintf("no header: none of the columns %s is named on the first line (%s); the first line names the columns",
				strings.Join(missing, ", "), strings.Join(lr.head, ","))}
	}
	seen := map[string]bool{}
	for _, c := range lr.head {
		if c == "" {
			continue // unnamed (a spreadsheet's trailing commas): not read
		}
		if seen[c] {
			return nil, nil, &datasets.ColumnError{File: name, Line: 1, Column: c, Msg: "column named twice"}
		}
		seen[c] = true
	}
	if len(missing) > 0 {
		return nil, nil, &datasets.ColumnError{File: name, Line: 1,
			Msg: fmt.Sprintf("missing column(s) %s (header %s)", strings.Join(missing, ", "), strings.Join(lr.head, ","))}
	}
	// a column the table may have, absent, beside one it does not know that
	// is its name written otherwise (case, - or a space for _), is that
	// column: read without it, its rows would silently take the default.
	// (Names a letter or two apart are not taken for it: short names are a
	// letter or two from many another column a table may carry.)
	for _, c := range lr.head {
		if c == "" || slices.Contains(t.Columns, c) {
			continue
		}
		for _, want := range t.Columns {
			if !seen[want] && strings.EqualFold(norm.Replace(c), want) {
				return nil, nil, &datasets.ColumnError{File: name, Line: 1, Column: c,
					Msg: fmt.Sprintf("not a column of this table, and %s is absent: name the column %s (column names are exact)", want, want)}
			}
		}
	}
	return lr.head, lr.lines[1:], nil
}

// MaxLine is the longest line a table may have, in bytes: a longer one is
// an error, so that a file that is not a table cannot take unbounded memory.
const MaxLine = 1 << 20

// lineCap passes a table's bytes through, less a UTF-8 byte-order mark at
// its start (which would otherwise be part of the first column's name),
// failing with tooLong at a line longer than MaxLine; line counts the
// lines read so far.
type lineCap struct {
	r       *bufio.Reader
	started bool
	line    int
	run     int  // bytes since the last line end
	cr      bool // the last byte read was a carriage return
}

// loneCR is a carriage return not followed by a line feed: a file whose
// lines end in CR alone, which the CSV reader takes for one line.
type loneCR struct{ line int }

func (e *loneCR) Error() string { return fmt.Sprintf("line %d: a carriage return alone", e.line) }

type tooLong struct{ line int }

func (e *tooLong) Error() string { return fmt.Sprintf("line %d longer than %d bytes", e.line, MaxLine) }

func (c *lineCap) Read(p []byte) (int, error) {
	if !c.started {
		c.started = true
		if b, err := c.r.Peek(3); err == nil && string(b) == "\uFEFF" {
			c.r.Discard(3)
		}
	}
	n, err := c.r.Read(p)
	// a CR must end a line, before its LF (none of these tables quotes a
	// field holding one)
	for i, b := range p[:n] {
		if c.cr && b != '\n' {
			return 0, &loneCR{line: c.line + bytes.Count(p[:i], []byte{'\n'})}
		}
		c.cr = b == '\r'
	}
	if c.cr && err == io.EOF {
		c.cr = false // a CR as the file's last byte ends its last line
	}
	for rest := p[:n]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			c.run += len(rest)
			break
		}
		c.run += i
		if c.run > MaxLine {
			break
		}
		c.line++
		c.run = 0
		rest = rest[i+1:]
	}
	if c.run > MaxLine {
		return 0, &tooLong{line: c.line}
	}
	return n, err
}

// lineReader is the CSV reader gocsv reads through: it notes the header and
// the line every record starts on.
type lineReader struct {
	r      *csv.Reader
	header bool
	head   []string
	lines  []int
	// columns are a headerless table's, which its first line must not
	// name (a header added to a table published without one)
	columns []string
}

// headerLine is a headerless table's first line that names its columns.
type headerLine struct {
	line  int
	names []string
}

func (h *headerLine) Error() string { return fmt.Sprintf("line %d: a header", h.line) }

func (l *lineReader) Read() ([]string, error) {
	rec, err := l.r.Read()
	if err != nil {
		return nil, err
	}
	line, _ := l.r.FieldPos(0)
	if l.columns != nil && l.lines == nil {
		// half its fields or more are column names: a header, whose
		// words would be read as values ("start_time" is not a number)
		named := 0
		for _, f := range rec {
			if slices.ContainsFunc(l.columns, func(c string) bool { return strings.EqualFold(c, strings.TrimSpace(f)) }) {
				named++
			}
		}
		if 2*named >= len(rec) {
			return nil, &headerLine{line: line, names: rec}
		}
	}
	if l.header && l.lines == nil {
		// names as gocsv matches them: spaces around a name do not count
		l.head = make([]string, len(rec))
		for i, c := range rec {
			l.head[i] = strings.TrimSpace(c)
		}
	}
	l.lines = append(l.lines, line)
	return rec, nil
}

func (l *lineReader) ReadAll() ([][]string, error) {
	var all [][]string
	for {
		rec, err := l.Read()
		if err == io.EOF {
			return all, nil
		}
		if err != nil {
			return nil, err
		}
		all = append(all, rec)
	}
}

// Parser parses the fields of rows, gathering errors.
type Parser struct {
	File string
	errs []error
}

// Err returns the errors met so far, joined; nil when none.
func (p *Parser) Err() error { return errors.Join(p.errs...) }

// Full reports whether enough errors have been met to stop.
func (p *Parser) Full() bool { return len(p.errs) >= MaxErrors }

// Errors is the number of errors recorded so far: a row whose fields
// added some skips the checks across them, which would blame the zero a
// failed field reads as.
func (p *Parser) Errors() int { return len(p.errs) }

// Errorf records an error about a column of a line.
func (p *Parser) Errorf(line int, column, format string, args ...any) {
	if len(p.errs) < MaxErrors {
		p.errs = append(p.errs, &datasets.ColumnError{File: p.File, Line: line, Column: column, Msg: fmt.Sprintf(format, args...)})
	}
}

// Int parses an integer field; empty is an error.
func (p *Parser) Int(line int, column, s string) int64 {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		p.Errorf(line, column, "%s", numErr(s, err, "an integer"))
		return 0
	}
	return v
}

// IntMin parses an integer field that must be at least min.
func (p *Parser) IntMin(line int, column, s string, min int64) int64 {
	v := p.Int(line, column, s)
	if v < min {
		p.Errorf(line, column, "%d is less than %d", v, min)
		return min
	}
	return v
}

// IntRange parses an integer field between min and max (the simulator's
// bound on the quantity, named in the message as bound).
func (p *Parser) IntRange(line int, column, s string, min, max int64, bound string) int64 {
	v := p.IntMin(line, column, s, min)
	if v > max {
		p.Errorf(line, column, "%d is more than %d (%s)", v, max, bound)
		return max
	}
	return v
}

// Float parses a finite number; empty is an error.
func (p *Parser) Float(line int, column, s string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
		err = strconv.ErrSyntax
	}
	if err != nil {
		p.Errorf(line, column, "%s", numErr(s, err, "a finite number"))
		return 0
	}
	return v
}

// OptFloat parses a finite number that may be empty: ok is false then.
func (p *Parser) OptFloat(line int, column, s string) (v float64, ok bool) {
	if strings.TrimSpace(s) == "" {
		return 0, false
	}
	return p.Float(line, column, s), true
}

func numErr(s string, err error, what string) string {
	q := s
	if len(q) > 32 {
		q = q[:32] + "..."
	}
	switch {
	case strings.TrimSpace(s) == "":
		return "empty; want " + what
	case errors.Is(err, strconv.ErrRange):
		return strconv.Quote(q) + " is out of range"
	}
	return strconv.Quote(q) + " is not " + what
}

// Whole parses a whole number at least min, which may be written as a
// decimal ("4.0").
func (p *Parser) Whole(line int, column, s string, min int64) int64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	switch {
	case err != nil:
		p.Errorf(line, column, "%s", numErr(s, err, "a whole number"))
	case v != math.Trunc(v) || math.Abs(v) > 1<<53:
		p.Errorf(line, column, "%v is not a whole number", v)
	case v < float64(min):
		p.Errorf(line, column, "%v is less than %d", v, min)
	default:
		return int64(v)
	}
	return min
}
