package model

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/pgspec/pgspec/spec"
)

// Flow is spec/flow.json resolved against the messages: the state machines
// the generated conversation trackers follow.
type Flow struct {
	Machines []*FlowMachine
}

// FlowMachine is what one side sends in one layer.
type FlowMachine struct {
	Name, Layer, Doc string
	Direction        Direction
	// States; the first is the initial one.
	States []*FlowState
	// Peer is the other side of the same layer, nil if none.
	Peer *FlowMachine
}

// FlowState is one state and the messages allowed in it.
type FlowState struct {
	Machine   *FlowMachine
	Name, Doc string
	Source    string
	Streamed  bool
	// List is the key of the page list the state's phase follows, "" if none.
	List  string
	Rules []*FlowRule
	// Index is the state's number among all states of the flow.
	Index int
}

// FlowRule allows one message in a state.
type FlowRule struct {
	// Msg is the message allowed; nil for an Event.
	Msg *Message
	// Event is what the rule allows instead of a message
	// (spec.EventDirectTLS), "" for a message.
	Event string
	// Answer, when not 0, narrows the rule to that value of Msg, a one-byte
	// answer (SSLResponse 'S' or 'N'): the rules of one answer differ by it.
	Answer           byte
	Next, Peer, Push *FlowState
	End, Discard     bool
	Streamed         string
	Requires         string
	// Majors the rule holds in (of the message's, when it has one): in a
	// state that follows a page list, those whose list names the message,
	// unless the rule is Unlisted (decided beyond the page, for its Reason).
	Majors         []int
	Unlisted       bool
	Reason, Source string
}

// ID names the state across machines: "backend query-rows".
func (s *FlowState) ID() string { return s.Machine.Name + " " + s.Name }

