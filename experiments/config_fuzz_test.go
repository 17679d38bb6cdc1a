package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseConfig: any bytes parse to a config or an error, never a
// panic; a config that parses parses again to the same config (hash and
// runs), and an error names the file.
func FuzzParseConfig(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "configs", "*.yaml"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"name: x\nseed: 1.5\n", "name: x\nworkloads: {}\n", "name: x\nreplicas: many\n",
		"name: x\nworkloads:\n  - {name: t, trace: k.swf, window: 10}\nschedulers:\n  - {name: F}\nsweep: {load: [1, 1]}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := ParseConfig(raw, "fuzz.yaml")
		if err != nil {
			if c != nil {
				t.Fatalf("a config and an error: %v", err)
			}
			// every line of the error names the file
			for _, line := range strings.Split(err.Error(), "\n") {
				if line != "" && !strings.Contains(line, "fuzz.yaml") && !strings.HasPrefix(line, "(") && !strings.HasPrefix(line, " ") {
					t.Fatalf("an error line that names no file: %q (of %v)", line, err)
				}
			}
			return
		}
		d, err := ParseConfig(raw, "fuzz.yaml")
		if err != nil {
			t.Fatalf("parsed once, not twice: %v", err)
		}
		if c.Hash() != d.Hash() || len(c.Runs()) != len(d.Runs()) {
			t.Fatalf("two parses differ")
		}
	})
}
