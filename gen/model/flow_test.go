package model

import (
	"strings"
	"testing"

	"github.com/pgspec/pgspec/spec"
)

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
