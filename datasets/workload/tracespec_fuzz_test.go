package workload

import (
	"slices"
	"strings"
	"testing"
)

// FuzzSplitTrace: a trace spec, [FORMAT:]PATH, is refused with an error
// naming it, or split into a known format and a path the spec ends with
// (the whole spec where no format is written).
func FuzzSplitTrace(f *testing.F) {
	for _, s := range []string{"swf:k.swf", "k.swf.gz", "openb:x.csv", "gavel:a.trace", "pai-sim:p.csv", "x.csv",
		"mesos:x", "C:\\traces\\k.swf", "a:b:c.swf", "", ":", "swf:", "openb_pod_list_default.csv.gz", "dir/pai_job_table.csv"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		format, path, err := splitTrace(s)
		if err != nil {
			if s != "" && !strings.Contains(err.Error(), s) {
				t.Fatalf("%q: error %v does not name the spec", s, err)
			}
			return
		}
		if !slices.Contains(formats, format) {
			t.Fatalf("%q: format %q is not one of %v", s, format, formats)
		}
		if !strings.HasSuffix(s, path) || (path != s && s != format+":"+path) {
			t.Fatalf("%q: split into %q and %q", s, format, path)
		}
		if f2, p2, err := splitTrace(format + ":" + path); err != nil || f2 != format || p2 != path {
			t.Fatalf("%q: %s:%s splits again into %q, %q, %v", s, format, path, f2, p2, err)
		}
	})
}
