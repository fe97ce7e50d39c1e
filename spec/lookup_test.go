package spec

import (
	"strings"
	"testing"
)

func msgs(slugNames ...string) []Message {
	var out []Message
	for i := 0; i < len(slugNames); i += 2 {
		out = append(out, Message{Slug: slugNames[i], Name: slugNames[i+1]})
	}
	return out
}

func TestResolve(t *testing.T) {
	specs := []*Spec{
		{Major: 14, Messages: msgs("bind", "Bind", "logical-update", "Update", "logical-delete", "Delete", "replication-update", "Update")},
		{Major: 15, Messages: msgs("logical-begin", "Begin", "authentication-ok", "AuthenticationOk")},
	}
	goNames := map[string]string{"logical-update": "LogicalUpdate", "bind": "Bind", "logical-begin": "LogicalBegin"}
	for _, c := range []struct{ in, slug, err string }{
		{"bind", "bind", ""},
		{"Bind", "bind", ""},
		{"LogicalUpdate", "logical-update", ""},
		{"logicalupdate", "logical-update", ""},
		{"Begin", "logical-begin", ""},
		{"authenticationok", "authentication-ok", ""},
		{"Update", "", `"Update" names several messages: logical-update, replication-update`},
		{"logical-updte", "", `unknown message "logical-updte" (did you mean logical-update?)`},
		{"delete", "logical-delete", ""},
		{"logical-upd", "", `(did you mean logical-update?)`},
		{"xyzzy-frobnicate", "", `unknown message "xyzzy-frobnicate" (see pgspec list)`},
	} {
		slug, err := Resolve(specs, goNames, c.in)
		if slug != c.slug || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("Resolve(%q) = %q, %v; want %q, %q", c.in, slug, err, c.slug, c.err)
		}
	}
}

func TestPickPrefersReleases(t *testing.T) {
	specs := []*Spec{{Major: 17, Release: "17.12"}, {Major: 18, Release: "18.6"}, {Major: 19, Release: "19rc1"}}
	for _, c := range []struct{ major, want int }{{0, 18}, {19, 19}, {17, 17}} {
		if s, err := Pick(specs, c.major); err != nil || s.Major != c.want {
			t.Errorf("Pick(%d) = %v, %v; want %d", c.major, s, err, c.want)
		}
	}
	if _, err := Pick(specs, 9); err == nil || err.Error() != "unknown version 9 (the spec has 17 to 19)" {
		t.Errorf("Pick(9): %v", err)
	}
	if s, _ := Pick(specs[2:], 0); s.Major != 19 {
		t.Errorf("only a release candidate: got %d", s.Major)
	}
	for label, want := range map[string]bool{"18.6": true, "10.1": true, "19rc1": false, "19beta2": false, "19devel": false, "": false} {
		if got := (&Spec{Release: label}).Released(); got != want {
			t.Errorf("Released(%q) = %v", label, got)
		}
	}
}
