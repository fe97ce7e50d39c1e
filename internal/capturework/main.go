// Command capturework runs the parts of the capture workloads that libpq's
// tools cannot: binary parameters and results over the extended protocol,
// a suspended portal, COPY FROM STDIN in binary, CopyFail, an empty query,
// a startup with an unknown protocol option, and on a physical replication connection the standby
// status update, hot standby feedback and (19 on) primary status request;
// on 17 and later the slot commands no libpq tool sends: a logical slot
// created with FAILOVER and altered, a physical slot read, both dropped.
// testdata/captures/record.sh runs it against each major's server while
// tcpdump records; it is no test and prints nothing on success.
//
//	capturework -addr 127.0.0.1:5415 -user scram_user -password … sessions
//	capturework -addr 127.0.0.1:5415 -user repl_user -password … physical
//	capturework -addr 127.0.0.1:5417 -user repl_user -password … slots
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
	"github.com/pgspec/pgspec/internal/pgclient"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:5432", "server `host:port`")
	user := flag.String("user", "postgres", "role to connect as")
	password := flag.String("password", "", "the role's password")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: capturework [flags] sessions|physical|slots")
		flag.PrintDefaults()
	}
	flag.Parse()
	cfg := pgclient.Config{Addr: *addr, User: *user, Password: *password, Database: "postgres"}
	var err error
	switch flag.Arg(0) {
	case "sessions":
		err = sessions(cfg)
	case "physical":
		err = physical(cfg)
	case "slots":
		err = slots(cfg)
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "capturework %s: %v\n", flag.Arg(0), err)
		os.Exit(1)
	}
}

func connect(cfg pgclient.Config) (*pgclient.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return pgclient.Connect(ctx, cfg)
}

