package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pgspec/pgspec/codec"
)

// Format is how decoded messages are printed.
type Format struct {
	// JSON selects JSON lines instead of text (schema in README.md).
	JSON bool
	// Quiet prints no message lines, only the totals.
	Quiet bool
	// ShowSecrets prints passwords, SASL and GSSAPI data and cancel keys,
	// which are otherwise replaced by their length.
	ShowSecrets bool
	// MaxValue bounds the bytes of one value a line shows, and a repeated
	// field is cut at 64 elements; 0 means DefaultMaxValue, a negative
	// value cuts nothing, so that every JSON line reads back (codec/traceline).
	MaxValue int
}

// Direction says who sent a message.
type Direction int

const (
	// Frontend messages travel from the client to the server.
	Frontend Direction = iota
	// Backend messages travel from the server to the client.
	Backend
)

func (d Direction) String() string {
	if d == Frontend {
		return "F"
	}
	return "B"
}

// name is the direction in log lines and the summary.
func (d Direction) name() string {
	if d == Frontend {
		return "frontend"
	}
	return "backend"
}

// Counts is the summary of one direction.
type Counts struct {
	// Decoded wire messages, every layer inside them decoded too.
	Decoded int64
	// Identical: re-encoded to exactly the bytes received.
	Identical int64
	// Mismatched: decoded, but the re-encoding differs.
	Mismatched int64
	// Undecodable: a layer failed to decode (or the bytes could not be framed).
	Undecodable int64
	// Violations: decoded, but the protocol's flow does not allow the
	// message where it came (a *codec.FlowError).
	Violations int64
	// Layers counts decoded messages per layer, including those inside CopyData.
	Layers map[string]int64
	// Messages counts decoded messages per slug.
	Messages map[string]int64
}

// analyzer is what the proxy and the capture decoder share: how lines are
// printed, where warnings go, and the totals. Counting takes no lock.
type analyzer struct {
	format Format
	log    io.Writer
	logMu  sync.Mutex // one warning at a time
	stats  [2]counters
}

type counters struct {
	decoded, identical, mismatched, undecodable, violations atomic.Int64
	layers, messages                                        sync.Map // name → *atomic.Int64
}

func (a *analyzer) init(f Format, log io.Writer) {
	if f.MaxValue == 0 {
		f.MaxValue = DefaultMaxValue
	}
	if log == nil {
		log = io.Discard
	}
	a.format, a.log = f, log
}

func (a *analyzer) newFormatter() formatter {
	return formatter{style: style{json: a.format.JSON, showSecrets: a.format.ShowSecrets, maxValue: a.format.MaxValue}}
}

// Stats returns a snapshot of the counts of one direction.
func (a *analyzer) Stats(d Direction) Counts {
	c := &a.stats[d]
	return Counts{Decoded: c.decoded.Load(), Identical: c.identical.Load(), Mismatched: c.mismatched.Load(),
		Undecodable: c.undecodable.Load(), Violations: c.violations.Load(), Layers: snapshot(&c.layers), Messages: snapshot(&c.messages)}
}

