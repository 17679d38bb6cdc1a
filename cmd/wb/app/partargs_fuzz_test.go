package app

import (
	"strings"
	"testing"

	"github.com/wb-sim/wb/scheduler"
)

// FuzzPartArgs: --arg PART.KEY=VALUE is refused with an error quoting the
// argument, or sets KEY, once, in PART's settings and nowhere else.
func FuzzPartArgs(f *testing.F) {
	for _, s := range []string{"placement.population=50", "order.x=[1, 2]", "estimate.k={a: 1}", "backfill.max=", "placement=3",
		"nopart.x=1", "placement.=1", ".x=1", "placement.a.b=c=d", "estimate.s='quoted'", "order.x=&a [*a]"} {
		f.Add(s, "")
	}
	f.Add("placement.a=1", "placement.a=2")
	f.Fuzz(func(t *testing.T, a, b string) {
		given := []string{a}
		if b != "" {
			given = append(given, b)
		}
		var spec scheduler.Spec
		err := partArgs(&spec, given)
		if err != nil {
			if !strings.Contains(err.Error(), "--arg ") {
				t.Fatalf("%q: error %v names no --arg", given, err)
			}
			return
		}
		set := 0
		for _, g := range given {
			kv, _, _ := strings.Cut(g, "=")
			part, key, _ := strings.Cut(kv, ".")
			args := map[string]scheduler.Args{"order": spec.OrderArgs, "backfill": spec.BackfillArgs,
				"placement": spec.PlacementArgs, "estimate": spec.EstimateArgs}[part]
			if _, ok := args[key]; !ok {
				t.Fatalf("%q: %s.%s not set (spec %+v)", given, part, key, spec)
			}
		}
		for _, m := range []scheduler.Args{spec.OrderArgs, spec.BackfillArgs, spec.PlacementArgs, spec.EstimateArgs} {
			set += len(m)
		}
		if set != len(given) {
			t.Fatalf("%q: %d settings set", given, set)
		}
	})
}
