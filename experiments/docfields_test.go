package experiments

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wb-sim/wb/datasets/workload"
)

// TestFieldsDocumentedOnce: a config field is documented by its doc tag
// (which --explain prints) and by nothing else, so the two cannot drift
// apart; in every package of the module.
func TestFieldsDocumentedOnce(t *testing.T) {
	n := 0
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != ".." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "tmpkt" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(x ast.Node) bool {
			st, ok := x.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fld := range st.Fields.List {
				if fld.Tag == nil {
					continue
				}
				if _, ok := reflect.StructTag(strings.Trim(fld.Tag.Value, "`")).Lookup("doc"); !ok {
					continue
				}
				n++
				if fld.Doc != nil || fld.Comment != nil {
					t.Errorf("%s: %v has a doc tag and a comment: keep the tag", fset.Position(fld.Pos()), fld.Names)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Errorf("%d fields with doc tags found; the walk missed the config", n)
	}
	f, _ := reflect.TypeFor[WorkloadConfig]().FieldByName("Trace")
	for _, format := range workload.Formats() {
		if !strings.Contains(f.Tag.Get("doc"), format) {
			t.Errorf("workloads[].trace's doc does not name the format %s", format)
		}
	}
}
