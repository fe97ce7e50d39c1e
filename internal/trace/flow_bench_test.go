package trace

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
)

// recorded is one frame of a captured connection and what the conversation
// decoded it with, for decoding it again without one.
type recorded struct {
	dir      Direction
	frame    []byte
	p        codec.Params
	auth     codec.AuthState // of a 'p'
	startup  bool            // an untagged startup packet
	oneByte  bool            // the server's answer to SSLRequest or GSSENCRequest
	sub      bool            // a CopyData whose payload is a replication message
	logical  bool            // an XLogData whose WAL data is pgoutput
	logicalP codec.Params
}

// authOf is the Frontend.Auth that decodes a 'p' message of slug.
var authOf = map[string]codec.AuthState{"password-message": codec.AuthPassword, "sasl-initial-response": codec.AuthSASLInitial,
	"sasl-response": codec.AuthSASL, "gss-response": codec.AuthGSS}

// capturedConn is one connection of a capture.
type capturedConn struct {
	file   string
	major  int // the capture's server (pgNN-…)
	frames []recorded
	// streams are the bytes each direction sent (by Direction), the
	// frames one after the other.
	streams [2][]byte
	// What its client knows for having sent it, for handDecoder: the tag
	// of the response ('W' CopyBoth, 'H' CopyOut) that began the
	// replication stream whose CopyData carry replication messages (0:
	// none), and the proto_version and streaming mode of the pgoutput
	// its START_REPLICATION asked for (LogicalVersion 0: none).
	streamBegun byte
	pgoutput    codec.Params
}

// capturedConversations reads the connections of every committed capture
// whose name matches glob (pg*.gz: all), frame by frame in capture order,
// and what a Conversation decoded each with.
func capturedConversations(tb testing.TB, glob string) []capturedConn {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "captures", glob))
	if err != nil || len(files) == 0 {
		tb.Fatalf("captures: %v %v", files, err)
	}
	var convs []capturedConn
	for _, f := range files {
		var major int
		fmt.Sscanf(filepath.Base(f), "pg%d-", &major)
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		byConn := map[int64][]recorded{}
		var order []int64
		opts := CaptureOptions{onFrame: func(id int64, d Direction, frame []byte) {
			if byConn[id] == nil {
				order = append(order, id)
			}
			byConn[id] = append(byConn[id], recorded{dir: d, frame: bytes.Clone(frame)})
		}}
		if _, err := DecodeCapture(bytes.NewReader(data), opts); err != nil {
			tb.Fatal(err)
		}
		for _, id := range order {
			conv := capturedConn{file: filepath.Base(f), major: major, frames: byConn[id]}
			c := codec.NewConversation(codec.Params{})
			for i := range conv.frames {
				r := &conv.frames[i]
				conv.streams[r.dir] = append(conv.streams[r.dir], r.frame...)
				next := c.Backend.Next
				r.oneByte = c.Backend.OneByte()
				if r.dir == Frontend {
					r.startup, r.oneByte = c.Frontend.Untagged(), false
					next = c.Frontend.Next
				}
				s, err := next(r.frame)
				if err != nil {
					tb.Fatalf("%s connection %d frame %d: %v", conv.file, id, i, err)
				}
				r.p, r.sub, r.logical, r.logicalP = s.Params(), s.Sub != nil, s.Logical != nil, s.LogicalParams()
				if s.Msg != nil {
					r.auth = authOf[s.Msg.Slug()]
				}
			}
			conv.streamBegun, conv.pgoutput = askedStream(conv.frames)
			convs = append(convs, conv)
		}
	}
	return convs
}

// askedStream is what a connection's client asked for, found in the
// frames the conversation decoded: the response that began the first
// replication stream (the last CopyBoth or CopyOut before the first
// replication message) and the pgoutput options of the first pgoutput
// message (Streamed is the state of a stream, not an option).
func askedStream(frames []recorded) (begun byte, pgoutput codec.Params) {
	first := slices.IndexFunc(frames, func(r recorded) bool { return r.sub })
	for i := first - 1; i >= 0; i-- {
		if t := frames[i].frame[0]; frames[i].dir == Backend && (t == 'W' || t == 'H') {
			begun = t
			break
		}
	}
	if i := slices.IndexFunc(frames, func(r recorded) bool { return r.logical }); i >= 0 {
		pgoutput = codec.Params{LogicalVersion: frames[i].logicalP.LogicalVersion, Streaming: frames[i].logicalP.Streaming &^ codec.Streamed}
	}
	return begun, pgoutput
}