// BuildFlow resolves f against mod's messages and page lists: every slug
// names a message of the machine's layer that its side sends, every rule
// holds in some major. In a state that follows a list of protocol-flow.html
// a rule holds where the major's list names its message; one the list
// leaves out must say so (unlisted, with its reason), one marked unlisted
// that the list names contradicts the page, and a message a list names that
// no state of its phase allows is missing. All problems are reported at once.
func BuildFlow(f *spec.Flow, mod *Model) (*Flow, error) {
	bySlug := map[string]*Message{}
	for _, m := range mod.Messages {
		bySlug[m.Slug] = m
	}
	var p []string
	out := &Flow{}
	machines := map[*spec.FlowMachine]*FlowMachine{}
	states := map[*spec.FlowState]*FlowState{}
	n := 0
	for _, sm := range f.Machines {
		fm := &FlowMachine{Name: sm.Name, Layer: sm.Layer, Doc: sm.Doc, Direction: FromFrontend}
		if sm.Direction == "B" {
			fm.Direction = FromBackend
		}
		for _, ss := range sm.States {
			st := &FlowState{Machine: fm, Name: ss.Name, Doc: ss.Doc, Source: ss.Source, Streamed: ss.Streamed, List: ss.List, Index: n}
			if ss.List != "" && mod.FlowLists[ss.List] == nil {
				p = append(p, fmt.Sprintf("%s: follows list %s, which no major's page has", st.ID(), ss.List))
			}
			n++
			fm.States = append(fm.States, st)
			states[ss] = st
		}
		machines[sm] = fm
		out.Machines = append(out.Machines, fm)
	}
	for _, sm := range f.Machines {
		fm := machines[sm]
		peer := f.Peer(sm)
		if peer != nil {
			fm.Peer = machines[peer]
		}
		for _, ss := range sm.States {
			st := states[ss]
			for _, r := range f.Rules(ss) {
				fr := &FlowRule{End: r.End, Discard: r.Discard, Streamed: r.Streamed, Requires: r.Requires, Unlisted: r.Unlisted, Reason: r.Reason, Source: r.Source}
				lo, hi := r.MajorRange()
				where := st.ID() + " " + r.What()
				msg := bySlug[r.Message]
				switch {
				case r.Event != "":
					// direct TLS: where the major's page says the server
					// recognises it (the only event)
					fr.Event = r.Event
					fr.Majors = filter(sortedKeys(mod.DirectTLS), func(m int) bool { return m >= lo && m <= hi })
					if len(fr.Majors) == 0 {
						p = append(p, where+": no major's protocol-flow.html says the server recognises it")
						continue
					}
					if fm.Direction != FromFrontend {
						p = append(p, where+": the frontend begins TLS: a frontend rule only")
						continue
					}
					fr.Next, fr.Peer = states[f.State(sm, r.Next)], states[f.State(peer, r.Peer)]
					st.Rules = append(st.Rules, fr)
					continue
				case msg == nil:
					p = append(p, where+": no such message")
					continue
				case msg.Layer != sm.Layer || msg.Direction != 0 && msg.Direction&fm.Direction == 0:
					p = append(p, fmt.Sprintf("%s: a %s message of direction %s, not one the %s machine's side sends", where, msg.Layer, msg.Direction, fm.Name))
					continue
				case r.Answer != "" && !isAnswer(msg, r.Answer[0]):
					p = append(p, fmt.Sprintf("%s: answer %q is not a value of %s, a one-byte answer", where, r.Answer, msg.GoName))
					continue
				}
				fr.Msg = msg
				if r.Answer != "" {
					fr.Answer = r.Answer[0]
				}
				fr.Majors = filter(msg.Majors, func(m int) bool { return m >= lo && m <= hi })
				if st.List != "" {
					listed := filter(fr.Majors, func(mj int) bool { return listNames(mod.FlowLists[st.List][mj], fr.Msg.Slug) })
					switch {
					case r.Unlisted && len(listed) > 0:
						p = append(p, fmt.Sprintf("%s: unlisted, but %s lists it in %s: the page decides there (drop unlisted or narrow majors)", where, st.List, majorList(listed)))
					case !r.Unlisted && len(listed) == 0 && len(fr.Majors) > 0:
						p = append(p, fmt.Sprintf("%s: %s names it in no major: mark it unlisted with the reason the prose leaves it open, or remove it", where, st.List))
						continue
					case !r.Unlisted:
						fr.Majors = listed
					}
				}
				if len(fr.Majors) == 0 {
					p = append(p, where+": holds in no major of the spec")
				}
				if r.Next != "" {
					fr.Next = states[f.State(sm, r.Next)]
				}
				if r.Peer != "" {
					fr.Peer = states[f.State(peer, r.Peer)]
				}
				if r.Push != "" {
					fr.Push = states[f.State(peer, r.Push)]
				}
				st.Rules = append(st.Rules, fr)
			}
		}
	}
	p = append(p, out.unallowed(mod.FlowLists)...)
	if len(p) > 0 {
		return nil, fmt.Errorf("%s: %d problem(s):\n  %s", spec.FlowFile, len(p), strings.Join(p, "\n  "))
	}
	return out, nil
}

// Load reads a spec directory (every pgNN.json, the overlay, the flow
// rules when it has them) and resolves its model, returning the specs it
// was built from.
func Load(specDir fs.FS) (*Model, []*spec.Spec, error) {
	specs, err := spec.LoadAll(specDir)
	if err != nil {
		return nil, nil, err
	}
	ov, err := spec.LoadOverlay(specDir)
	if err != nil {
		return nil, nil, err
	}
	mod, err := Build(specs, ov)
	if err != nil {
		return nil, nil, err
	}
	if err := mod.LoadFlow(specDir); err != nil {
		return nil, nil, err
	}
	return mod, specs, nil
}

// LoadFlow resolves the flow rules of specDir (spec/flow.json) into
// m.Flow; a spec directory without them leaves m.Flow nil.
func (m *Model) LoadFlow(specDir fs.FS) error {
	flow, err := spec.LoadFlow(specDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	}
	m.Flow, err = BuildFlow(flow, m)
	return err
}

