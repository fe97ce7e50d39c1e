package trace

import (
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/pgspec/pgspec/codec"
)

// BenchmarkExamine is pgtrace's own work per pgbench -S transaction, off the
// sockets: both directions' messages decoded through the conversation,
// printed as text lines and re-encoded, as a session in front of
// PostgreSQL 15 sees them (simple: Query and its four answers; prepared:
// Bind, Execute, Sync and theirs), each transaction with another aid (as
// pgbench's random aid out of 100,000 makes them: more distinct frames than
// the formatter's cache keeps).
func BenchmarkExamine(b *testing.B) {
	for _, mode := range []string{"simple", "prepared"} {
		b.Run("mode="+mode, func(b *testing.B) {
			var a analyzer
			a.init(Format{}, io.Discard)
			c := newConn(1)
			fe, be := newExaminer(&a, &c.dirs[Frontend]), newExaminer(&a, &c.dirs[Backend])
			var lines []byte
			feed := func(x *examiner, msgs ...codec.Message) {
				for _, m := range msgs {
					frame, err := m.Encode(nil, codec.Params{Major: 15})
					if err != nil {
						b.Fatal(err)
					}
					var problem string
					lines, _, problem = x.examine(frame, time.Now(), lines[:0])
					if problem != "" {
						b.Fatalf("%T: %s", m, problem)
					}
				}
			}
			feed(&fe, &codec.StartupMessage{ProtocolVersion: 3 << 16, Parameters: []codec.StartupParameter{{Name: "user", Value: "postgres"}, {Name: "database", Value: "pgspec"}}})
			feed(&be, &codec.AuthenticationOk{}, &codec.ParameterStatus{Name: "server_version", Value: "15.18 (Debian 15.18-0+deb12u1)"},
				&codec.BackendKeyData{ProcessID: 4242, SecretKey: []byte{1, 2, 3, 4}}, &codec.ReadyForQuery{TxStatus: 'I'})
			column := codec.FieldDescription{Name: "abalance", TableOID: 16397, TableAttributeNumber: 3, DataTypeOID: 23, DataTypeSize: 4, TypeModifier: -1}
			if mode == "prepared" {
				feed(&fe, &codec.Parse{Name: "P_0", Query: "SELECT abalance FROM pgbench_accounts WHERE aid = $1;"}, &codec.Sync{})
				feed(&be, &codec.ParseComplete{}, &codec.ReadyForQuery{TxStatus: 'I'})
			}
			// Each transaction's frames, encoded beforehand as they arrive.
			type tx struct{ fe, be [][]byte }
			txs := make([]tx, 2*maxCachedBodies)
			enc := func(m codec.Message) []byte {
				frame, err := m.Encode(nil, codec.Params{Major: 15})
				if err != nil {
					b.Fatal(err)
				}
				return frame
			}
			for i := range txs {
				aid := strconv.Itoa(1 + i*7919%100000)
				t := &txs[i]
				if mode == "simple" {
					t.fe = [][]byte{enc(&codec.Query{String: "SELECT abalance FROM pgbench_accounts WHERE aid = " + aid + ";"})}
					t.be = [][]byte{enc(&codec.RowDescription{Fields: []codec.FieldDescription{column}})}
				} else {
					t.fe = [][]byte{enc(&codec.Bind{PreparedStatement: "P_0", Parameters: [][]byte{[]byte(aid)}, ResultFormatCodes: []int16{0}}),
						enc(&codec.Execute{}), enc(&codec.Sync{})}
					t.be = [][]byte{enc(&codec.BindComplete{})}
				}
				t.be = append(t.be, enc(&codec.DataRow{Values: [][]byte{[]byte("0")}}), enc(&codec.CommandComplete{CommandTag: "SELECT 1"}), enc(&codec.ReadyForQuery{TxStatus: 'I'}))
			}
			at := time.Now()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				t := &txs[i%len(txs)]
				for _, side := range []struct {
					x      *examiner
					frames [][]byte
				}{{&fe, t.fe}, {&be, t.be}} {
					lines = lines[:0]
					for _, frame := range side.frames {
						var problem string
						if lines, _, problem = side.x.examine(frame, at, lines); problem != "" {
							b.Fatal(problem)
						}
					}
				}
			}
		})
	}
}
