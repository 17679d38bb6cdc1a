package neusight

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReadDirNames: a folder of one spec sheet and one label reads, whatever
// the sheet's and the label folder's names; the label's GPU has the sheet
// where the names are one up to case, spaces and underscores.
func FuzzReadDirNames(f *testing.F) {
	sheet, err := os.ReadFile(filepath.Join("..", "data", "neusight", "devices", "Tesla_T4.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add("Tesla_T4", "Tesla_T4")
	f.Add("Tesla_T4", "tesla t4")
	f.Add("[T4]", "[t4]")
	f.Add("T*4", "T?4")
	f.Fuzz(func(t *testing.T, stem, gpu string) {
		for _, s := range []string{stem, gpu} {
			if s == "" || s == "." || s == ".." || len(s) > 100 || !utf8.ValidString(s) || strings.ContainsAny(s, "/\x00") {
				return
			}
		}
		dir := t.TempDir()
		for _, d := range []string{"devices", filepath.Join("labels", gpu)} {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				t.Skip(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "devices", stem+".json"), sheet, 0o644); err != nil {
			t.Skip(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "labels", gpu, "m-inf-1-1.json"), []byte(`{"e2e_latency":1}`), 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := ReadDir(dir)
		if err != nil {
			t.Fatalf("%q, %q: %v", stem, gpu, err)
		}
		if len(d.Labels) != 1 || len(d.Unread) != 0 || d.Labels[0].GPU != gpu {
			t.Fatalf("%q, %q: labels %+v, unread %v", stem, gpu, d.Labels, d.Unread)
		}
		if _, ok := d.Devices[stem]; !ok {
			t.Fatalf("%q: sheet not read: %v", stem, d.BadDevices)
		}
		norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", "_")) }
		if _, ok := d.Devices[gpu]; !ok && norm(stem) == norm(gpu) {
			t.Fatalf("%q, %q: the label's GPU has no sheet; notes %v", stem, gpu, d.Notes)
		}
	})
}
