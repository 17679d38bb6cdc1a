package paisim

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/wb-sim/wb/datasets"
)

// FuzzReadGroups: pai_group_tag_table reads to rows with an inst_id, or to
// an error that names the file (a *datasets.ColumnError where it names a
// line), never a panic.
func FuzzReadGroups(f *testing.F) {
	f.Add([]byte("i1,u1,V100,g1,bert\ni2,u2,,g2,\n"))
	f.Add([]byte("i1,u1,V100,g1\n"))
	f.Add([]byte(",u1,V100,g1,bert\n"))
	f.Add([]byte("\"i1\",\"u,1\",V100,g1,bert\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, err := ReadGroupsFrom(bytes.NewReader(in), "f.csv")
		if err != nil {
			msg := err.Error()
			var cerr *datasets.ColumnError
			switch {
			case aboutLine.MatchString(msg):
				if !errors.As(err, &cerr) {
					t.Fatalf("error %q is not a *datasets.ColumnError", err)
				}
			case strings.HasPrefix(msg, "f.csv"):
			default:
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, r := range rows {
			if r.InstID == "" || r.Line < 1 {
				t.Fatalf("accepted %+v", r)
			}
		}
	})
}
