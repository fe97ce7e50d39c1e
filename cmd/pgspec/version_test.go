package main

import (
	"runtime/debug"
	"testing"
)

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"-version"}, {"--version"}} {
		code, out, stderr := pgspec(t, args...)
		if want := versionLine() + "\n"; code != 0 || out != want || stderr != "" {
			t.Errorf("%v: exit %d, %q, %q; want %q", args, code, out, stderr, want)
		}
	}
	if code, _, stderr := pgspec(t, "version", "extra"); code != 2 || stderr == "" {
		t.Errorf("version extra: exit %d, %q", code, stderr)
	}
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0a2cc3a81a4325393d2a9623869074b0eeb65b3c"},
		{Key: "vcs.time", Value: "2026-12-01T10:17:40Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := describeBuild(bi), "pgspec v0.3.0, git revision 0a2cc3a81a4325393d2a9623869074b0eeb65b3c (2026-12-01T10:17:40Z), with uncommitted changes"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := describeBuild(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}); got != "pgspec (devel), no VCS revision recorded" {
		t.Errorf("a build without VCS information: %q", got)
	}
}
