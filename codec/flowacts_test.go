package codec

import "testing"

// TestFlowActs: flowActs holds the act of each cell's rule, and each act
// agrees with the rest of its rule and with the majors its message decodes
// in. A rule that names no next state leaves its side where it was;
// actStays marks exactly the rules that change nothing (no state, no
// request queued, no request ended, no stream opened or closed, no answer
// to tell apart), require nothing but a change's relation and hold in every
// major the message decodes in: what the fast paths take on one bit;
// actRule exactly those a tracker must look up (fewer majors than the
// message's, an answer's value, a requirement but the negotiation a
// start-up ended, a stream), actFast exactly the others: what the
// generated Next takes in its cases; actNegotiated exactly the rules that
// require that negotiation.
func TestFlowActs(t *testing.T) {
	msgMajors := majorsBySlug()
	stays := 0
	for st := range flowState(len(flowTable)) {
		for k := range flowKind(flowKinds) {
			if flowTable[st][k] == 0 {
				if a := actIn(st, k); a != 0 {
					t.Errorf("%s, %s: no rule, act %#x", flowStateNames[st], flowKindNames[k], a)
				}
				continue
			}
			r := flowRules[flowTable[st][k]-1]
			a := r.act
			if actIn(st, k) != a {
				t.Errorf("%s, %s: actIn is not its rule's act", flowStateNames[st], flowKindNames[k])
			}
			next, peer, push := flowState(a), flowState(a>>actPeer), flowState(a>>actPush)
			ms, isMsg := msgMajors[flowKindNames[k]]
			allMajors := true
			for major := 1; major < 64; major++ {
				if (!isMsg && GeneratedMajors.Has(major) || ms.Has(major)) && !r.majors.Has(major) {
					allMajors = false
				}
			}
			changes := a&(actMoves|actEnd|actDiscard) != 0 || peer != 0 || push != 0 || r.streamed != 0 || r.answer != 0
			wantStays := isMsg && !changes && (r.requires == 0 || r.requires == requiresRelation) && allMajors
			wantRule := r.answer != 0 || r.requires != 0 && r.requires != requiresNegotiated || r.streamed != 0 || !allMajors
			switch {
			case a&actAllowed == 0:
				t.Errorf("%s, %s: act %#x lacks actAllowed", flowStateNames[st], flowKindNames[k], a)
			case a&actMoves == 0 && next != st, int(next) >= len(flowStateNames), int(peer) > len(flowStateNames), int(push) > len(flowStateNames):
				t.Errorf("%s, %s: act %#x names states %d, %d, %d", flowStateNames[st], flowKindNames[k], a, next, peer, push)
			case a&actStays != 0 != wantStays:
				t.Errorf("%s, %s: actStays %v, its rule says %v", flowStateNames[st], flowKindNames[k], !wantStays, wantStays)
			case a&actRule != 0 != wantRule:
				t.Errorf("%s, %s: actRule %v, its rule says %v", flowStateNames[st], flowKindNames[k], !wantRule, wantRule)
			case a&actFast != 0 == wantRule:
				t.Errorf("%s, %s: actFast %v with actRule %v", flowStateNames[st], flowKindNames[k], !wantRule, wantRule)
			case a&actNegotiated != 0 != (r.requires == requiresNegotiated):
				t.Errorf("%s, %s: actNegotiated %v, its rule requires %d", flowStateNames[st], flowKindNames[k], a&actNegotiated != 0, r.requires)
			}
			if wantStays {
				stays++
			}
		}
	}
	// The steady states of the fast paths, and messages that move, queue,
	// end a request or need their rule.
	for _, c := range []struct {
		st   flowState
		k    flowKind
		want flowAct
	}{
		{stBackendQueryRows, kindDataRow, flowAct(stBackendQueryRows) | actAllowed | actStays | actFast},
		{stBackendQueryCopyBoth, kindCopyData, flowAct(stBackendQueryCopyBoth) | actAllowed | actStays | actFast},
		{stReplicationBackendStreaming, kindXLogData, flowAct(stReplicationBackendStreaming) | actAllowed | actStays | actFast},
		{stLogicalTransaction, kindLogicalInsert, flowAct(stLogicalTransaction) | actAllowed | actStays | actRule},
		{stBackendQuery, kindRowDescription, flowAct(stBackendQueryRows) | actAllowed | actMoves | actFast},
		{stBackendQuery, kindReadyForQuery, flowAct(stBackendQuery) | actAllowed | actEnd | actFast},
		{stFrontendSession, kindBind, flowAct(stFrontendSession) | flowAct(stBackendBind+1)<<actPush | actAllowed | actFast},
		{stFrontendStartup, kindStartupMessage, flowAct(stFrontendAuthenticating) | flowAct(stBackendAuthentication+1)<<actPeer | actAllowed | actMoves | actFast},
		{stBackendParameters, kindReadyForQuery, flowAct(stBackendIdle) | actAllowed | actMoves | actFast | actNegotiated},
		{stBackendSslAnswer, kindSSLResponse, flowAct(stBackendEncrypted) | flowAct(stFrontendSslHandshake+1)<<actPeer | actAllowed | actMoves | actRule},
		{stLogicalTransaction, kindLogicalCommit, flowAct(stLogicalBetween) | actAllowed | actMoves | actFast},
		{stLogicalBetween, kindLogicalInsert, 0},
	} {
		if a := actIn(c.st, c.k); a != c.want {
			t.Errorf("%s, %s: act %#x, want %#x", flowStateNames[c.st], flowKindNames[c.k], a, c.want)
		}
	}
	if stays < 20 {
		t.Errorf("only %d kinds stay anywhere", stays)
	}
}

// TestAnswerActs: answerActs gives, for each state's one-byte answer, the
// act lookAct finds in every major the answer has, and holds exactly the
// answers whose rule holds in all of them (the others are looked up).
func TestAnswerActs(t *testing.T) {
	msgMajors := majorsBySlug()
	held := 0
	for st := range flowState(len(flowTable)) {
		k := answerKinds[st]
		for b := range 256 {
			a := answeredAct(st, byte(b))
			everyMajor := k != kindNone
			for major := 1; major < 64 && everyMajor; major++ {
				if msgMajors[flowKindNames[k]].Has(major) {
					got, _ := lookAct(st, k, major, byte(b))
					everyMajor = got != 0 && (a == 0 || got == a)
					if a != 0 && got != a {
						t.Errorf("%s, answer %q: answerActs %#x, its rule in %d %#x", flowStateNames[st], rune(b), a, major, got)
					}
				}
			}
			if everyMajor != (a != 0) {
				t.Errorf("%s, answer %q: in answerActs %v, its rule holds in every major %v", flowStateNames[st], rune(b), a != 0, everyMajor)
			}
			if a != 0 {
				held++
			}
		}
	}
	if held == 0 {
		t.Error("answerActs holds no answer")
	}
}

// majorsBySlug is each message's majors, by its slug (a flow kind's name).
func majorsBySlug() map[string]MajorSet {
	majors := map[string]MajorSet{}
	for _, m := range NewMessages() {
		majors[m.Slug()] = m.Majors()
	}
	return majors
}
