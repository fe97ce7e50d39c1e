package trace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/google/gopacket/reassembly"

	"github.com/pgspec/pgspec/codec"
)

// progressEvery is how often DecodeCapture reports its progress.
var progressEvery = 2 * time.Second

// CaptureOptions configure DecodeCapture.
type CaptureOptions struct {
	Format
	// Out receives one line per decoded message; nil discards them.
	Out io.Writer
	// Log receives warnings: gaps, undecodable or mismatched messages.
	Log io.Writer
	// Port is the server's TCP port: connections to other ports are
	// skipped. 0 recognises PostgreSQL connections, on any port, by the
	// client's first packet (a StartupMessage, SSLRequest, GSSENCRequest or
	// CancelRequest); a connection whose start is not in the capture then
	// cannot be recognised and is skipped.
	Port int
	// Major decodes every connection as this PostgreSQL major instead of
	// learning it from server_version; 0 learns it.
	Major int
	// onFrame, when set (by tests), sees each whole frame in the order
	// decoded: the connection, the direction and the frame (valid during
	// the call).
	onFrame func(conn int64, d Direction, frame []byte)
	// Progress, when not nil, receives a line every few seconds saying how
	// far the decoder has read; Size (the capture's length in bytes, 0 if
	// unknown) turns it into a percentage.
	Progress io.Writer
	Size     int64
}

// Capture is what DecodeCapture saw: the counts of Stats, Summary and
// Clean, and the connections and gaps it found.
type Capture struct {
	analyzer
	opts    CaptureOptions
	out     *bufio.Writer
	outErr  error // the output failed (a closed pipe): decoding stops
	lines   []byte
	conns   int64 // PostgreSQL connections seen
	gaps    int   // bytes missing from the capture, by occurrence
	packets int64
}

// Gaps is how many times bytes of a followed connection were missing from
// the capture (a lost segment, a truncated packet): each ends the decoding
// of its direction, since nothing after it can be framed with certainty.
func (c *Capture) Gaps() int { return c.gaps }

// Connections is how many PostgreSQL connections the capture holds.
func (c *Capture) Connections() int64 { return c.conns }

// Summary writes the counts of both directions, the connections and the gaps.
func (c *Capture) Summary(w io.Writer) {
	fmt.Fprintf(w, "%d packets, %d connections, %d gaps\n", c.packets, c.conns, c.gaps)
	c.analyzer.Summary(w)
}

// Clean reports whether every message was decoded and re-encoded
// identically and nothing was missing.
func (c *Capture) Clean() bool { return c.gaps == 0 && c.analyzer.Clean() }

// pcapngMagic opens a pcapng file (its Section Header Block type);
// gzipMagic a gzipped capture (capture.pcap.gz), read as it is.
var pcapngMagic, gzipMagic = []byte{0x0a, 0x0d, 0x0d, 0x0a}, []byte{0x1f, 0x8b}

// packetSource is what pcapgo's two readers have in common.
type packetSource interface {
	ReadPacketData() ([]byte, gopacket.CaptureInfo, error)
	LinkType() layers.LinkType
}