func snapshot(m *sync.Map) map[string]int64 {
	out := map[string]int64{}
	m.Range(func(k, v any) bool {
		out[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return out
}

// counter is the counter of key in m.
func counter(m *sync.Map, key string) *atomic.Int64 {
	v, ok := m.Load(key)
	if !ok {
		v, _ = m.LoadOrStore(key, new(atomic.Int64))
	}
	return v.(*atomic.Int64)
}

// Summary writes the counts of both directions.
func (a *analyzer) Summary(w io.Writer) {
	for _, d := range []Direction{Frontend, Backend} {
		c := a.Stats(d)
		fmt.Fprintf(w, "%s: %d decoded, %d re-encoded identically, %d mismatched, %d undecodable, %d flow violations\n",
			d.name(), c.Decoded, c.Identical, c.Mismatched, c.Undecodable, c.Violations)
		for _, l := range slices.Sorted(maps.Keys(c.Layers)) {
			fmt.Fprintf(w, "  %-22s %d\n", l, c.Layers[l])
		}
	}
}

// Clean reports whether every message so far was decoded, re-encoded
// identically and allowed by the protocol's flow where it came.
func (a *analyzer) Clean() bool {
	for d := range a.stats {
		if a.stats[d].mismatched.Load() != 0 || a.stats[d].undecodable.Load() != 0 || a.stats[d].violations.Load() != 0 {
			return false
		}
	}
	return true
}

func (a *analyzer) logf(format string, args ...any) {
	a.logMu.Lock()
	defer a.logMu.Unlock()
	fmt.Fprintf(a.log, "pgtrace: "+format+"\n", args...)
}

// examiner takes one direction's messages apart: it decodes, counts,
// prints and re-encodes each. One goroutine uses it.
type examiner struct {
	a      *analyzer
	d      *decoder
	decode func(frame []byte) ([]Layer, error) // d.decode; tests stand a faulty codec in
	f      formatter
	bufs   [3][]byte // re-encoding, one per layer
	grew   bool      // a large message was let go: return the memory at the next read
	// counts are the analyzer's counters of each message type and the
	// layer it came in, found once per type: a map of the examiner's own
	// keyed by descriptor costs less per message than the shared sync.Maps
	// keyed by name.
	counts map[*codec.MessageDescriptor]typeCounters
}

// typeCounters are the analyzer's counters of a message type and of the
// layer named layer.
type typeCounters struct {
	layer          string
	inLayer, count *atomic.Int64
}

func newExaminer(a *analyzer, d *decoder) examiner {
	return examiner{a: a, d: d, decode: d.decode, f: a.newFormatter()}
}

// examine decodes frame, appends its line (at, the time it was seen) to
// lines and re-encodes it. decoded is false when it could not be decoded;
// problem is empty when it re-encoded to exactly frame and the flow allows
// it, and otherwise says what went wrong, naming the message.
func (x *examiner) examine(frame []byte, at time.Time, lines []byte) (_ []byte, decoded bool, problem string) {
	if len(frame) > keptBuffer { // only then: a defer costs, per message
		defer x.trim()
	}
	off := x.d.offset
	st := &x.a.stats[x.d.dir]
	chain, err := x.decode(frame)
	if err != nil && isFlowError(err) && chain[len(chain)-1].Msg != nil { // a 'p' the flow has no place for is not decoded
		st.violations.Add(1)
		problem, err = fmt.Sprintf("%s breaks the protocol flow: %v", chainName(chain), err), nil
	}
	if err != nil {
		st.undecodable.Add(1)
		name := chainName(chain)
		var de *codec.DecodeError
		switch {
		case chain[len(chain)-1].Msg != nil:
		case errors.As(err, &de) && !strings.Contains(de.Message, " "):
			// Dispatchers return no message with an error; the error names
			// the message type (a dispatcher's own error names itself, with a space).
			name = strings.TrimSuffix(name, "?") + de.Message
		case chain[0].Name == "startup":
			name = "startup message"
		case len(chain) == 1:
			name = fmt.Sprintf("message %q", frame[0]) // a tag the dispatcher does not know
		}
		return lines, false, fmt.Sprintf("%s undecodable: %v", name, err)
	}
	st.decoded.Add(1)
	if !x.a.format.Quiet {
		lines = x.f.appendLine(lines, at, x.d.c.id, x.d.dir, off, chain, frame)
	}
	x.count(st, chain)
	if x.f.kept != nil && x.f.kept.identical { // this frame re-encoded identically before
		st.identical.Add(1)
		return lines, true, problem
	}
	out, err := x.reencode(chain)
	switch {
	case err != nil:
		st.mismatched.Add(1)
		return lines, true, join(problem, fmt.Sprintf("%s does not re-encode: %v", chainName(chain), err))
	case !bytes.Equal(out, frame):
		st.mismatched.Add(1)
		p := fmt.Sprintf("%s re-encodes differently from byte %d", chainName(chain), firstDiff(out, frame))
		if x.f.showSecrets || !hasSecret(chain) {
			p += fmt.Sprintf(": got %x, received %x", clip(out), clip(frame))
		}
		return lines, true, join(problem, p)
	}
	if x.f.kept != nil {
		x.f.kept.identical = true
	}
	st.identical.Add(1)
	return lines, true, problem
}

// count counts the chain's messages by type and layer. A frame whose line
// was printed from or kept as a body has the counters of its types there
// (found once per body); others are found by descriptor.
func (x *examiner) count(st *counters, chain []Layer) {
	var kept *[3]typeCounters
	if x.f.kept != nil {
		kept = &x.f.kept.counts
	}
	for i := range chain {
		l := &chain[i]
		var c typeCounters
		if kept == nil {
			c = x.counters(st, l)
		} else if c = kept[i]; c.count == nil || c.layer != l.Name {
			c = x.counters(st, l)
			kept[i] = c
		}
		c.inLayer.Add(1)
		c.count.Add(1)
	}
}

// counters are those of l's type and layer.
func (x *examiner) counters(st *counters, l *Layer) typeCounters {
	d := l.Msg.Descriptor()
	c, ok := x.counts[d]
	if !ok || c.layer != l.Name { // a type comes in one layer but for the start-up's
		if x.counts == nil {
			x.counts = map[*codec.MessageDescriptor]typeCounters{}
		}
		c = typeCounters{l.Name, counter(&st.layers, l.Name), counter(&st.messages, l.Msg.Slug())}
		x.counts[d] = c
	}
	return c
}

// isFlowError reports whether err is a *codec.FlowError; called only with
// an error, since errors.As's target escapes (an allocation per message).
func isFlowError(err error) bool {
	var fe *codec.FlowError
	return errors.As(err, &fe)
}

// join puts two problems of one message in one line.
func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// reencode encodes the chain innermost first, putting each layer's bytes
// into its parent's payload field.
func (x *examiner) reencode(chain []Layer) ([]byte, error) {
	var inner []byte
	for i := len(chain) - 1; i >= 0; i-- {
		if inner != nil {
			if f := chain[i].Msg.Descriptor().Payload(); f >= 0 {
				reflect.ValueOf(chain[i].Msg).Elem().Field(f).SetBytes(inner)
			}
		}
		out, err := chain[i].Msg.Encode(x.bufs[i][:0], chain[i].Params)
		if err != nil {
			return nil, err
		}
		x.bufs[i], inner = out, out
	}
	return inner, nil
}

// trim lets go of what a large message grew — the re-encoding buffers and
// the decoded message, whose strings are copies of its size — so that one
// large message does not pin its size for the rest of the connection, and
// has the memory handed back to the system.
func (x *examiner) trim() {
	for i := range x.bufs {
		if cap(x.bufs[i]) > keptBuffer {
			x.bufs[i] = nil
		}
	}
	x.d.forget()
	x.grew = true
}

// returnMemory hands freed memory back to the system after a large message,
// once its frame buffer has been let go too (the FrameReader does that when
// it reads again). Go's background scavenger would take minutes; one forced
// collection per large message, at most one at a time and off the
// forwarding path, costs a few milliseconds.
func returnMemory() {
	if freeing.CompareAndSwap(false, true) {
		go func() {
			defer freeing.Store(false)
			debug.FreeOSMemory()
		}()
	}
}

var freeing atomic.Bool

// keptBuffer is the largest re-encoding buffer kept between messages.
const keptBuffer = 1 << 20

// typeName is the Go type of a decoded message, "?" for one whose tag no
// dispatcher knows.
func typeName(m codec.Message) string {
	if m == nil {
		return "?"
	}
	return reflect.TypeOf(m).Elem().Name()
}

func chainName(chain []Layer) string {
	names := make([]string, len(chain))
	for i, l := range chain {
		names[i] = typeName(l.Msg)
	}
	return strings.Join(names, " > ")
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// clip keeps error messages short.
func clip(b []byte) []byte { return b[:min(len(b), 32)] }
