// Package registry is the one way wb names its extension points: scheduler
// parts, sharing policies, profiler backends, the model zoo, the device
// table, experiment kinds, cluster presets and the learned correction's
// model families each keep a Registry of what
// can be chosen by name, so that a new part is one
// Register call, a name taken twice is an error at registration, and an
// unknown name is answered with the names there are.
package registry

import (
	"fmt"
	"slices"
	"strings"
)

// Registry maps names to values of one kind (constructors, factories,
// entries), remembering the order they were registered in.
type Registry[V any] struct {
	kind  string
	names []string
	m     map[string]V
}

// New returns an empty registry of things of the given kind ("placement",
// "backend"), the word its errors use.
func New[V any](kind string) *Registry[V] {
	return &Registry[V]{kind: kind, m: map[string]V{}}
}

// Kind is the word the registry's errors use for what it holds.
func (r *Registry[V]) Kind() string { return r.kind }

// Register adds v under name. An empty name, or one already taken, is an
// error.
func (r *Registry[V]) Register(name string, v V) error {
	if name == "" {
		return fmt.Errorf("%s with no name", r.kind)
	}
	if _, dup := r.m[name]; dup {
		return fmt.Errorf("%s %q registered twice", r.kind, name)
	}
	r.m[name] = v
	r.names = append(r.names, name)
	return nil
}

// MustRegister is Register for tables built in code, where a mistake is
// the programmer's: it panics on an error.
func (r *Registry[V]) MustRegister(name string, v V) {
	if err := r.Register(name, v); err != nil {
		panic(err)
	}
}

// Get returns what name is registered to, if anything.
func (r *Registry[V]) Get(name string) (V, bool) {
	v, ok := r.m[name]
	return v, ok
}

// Lookup returns what name is registered to, or an error that lists the
// names there are.
func (r *Registry[V]) Lookup(name string) (V, error) {
	v, ok := r.m[name]
	if !ok {
		return v, fmt.Errorf("unknown %s %q (known: %s)", r.kind, name, strings.Join(r.Names(), ", "))
	}
	return v, nil
}

// Names lists the names, sorted.
func (r *Registry[V]) Names() []string {
	s := slices.Clone(r.names)
	slices.Sort(s)
	return s
}

// Ordered lists the names in the order they were registered.
func (r *Registry[V]) Ordered() []string { return slices.Clone(r.names) }

// Len is the number of names.
func (r *Registry[V]) Len() int { return len(r.names) }

// Distance is the Levenshtein distance between a and b, in bytes: the
// edits a typo of one name for another takes (a command, a config key).
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// Closest is the name of names a typo of name most likely meant: the
// nearest by Distance, compared in lower case with '_' read as '-', where
// it is at most 2 edits away, and at most a third of name's bytes in a
// name of 5 or more ("lifo" is not taken for "fifo"); "" where none is (or
// two are equally near).
func Closest(name string, names []string) string {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "_", "-") }
	n := norm(name)
	best, bestD, tie := "", 3, false
	for _, c := range names {
		if c == name {
			return ""
		}
		d := Distance(n, norm(c))
		switch {
		case d < bestD:
			best, bestD, tie = c, d, false
		case d == bestD:
			tie = true
		}
	}
	if tie || best == "" || len(name) < 5 || 3*bestD > len(name) {
		return ""
	}
	return best
}
