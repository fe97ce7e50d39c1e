package emit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/gen/model"
	"github.com/pgspec/pgspec/spec"
)

// TestFlowRuleComments: in the generated flowRules each rule's comment is
// the line right above it and names its own state and message (a comment
// rendered after the rule's comma belongs, for gofmt and godoc, to the
// rule below).
func TestFlowRuleComments(t *testing.T) {
	mod, err := Load(os.DirFS("../../spec"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := Files(mod, Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := files["flowtables_gen.go"]
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "flowtables_gen.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, st := range mod.Flow.States() {
		for _, r := range st.Rules {
			what := r.Event
			if r.Msg != nil {
				what = r.Msg.GoName
			}
			want = append(want, st.ID()+", "+what)
		}
	}
	var elts []ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && vs.Names[0].Name == "flowRules" {
			elts = vs.Values[0].(*ast.CompositeLit).Elts
		}
		return elts == nil
	})
	if len(elts) != len(want) || len(want) == 0 {
		t.Fatalf("flowRules has %d rules, the model %d", len(elts), len(want))
	}
	lines := strings.Split(string(src), "\n")
	for i, e := range elts {
		line := fset.Position(e.Pos()).Line
		above := strings.TrimSpace(lines[line-2])
		if !strings.HasPrefix(above, "// "+want[i]+" ") && !strings.HasPrefix(above, "// "+want[i]+":") {
			t.Errorf("rule %d (%s) at line %d: the line above is %q", i, want[i], line, above)
		}
		tail := strings.TrimSpace(lines[line-1][fset.Position(e.End()).Column-1:])
		if tail != "," && (tail != "}" || i != len(elts)-1) {
			t.Errorf("rule %d (%s): %q follows it on its line", i, want[i], tail)
		}
	}
}

// TestAnswersTakeNoHook: the backend tracker applies a one-byte answer's
// act without a hook, so the generator refuses a runtime hook on an
// answer. (That an answer queues no request spec/flow.go checks: only a
// frontend rule pushes.)
func TestAnswersTakeNoHook(t *testing.T) {
	mod, err := Load(os.DirFS("../../spec"))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := codecRuntime(runtimeFeatures(mod), mod.Flow, len(mod.Commands) > 0)
	if err != nil {
		t.Fatal(err)
	}
	hooks, err := runtimeHooks(rt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := trackersFile(mod, Options{}, hooks); err != nil {
		t.Fatalf("the spec's flow: %v", err)
	}
	withHook := maps.Clone(hooks)
	withHook["BackendTracker."+hookPrefix+"SSLResponse"] = false
	if _, err := trackersFile(mod, Options{}, withHook); err == nil || !strings.Contains(err.Error(), "hooks a one-byte answer") {
		t.Errorf("a hook on SSLResponse: %v", err)
	}
}

// TestTagConstants: flowtables_gen.go declares the tag<Message> constants
// the runtime's fast paths use, and no other: the stream fast paths' in
// the full codec, pgoutput's alone in a codec of the logical layer.
func TestTagConstants(t *testing.T) {
	full, err := Load(os.DirFS("../../spec"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sel  model.Selection
		want []string
	}{
		{model.Selection{}, []string{"tagBackupData", "tagLogicalDelete", "tagLogicalInsert", "tagLogicalUpdate", "tagXLogData"}},
		{model.Selection{Layers: []string{spec.LayerLogicalReplication}}, []string{"tagLogicalDelete", "tagLogicalInsert", "tagLogicalUpdate"}},
	} {
		mod, files := selected(t, full, c.sel)
		f, err := parser.ParseFile(token.NewFileSet(), "flowtables_gen.go", files["flowtables_gen.go"], 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, s := range g.Specs {
					if n := s.(*ast.ValueSpec).Names[0].Name; strings.HasPrefix(n, "tag") {
						got = append(got, n)
					}
				}
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%d messages: tag constants %v, want %v", len(mod.Messages), got, c.want)
		}
	}
}