// DecodeCapture reads a pcap or pcapng capture, gzipped or not, reassembles the TCP
// connections to the server port (out-of-order segments put in order,
// retransmissions dropped, gaps reported), and decodes each connection's
// two directions as the proxy does, in capture order. It returns an error
// only for a capture it cannot read; what it could not decode is counted and
// logged.
func DecodeCapture(r io.Reader, opts CaptureOptions) (*Capture, error) {
	if opts.Out == nil {
		opts.Out = io.Discard
		opts.Quiet = true
	}
	input := &countingReader{r: r} // bytes of the file, for the progress
	br := bufio.NewReaderSize(input, 1<<16)
	counted := input // bytes of the capture, for errors
	if magic, _ := br.Peek(2); bytes.Equal(magic, gzipMagic) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		counted = &countingReader{r: gz}
		br = bufio.NewReaderSize(counted, 1<<16)
	}
	magic, err := br.Peek(4)
	if err != nil {
		return nil, fmt.Errorf("not a pcap or pcapng capture: %w", noEOF(err))
	}
	// pcapgo allocates a packet's buffer from the length its header claims:
	// the pcap reader is held to maxPacket by its snap length, the pcapng
	// one by blockGuard, before a hostile length costs anything.
	var src packetSource
	if bytes.Equal(magic, pcapngMagic) {
		var nr *pcapgo.NgReader
		err = recovered(func() (err error) {
			nr, err = pcapgo.NewNgReader(&blockGuard{src: br}, pcapgo.DefaultNgReaderOptions)
			return err
		})
		src = recovering{nr}
	} else {
		var pr *pcapgo.Reader
		if pr, err = pcapgo.NewReader(br); err == nil && pr.Snaplen() > maxPacket {
			pr.SetSnaplen(maxPacket)
		}
		src = pr
	}
	if err != nil {
		return nil, fmt.Errorf("not a pcap or pcapng capture: %w", err)
	}
	c := &Capture{opts: opts, out: bufio.NewWriterSize(opts.Out, 1<<16)}
	c.init(opts.Format, opts.Log)
	asm := reassembly.NewAssembler(reassembly.NewStreamPool(&streamFactory{c: c}))
	// A segment that never arrives must not hold all that follows in memory:
	// past this many buffered pages (about 4 MiB) the gap is reported.
	asm.MaxBufferedPagesPerConnection = 2048
	link := src.LinkType()
	lastProgress := time.Now()
	for c.outErr == nil {
		at := counted.n - int64(br.Buffered())
		data, ci, err := src.ReadPacketData()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// A capture cut short (a recording killed mid-write): every
			// line of what came before it is printed, then the error.
			return c, errors.Join(c.finish(asm), fmt.Errorf("packet %d (byte %d): %w", c.packets+1, at, noEOF(err)))
		}
		c.packets++
		if tcp, netFlow, ok := tcpOf(data, link); ok {
			asm.AssembleWithContext(netFlow, tcp, captureContext(ci))
		}
		if opts.Progress != nil && time.Since(lastProgress) >= progressEvery {
			lastProgress = time.Now()
			c.progress(input.n)
		}
	}
	return c, c.finish(asm)
}

// finish decodes what the assembler still holds and writes every line.
func (c *Capture) finish(asm *reassembly.Assembler) error {
	asm.FlushAll()
	c.writeLines(true)
	if err := c.out.Flush(); err != nil && c.outErr == nil {
		c.outErr = err
	}
	if c.outErr != nil {
		return fmt.Errorf("writing the decoded lines: %w", c.outErr)
	}
	return nil
}

// noEOF turns the end of the input in the middle of a structure into an
// error that says so.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func (c *Capture) progress(read int64) {
	decoded := c.stats[Frontend].decoded.Load() + c.stats[Backend].decoded.Load()
	if c.opts.Size > 0 {
		fmt.Fprintf(c.opts.Progress, "pgtrace decode: %d of %d MiB (%d%%), %d packets, %d messages\n",
			read>>20, c.opts.Size>>20, read*100/c.opts.Size, c.packets, decoded)
		return
	}
	fmt.Fprintf(c.opts.Progress, "pgtrace decode: %d MiB, %d packets, %d messages\n", read>>20, c.packets, decoded)
}

// writeLines writes the lines collected so far when they are many, or all.
func (c *Capture) writeLines(all bool) {
	if len(c.lines) >= batchSize || all && len(c.lines) > 0 {
		if _, err := c.out.Write(c.lines); err != nil && c.outErr == nil {
			c.outErr = err
		}
		c.lines = c.lines[:0]
	}
}

// maxPacket is the largest captured packet read: libpcap's own maximum
// snap length.
const maxPacket = 262144

// blockGuard passes a pcapng file through one whole block at a time, after
// checking that the block is at most maxPacket and some, and that a packet
// block's captured length fits in it.
type blockGuard struct {
	src   *bufio.Reader
	order binary.ByteOrder
	block []byte // the rest of the current block
	buf   []byte
	pos   int64 // of the next block
}

const (
	ngSectionHeader  = 0x0a0d0d0a
	ngPacket         = 2 // obsolete Packet Block
	ngSimplePacket   = 3
	ngEnhancedPacket = 6
	ngByteOrderMagic = 0x1a2b3c4d
)

