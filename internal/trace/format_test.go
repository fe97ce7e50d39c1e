package trace

import (
	"strings"
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// TestLines renders hand-built messages in both styles; the expected lines
// are written out by hand from the rules in appendLine's comment.
func TestLines(t *testing.T) {
	insert := &codec.LogicalInsert{RelationOID: 16390, New: codec.TupleData{Columns: []codec.TupleDataColumn{
		{Kind: 't', Data: []byte("1")}, {Kind: 'n'}, {Kind: 'b', Data: []byte{0, 0xff}}}}}
	chain := []layer{
		{msg: &codec.CopyData{Data: []byte("payload, not printed")}},
		{msg: &codec.XLogData{WALStart: 1, ServerWALEnd: 2, ServerTime: 3, WALData: []byte("not printed")}},
		{msg: insert},
	}
	long := []layer{{msg: &codec.DataRow{Values: [][]byte{[]byte(strings.Repeat("x", 70)), nil, {}}}}}
	salt := []layer{{msg: &codec.AuthenticationMD5Password{Salt: [4]byte{1, 2, 3, 0xff}}}}
	empty := []layer{{msg: &codec.Sync{}}}
	for _, c := range []struct {
		json  bool
		chain []layer
		want  string
	}{
		{false, chain, `#7 B @42 CopyData > XLogData WALStart=1 ServerWALEnd=2 ServerTime=3 > LogicalInsert Xid=0 RelationOID=16390 New={Columns=[{Kind='t' Data="1"} {Kind='n' Data=NULL} {Kind='b' Data=0x00ff}]}`},
		{true, chain, `{"session":7,"dir":"B","offset":42,"messages":[{"type":"CopyData"},{"type":"XLogData","WALStart":1,"ServerWALEnd":2,"ServerTime":3},{"type":"LogicalInsert","Xid":0,"RelationOID":16390,"New":{"Columns":[{"Kind":116,"Data":"1"},{"Kind":110,"Data":null},{"Kind":98,"Data":{"hex":"00ff"}}]}}]}`},
		{false, long, `#7 B @42 DataRow Values=["` + strings.Repeat("x", 64) + `"…(70 bytes) NULL ""]`},
		{true, long, `{"session":7,"dir":"B","offset":42,"messages":[{"type":"DataRow","Values":["` + strings.Repeat("x", 70) + `",null,""]}]}`},
		{false, salt, `#7 B @42 AuthenticationMD5Password Salt=0x010203ff`},
		{true, salt, `{"session":7,"dir":"B","offset":42,"messages":[{"type":"AuthenticationMD5Password","Salt":{"hex":"010203ff"}}]}`},
		{false, empty, `#7 B @42 Sync`},
		{true, empty, `{"session":7,"dir":"B","offset":42,"messages":[{"type":"Sync"}]}`},
	} {
		if got := string(style{json: c.json}.appendLine(nil, 7, Backend, 42, c.chain)); got != c.want+"\n" {
			t.Errorf("\n got %s\nwant %s", got, c.want)
		}
	}
}
