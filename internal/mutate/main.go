// Command mutate proves that the codec's tests pin every condition the
// generator emits (resolved model → mutated codec → go test verdicts): it
// removes or inverts one gate, pgoutput version, presence condition,
// choice, count, protocol-bounded length, NULL length, layout-by-major or
// major of the resolved model at a time, regenerates the codec from the
// mutated model in a copy of the module, and runs the codec's tests there.
// A mutant no test kills is a condition no test pins. make mutate runs it;
// it is not part of CI (each mutant costs a build of the codec's tests).
//
//	go run ./internal/mutate [-run REGEXP] [-every N] [-from N] [-list]
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/pgspec/pgspec/gen/emit"
	"github.com/pgspec/pgspec/gen/model"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	match := fl.String("run", "", "only the mutants whose description matches this `regexp`")
	every := fl.Int("every", 1, "only every `N`th mutant (a sample)")
	list := fl.Bool("list", false, "list the mutants and stop")
	from := fl.Int("from", 0, "start at mutant `N` (resume a run)")
	timeout := fl.Duration("timeout", 10*time.Minute, "`limit` of one mutant's test run")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() != 0 || *every < 1 {
		fmt.Fprintln(stderr, "mutate: usage: mutate [-run REGEXP] [-every N] [-from N] [-list]")
		return 2
	}
	re, err := regexp.Compile(*match)
	if err != nil {
		fmt.Fprintf(stderr, "mutate: -run: %v\n", err)
		return 2
	}
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintf(stderr, "mutate: %v\n", err)
		return 1
	}
	mod, err := load(root)
	if err != nil {
		fmt.Fprintf(stderr, "mutate: %v\n", err)
		return 1
	}
	var chosen []int
	for i, m := range mutants(mod) {
		if re.MatchString(m.String()) && i%*every == 0 {
			chosen = append(chosen, i)
		}
	}
	if *list {
		all := mutants(mod)
		for _, i := range chosen {
			fmt.Fprintf(stdout, "%4d  %s\n", i, all[i])
		}
		return 0
	}
	work, err := os.MkdirTemp("", "pgspec-mutate-")
	if err != nil {
		fmt.Fprintf(stderr, "mutate: %v\n", err)
		return 1
	}
	defer os.RemoveAll(work)
	if err := copyModule(root, work); err != nil {
		fmt.Fprintf(stderr, "mutate: %v\n", err)
		return 1
	}
	counts := map[string]int{}
	for _, i := range chosen {
		if i < *from {
			continue
		}
		v, err := try(root, work, i, *timeout)
		if err != nil {
			fmt.Fprintf(stderr, "mutate: mutant %d: %v\n", i, err)
			return 1
		}
		fmt.Fprintf(stdout, "%4d  %-8s %s%s\n", i, v.status, v.mutant, v.by)
		counts[v.status]++
	}
	fmt.Fprintf(stdout, "%d mutants: %d killed, %d survived", counts["KILLED"]+counts["SURVIVED"], counts["KILLED"], counts["SURVIVED"])
	if n := counts["UNBUILT"] + counts["INVALID"]; n > 0 {
		fmt.Fprintf(stdout, " (%d more did not build or were refused by the generator)", n)
	}
	fmt.Fprintln(stdout)
	if counts["SURVIVED"] > 0 {
		return 1
	}
	return 0
}

// verdict is what the codec's tests made of one mutant.
type verdict struct {
	mutant Mutant
	// status is KILLED, SURVIVED, UNBUILT (the mutant does not compile) or
	// INVALID (the generator refuses the mutated model).
	status string
	by     string // the tests that failed
}

// try generates mutant i into work's codec and runs the codec's tests.
func try(root, work string, i int, timeout time.Duration) (verdict, error) {
	mod, err := load(root)
	if err != nil {
		return verdict{}, err
	}
	m := mutants(mod)[i]
	m.apply()
	files, err := render(mod)
	if err != nil {
		return verdict{m, "INVALID", " (the generator refuses it: " + firstLine(err.Error()) + ")"}, nil
	}
	codec := filepath.Join(work, "codec")
	if err := emit.Write(codec, files, nil); err != nil {
		return verdict{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-failfast", "./codec/")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return verdict{m, "SURVIVED", ""}, nil
	}
	if bytes.Contains(out, []byte("[build failed]")) || bytes.Contains(out, []byte("[setup failed]")) {
		return verdict{m, "UNBUILT", " (does not compile: " + firstLine(string(out)) + ")"}, nil
	}
	return verdict{m, "KILLED", " (by " + failedTests(out) + ")"}, nil
}

// render generates the codec of a mutated model; a model the generator
// cannot emit (its invariants panic) is an error, not a crash of the run.
func render(mod *model.Model) (files map[string][]byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return emit.Files(mod, emit.Options{Package: "codec"})
}

// failedTests lists the top-level tests that failed.
func failedTests(out []byte) string {
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "--- FAIL: "); ok {
			names = append(names, strings.Fields(name)[0])
		}
	}
	if len(names) == 0 {
		return "a failing test run"
	}
	return strings.Join(names, ", ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// load resolves the committed spec of the module at root, as the generator does.
func load(root string) (*model.Model, error) {
	return emit.Load(os.DirFS(filepath.Join(root, "spec")))
}

// moduleRoot is the directory of the go.mod go run was started under.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside a Go module")
	}
	return filepath.Dir(gomod), nil
}

// copyModule copies the module's tracked files (git ls-files) to dst.
func copyModule(root, dst string) error {
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return err
		}
		path := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
