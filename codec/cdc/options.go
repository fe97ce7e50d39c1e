package cdc

import (
	"fmt"
	"strings"

	"github.com/pgspec/pgspec/codec"
)

// PluginOptions are pgoutput's START_REPLICATION options; what each
// major and proto_version accepts is the codec's (PgoutputOptions, from
// the manual and its reviewed corrections), not a table of this package.
type PluginOptions struct {
	// ProtoVersion is pgoutput's proto_version, 1 to 4.
	ProtoVersion int
	// Streaming is off, on or parallel: the server sends a large
	// transaction in segments before it commits.
	Streaming codec.PgoutputStreaming
	// TwoPhase sends prepared transactions at PREPARE TRANSACTION.
	TwoPhase bool
	// Binary sends values in their types' binary form.
	Binary bool
	// Messages sends pg_logical_emit_message's messages.
	Messages bool
}

// OptionsFor is what a consumer asks a server of the given major for:
// proto_version 4 with parallel streaming on 16 and later, 3 with
// streaming and two-phase on 15, 2 with streaming on 14, 1 on 10 to 13;
// messages from 14 on; text values.
func OptionsFor(major int) PluginOptions {
	switch {
	case major >= 16:
		return PluginOptions{ProtoVersion: 4, Streaming: codec.StreamingParallel, TwoPhase: true, Messages: true}
	case major == 15:
		return PluginOptions{ProtoVersion: 3, Streaming: codec.StreamingOn, TwoPhase: true, Messages: true}
	case major == 14:
		return PluginOptions{ProtoVersion: 2, Streaming: codec.StreamingOn, Messages: true}
	}
	return PluginOptions{ProtoVersion: 1}
}

// pgoutput is o for the publications pubs, as the codec's typed options.
func (o PluginOptions) pgoutput(pubs []string) codec.PgoutputOptions {
	return codec.PgoutputOptions{ProtoVersion: o.ProtoVersion, Publications: pubs, Binary: o.Binary,
		Messages: o.Messages, Streaming: o.Streaming, TwoPhase: o.TwoPhase}
}

// Check says whether a server of the given major accepts o: an error
// naming the option, and the majors or the proto_version it needs.
func (o PluginOptions) Check(major int) error {
	if o.ProtoVersion < 1 {
		// The codec reads 0 as "the newest"; a consumer names its version.
		return fmt.Errorf("cdc: proto_version %d: set 1 or later", o.ProtoVersion)
	}
	_, err := o.pgoutput([]string{"p"}).PluginOptions(codec.Params{Major: major})
	return err
}

// startReplication is START_REPLICATION for slot from lsn with o, sending
// the publications' changes; o was checked for major.
func startReplication(slot string, lsn LSN, pubs []string, o PluginOptions, major int) (*codec.StartReplicationLogical, error) {
	opts, err := o.pgoutput(pubs).PluginOptions(codec.Params{Major: major})
	if err != nil {
		return nil, err
	}
	return &codec.StartReplicationLogical{SlotName: slot, LSN: codec.LSN(lsn), Options: opts}, nil
}

// createSlot creates slot for pgoutput without exporting a snapshot,
// two-phase when asked (an option PostgreSQL 15 brought, with the option
// list the snapshot choice moved to).
func createSlot(slot string, major int, twoPhase bool) *codec.CreateReplicationSlot {
	c := &codec.CreateReplicationSlot{SlotName: slot, OutputPlugin: "pgoutput"}
	if major >= 15 {
		c.Snapshot, c.TwoPhase = "nothing", &twoPhase
	} else {
		c.NoexportSnapshot = true
	}
	return c
}

// checkSlotName accepts what PostgreSQL accepts for a slot name: 1 to 63
// lower-case letters, digits and underscores.
func checkSlotName(s string) error {
	ok := len(s) > 0 && len(s) < 64
	for _, c := range []byte(s) {
		ok = ok && (c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_')
	}
	if !ok {
		return fmt.Errorf("cdc: slot name %q: PostgreSQL takes 1 to 63 lower-case letters, digits and underscores", s)
	}
	return nil
}

// literal quotes s as an SQL string literal.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