// framer cuts one connection's two byte streams into messages; read again
// after rewind, it allocates nothing.
type framer struct {
	src [2]bytes.Reader
	fr  [2]*codec.FrameReader
}

func (f *framer) rewind(c *capturedConn) {
	for d := range f.src {
		f.src[d].Reset(c.streams[d])
		if f.fr[d] == nil {
			f.fr[d] = codec.NewFrameReader(&f.src[d])
		}
	}
}

// bareDecoder decodes a connection as a caller that kept the Params by
// hand does: frames cut as the capture says, dispatchers given the Params
// the conversation found.
type bareDecoder struct {
	framer
	st  codec.Startup
	fe  codec.Frontend
	be  codec.Backend
	ssl codec.SSLResponse
	rb  codec.ReplicationBackend
	rf  codec.ReplicationFrontend
	lg  codec.Logical
}

func (d *bareDecoder) pass(c *capturedConn) error {
	d.rewind(c)
	for i := range c.frames {
		r := &c.frames[i]
		fr := d.fr[r.dir]
		var frame []byte
		var m codec.Message
		var err error
		switch {
		case r.oneByte:
			if frame, err = fr.NextByte(); err == nil {
				m, err = &d.ssl, d.ssl.Decode(frame, r.p)
			}
		case r.startup:
			if frame, err = fr.NextUntagged(); err == nil {
				m, err = d.st.Decode(frame, r.p)
			}
		case r.dir == Frontend:
			if frame, err = fr.Next(); err == nil {
				d.fe.Auth = r.auth
				m, err = d.fe.Decode(frame, r.p)
			}
		default:
			if frame, err = fr.Next(); err == nil {
				m, err = d.be.Decode(frame, r.p)
			}
		}
		if err != nil || !r.sub {
			if err != nil && !r.oneByte { // a GSSEncResponse in SSLResponse's place: no capture has one
				return fmt.Errorf("%s frame %d: %w", c.file, i, err)
			}
			continue
		}
		data := m.(*codec.CopyData).Data
		if r.dir == Frontend {
			_, err = d.rf.Decode(data, r.p)
		} else if m, err = d.rb.Decode(data, r.p); err == nil && r.logical {
			_, err = d.lg.Decode(m.(*codec.XLogData).WALData, r.logicalP)
		}
		if err != nil {
			return fmt.Errorf("%s frame %d: %w", c.file, i, err)
		}
	}
	return nil
}

// handDecoder decodes a connection as a caller that keeps the state by
// hand does, as tight as it can be written: it knows only what its
// client sent out of band (the stream it asked for, askedStream) and
// follows the rest from the frames, tested by tag: the start-up packets
// until the StartupMessage, the one-byte answer to SSLRequest and
// GSSENCRequest, the 'p' by the last authentication request, Major from
// server_version, the protocol minor from the StartupMessage and
// NegotiateProtocolVersion, the replication stream from its response to
// CommandComplete, and Streamed from Stream Start and Stream Stop. It
// checks no flow. changed, when set (by a test), hears each change of the
// Params, as from the frame after the one that made it; subs and
// logicals count the replication and pgoutput messages it decoded.
type handDecoder struct {
	bareDecoder
	changed        func(from int, p, logical codec.Params)
	subs, logicals int
}