func (g *blockGuard) Read(p []byte) (int, error) {
	if len(g.block) == 0 {
		if err := g.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, g.block)
	g.block = g.block[n:]
	return n, nil
}

func (g *blockGuard) next() error {
	hdr, err := g.src.Peek(12)
	if len(hdr) == 0 && errors.Is(err, io.EOF) {
		return io.EOF
	}
	if err != nil {
		return noEOF(err)
	}
	if binary.LittleEndian.Uint32(hdr) == ngSectionHeader {
		switch uint32(ngByteOrderMagic) {
		case binary.LittleEndian.Uint32(hdr[8:]):
			g.order = binary.LittleEndian
		case binary.BigEndian.Uint32(hdr[8:]):
			g.order = binary.BigEndian
		default:
			return fmt.Errorf("pcapng block at byte %d: bad byte-order magic", g.pos)
		}
	}
	if g.order == nil {
		return fmt.Errorf("pcapng block at byte %d: no section header first", g.pos)
	}
	typ, n := g.order.Uint32(hdr), g.order.Uint32(hdr[4:])
	if n < 12 || n%4 != 0 || n > maxPacket+1024 {
		return fmt.Errorf("pcapng block at byte %d: length %d (want a multiple of 4 from 12 to %d)", g.pos, n, maxPacket+1024)
	}
	if uint32(cap(g.buf)) < n {
		g.buf = make([]byte, n)
	}
	g.buf = g.buf[:n]
	if _, err := io.ReadFull(g.src, g.buf); err != nil {
		return fmt.Errorf("pcapng block at byte %d: %w", g.pos, noEOF(err))
	}
	var claimed, room uint32 // a packet block's captured length and the space for it
	switch typ {
	case ngEnhancedPacket, ngPacket:
		if n < 32 {
			return fmt.Errorf("pcapng block at byte %d: packet block of %d bytes", g.pos, n)
		}
		claimed, room = g.order.Uint32(g.buf[20:]), n-32
	case ngSimplePacket:
		if n < 16 {
			return fmt.Errorf("pcapng block at byte %d: packet block of %d bytes", g.pos, n)
		}
		claimed, room = g.order.Uint32(g.buf[8:]), n-16
	}
	if claimed > room && (typ != ngSimplePacket || claimed > maxPacket) {
		return fmt.Errorf("pcapng block at byte %d: packet of %d bytes in a block of %d", g.pos, claimed, n)
	}
	g.block = g.buf
	g.pos += int64(n)
	return nil
}

// recovered runs f, turning a panic into an error: pcapgo panics on some
// malformed pcapng files (an interface's time resolution of zero …), which
// are bad input like any other.
func recovered(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed capture: %v", r)
		}
	}()
	return f()
}

// recovering reads packets through recovered.
type recovering struct{ packetSource }

func (r recovering) ReadPacketData() (data []byte, ci gopacket.CaptureInfo, err error) {
	err = recovered(func() (err error) {
		data, ci, err = r.packetSource.ReadPacketData()
		return err
	})
	return data, ci, err
}

type countingReader struct {
	r io.Reader
	n int64
}

func (r *countingReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	r.n += int64(n)
	return n, err
}

// linkTypeLinuxSLL2 is LINKTYPE_LINUX_SLL2 (276), what `tcpdump -i any`
// writes on current Linux. The gopacket release this module uses keeps link
// types in a byte, so pcapgo reports it as 276 & 0xff = 20, a value no other
// link type has.
const linkTypeLinuxSLL2 layers.LinkType = 276 & 0xff

// tcpOf finds the TCP segment in a captured frame.
func tcpOf(data []byte, link layers.LinkType) (*layers.TCP, gopacket.Flow, bool) {
	var first gopacket.Decoder = link
	if link == linkTypeLinuxSLL2 {
		if len(data) < 20 {
			return nil, gopacket.Flow{}, false
		}
		switch layers.EthernetType(binary.BigEndian.Uint16(data)) {
		case layers.EthernetTypeIPv4:
			first = layers.LayerTypeIPv4
		case layers.EthernetTypeIPv6:
			first = layers.LayerTypeIPv6
		default:
			return nil, gopacket.Flow{}, false
		}
		data = data[20:]
	}
	p := gopacket.NewPacket(data, first, gopacket.DecodeOptions{Lazy: true, NoCopy: true})
	tcp, ok := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
	if !ok || p.NetworkLayer() == nil {
		return nil, gopacket.Flow{}, false
	}
	return tcp, p.NetworkLayer().NetworkFlow(), true
}