// isAnswer reports whether m is a one-byte answer that b is a value of.
func isAnswer(m *Message, b byte) bool {
	if m.AnswerTo == "" {
		return false
	}
	it := m.Layouts[0].Items[0]
	return it.Choice != nil && slices.Contains(it.Choice.Tags, b)
}

// listNames says whether l names the message slug.
func listNames(l *spec.FlowList, slug string) bool {
	return l != nil && slices.ContainsFunc(l.Items, func(it spec.FlowItem) bool { return it.Slug == slug })
}

// unallowed names each message a page list gives in a major that no state
// following the list allows in that major.
func (f *Flow) unallowed(lists map[string]map[int]*spec.FlowList) []string {
	allowed := map[string]map[string][]int{} // list key → slug → majors
	for _, st := range f.States() {
		if st.List == "" {
			continue
		}
		if allowed[st.List] == nil {
			allowed[st.List] = map[string][]int{}
		}
		for _, r := range st.Rules {
			if r.Msg != nil {
				allowed[st.List][r.Msg.Slug] = append(allowed[st.List][r.Msg.Slug], r.Majors...)
			}
		}
	}
	var p []string
	for _, key := range sortedKeys(allowed) {
		for _, mj := range sortedKeys(lists[key]) {
			for _, it := range lists[key][mj].Items {
				if !slices.Contains(allowed[key][it.Slug], mj) {
					p = append(p, fmt.Sprintf("%s lists %s in %d, but no state following it allows it there", key, it.Slug, mj))
				}
			}
		}
	}
	return p
}

// States lists every state of the flow, by Index.
func (f *Flow) States() []*FlowState {
	var out []*FlowState
	for _, m := range f.Machines {
		out = append(out, m.States...)
	}
	return out
}

// selectFlow keeps the machines of the layers sel keeps whole (every
// message of the layer in the selected majors is generated: the trackers
// use them all), their rules narrowed to the selected majors.
func (f *Flow) selectFlow(full, out *Model) *Flow {
	if f == nil {
		return nil
	}
	kept := map[string]bool{}
	for _, m := range out.Messages {
		kept[m.Slug] = true
	}
	whole := func(layer string) bool {
		n := 0
		for _, m := range full.Messages {
			if m.Layer == layer && slices.ContainsFunc(m.Majors, func(mj int) bool { return slices.Contains(out.Majors, mj) }) {
				if !kept[m.Slug] {
					return false
				}
				n++
			}
		}
		return n > 0
	}
	bySlug := map[string]*Message{}
	for _, m := range out.Messages {
		bySlug[m.Slug] = m
	}
	in := func(mj int) bool { return slices.Contains(out.Majors, mj) }
	res := &Flow{}
	machines := map[*FlowMachine]*FlowMachine{}
	states := map[*FlowState]*FlowState{}
	n := 0
	for _, fm := range f.Machines {
		if !whole(fm.Layer) {
			continue
		}
		c := &FlowMachine{Name: fm.Name, Layer: fm.Layer, Doc: fm.Doc, Direction: fm.Direction}
		for _, st := range fm.States {
			cs := *st
			cs.Machine, cs.Index, cs.Rules = c, n, nil
			n++
			c.States = append(c.States, &cs)
			states[st] = &cs
		}
		machines[fm] = c
		res.Machines = append(res.Machines, c)
	}
	for _, fm := range f.Machines {
		c := machines[fm]
		if c == nil {
			continue
		}
		c.Peer = machines[fm.Peer]
		for _, st := range fm.States {
			for _, r := range st.Rules {
				cr := *r
				if cr.Majors = filter(r.Majors, in); len(cr.Majors) == 0 {
					continue
				}
				if r.Msg != nil {
					cr.Msg = bySlug[r.Msg.Slug]
				}
				cr.Next, cr.Peer, cr.Push = states[r.Next], states[r.Peer], states[r.Push]
				if r.Peer != nil && cr.Peer == nil || r.Push != nil && cr.Push == nil {
					continue // the other side's layer is not generated
				}
				states[st].Rules = append(states[st].Rules, &cr)
			}
		}
	}
	return res
}