func (d *handDecoder) pass(c *capturedConn) error {
	d.rewind(c)
	var p, lp codec.Params
	var auth codec.AuthState
	started, answer, streaming := false, false, false
	for i := range c.frames {
		dir := c.frames[i].dir
		fr := d.fr[dir]
		var frame []byte
		var m codec.Message
		var err error
		oneByte := dir == Backend && answer
		switch {
		case oneByte:
			answer = false
			if frame, err = fr.NextByte(); err == nil {
				err = d.ssl.Decode(frame, p)
			}
		case dir == Frontend && !started:
			if frame, err = fr.NextUntagged(); err != nil {
				break
			}
			sp := p
			if len(frame) > 16 { // a CancelRequest's key longer than 3.0's
				sp.ProtocolMinor = 2
			}
			switch m, err = d.st.Decode(frame, sp); m := m.(type) {
			case *codec.StartupMessage:
				started, p.ProtocolMinor = true, int(m.ProtocolVersion&0xffff)
				d.change(i, p, lp)
			case *codec.SSLRequest, *codec.GSSEncRequest:
				answer = true
			}
		case dir == Frontend:
			if frame, err = fr.Next(); err != nil {
				break
			}
			d.fe.Auth = auth
			if m, err = d.fe.Decode(frame, p); err == nil && streaming && c.streamBegun == 'W' && frame[0] == 'd' {
				d.subs++
				_, err = d.rf.Decode(m.(*codec.CopyData).Data, p)
			}
		default:
			if frame, err = fr.Next(); err != nil {
				break
			}
			if m, err = d.be.Decode(frame, p); err != nil {
				break
			}
			switch frame[0] {
			case 'd':
				if !streaming {
					break
				}
				d.subs++
				if m, err = d.rb.Decode(m.(*codec.CopyData).Data, p); err != nil || lp.LogicalVersion == 0 {
					break
				}
				if x, ok := m.(*codec.XLogData); ok {
					d.logicals++
					switch m, err = d.lg.Decode(x.WALData, lp); m.(type) {
					case *codec.LogicalStreamStart:
						lp.Streaming |= codec.Streamed
						d.change(i, p, lp)
					case *codec.LogicalStreamStop:
						lp.Streaming &^= codec.Streamed
						d.change(i, p, lp)
					}
				}
			case 'R':
				switch m.(type) {
				case *codec.AuthenticationSASL:
					auth = codec.AuthSASLInitial
				case *codec.AuthenticationSASLContinue:
					auth = codec.AuthSASL
				case *codec.AuthenticationCleartextPassword, *codec.AuthenticationMD5Password:
					auth = codec.AuthPassword
				case *codec.AuthenticationGSS, *codec.AuthenticationSSPI, *codec.AuthenticationGSSContinue:
					auth = codec.AuthGSS
				}
			case 'S':
				if s := m.(*codec.ParameterStatus); s.Name == "server_version" {
					p.Major = codec.ServerMajor(s.Value)
					d.change(i, p, lp)
				}
			case 'v':
				p.ProtocolMinor = min(p.ProtocolMinor, int(m.(*codec.NegotiateProtocolVersion).NewestProtocolVersion&0xffff))
				d.change(i, p, lp)
			case 'W', 'H':
				if frame[0] == c.streamBegun {
					streaming, lp = true, c.pgoutput
					lp.Major, lp.ProtocolMinor = p.Major, p.ProtocolMinor
					d.change(i, p, lp)
				}
			case 'C':
				streaming = false
			}
		}
		if err != nil && !oneByte { // a GSSEncResponse in SSLResponse's place, as in bareDecoder
			return fmt.Errorf("%s frame %d: %w", c.file, i, err)
		}
	}
	return nil
}

// change tells changed, if set, that frame made the Params p and logical.
func (d *handDecoder) change(frame int, p, logical codec.Params) {
	if d.changed != nil {
		d.changed(frame+1, p, logical)
	}
}

// trackedDecoder decodes a connection through a Conversation, which says
// how each frame is cut, finds the Params and checks the flow.
type trackedDecoder struct {
	framer
	conv *codec.Conversation
}

func (d *trackedDecoder) pass(c *capturedConn) error {
	d.rewind(c)
	if d.conv == nil {
		d.conv = codec.NewConversation(codec.Params{})
	}
	conv := d.conv
	conv.Reset(codec.Params{})
	for i := range c.frames {
		fr := d.fr[c.frames[i].dir]
		var frame []byte
		var err error
		if c.frames[i].dir == Frontend {
			if conv.Frontend.Untagged() {
				frame, err = fr.NextUntagged()
			} else {
				frame, err = fr.Next()
			}
			if err == nil {
				_, err = conv.Frontend.Next(frame)
			}
		} else {
			if conv.Backend.OneByte() {
				frame, err = fr.NextByte()
			} else {
				frame, err = fr.Next()
			}
			if err == nil {
				_, err = conv.Backend.Next(frame)
			}
		}
		if err != nil {
			return fmt.Errorf("%s frame %d: %w", c.file, i, err)
		}
	}
	return nil
}