// sessions runs the extended-protocol and error-path workload, then a
// session that asks for protocol 3.2 with an option the server cannot know,
// and cancels a query from it (a 32-byte key where the server speaks 3.2).
func sessions(cfg pgclient.Config) error {
	c, err := connect(cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := extended(c); err != nil {
		return fmt.Errorf("extended query: %w", err)
	}
	if _, err := c.SimpleQuery(""); err != nil { // EmptyQueryResponse
		return err
	}
	if err := copyBinary(c); err != nil {
		return fmt.Errorf("binary COPY FROM STDIN: %w", err)
	}
	if err := copyFail(c); err != nil {
		return err
	}

	cfg.ProtocolMinor = 2
	cfg.ProtocolOptions = map[string]string{"_pq_.pgspec_unknown": "on"}
	c32, err := connect(cfg)
	if err != nil {
		return fmt.Errorf("protocol 3.2 session: %w", err)
	}
	defer c32.Close()
	if c32.Negotiated == nil {
		return errors.New("the server took an unknown _pq_ option without NegotiateProtocolVersion")
	}
	if err := c32.Send(&codec.Query{String: "select pg_sleep(30)"}); err != nil {
		return err
	}
	time.Sleep(500 * time.Millisecond)
	if err := c32.Cancel(cfg.Addr); err != nil {
		return err
	}
	var pe *session.Error
	if _, err := c32.ReadUntilReady(nil); !errors.As(err, &pe) || pe.SQLState() != "57014" {
		return fmt.Errorf("cancelled query ended with %v, want SQLSTATE 57014", err)
	}
	return nil
}

// extended prepares a statement with typed parameters, describes it, binds
// text and binary values with binary results, runs a portal in pieces
// (PortalSuspended), describes a statement without rows (NoData), and
// closes what it opened.
func extended(c *pgclient.Conn) error {
	const stmt = "pgspec_typed"
	int4 := binary.BigEndian.AppendUint32(nil, 41)
	float8 := binary.BigEndian.AppendUint64(nil, math.Float64bits(2.5))
	err := c.Send(
		&codec.Parse{Name: stmt, Query: "SELECT $1::int4 + 1, $2::text, $3::bytea, $4::float8, $5::numeric, NULL::int, '2024-01-02 03:04:05+00'::timestamptz",
			ParameterOIDs: []uint32{23, 25, 17, 701, 1700}},
		&codec.Describe{ObjectType: 'S', Name: stmt},
		&codec.Bind{PreparedStatement: stmt, ParameterFormatCodes: []int16{1, 0, 1, 1, 0},
			Parameters: [][]byte{int4, []byte("text ü"), {0, 1, 0xfe, 0xff}, float8, []byte("12.345")}, ResultFormatCodes: []int16{1}},
		&codec.Describe{ObjectType: 'P'},
		&codec.Execute{},
		&codec.Parse{Query: "SELECT g, g::text FROM generate_series(1, 5) g"},
		&codec.Bind{ResultFormatCodes: []int16{1, 0}},
		&codec.Execute{MaxRows: 2},
		&codec.Execute{MaxRows: 2},
		&codec.Execute{},
		&codec.Parse{Query: "SET application_name = 'capturework'"},
		&codec.Bind{},
		&codec.Describe{ObjectType: 'P'},
		&codec.Execute{},
		&codec.Close{ObjectType: 'S', Name: stmt},
		&codec.Flush{},
	)
	if err != nil {
		return err
	}
	// Flush: everything so far arrives before Sync; read up to CloseComplete.
	for {
		m, err := c.Receive()
		if err != nil {
			return err
		}
		if e, ok := m.(*codec.ErrorResponse); ok {
			return session.NewError(e.Fields)
		}
		if _, ok := m.(*codec.CloseComplete); ok {
			break
		}
	}
	if err := c.Send(&codec.Sync{}); err != nil {
		return err
	}
	_, err = c.ReadUntilReady(nil)
	return err
}

// copyIn sends a COPY FROM STDIN query and returns the server's
// CopyInResponse; any other answer is an error.
func copyIn(c *pgclient.Conn, sql string) (*codec.CopyInResponse, error) {
	if err := c.Send(&codec.Query{String: sql}); err != nil {
		return nil, err
	}
	m, err := c.Receive()
	if err != nil {
		return nil, err
	}
	r, ok := m.(*codec.CopyInResponse)
	if !ok {
		return nil, fmt.Errorf("%s answered %s, want CopyInResponse", sql, m.Slug())
	}
	return r, nil
}

// copyBinary sends one row in COPY's binary format: the PGCOPY signature,
// flags and header extension, a tuple of five fields (NULLs among them),
// and the trailer.
func copyBinary(c *pgclient.Conn) error {
	r, err := copyIn(c, "COPY items FROM STDIN (FORMAT binary)")
	if err != nil {
		return err
	}
	if r.OverallFormat != 1 {
		return fmt.Errorf("COPY FROM STDIN (FORMAT binary) answered a text CopyInResponse")
	}
	data := []byte("PGCOPY\n\xff\r\n\x00")
	data = binary.BigEndian.AppendUint32(data, 0) // flags
	data = binary.BigEndian.AppendUint32(data, 0) // header extension length
	data = binary.BigEndian.AppendUint16(data, 5)
	field := func(v []byte) {
		if v == nil {
			data = binary.BigEndian.AppendUint32(data, math.MaxUint32) // -1: NULL
			return
		}
		data = binary.BigEndian.AppendUint32(data, uint32(len(v)))
		data = append(data, v...)
	}
	field(binary.BigEndian.AppendUint32(nil, 8))
	field([]byte("binary row"))
	field(nil)
	field([]byte{0xde, 0xad, 0xbe, 0xef})
	field(nil)
	data = binary.BigEndian.AppendUint16(data, 0xffff) // trailer: -1
	if err := c.Send(&codec.CopyData{Data: data}, &codec.CopyDone{}); err != nil {
		return err
	}
	_, err = c.ReadUntilReady(nil)
	return err
}

// copyFail starts a COPY FROM STDIN, sends one row and abandons it.
func copyFail(c *pgclient.Conn) error {
	if _, err := copyIn(c, "COPY items FROM STDIN"); err != nil {
		return err
	}
	if err := c.Send(&codec.CopyData{Data: []byte("9\tabandoned\t1\t\\N\t\\N\n")}, &codec.CopyFail{Message: "capturework gives up"}); err != nil {
		return err
	}
	if _, err := c.ReadUntilReady(nil); err == nil {
		return errors.New("CopyFail did not fail the COPY")
	}
	return nil
}

// physical streams WAL from the start of the current page up to the server's
// position, then sends a standby status update asking for a reply, hot
// standby feedback and (19 on) a primary status request, and ends the
// stream with CopyDone.
func physical(cfg pgclient.Config) error {
	cfg.Params = map[string]string{"replication": "true", "application_name": "capturework"}
	c, err := connect(cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := c.SimpleQuery("IDENTIFY_SYSTEM")
	if err != nil {
		return err
	}
	if len(res) != 1 || len(res[0].Rows) != 1 || len(res[0].Rows[0]) < 3 {
		return fmt.Errorf("IDENTIFY_SYSTEM answered %v", res)
	}
	row := res[0].Rows[0]
	lsn, err := session.ParseLSN(string(row[2]))
	if err != nil {
		return err
	}
	pos := uint64(lsn)
	start := session.LSN(pos &^ 0x1fff) // the WAL page pos is on: XLogData at once
	tli, err := strconv.ParseUint(string(row[1]), 10, 32)
	if err != nil {
		return err
	}
	if err := c.StartReplication(&codec.StartReplicationPhysical{Physical: true, LSN: codec.LSN(start), Timeline: uint32(tli)}); err != nil {
		return err
	}
	for next := uint64(start); next < pos; {
		rm, err := c.ReceiveReplication()
		if err != nil {
			return err
		}
		if x, ok := rm.Msg.(*codec.XLogData); ok {
			next = x.WALStart + uint64(len(x.WALData))
		}
	}
	now, err := session.MicrosFromTime(time.Now())
	if err != nil {
		return err
	}
	if err := c.SendCopyData(&codec.StandbyStatusUpdate{WALWritePosition: pos, WALFlushPosition: pos, WALApplyPosition: pos, ClientTime: now, ReplyRequested: 1}); err != nil {
		return err
	}
	if err := awaitReplication(c, func(m codec.Message) bool { _, ok := m.(*codec.PrimaryKeepalive); return ok }); err != nil {
		return fmt.Errorf("reply to a standby status update: %w", err)
	}
	if err := c.SendCopyData(&codec.HotStandbyFeedback{ClientTime: now}); err != nil {
		return err
	}
	if c.P.Major >= 19 {
		if err := c.SendCopyData(&codec.RequestPrimaryStatusUpdate{ClientTime: now}); err != nil {
			return err
		}
		if err := awaitReplication(c, func(m codec.Message) bool { _, ok := m.(*codec.PrimaryStatusUpdate); return ok }); err != nil {
			return fmt.Errorf("reply to a primary status request: %w", err)
		}
	}
	if err := c.Send(&codec.CopyDone{}); err != nil {
		return err
	}
	if err := awaitReplication(c, func(m codec.Message) bool { _, ok := m.(*codec.CopyDone); return ok }); err != nil {
		return err
	}
	_, err = c.ReadUntilReady(nil)
	return err
}

// slots sends, on a replication=database connection of 17 or later, the
// slot commands of 17 and later: CREATE_REPLICATION_SLOT with FAILOVER,
// ALTER_REPLICATION_SLOT, READ_REPLICATION_SLOT of a physical slot (the
// only kind it reads) and DROP_REPLICATION_SLOT … WAIT.
func slots(cfg pgclient.Config) error {
	cfg.Params = map[string]string{"replication": "database", "application_name": "capturework"}
	c, err := connect(cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	on, off := true, false
	for _, cmd := range []codec.Command{
		&codec.CreateReplicationSlot{SlotName: "failover_slot", OutputPlugin: "pgoutput", Snapshot: "nothing", Failover: &on},
		&codec.AlterReplicationSlot{SlotName: "failover_slot", Failover: &off},
		&codec.AlterReplicationSlot{SlotName: "failover_slot", Failover: &on},
		&codec.CreateReplicationSlot{SlotName: "physical_slot", ReserveWAL: &on},
		&codec.ReadReplicationSlot{SlotName: "physical_slot"},
		&codec.ReadReplicationSlot{SlotName: "no_such_slot"}, // a row of NULLs
		&codec.DropReplicationSlot{SlotName: "physical_slot", Wait: true},
		&codec.DropReplicationSlot{SlotName: "failover_slot", Wait: true},
	} {
		if err := c.Command(cmd, nil); err != nil {
			return fmt.Errorf("%s: %w", cmd, err)
		}
	}
	return nil
}

// awaitReplication reads the replication stream until done accepts a message.
func awaitReplication(c *pgclient.Conn, done func(codec.Message) bool) error {
	for {
		rm, err := c.ReceiveReplication()
		if err != nil {
			return err
		}
		if e, ok := rm.Msg.(*codec.ErrorResponse); ok {
			return session.NewError(e.Fields)
		}
		if done(rm.Msg) {
			return nil
		}
	}
}
