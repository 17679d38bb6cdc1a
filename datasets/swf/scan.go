package swf

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Scanner reads an SWF trace one record at a time, for traces too long to
// hold in memory. Its Trace gathers the comment lines as they come (the
// header, before the first record) and, with [ReadOptions.SkipInvalid],
// the malformed lines it skipped; Trace.Records stays empty.
type Scanner struct {
	Trace
	skip   bool
	br     *bufio.Reader
	lineNo int
	rec    Record
	err    error
	done   bool
}

// NewScanner reads the trace in r (already decompressed); name names it in
// errors.
func (o ReadOptions) NewScanner(r io.Reader, name string) *Scanner {
	return &Scanner{Trace: Trace{Name: name}, skip: o.SkipInvalid, br: bufio.NewReaderSize(r, MaxLine)}
}

// Scan advances to the next record, reading the comments and blank lines
// before it; false at the end of the trace or at the first error.
func (s *Scanner) Scan() bool {
	for !s.done {
		s.lineNo++
		line, err := s.br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			s.err = longLine(s.Name, s.lineNo, line)
			s.done = true
			return false
		case err == io.EOF:
			s.done = true
		case err != nil:
			s.err = fmt.Errorf("%s:%d: %w", s.Name, s.lineNo, err)
			s.done = true
			return false
		}
		if s.lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff")) // as Read
		}
		if len(line) == 0 {
			continue
		}
		ok, serr := s.parseLine(line, s.lineNo, &s.rec)
		if serr != nil {
			if !s.skip || serr.Header || serr.Unskippable {
				s.err, s.done = serr, true
				return false
			}
			s.Skipped++
			if len(s.SkipErrors) < MaxSkipErrors {
				s.SkipErrors = append(s.SkipErrors, serr)
			}
			continue
		}
		if ok {
			return true
		}
	}
	return false
}

// Record is the record Scan read; it is overwritten by the next Scan.
func (s *Scanner) Record() *Record { return &s.rec }

// Line is the line number of the last line read.
func (s *Scanner) Line() int { return s.lineNo }

// Err is the error that stopped Scan, or nil at the end of the trace.
func (s *Scanner) Err() error { return s.err }
