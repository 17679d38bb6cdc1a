// Package readcheck holds the check the trace readers' fuzzers make of an
// error: it names the file read, and one about a line of it is a
// *datasets.ColumnError (file:line: column: what is wrong).
package readcheck

import (
	"errors"
	"strings"
	"testing"

	"github.com/wb-sim/wb/datasets"
)

// Error fails t unless err, a reader's error on the file named name,
// starts with name, and, where it names a line of it (name:N:), is a
// *datasets.ColumnError.
func Error(t testing.TB, err error, name string) {
	t.Helper()
	msg := err.Error()
	if !strings.HasPrefix(msg, name) {
		t.Fatalf("error %q does not name the file", err)
	}
	var cerr *datasets.ColumnError
	if aboutLine(msg[len(name):]) && !errors.As(err, &cerr) {
		t.Fatalf("error %q is not a *datasets.ColumnError", err)
	}
}

// aboutLine reports whether rest, an error's text after the file's name,
// names a line of it (":N:").
func aboutLine(rest string) bool {
	digits, ok := strings.CutPrefix(rest, ":")
	n := len(digits) - len(strings.TrimLeft(digits, "0123456789"))
	return ok && n > 0 && strings.HasPrefix(digits[n:], ":")
}
