package trace

import (
	"testing"

	"github.com/pgspec/pgspec/codec"
)

func TestParseStartReplication(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		ok   bool
		want codec.Params // LogicalVersion and Streaming; Logical follows LogicalVersion
	}{
		{"SELECT 1", false, codec.Params{}},
		{"START_REPLICATION 0/3000000 TIMELINE 1", true, codec.Params{}},
		{`START_REPLICATION SLOT "phys" PHYSICAL 0/3000000`, true, codec.Params{}},
		// pg_recvlogical's spelling: quoted identifiers and literals.
		{`START_REPLICATION SLOT "s" LOGICAL 0/0 ("proto_version" '1', "publication_names" 'p')`, true, codec.Params{LogicalVersion: 1}},
		// a quoted comma and an option without a value do not shift the others.
		{`start_replication slot s logical 0/16B3748 (publication_names '"a,b"', messages, proto_version '2', streaming 'on')`, true,
			codec.Params{LogicalVersion: 2}},
		{`START_REPLICATION SLOT s LOGICAL 0/0 (proto_version '4', streaming 'parallel', two_phase 'on', binary 'off')`, true,
			codec.Params{LogicalVersion: 4, Streaming: codec.ParallelStreaming}},
		{`START_REPLICATION SLOT s LOGICAL 0/0 ("streaming" 'PARALLEL', 'it''s' 'x', proto_version '4')`, true,
			codec.Params{LogicalVersion: 4, Streaming: codec.ParallelStreaming}},
		// test_decoding: no proto_version, payloads stay opaque.
		{`START_REPLICATION SLOT "t" LOGICAL 0/0 ("include-xids" '0')`, true, codec.Params{}},
		// an unterminated literal must not run away.
		{`START_REPLICATION SLOT s LOGICAL 0/0 (proto_version '3`, true, codec.Params{}},
	} {
		got, ok := parseStartReplication(c.cmd)
		if ok != c.ok || ok != (got != nil) {
			t.Errorf("%s\n got %v, %v; want ok %v", c.cmd, got, ok, c.ok)
			continue
		}
		if ok && (got.P != c.want || got.Logical != (c.want.LogicalVersion != 0)) {
			t.Errorf("%s\n got %+v logical %v\nwant %+v", c.cmd, got.P, got.Logical, c.want)
		}
	}
}