// TestCapturesThroughTheTrackers: every frame of every committed capture
// is taken by a Conversation without a violation (capturedConversations
// fails on any), and the Params it reached are the ones the capture's
// server speaks: its major, the protocol it negotiated, and for logical
// streams the proto_version of its START_REPLICATION.
func TestCapturesThroughTheTrackers(t *testing.T) {
	logical, sessions := 0, 0
	for i, c := range capturedConversations(t, "pg*.gz") {
		last := c.frames[len(c.frames)-1].p
		if last.Major != 0 { // a CancelRequest's connection hears no server_version
			sessions++
			if last.Major != c.major || last.ProtocolMinor == 2 && c.major < 18 {
				t.Errorf("%s connection %d: ended with %+v", c.file, i, last)
			}
		}
		streamed, decoded := false, false // a replication stream; pgoutput in it
		for _, r := range c.frames {
			streamed = streamed || r.sub
			if r.logical {
				logical++
				decoded = true
				if r.logicalP.LogicalVersion < 1 || r.logicalP.LogicalVersion > 4 || r.logicalP.Major != r.p.Major {
					t.Errorf("%s connection %d: pgoutput decoded with %+v under %+v", c.file, i, r.logicalP, r.p)
				}
			}
		}
		// Every logical capture's stream is pgoutput: its START_REPLICATION
		// was read (ParseCommand, ParsePgoutputOptions) as the server did.
		if strings.Contains(c.file, "-logical") && streamed && !decoded {
			t.Errorf("%s connection %d: a replication stream without pgoutput decoded in it", c.file, i)
		}
	}
	if logical == 0 || sessions < 20 {
		t.Errorf("%d sessions, %d pgoutput messages in the captures", sessions, logical)
	}
}

// TestHandDecoderFollowsTheCaptures: the hand-kept state the benchmark
// compares the trackers with decodes every frame of every committed
// capture as the conversation did: with its Params (a startup packet
// aside: a CancelRequest's are its key's), and as many replication and
// pgoutput messages, pgoutput with its Params. A baseline that skipped
// some of that work would flatter the trackers.
func TestHandDecoderFollowsTheCaptures(t *testing.T) {
	type change struct {
		from  int
		p, lp codec.Params
	}
	subs, logicals := 0, 0
	for n, c := range capturedConversations(t, "pg*.gz") {
		changes := []change{{}}
		d := handDecoder{changed: func(from int, p, lp codec.Params) { changes = append(changes, change{from, p, lp}) }}
		if err := d.pass(&c); err != nil {
			t.Fatal(err)
		}
		wantSubs, wantLogicals := 0, 0
		at := 0
		for i, r := range c.frames {
			for at+1 < len(changes) && changes[at+1].from <= i {
				at++
			}
			if st := changes[at]; !r.startup && st.p != r.p {
				t.Errorf("%s connection %d frame %d: decoded with %+v, the conversation with %+v", c.file, n, i, st.p, r.p)
			} else if r.logical && st.lp != r.logicalP {
				t.Errorf("%s connection %d frame %d: pgoutput decoded with %+v, the conversation with %+v", c.file, n, i, st.lp, r.logicalP)
			}
			if r.sub {
				wantSubs++
			}
			if r.logical {
				wantLogicals++
			}
		}
		if d.subs != wantSubs || d.logicals != wantLogicals {
			t.Errorf("%s connection %d: %d replication and %d pgoutput messages decoded, the conversation %d and %d", c.file, n, d.subs, d.logicals, wantSubs, wantLogicals)
		}
		subs, logicals = subs+d.subs, logicals+d.logicals
	}
	if subs < 1000 || logicals < 1000 {
		t.Errorf("%d replication messages, %d pgoutput in the captures", subs, logicals)
	}
}

