package paisim

import (
	"bytes"
	"testing"
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
			checkReadError(t, err)
			return
		}
		for _, r := range rows {
			if r.InstID == "" || r.Line < 1 {
				t.Fatalf("accepted %+v", r)
			}
		}
	})
}
