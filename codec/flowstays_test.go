package codec

import "testing"

// TestFlowStays: flowStays marks exactly the kinds whose rule in a state
// changes nothing (no state, no request queued, no stream opened or closed,
// no answer to tell apart), requires nothing but a change's relation, and
// holds in every major the message decodes in: what the fast paths take on
// one bit, without a rule lookup or a major check.
func TestFlowStays(t *testing.T) {
	msgMajors := map[string]MajorSet{}
	for _, m := range NewMessages() {
		msgMajors[m.Slug()] = m.Majors()
	}
	set := 0
	for st := range flowState(len(flowTable)) {
		for k := range flowKind(255) {
			want := false
			if i := int(k); i < flowKinds && flowTable[st][k] != 0 {
				r := flowRules[flowTable[st][k]-1]
				ms, ok := msgMajors[flowKindNames[k]]
				want = ok && !r.moves && r.push == 0 && r.streamed == 0 && r.answer == 0 &&
					(r.requires == 0 || r.requires == requiresRelation)
				for major := 1; major < 64; major++ {
					if ms.Has(major) && !r.majors.Has(major) {
						want = false
					}
				}
			}
			if got := flowStays[st].has(k); got != want {
				t.Errorf("%s, %s: flowStays has it %v, its rule says %v", flowStateNames[st], flowKindNames[k%flowKinds], got, want)
			}
			if want {
				set++
			}
		}
	}
	// The steady states of the fast paths, and a message that moves.
	for _, c := range []struct {
		st   flowState
		k    flowKind
		want bool
	}{
		{stBackendQueryRows, kindDataRow, true},
		{stBackendQueryCopyBoth, kindCopyData, true},
		{stReplicationBackendStreaming, kindXLogData, true},
		{stLogicalTransaction, kindLogicalInsert, true},
		{stBackendQuery, kindRowDescription, false},
		{stLogicalTransaction, kindLogicalCommit, false},
		{stLogicalBetween, kindLogicalInsert, false},
	} {
		if flowStays[c.st].has(c.k) != c.want {
			t.Errorf("%s, %s: flowStays has it %v", flowStateNames[c.st], flowKindNames[c.k], !c.want)
		}
	}
	if set < 20 {
		t.Errorf("only %d kinds stay anywhere", set)
	}
}
