package trace

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"

	"github.com/pgspec/pgspec/codec"
)

// packet is one captured frame of a synthetic capture.
type packet struct {
	at   time.Time
	data []byte
}

// tcpConn builds the frames of one TCP connection between a client port
// and a server port on 127.0.0.1, keeping both sides' sequence numbers.
type tcpConn struct {
	t                      *testing.T
	clientPort, serverPort uint16
	seq                    [2]uint32 // next sequence number: [0] client, [1] server
}

func (c *tcpConn) frame(fromClient bool, flags string, seq uint32, payload []byte) []byte {
	c.t.Helper()
	tcp := &layers.TCP{SrcPort: layers.TCPPort(c.clientPort), DstPort: layers.TCPPort(c.serverPort), Seq: seq, Window: 65535,
		SYN: strings.Contains(flags, "S"), ACK: strings.Contains(flags, "A"), PSH: len(payload) > 0}
	if !fromClient {
		tcp.SrcPort, tcp.DstPort = tcp.DstPort, tcp.SrcPort
	}
	if tcp.ACK {
		tcp.Ack = c.seq[boolIndex(fromClient)]
	}
	ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: net.IPv4(127, 0, 0, 1), DstIP: net.IPv4(127, 0, 0, 1)}
	tcp.SetNetworkLayerForChecksum(ip)
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{0, 0, 0, 0, 0, 0}, DstMAC: net.HardwareAddr{0, 0, 0, 0, 0, 0}, EthernetType: layers.EthernetTypeIPv4}
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, tcp, gopacket.Payload(payload)); err != nil {
		c.t.Fatal(err)
	}
	return buf.Bytes()
}

// boolIndex is the index of the side that receives: the server's when the
// client sends.
func boolIndex(fromClient bool) int {
	if fromClient {
		return 1
	}
	return 0
}

// handshake is SYN, SYN-ACK, ACK.
func (c *tcpConn) handshake() [][]byte {
	c.seq = [2]uint32{1000, 5000}
	syn := c.frame(true, "S", c.seq[0], nil)
	c.seq[0]++
	synAck := c.frame(false, "SA", c.seq[1], nil)
	c.seq[1]++
	return [][]byte{syn, synAck, c.frame(true, "A", c.seq[0], nil)}
}

// send returns the frames of payload sent by one side, cut into segments
// of at most mss bytes.
func (c *tcpConn) send(fromClient bool, payload []byte, mss int) [][]byte {
	side := 1 - boolIndex(fromClient)
	var out [][]byte
	for len(payload) > 0 {
		n := min(len(payload), mss)
		out = append(out, c.frame(fromClient, "A", c.seq[side], payload[:n]))
		c.seq[side] += uint32(n)
		payload = payload[n:]
	}
	return out
}

// wire encodes messages back to back.
func wire(t testing.TB, p codec.Params, msgs ...codec.Message) []byte {
	var b []byte
	for _, m := range msgs {
		var err error
		if b, err = m.Encode(b, p); err != nil {
			t.Fatalf("%T: %v", m, err)
		}
	}
	return b
}

// startup is a StartupMessage for protocol 3.minor; replication, unless
// "", asks for a walsender (true: physical, database: logical), without
// which the server takes no replication command.
func startup(minor uint32, replication string) *codec.StartupMessage {
	m := &codec.StartupMessage{ProtocolVersion: 3<<16 | minor, Parameters: []codec.StartupParameter{{Name: "user", Value: "u"}}}
	if replication != "" {
		m.Parameters = append(m.Parameters, codec.StartupParameter{Name: "replication", Value: replication})
	}
	return m
}

// replication is a physical stream's opening: the command, the server's
// CopyBothResponse and one XLogData.
func replication(t *testing.T) (query, stream []byte) {
	query = wire(t, codec.Params{}, &codec.Query{String: "START_REPLICATION PHYSICAL 0/1000000"})
	x := wire(t, codec.Params{}, &codec.XLogData{WALStart: 0x1000000, ServerWALEnd: 0x1000003, ServerTime: 1_000_000, WALData: []byte("wal")})
	stream = wire(t, codec.Params{}, &codec.CopyBothResponse{OverallFormat: 0}, &codec.CopyData{Data: x})
	return query, stream
}

