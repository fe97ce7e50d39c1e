package model

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pgspec/pgspec/spec"
)

// committedFlow builds the committed flow rules over the committed spec.
func committedFlow(t *testing.T, specs []*spec.Spec, ov *spec.Overlay) (*Flow, error) {
	t.Helper()
	mod, err := Build(specs, ov)
	if err != nil {
		t.Fatal(err)
	}
	f, err := spec.LoadFlow(os.DirFS("../../spec"))
	if err != nil {
		t.Fatal(err)
	}
	return BuildFlow(f, mod)
}

func TestCommittedFlowBuilds(t *testing.T) {
	specs, ov := loadCommitted(t)
	if _, err := committedFlow(t, specs, ov); err != nil {
		t.Fatal(err)
	}
}

// Every major's protocol-flow.html gives the same four lists, the ones of
// 10–15 (whose sections have made-up ids) under the ids 16 gives them.
func TestFlowListsOfEveryMajor(t *testing.T) {
	specs, ov := loadCommitted(t)
	mod, err := Build(specs, ov)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"protocol-flow.html#PROTOCOL-FLOW-FUNCTION-CALL/1",
		"protocol-flow.html#PROTOCOL-FLOW-SIMPLE-QUERY/1",
		"protocol-flow.html#PROTOCOL-FLOW-START-UP/1",
		"protocol-flow.html#PROTOCOL-FLOW-START-UP/2",
	}
	if got := sortedKeys(mod.FlowLists); !slices.Equal(got, want) {
		t.Fatalf("lists %v", got)
	}
	for _, key := range want {
		if got := sortedKeys(mod.FlowLists[key]); !slices.Equal(got, mod.Majors) {
			t.Errorf("%s in %v", key, got)
		}
	}
	// AuthenticationSCMCredential leaves the list of authentication in 16.
	l := mod.FlowLists[want[2]]
	if !listNames(l[15], "authentication-scm-credential") || listNames(l[16], "authentication-scm-credential") {
		t.Error("authentication-scm-credential: want it listed in 15, not in 16")
	}
}

// A reviewed rule that contradicts the page is flagged: one marked
// unlisted that the list names, one the list never names that does not say
// so, and a message a list names that no state of its phase allows; so is a
// rule whose message the page's list drops in every major.
func TestFlowContradictingThePageIsFlagged(t *testing.T) {
	specs, ov := loadCommitted(t)
	mod, err := Build(specs, ov)
	if err != nil {
		t.Fatal(err)
	}
	rule := func(f *spec.Flow, machine, state, slug string) *spec.FlowRule {
		for _, m := range f.Machines {
			if m.Name != machine {
				continue
			}
			for _, st := range m.States {
				if st.Name != state {
					continue
				}
				for _, r := range st.Rules {
					if r.Message == slug {
						return r
					}
				}
			}
		}
		t.Fatalf("no rule %s %s %s", machine, state, slug)
		return nil
	}
	for _, c := range []struct {
		name string
		edit func(f *spec.Flow, lists map[string]map[int]*spec.FlowList)
		want []string
	}{
		{"unlisted, but listed", func(f *spec.Flow, _ map[string]map[int]*spec.FlowList) {
			rule(f, "backend", "query-rows", "data-row").Unlisted = true
		}, []string{fmt.Sprintf("backend query-rows data-row: unlisted, but protocol-flow.html#PROTOCOL-FLOW-SIMPLE-QUERY/1 lists it in %d–%d", mod.Majors[0], mod.Newest())}},
		{"not listed, not unlisted", func(f *spec.Flow, _ map[string]map[int]*spec.FlowList) {
			rule(f, "backend", "query", "copy-both-response").Unlisted = false
		}, []string{"backend query copy-both-response: protocol-flow.html#PROTOCOL-FLOW-SIMPLE-QUERY/1 names it in no major: mark it unlisted"}},
		{"listed, allowed nowhere", func(f *spec.Flow, _ map[string]map[int]*spec.FlowList) {
			st := f.State(f.Machines[1], "function-call")
			st.Rules = slices.DeleteFunc(st.Rules, func(r *spec.FlowRule) bool { return r.Message == "function-call-response" })
		}, []string{
			fmt.Sprintf("protocol-flow.html#PROTOCOL-FLOW-FUNCTION-CALL/1 lists function-call-response in %d, but no state following it allows it there", mod.Majors[0]),
			fmt.Sprintf("protocol-flow.html#PROTOCOL-FLOW-FUNCTION-CALL/1 lists function-call-response in %d, but no state following it allows it there", mod.Newest()),
		}},
		{"the page drops it", func(_ *spec.Flow, lists map[string]map[int]*spec.FlowList) {
			for mj, l := range lists["protocol-flow.html#PROTOCOL-FLOW-SIMPLE-QUERY/1"] {
				c := *l
				c.Items = slices.DeleteFunc(slices.Clone(l.Items), func(it spec.FlowItem) bool { return it.Slug == "data-row" })
				lists["protocol-flow.html#PROTOCOL-FLOW-SIMPLE-QUERY/1"][mj] = &c
			}
		}, []string{"backend query-rows data-row: protocol-flow.html#PROTOCOL-FLOW-SIMPLE-QUERY/1 names it in no major"}},
	} {
		f, err := spec.LoadFlow(os.DirFS("../../spec"))
		if err != nil {
			t.Fatal(err)
		}
		m := *mod
		m.FlowLists = map[string]map[int]*spec.FlowList{}
		for k, v := range mod.FlowLists {
			m.FlowLists[k] = maps.Clone(v)
		}
		c.edit(f, m.FlowLists)
		_, err = BuildFlow(f, &m)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: got %v\nwant %q", c.name, err, w)
			}
		}
	}
}

// TestFlowProblems: what only the model can check is reported, all at
// once, naming the state and the rule: a slug that is no message, one the
// machine's side does not send, an answer that is no value of the message
// (or of a message that is no one-byte answer).
func TestFlowProblems(t *testing.T) {
	specs, ov := loadCommitted(t)
	m, err := Build(specs, ov)
	if err != nil {
		t.Fatal(err)
	}
	f, err := spec.ParseFlow([]byte(`{"machines": [
	  {"name": "backend", "layer": "frontend-backend", "direction": "B", "doc": "d", "states": [
	    {"name": "a", "doc": "d", "rules": [
	      {"message": "no-such", "reason": "r"},
	      {"message": "query", "reason": "r"},
	      {"message": "ssl-response", "answer": "G", "reason": "r"},
	      {"message": "gssenc-response", "answer": "N", "reason": "r"},
	      {"message": "ready-for-query", "answer": "I", "reason": "r"}
	    ]}]}
	], "rulesets": []}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = BuildFlow(f, m)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"backend a no-such: no such message",
		"backend a query: a frontend-backend message of direction F, not one the backend machine's side sends",
		`backend a ssl-response 'G': answer "G" is not a value of SSLResponse, a one-byte answer`,
		`backend a ready-for-query 'I': answer "I" is not a value of ReadyForQuery, a one-byte answer`,
		"4 problem(s)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in\n%v", want, err)
		}
	}
}
