package readcheck

import "testing"

func TestAboutLine(t *testing.T) {
	for rest, want := range map[string]bool{
		":12: field 3: bad": true, ":1:": true, ": no rows": false, "::": false, ":12 x": false, "": false, "x:1:": false,
	} {
		if got := aboutLine(rest); got != want {
			t.Errorf("aboutLine(%q) = %v, want %v", rest, got, want)
		}
	}
}
