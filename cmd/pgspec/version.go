package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

func init() {
	commands["version"] = command{summary: "print pgspec's module version and the VCS revision it was built from", run: runVersion}
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	c := newCLI("version", stdout, stderr)
	if _, code, done := c.parse(args, 0, 0); done {
		return code
	}
	fmt.Fprintln(stdout, versionLine())
	return 0
}

// version is the module version of this pgspec, as the build recorded it.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(unknown version)"
}

// versionLine names the module version and the VCS revision, its time and
// whether the tree had changes, when the build recorded them (go build and
// go install in a git clone do; go run, tests and git worktrees do not).
func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "pgspec " + version() + ", no build information"
	}
	return describeBuild(bi)
}

// describeBuild is versionLine of a build's information.
func describeBuild(bi *debug.BuildInfo) string {
	line := "pgspec " + bi.Main.Version
	if bi.Main.Version == "" {
		line = "pgspec (unknown version)"
	}
	vcs := map[string]string{}
	for _, s := range bi.Settings {
		vcs[s.Key] = s.Value
	}
	if vcs["vcs.revision"] == "" {
		return line + ", no VCS revision recorded"
	}
	line += ", " + vcs["vcs"] + " revision " + vcs["vcs.revision"]
	if t := vcs["vcs.time"]; t != "" {
		line += " (" + t + ")"
	}
	if vcs["vcs.modified"] == "true" {
		line += ", with uncommitted changes"
	}
	return line
}
