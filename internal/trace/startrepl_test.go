package trace

import (
	"testing"

	"github.com/pgspec/pgspec/codec"
)

func TestParseStartReplication(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		ok   bool
		want stream
	}{
		{"SELECT 1", false, stream{}},
		{"START_REPLICATION 0/3000000 TIMELINE 1", true, stream{}},
		{`START_REPLICATION SLOT "phys" PHYSICAL 0/3000000`, true, stream{}},
		// pg_recvlogical's spelling: quoted identifiers and literals.
		{`START_REPLICATION SLOT "s" LOGICAL 0/0 ("proto_version" '1', "publication_names" 'p')`, true, stream{protoVersion: 1}},
		// a quoted comma and an option without a value do not shift the others.
		{`start_replication slot s logical 0/16B3748 (publication_names '"a,b"', messages, proto_version '2', streaming 'on')`, true,
			stream{protoVersion: 2}},
		{`START_REPLICATION SLOT s LOGICAL 0/0 (proto_version '4', streaming 'parallel', two_phase 'on', binary 'off')`, true,
			stream{protoVersion: 4, streaming: codec.ParallelStreaming}},
		{`START_REPLICATION SLOT s LOGICAL 0/0 ("streaming" 'PARALLEL', 'it''s' 'x', proto_version '4')`, true,
			stream{protoVersion: 4, streaming: codec.ParallelStreaming}},
		// test_decoding: no proto_version, payloads stay opaque.
		{`START_REPLICATION SLOT "t" LOGICAL 0/0 ("include-xids" '0')`, true, stream{}},
		// an unterminated literal must not run away.
		{`START_REPLICATION SLOT s LOGICAL 0/0 (proto_version '3`, true, stream{}},
	} {
		got, ok := parseStartReplication(c.cmd)
		if ok != c.ok || got != c.want {
			t.Errorf("%s\n got %+v %v\nwant %+v %v", c.cmd, got, ok, c.want, c.ok)
		}
	}
}
