package traceline_test

import (
	"fmt"

	"github.com/pgspec/pgspec/codec/traceline"
)

// A line of `pgtrace decode --format json --show-secrets --max-value 0` of
// PostgreSQL 15's logical replication, read back into its three messages and
// encoded into the 68 bytes the server sent: CopyData ('d', length 67)
// around XLogData ('w', three 8-byte fields) around pgoutput's Insert ('I',
// relation 16395, a new tuple of four text columns, the last the bytea
// text \x01, four bytes).
func ExampleRead() {
	line := `{"time":"2026-11-30T13:38:05.395280Z","session":4,"dir":"B","offset":1162,"messages":[` +
		`{"name":"CopyData","slug":"copy-data","params":{"major":15}},` +
		`{"name":"XLogData","slug":"replication-xlog-data","params":{"major":15},"WALStart":"0/6413C0","ServerWALEnd":"0/6413C0","ServerTime":"2026-11-30T13:38:05.395276Z"},` +
		`{"name":"LogicalInsert","slug":"logical-insert","params":{"major":15,"logical_version":1},"RelationOID":16395,` +
		`"New":{"Columns":[{"Kind":116,"Data":"1"},{"Kind":116,"Data":"one"},{"Kind":116,"Data":"ok"},{"Kind":116,"Data":"\\x01"}]}}]}`
	l, err := traceline.Read([]byte(line))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range l.Messages {
		fmt.Println(m.Msg.Descriptor().Name, m.Params.Major, m.Params.LogicalVersion)
	}
	wire, err := l.Wire()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%c %d bytes: % x | %c %x | %c %x\n", l.Dir, len(wire), wire[:5], wire[5], wire[6:14], wire[30], wire[31:35])
	// Output:
	// CopyData 15 0
	// XLogData 15 0
	// LogicalInsert 15 1
	// B 68 bytes: 64 00 00 00 43 | w 00000000006413c0 | I 0000400b
}
