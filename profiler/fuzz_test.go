package profiler_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wb-sim/wb/profiler"
)

// FuzzReadCSV: any input is read or refused without a panic, and what is
// read writes back and reads again to the same rows.
func FuzzReadCSV(f *testing.F) {
	var b bytes.Buffer
	if err := profiler.WriteCSV(&b, sampleRows()); err != nil {
		f.Fatal(err)
	}
	f.Add(b.String())
	// A bundled profile's first rows, and one from before algo and min_s.
	if data, err := os.ReadFile(filepath.Join("..", "datasets", "profiles", "cpu-lm.csv")); err == nil {
		lines := strings.SplitN(string(data), "\n", 6)
		f.Add(strings.Join(lines[:min(5, len(lines))], "\n"))
	}
	f.Add("model,layer,pass,batch,precision,status,median_s\nm,l,fwd,1,fp32,ok,abc\n")
	f.Add("model,layer,pass,batch,precision,status,median_s,reps,stop,min_s\nm,l,fwd,2,fp32,ok,1e-3,3,budget,2e-3\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		rows, err := profiler.ReadCSV(strings.NewReader(in))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := profiler.WriteCSV(&out, rows); err != nil {
			t.Fatalf("rows read from %q do not write: %v", in, err)
		}
		back, err := profiler.ReadCSV(&out)
		if err != nil {
			t.Fatalf("written rows do not read back: %v\n%s", err, out.String())
		}
		if len(rows) == 0 && len(back) == 0 {
			return
		}
		if !reflect.DeepEqual(back, rows) {
			t.Fatalf("round trip of %q:\n got %+v\nwant %+v", in, back, rows)
		}
	})
}