// replay gives the conversation the recorded frames.
func replay(t *testing.T, conv *codec.Conversation, frames []recorded) {
	t.Helper()
	for i, r := range frames {
		next := conv.Backend.Next
		if r.dir == Frontend {
			next = conv.Frontend.Next
		}
		if _, err := next(r.frame); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
}

// mallocs counts the heap allocations f makes.
func mallocs(f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds cpu-ns/op, the CPU time the process spent per iteration:
// on a machine shared with other work, wall time mostly measures waiting
// for a core, CPU time what the code costs.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkTracker frames and decodes the committed captures' connections
// from their byte streams, both directions in capture order, one case per
// kind of capture (all majors): impl=bare cuts each message as the capture
// says and decodes it with dispatchers given the Params the conversation
// found (an oracle: no caller knows them beforehand), impl=hand keeps that
// state itself as a caller without a tracker must (handDecoder), and
// impl=tracker goes through a Conversation that says how to cut, finds the
// Params and checks the flow. Each connection
// has its decoders and frame readers, as in a proxy, taken once through
// before the clock starts: that first pass grows them (the conversation,
// its queue, the decoders' slices), a cost of the connection, not of its
// messages, which would otherwise weigh 1/N on every result.
func BenchmarkTracker(b *testing.B) {
	for _, kind := range []string{"sessions", "logical", "physical", "backup"} {
		b.Run("capture="+kind, func(b *testing.B) {
			convs := capturedConversations(b, "pg*-"+kind+".*")
			n := 0
			for _, c := range convs {
				n += len(c.streams[0]) + len(c.streams[1])
			}
			bench := func(b *testing.B, pass func(j int) error) {
				for j := range convs {
					if err := pass(j); err != nil {
						b.Fatal(err)
					}
				}
				b.SetBytes(int64(n))
				b.ReportAllocs()
				start := cpuTime()
				defer reportCPU(b, start)
				for b.Loop() {
					for j := range convs {
						if err := pass(j); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			b.Run("impl=bare", func(b *testing.B) {
				ds := make([]bareDecoder, len(convs))
				bench(b, func(j int) error { return ds[j].pass(&convs[j]) })
			})
			b.Run("impl=hand", func(b *testing.B) {
				ds := make([]handDecoder, len(convs))
				bench(b, func(j int) error { return ds[j].pass(&convs[j]) })
			})
			b.Run("impl=tracker", func(b *testing.B) {
				ds := make([]trackedDecoder, len(convs))
				bench(b, func(j int) error { return ds[j].pass(&convs[j]) })
			})
		})
	}
}

// TestTrackerAllocations: following a conversation allocates nothing of
// its own. Each committed capture's connections, decoded again after a
// warm-up, allocate as much through the trackers as bare decoding with the
// Params given (which allocates only the new strings longer than the
// intern table keeps), and nothing at all in a replication stream's
// CopyData, decoded down to pgoutput.
func TestTrackerAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes every capture")
	}
	streams := 0
	for i, c := range capturedConversations(t, "pg*.gz") {
		var bare bareDecoder
		var tracked trackedDecoder
		for _, d := range []interface{ pass(*capturedConn) error }{&bare, &tracked} {
			for range 2 { // warm-up: the decoders grow their slices
				if err := d.pass(&c); err != nil {
					t.Fatal(err)
				}
			}
		}
		a := testing.AllocsPerRun(3, func() { bare.pass(&c) })
		b := testing.AllocsPerRun(3, func() { tracked.pass(&c) })
		if b != a {
			t.Errorf("%s connection %d (%d messages): %.0f allocations through the trackers, %.0f decoding bare", c.file, i, len(c.frames), b, a)
		}
		// A replication stream's CopyData, after the conversation took
		// the connection once and again up to the stream.
		first := slices.IndexFunc(c.frames, func(r recorded) bool { return r.sub })
		if first < 0 {
			continue
		}
		streams++
		conv := codec.NewConversation(codec.Params{})
		replay(t, conv, c.frames)
		conv.Reset(codec.Params{})
		replay(t, conv, c.frames[:first])
		stream := c.frames[first:]
		if end := slices.IndexFunc(stream, func(r recorded) bool { return !r.sub }); end >= 0 {
			stream = stream[:end]
		}
		if n := mallocs(func() { replay(t, conv, stream) }); n != 0 {
			t.Errorf("%s connection %d: %d allocations in the replication stream's %d messages", c.file, i, n, len(stream))
		}
	}
	if streams < 10 {
		t.Errorf("only %d replication streams in the captures", streams)
	}
}
