//go:build ignore

package codec

// cloneAll is a copy of s with every element copied by clone, for the
// generated Clone methods; nil stays nil.
func cloneAll[S ~[]E, E any](s S, clone func(E) E) S {
	if s == nil {
		return nil
	}
	out := make(S, len(s))
	for i, v := range s {
		out[i] = clone(v)
	}
	return out
}
