package codec_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeSpeedSection runs, briefly, what the README's speed section
// shows: every benchmark its table lists (make bench runs each ten times;
// here once), with the CPU and memory profiles make profile takes, read back
// with go tool pprof. A renamed or removed benchmark fails here rather than
// leaving the README a table nobody can reproduce.
func TestReadmeSpeedSection(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the benchmarks once")
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n## Speed")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, cmd := range []string{"make bench", "make profile", "make fuzz", "make mutate"} {
		if !strings.Contains(section, cmd) {
			t.Errorf("the speed section no longer shows %q", cmd)
		}
	}
	rows := regexp.MustCompile("(?m)^\\| `((?:Decode|Encode|LogicalDecode|Stream|PhysicalStream|Sessions)[^`]*)` \\| (pgproto3|pglogrepl) \\|").FindAllStringSubmatch(section, -1)
	if len(rows) < 20 {
		t.Fatalf("the speed table lists %d benchmarks", len(rows))
	}
	dir := t.TempDir()
	bin, cpu, mem := filepath.Join(dir, "codec.test"), filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	out, err := exec.Command("go", "test", "-run", "^$", "-bench", ".", "-benchtime", "1x", "-benchmem",
		"-o", bin, "-cpuprofile", cpu, "-memprofile", mem, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("benchmarks: %v\n%s", err, out)
	}
	for _, r := range rows {
		name := "Benchmark" + r[1]
		for _, impl := range []string{"pgspec", r[2]} {
			if want := name + "/impl=" + impl + "-"; !strings.Contains(string(out), want) {
				t.Errorf("no benchmark %s in the run", strings.TrimSuffix(want, "-"))
			}
		}
	}
	for _, prof := range []string{cpu, mem} {
		top, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount", "5", bin, prof).CombinedOutput()
		if err != nil || !strings.Contains(string(top), "flat") {
			t.Errorf("go tool pprof -top %s: %v\n%s", filepath.Base(prof), err, top)
		}
	}
}
