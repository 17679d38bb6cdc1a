package experiments

import (
	"fmt"
	"reflect"
	"strings"
)

// Explain documents every field of a config, from the config's types.
func Explain() string {
	var b strings.Builder
	b.WriteString("An experiment config is YAML; unknown fields are errors. Input paths (traces, spec\n" +
		"sheets, cluster files) are relative to the config file; out, the results directory, to\n" +
		"the working directory, as wb experiment --out is. Every field, with its default:\n\n")
	explain(&b, reflect.TypeFor[Config](), "")
	return b.String()
}

func explain(b *strings.Builder, t reflect.Type, prefix string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if tag == "" || !f.IsExported() {
			continue
		}
		path := prefix + tag
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		list := ""
		if ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct {
			ft, list = ft.Elem(), "[]"
		}
		doc := f.Tag.Get("doc")
		if names := partNames(path); names != nil {
			doc += "; one of " + strings.Join(names, ", ")
		}
		fmt.Fprintf(b, "%-30s %s\n", path+list, doc)
		if ft.Kind() == reflect.Struct {
			explain(b, ft, path+list+".")
		}
	}
}

// partNames are the names a scheduler's part field takes (Parts: wb's own
// and any registered), nil for any other field.
func partNames(path string) []string {
	p := Parts()
	switch path {
	case "schedulers[].order":
		return p.Orders.Names()
	case "schedulers[].backfill":
		return p.Backfills.Names()
	case "schedulers[].placement":
		return p.Placements.Names()
	case "schedulers[].estimate":
		return p.Estimators.Names()
	}
	return nil
}