type captureContext gopacket.CaptureInfo

func (c captureContext) GetCaptureInfo() gopacket.CaptureInfo { return gopacket.CaptureInfo(c) }

// streamFactory makes a stream per TCP connection: a decoding one for a
// connection to the server port (or, without one, for any connection whose
// start is in the capture), an ignoring one otherwise.
type streamFactory struct{ c *Capture }

func (f *streamFactory) New(_, tcpFlow gopacket.Flow, first *layers.TCP, _ reassembly.AssemblerContext) reassembly.Stream {
	var clientFirst bool
	switch port := uint16(f.c.opts.Port); {
	case port == 0 && first.SYN: // SYN from the client, or SYN-ACK from the server
		clientFirst = !first.ACK
	case port == 0:
		return ignored{}
	case port == binary.BigEndian.Uint16(tcpFlow.Dst().Raw()):
		clientFirst = true
	case port == binary.BigEndian.Uint16(tcpFlow.Src().Raw()):
	default:
		return ignored{}
	}
	s := &captureStream{c: f.c, conn: newConn(0), clientFirst: clientFirst}
	if f.c.opts.Port != 0 {
		s.identify()
	}
	if f.c.opts.Major != 0 {
		s.conn.fixMajor(f.c.opts.Major)
	}
	for d := range s.dirs {
		h := &s.dirs[d]
		h.examiner = newExaminer(&f.c.analyzer, &s.conn.dirs[d])
		h.fr = codec.NewFrameReader(&h.feed)
	}
	return s
}

// identify numbers a PostgreSQL connection, in the order they are found.
func (s *captureStream) identify() {
	s.c.conns++
	s.conn.id = s.c.conns
}

// The request codes CancelRequest, SSLRequest and GSSENCRequest carry in
// place of a protocol version.
const (
	cancelRequestCode = 80877102
	sslRequestCode    = 80877103
	gssEncRequestCode = 80877104
)

// looksLikeStartup reports whether b opens with a client's first packet:
// a plausible length, then a 3.x protocol version or a request code.
func looksLikeStartup(b []byte) bool {
	if len(b) < 8 {
		return false
	}
	n, code := binary.BigEndian.Uint32(b), binary.BigEndian.Uint32(b[4:])
	return n >= 8 && n <= MaxStartupSize &&
		(code>>16 == 3 || code == cancelRequestCode || code == sslRequestCode || code == gssEncRequestCode)
}

// ignored is a connection to another port.
type ignored struct{}

func (ignored) Accept(*layers.TCP, gopacket.CaptureInfo, reassembly.TCPFlowDirection, reassembly.Sequence, *bool, reassembly.AssemblerContext) bool {
	return false
}
func (ignored) ReassembledSG(reassembly.ScatterGather, reassembly.AssemblerContext) {}
func (ignored) ReassemblyComplete(reassembly.AssemblerContext) bool                 { return true }

// captureStream decodes one connection's two directions from the bytes the
// assembler hands it in order.
type captureStream struct {
	c           *Capture
	conn        *conn
	clientFirst bool // the connection's first packet went to the server
	dirs        [2]halfStream
}

// halfStream is one direction: its bytes wait in feed until a whole message
// is there; stopped is set at a gap or a framing error.
type halfStream struct {
	examiner
	feed     feed
	fr       *codec.FrameReader
	received int64 // bytes delivered so far
	synSeen  bool
	started  bool
	stopped  bool
}

// feed hands the FrameReader what the assembler delivered, then says
// errNeedMore; the FrameReader keeps a partial message until more comes.
type feed struct{ data []byte }

var errNeedMore = errors.New("need more bytes")

