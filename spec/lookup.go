package spec

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

var releaseRE = regexp.MustCompile(`^\d+(\.\d+)+$`)

// Released reports whether the English pages are from a release (18.6),
// not a preview or snapshot (19rc1, 19beta2, 19devel).
func (s *Spec) Released() bool { return releaseRE.MatchString(s.Release) }

// Pick returns the spec of major, or, for major 0, the newest released
// major (the newest of all when none is released): a user who does not ask
// for a release candidate does not get one.
func Pick(specs []*Spec, major int) (*Spec, error) {
	if len(specs) == 0 {
		return nil, fmt.Errorf("no majors in the spec")
	}
	for i := len(specs) - 1; i >= 0; i-- {
		if s := specs[i]; major == s.Major || major == 0 && s.Released() {
			return s, nil
		}
	}
	if major == 0 {
		return specs[len(specs)-1], nil
	}
	return nil, fmt.Errorf("unknown version %d (the spec has %d to %d)", major, specs[0].Major, specs[len(specs)-1].Major)
}

// Resolve finds the slug a user means by name: a slug, or, ignoring case,
// a message's Go type name (goNames maps slug to it) or a name the manual
// printed, when only one message carried it. Otherwise the error suggests
// the nearest slugs.
func Resolve(specs []*Spec, goNames map[string]string, name string) (string, error) {
	names := map[string][]string{} // lower-case name → slugs
	add := func(n, slug string) {
		n = strings.ToLower(n)
		if !slices.Contains(names[n], slug) {
			names[n] = append(names[n], slug)
		}
	}
	for _, s := range specs {
		for _, m := range s.Messages {
			if m.Slug == name {
				return name, nil
			}
			add(m.Slug, m.Slug)
			add(m.Name, m.Slug)
			for _, a := range m.Aliases {
				add(a, m.Slug)
			}
			if g := goNames[m.Slug]; g != "" {
				add(g, m.Slug)
			}
		}
	}
	lower := strings.ToLower(name)
	if slugs := names[lower]; len(slugs) == 1 {
		return slugs[0], nil
	} else if len(slugs) > 1 {
		sort.Strings(slugs)
		return "", fmt.Errorf("%q names several messages: %s", name, strings.Join(slugs, ", "))
	}
	if near := nearest(lower, names); len(near) > 0 {
		return "", fmt.Errorf("unknown message %q (did you mean %s?)", name, strings.Join(near, ", "))
	}
	return "", fmt.Errorf("unknown message %q (see pgspec list)", name)
}

// nearest returns up to three slugs whose names are within a few edits of
// name, or that have it as one of their hyphenated words: the nearest, and
// those one edit further, nearest first.
func nearest(name string, names map[string][]string) []string {
	type cand struct {
		slug string
		dist int
	}
	best := map[string]int{}
	limit := max(2, len(name)/3)
	for n, slugs := range names {
		d := editDistance(name, n)
		if slices.Contains(strings.Split(n, "-"), name) {
			d = min(d, 1)
		}
		if d > limit {
			continue
		}
		for _, s := range slugs {
			if old, ok := best[s]; !ok || d < old {
				best[s] = d
			}
		}
	}
	var cands []cand
	for s, d := range best {
		cands = append(cands, cand{s, d})
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].dist != cands[j].dist {
			return cands[i].dist < cands[j].dist
		}
		return cands[i].slug < cands[j].slug
	})
	var out []string
	for i := 0; i < len(cands) && i < 3 && cands[i].dist <= cands[0].dist+1; i++ {
		out = append(out, cands[i].slug)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
