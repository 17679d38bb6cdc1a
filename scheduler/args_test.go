package scheduler

import (
	"slices"
	"strings"
	"testing"
)

// TestArgsInline: a part whose settings hold another struct inline, as
// yaml.v3 reads it (`yaml:",inline"`, embedded or named, by value or by
// pointer), decodes the inline struct's keys, and a misspelt key is told
// every setting, the inline ones in their place (they were left out: the
// list named the holder's own fields alone).
func TestArgsInline(t *testing.T) {
	type common struct {
		Window int     `yaml:"window"`
		Alpha  float64 `yaml:"alpha"`
	}
	type tail struct {
		Last bool `yaml:"last"`
	}
	type params struct {
		Seed   int `yaml:"seed"`
		common `yaml:",inline"`
		Skip   string `yaml:"-"`
		Tail   *tail  `yaml:",inline"`
		Depth  int
	}
	if got, want := settingKeys(&params{}), []string{"seed", "window", "alpha", "last", "depth"}; !slices.Equal(got, want) {
		t.Errorf("settingKeys = %v, want %v", got, want)
	}
	p := params{Tail: &tail{}}
	if err := (Args{"window": 4, "alpha": 0.5, "seed": 2, "last": true}).Decode("part", &p); err != nil || p.Window != 4 || p.Alpha != 0.5 || p.Seed != 2 || !p.Tail.Last {
		t.Fatalf("decoded %+v: %v", p, err)
	}
	err := (Args{"windw": 4}).Decode("part", &params{Tail: &tail{}})
	if err == nil || !strings.Contains(err.Error(), "windw is not a setting of part (its settings: seed, window, alpha, last, depth)") {
		t.Errorf("misspelt inline key: %v", err)
	}
	if keys := settingKeys(params{}); keys != nil {
		t.Errorf("settingKeys of a struct, not a pointer to one: %v", keys)
	}
}
