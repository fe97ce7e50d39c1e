package spec

import (
	"os"
	"strings"
	"testing"
)

// TestFlowLoads: the committed flow rules pass every check.
func TestFlowLoads(t *testing.T) {
	f, err := LoadFlow(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Machines) != 5 {
		t.Errorf("%d machines", len(f.Machines))
	}
}

// TestFlowProblems: each kind of mistake is reported, all at once, naming
// the state and the message.
func TestFlowProblems(t *testing.T) {
	src := `{"machines": [
	  {"name": "frontend", "layer": "frontend-backend", "direction": "F", "doc": "d", "states": [
	    {"name": "a", "doc": "d", "rules": [
	      {"message": "query", "push": "nowhere", "reason": "r"},
	      {"message": "sync"},
	      {"message": "bind", "next": "b", "reason": "r"},
	      {"message": "bind", "reason": "r"},
	      {"include": "missing"},
	      {"message": "parse", "end": true, "reason": "r"},
	      {"event": "direct-tls", "message": "flush", "reason": "r"},
	      {"event": "tls", "reason": "r"}
	    ]}]},
	  {"name": "backend", "layer": "frontend-backend", "direction": "B", "doc": "d", "states": [
	    {"name": "a", "doc": "d", "list": "protocol-flow.html#START-UP", "rules": [
	      {"message": "ssl-response", "answer": "SN", "reason": "r", "streamed": "maybe"},
	      {"message": "ssl-response", "push": "a", "reason": "r"},
	      {"answer": "N", "reason": "r"}
	    ]}]}
	], "rulesets": []}`
	_, err := ParseFlow([]byte(src))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`frontend a query: push "nowhere"`,
		`frontend a sync: no reason`,
		`frontend a bind: next state "b" is not a state of frontend`,
		`frontend a: bind allowed twice`,
		`frontend a: includes unknown ruleset "missing"`,
		`frontend a parse: end and discard complete frontend requests: backend rules only`,
		`backend a ssl-response 'SN': answer "SN" is not one byte`,
		`backend a ssl-response 'SN': streamed "maybe"`,
		`backend a: ssl-response has a rule for any answer beside one for answer "SN"`,
		`backend a ssl-response: push "a": only a frontend rule pushes`,
		`backend a  'N': no message`,
		`backend a: list "protocol-flow.html#START-UP", want page.html#SECTION/n`,
		`frontend a direct-tls: a message and an event: one or the other`,
		`frontend a tls: event "tls", want direct-tls`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in\n%v", want, err)
		}
	}
}