// syntheticCapture is three PostgreSQL connections and one HTTP one, in
// this capture order:
//
//	#1 (protocol 3.2, server 19) and #2 (3.0, server 18.1) start up, their
//	   frames interleaved; #1's 32-byte cancel key needs 3.2 to decode;
//	#1 sends START_REPLICATION in three segments that arrive 3, 1, 2, and
//	   segment 1 again (a retransmission); #2 sends it in one;
//	both servers answer with a CopyBothResponse and an XLogData (WALData
//	   on 19), #1's cut in two segments that arrive in order;
//	#3 (on port 6543) has a server that sends three segments of which the
//	   second is not captured;
//	a connection to port 80 is ignored.
func syntheticCapture(t *testing.T) []packet {
	c1 := &tcpConn{t: t, clientPort: 40001, serverPort: 5432}
	c2 := &tcpConn{t: t, clientPort: 40002, serverPort: 5432}
	c3 := &tcpConn{t: t, clientPort: 40003, serverPort: 6543}
	web := &tcpConn{t: t, clientPort: 40004, serverPort: 80}
	hello := func(version string, key []byte, minor int) []byte {
		return wire(t, codec.Params{ProtocolMinor: minor}, &codec.AuthenticationOk{}, &codec.ParameterStatus{Name: "server_version", Value: version},
			&codec.BackendKeyData{ProcessID: 7, SecretKey: key}, &codec.ReadyForQuery{TxStatus: 'I'})
	}
	var frames [][]byte
	add := func(f ...[]byte) { frames = append(frames, f...) }
	add(c1.handshake()...)
	add(c2.handshake()...)
	add(web.handshake()...)
	add(web.send(true, []byte("GET / HTTP/1.1\r\n\r\n"), 1460)...)
	add(c1.send(true, wire(t, codec.Params{}, startup(2, "true")), 1460)...)
	add(c2.send(true, wire(t, codec.Params{}, startup(0, "on")), 1460)...)
	add(c2.send(false, hello("18.1 (Debian 18.1-1)", []byte("k3y!"), 0), 1460)...)
	add(c1.send(false, hello("19.0", bytes.Repeat([]byte{0xa5}, 32), 2), 1460)...)
	query, stream := replication(t)
	q1 := c1.send(true, query, 15)
	if len(q1) != 3 {
		t.Fatalf("query in %d segments", len(q1))
	}
	add(q1[2], q1[0], q1[1], q1[0])
	add(c2.send(true, query, 1460)...)
	add(c1.send(false, stream, len(stream)/2+1)...)
	add(c2.send(false, stream, 1460)...)
	add(c3.handshake()...)
	add(c3.send(true, wire(t, codec.Params{}, startup(0, "")), 1460)...)
	lost := c3.send(false, hello("18.1", []byte("k3y!"), 0), 20)
	add(lost[0])
	add(lost[2:]...)

	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var out []packet
	for i, f := range frames {
		out = append(out, packet{start.Add(time.Duration(i) * time.Millisecond), f})
	}
	return out
}