func (f *feed) Read(b []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, errNeedMore
	}
	n := copy(b, f.data)
	f.data = f.data[n:]
	return n, nil
}

func (s *captureStream) direction(d reassembly.TCPFlowDirection) Direction {
	if (d == reassembly.TCPDirClientToServer) == s.clientFirst {
		return Frontend
	}
	return Backend
}

func (s *captureStream) Accept(tcp *layers.TCP, _ gopacket.CaptureInfo, dir reassembly.TCPFlowDirection, nextSeq reassembly.Sequence, start *bool, _ reassembly.AssemblerContext) bool {
	h := &s.dirs[s.direction(dir)]
	if tcp.SYN {
		h.synSeen = true
	}
	if nextSeq == -1 && !tcp.SYN && !h.synSeen {
		*start = true // the capture began after the connection did: start here
	}
	return true
}

func (s *captureStream) ReassembledSG(sg reassembly.ScatterGather, _ reassembly.AssemblerContext) {
	dir, _, _, skip := sg.Info()
	d := s.direction(dir)
	h := &s.dirs[d]
	n, _ := sg.Lengths()
	if n == 0 || h.stopped {
		return
	}
	if s.conn.id == 0 { // not yet known to be PostgreSQL: the client speaks first, with a startup packet
		if d == Backend || !looksLikeStartup(sg.Fetch(min(n, 8))) {
			h.stopped, s.dirs[1-d].stopped = true, true
			return
		}
		s.identify()
	}
	at := sg.CaptureInfo(0).Timestamp
	if !h.started {
		h.started = true
		if !h.synSeen {
			s.c.logf("session #%d: the capture begins after the %s side of the connection did; decoding from its first bytes as a message start", s.conn.id, d.name())
			s.conn.resume()
		}
	}
	if skip > 0 {
		s.c.gaps++
		h.stopped = true
		s.c.logf("session #%d: %s bytes %d to %d are not in the capture; not decoding the %s side further", s.conn.id, d.name(), h.received, h.received+int64(skip), d.name())
		return
	}
	h.received += int64(n)
	h.feed.data = sg.Fetch(n)
	for !h.stopped {
		if h.d.next() == undecoded {
			h.stopped = true
			s.c.logf("session #%d: the server accepted encryption; not decoding the %s side further", s.conn.id, d.name())
			return
		}
		frame, err := h.next()
		if errors.Is(err, errNeedMore) {
			return
		}
		if err != nil {
			h.stopped = true
			h.a.stats[d].undecodable.Add(1)
			s.c.logf("session #%d: %s byte offset %d: %v; not decoding the %s side further", s.conn.id, d.name(), h.d.offset, err, d.name())
			return
		}
		if s.c.opts.onFrame != nil {
			s.c.opts.onFrame(s.conn.id, Direction(d), frame)
		}
		var problem string
		s.c.lines, _, problem = h.examine(frame, at, s.c.lines)
		if problem != "" {
			s.c.logf("session #%d: %s message at byte offset %d: %s", s.conn.id, d.name(), h.d.offset-int64(len(frame)), problem)
		}
		s.c.writeLines(false)
	}
}

// ReassemblyComplete reports a message the capture ends in the middle of.
func (s *captureStream) ReassemblyComplete(reassembly.AssemblerContext) bool {
	for d := range s.dirs {
		h := &s.dirs[d]
		if rest := h.received - h.d.offset; rest > 0 && !h.stopped {
			s.c.gaps++
			s.c.logf("session #%d: the capture ends %d bytes into the %s message at byte offset %d", s.conn.id, rest, Direction(d).name(), h.d.offset)
		}
	}
	return true
}

// next cuts the direction's next message, framed as the connection's phase
// says; errNeedMore when it has not all arrived.
func (h *halfStream) next() ([]byte, error) {
	kind, limit := h.d.framing(codec.DefaultMaxSize)
	h.fr.MaxSize = limit
	switch kind {
	case untagged:
		return h.fr.NextUntagged()
	case oneByte:
		if len(h.feed.data) == 0 {
			return nil, errNeedMore
		}
		b := h.feed.data[:1]
		h.feed.data = h.feed.data[1:]
		return b, nil
	}
	return h.fr.Next()
}
