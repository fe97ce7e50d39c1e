package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/internal/corpus"
)

// TestReadmeCommands keeps the README's commands real: every pgspec
// command its code blocks show exists and answers -h, and every make target
// it names is in the Makefile. (What the commands do is tested where they
// are implemented; the speed section's targets run in codec's
// TestReadmeSpeedSection and internal/mutate's tests.)
func TestReadmeCommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	makefile, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```[a-z]*\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	shown := map[string]bool{}
	for _, b := range blocks {
		for _, line := range strings.Split(b[1], "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "pgspec" {
				shown[f[1]] = true
			}
		}
	}
	if len(shown) < 5 {
		t.Fatalf("the README's code blocks show %d pgspec commands", len(shown))
	}
	for name := range shown {
		if _, ok := commands[name]; !ok && name != "help" {
			t.Errorf("the README shows pgspec %s, which is no command", name)
			continue
		}
		var stdout, stderr bytes.Buffer
		if code := run([]string{name, "-h"}, &stdout, &stderr); code != 0 {
			t.Errorf("pgspec %s -h: exit %d\n%s", name, code, stderr.String())
		}
	}
	for _, m := range regexp.MustCompile(`\bmake ([a-z][a-z-]*)`).FindAllStringSubmatch(string(readme), -1) {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(m[1]) + `:`).Match(makefile) {
			t.Errorf("the README names make %s, which the Makefile lacks", m[1])
		}
	}
}

// readmeBlocks are the code blocks of the README's section under heading,
// each as it is between its fences.
func readmeBlocks(t *testing.T, heading string) []string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(corpus.Root(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README has no section %q", heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var blocks []string
	for parts := strings.Split(section, "```"); len(parts) >= 3; parts = parts[2:] {
		_, block, _ := strings.Cut(parts[1], "\n") // after the fence's language
		blocks = append(blocks, block)
	}
	return blocks
}

// readmeSteps are the lines of the first code block under heading in the
// README, comments and blank lines dropped.
func readmeSteps(t *testing.T, heading string) []string {
	t.Helper()
	blocks := readmeBlocks(t, heading)
	if len(blocks) == 0 {
		t.Fatalf("README has no code block under %q", heading)
	}
	var steps []string
	for _, line := range strings.Split(blocks[0], "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line != "" {
			steps = append(steps, line)
		}
	}
	return steps
}