func pcapFile(t *testing.T, pkts []packet, ng bool) []byte {
	t.Helper()
	var b bytes.Buffer
	var write func(ci gopacket.CaptureInfo, data []byte) error
	flush := func() error { return nil }
	if ng {
		w, err := pcapgo.NewNgWriter(&b, layers.LinkTypeEthernet)
		if err != nil {
			t.Fatal(err)
		}
		write, flush = w.WritePacket, w.Flush
	} else {
		w := pcapgo.NewWriter(&b)
		if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
			t.Fatal(err)
		}
		write = w.WritePacket
	}
	for _, p := range pkts {
		if err := write(gopacket.CaptureInfo{Timestamp: p.at, CaptureLength: len(p.data), Length: len(p.data)}, p.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := flush(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func decodeFile(t *testing.T, file []byte, opts CaptureOptions) (*Capture, string, string) {
	t.Helper()
	var out, log bytes.Buffer
	opts.Out, opts.Log = &out, &log
	c, err := DecodeCapture(bytes.NewReader(file), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c, out.String(), log.String()
}

// TestDecodeCapture decodes the synthetic capture from pcap, pcapng and
// gzipped pcap:
// every message of the two whole connections decodes and re-encodes
// identically, in capture order, with the protocol and major each server
// announced; the lost segment of the third is reported, not guessed over.
func TestDecodeCapture(t *testing.T) {
	pkts := syntheticCapture(t)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(pcapFile(t, pkts, false))
	zw.Close()
	for ng, file := range map[string][]byte{"pcap": pcapFile(t, pkts, false), "pcap.gz": gz.Bytes(), "pcapng": pcapFile(t, pkts, true)} {
		c, out, log := decodeFile(t, file, CaptureOptions{})
		var sum bytes.Buffer
		c.Summary(&sum)
		if c.Connections() != 3 || c.Gaps() != 1 || c.Clean() {
			t.Errorf("%s: %d connections, %d gaps, clean %v\n%s", ng, c.Connections(), c.Gaps(), c.Clean(), &sum)
		}
		// 3 StartupMessage, 2 Query; 3+4+4+1 backend messages before the stream, 2 × 2 after.
		if f, b := c.Stats(Frontend), c.Stats(Backend); f.Decoded != 5 || f.Identical != 5 || b.Decoded != 13 || b.Identical != 13 || f.Undecodable+b.Undecodable != 0 {
			t.Errorf("%s: counts\n%s", ng, &sum)
		}
		if want := "session #3: backend bytes 20 to 40 are not in the capture; not decoding the backend side further"; !strings.Contains(log, want) {
			t.Errorf("%s: log lacks %q:\n%s", ng, want, log)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		for i, want := range []string{
			"2026-11-30T12:00:00.010000Z #1 F @0 StartupMessage ProtocolVersion=196610 Parameters=[{Name=\"user\" Value=\"u\"} {Name=\"replication\" Value=\"true\"}]",
			"2026-11-30T12:00:00.011000Z #2 F @0 StartupMessage ProtocolVersion=196608",
			"#2 B @0 AuthenticationOk", "#2 B @9 ParameterStatus", "#2 B @", "#2 B @", // #2's server answers first
			"#1 B @0 AuthenticationOk", "#1 B @9 ParameterStatus Name=\"server_version\" Value=\"19.0\"", "#1 B @", "#1 B @",
			"2026-11-30T12:00:00.016000Z #1 F @", // completed by the segment that arrived last
			"#2 F @",
			"#1 B @", `#1 B @89 CopyData > WALData WALStart=0/1000000 ServerWALEnd=0/1000003 ServerTime=2000-01-01T00:00:01Z WALData="wal"`,
			"#2 B @", `#2 B @77 CopyData > XLogData WALStart=0/1000000`,
			"#3 F @0 StartupMessage", "#3 B @0 AuthenticationOk",
		} {
			if i >= len(lines) || !strings.Contains(lines[i], want) {
				t.Fatalf("%s: line %d lacks %q:\n%s", ng, i, want, out)
			}
		}
		if len(lines) != 18 || !strings.Contains(out, "#1 B @34 BackendKeyData ProcessID=7 SecretKey=<redacted 32 bytes>") {
			t.Errorf("%s: %d lines:\n%s", ng, len(lines), out)
		}
	}
}

// TestDecodeCaptureOverrides: --major names every connection's messages as
// that major does, whatever the servers said; --port follows one port only,
// even one that carries no PostgreSQL.
func TestDecodeCaptureOverrides(t *testing.T) {
	file := pcapFile(t, syntheticCapture(t), false)
	_, out, _ := decodeFile(t, file, CaptureOptions{Major: 18})
	if strings.Contains(out, "> WALData") || strings.Count(out, "CopyData > XLogData") != 2 {
		t.Errorf("--major 18:\n%s", out)
	}
	if c, _, _ := decodeFile(t, file, CaptureOptions{Port: 5432}); c.Connections() != 2 || c.Gaps() != 0 {
		t.Errorf("--port 5432: %d connections, %d gaps", c.Connections(), c.Gaps())
	}
	c, out, log := decodeFile(t, file, CaptureOptions{Port: 80})
	if c.Connections() != 1 || c.Stats(Frontend).Undecodable != 1 || !strings.Contains(log, "session #1: frontend byte offset 0: codec: frame length 1195725856 (max 10000): message longer than the maximum size; not decoding the frontend side further") {
		t.Errorf("--port 80: %d connections\n%s\n%s", c.Connections(), out, log)
	}
}

// TestDecodeCaptureErrors: what is not a capture, or is cut short, is an
// error naming where.
func TestDecodeCaptureErrors(t *testing.T) {
	file := pcapFile(t, syntheticCapture(t), false)
	for _, c := range []struct {
		file []byte
		want string
	}{
		{[]byte("GET / HTTP/1.1\r\n"), "not a pcap or pcapng capture: "},
		{nil, "not a pcap or pcapng capture: unexpected EOF"},
		{file[:len(file)-10], fmt.Sprintf("packet %d (byte ", len(syntheticCapture(t)))},
	} {
		_, err := DecodeCapture(bytes.NewReader(c.file), CaptureOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// TestDecodeCaptureProgress: a progress line names how far the decoder got.
func TestDecodeCaptureProgress(t *testing.T) {
	defer func(d time.Duration) { progressEvery = d }(progressEvery)
	progressEvery = 0
	file := pcapFile(t, syntheticCapture(t), false)
	var progress bytes.Buffer
	if _, err := DecodeCapture(bytes.NewReader(file), CaptureOptions{Progress: &progress, Size: int64(len(file))}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(progress.String(), "pgtrace decode: 0 of 0 MiB (100%), ") {
		t.Errorf("progress:\n%s", &progress)
	}
}

// TestDecodeCaptureLogical: the pgoutput options come from the
// START_REPLICATION in the capture, as in trace: with proto_version 2 and
// streaming, an Insert between Stream Start and Stream Stop carries its xid,
// one after it does not.
func TestDecodeCaptureLogical(t *testing.T) {
	c := &tcpConn{t: t, clientPort: 40001, serverPort: 5432}
	v2 := codec.Params{Major: 18, LogicalVersion: 2}
	streamed := v2
	streamed.Streaming = codec.Streamed
	insert := func(xid uint32) codec.Message {
		return &codec.LogicalInsert{Xid: xid, RelationOID: 16390, New: codec.TupleData{Columns: []codec.TupleDataColumn{{Kind: 't', Data: []byte("1")}}}}
	}
	wal := func(m codec.Message, p codec.Params) codec.Message {
		return &codec.CopyData{Data: wire(t, p, &codec.XLogData{WALStart: 0x16B3740, WALData: wire(t, p, m)})}
	}
	frames := c.handshake()
	frames = append(frames, c.send(true, wire(t, codec.Params{}, startup(0, "database")), 1460)...)
	frames = append(frames, c.send(false, wire(t, codec.Params{}, &codec.AuthenticationOk{}, &codec.ParameterStatus{Name: "server_version", Value: "18.1"},
		&codec.ReadyForQuery{TxStatus: 'I'}), 1460)...)
	frames = append(frames, c.send(true, wire(t, codec.Params{}, &codec.Query{String: `START_REPLICATION SLOT "s" LOGICAL 0/0 ("proto_version" '2', "publication_names" 'p', "streaming" 'on')`}), 1460)...)
	frames = append(frames, c.send(false, wire(t, codec.Params{}, &codec.CopyBothResponse{},
		wal(&codec.LogicalStreamStart{Xid: 7, FirstSegment: 1}, v2), wal(&codec.LogicalRelation{Xid: 7, RelationOID: 16390, Namespace: "public", RelationName: "t"}, streamed),
		wal(insert(7), streamed), wal(&codec.LogicalStreamStop{}, v2),
		wal(&codec.LogicalBegin{Xid: 8}, v2), wal(insert(0), v2), wal(&codec.LogicalCommit{}, v2)), 1460)...)
	var pkts []packet
	for i, f := range frames {
		pkts = append(pkts, packet{time.Unix(int64(i), 0), f})
	}
	capture, out, log := decodeFile(t, pcapFile(t, pkts, false), CaptureOptions{})
	if !capture.Clean() || log != "" {
		t.Errorf("not clean:\n%s", log)
	}
	for _, want := range []string{"> LogicalStreamStart Xid=7 FirstSegment=1\n", "> LogicalInsert Xid=7 RelationOID=16390 New=", "> LogicalStreamStop\n", "> LogicalInsert RelationOID=16390 New="} {
		if !strings.Contains(out, want) {
			t.Errorf("lines lack %q:\n%s", want, out)
		}
	}
}

// FuzzDecodeCapture: whatever a capture file holds, DecodeCapture returns
// (an error or counts) without panicking.
func FuzzDecodeCapture(f *testing.F) {
	f.Add(pcapFile(&testing.T{}, syntheticCapture(&testing.T{}), false))
	f.Add(pcapFile(&testing.T{}, syntheticCapture(&testing.T{}), true))
	f.Fuzz(func(t *testing.T, file []byte) {
		DecodeCapture(bytes.NewReader(file), CaptureOptions{Out: io.Discard, Log: io.Discard})
	})
}

// TestDecodeCaptureHostileLengths: a capture whose packet claims 4 GiB is an
// error naming where, and costs only the decoder's fixed buffers (pcapgo
// alone would allocate what the header claims).
func TestDecodeCaptureHostileLengths(t *testing.T) {
	pcap := pcapFile(t, syntheticCapture(t)[:1], false)
	binary.LittleEndian.PutUint32(pcap[16:], 0xffffffff)    // snap length
	binary.LittleEndian.PutUint32(pcap[24+8:], 0xfffffff0)  // the packet's captured length
	binary.LittleEndian.PutUint32(pcap[24+12:], 0xfffffff0) // and original length
	ng := pcapFile(t, syntheticCapture(t)[:1], true)
	epb := bytes.Index(ng, []byte{6, 0, 0, 0}) // the Enhanced Packet Block
	binary.LittleEndian.PutUint32(ng[epb+20:], 0xfffffff0)
	for _, c := range []struct {
		file []byte
		want string
	}{
		{pcap, "packet 1 (byte 24): capture length exceeds snap length: 4294967280 > 262144"},
		{ng, fmt.Sprintf("pcapng block at byte %d: packet of 4294967280 bytes in a block of", epb)},
	} {
		var err error
		n := allocated(func() { _, err = DecodeCapture(bytes.NewReader(c.file), CaptureOptions{}) })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
		if n > 8<<20 { // the reader's and the assembler's buffers, whatever the file
			t.Errorf("allocated %d bytes", n)
		}
	}
}

// TestDecodeTruncatedCapture: a capture cut in the middle of a packet (a
// recording killed mid-write) prints every line of the packets before the
// cut — the same lines as the capture that ends at the last whole packet,
// each whole — and then fails naming the packet and byte of the cut.
func TestDecodeTruncatedCapture(t *testing.T) {
	pkts := syntheticCapture(t)
	for _, json := range []bool{false, true} {
		for _, k := range []int{len(pkts) / 2, len(pkts) - 1} {
			whole := pcapFile(t, pkts[:k], false)
			_, want, _ := decodeFile(t, whole, CaptureOptions{Format: Format{JSON: json}})
			full := pcapFile(t, pkts, false)
			cut := full[:len(whole)+16+5] // the next packet's header and 5 bytes of its data
			var out, log bytes.Buffer
			_, err := DecodeCapture(bytes.NewReader(cut), CaptureOptions{Format: Format{JSON: json}, Out: &out, Log: &log})
			if wantErr := fmt.Sprintf("packet %d (byte %d): unexpected EOF", k+1, len(whole)); err == nil || err.Error() != wantErr {
				t.Errorf("json %v, cut after %d packets: error %v, want %q", json, k, err, wantErr)
			}
			if want == "" || out.String() != want {
				t.Errorf("json %v, cut after %d packets: printed\n%s\nwant\n%s", json, k, out.String(), want)
			}
		}
	}
}
