package cdc

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pgspec/pgspec/codec"
)

// PluginOptions are pgoutput's START_REPLICATION options.
type PluginOptions struct {
	// ProtoVersion is pgoutput's proto_version, 1 to 4.
	ProtoVersion int
	// Streaming is "" (off), "on" or "parallel": the server sends a large
	// transaction in segments before it commits.
	Streaming string
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
		return PluginOptions{ProtoVersion: 4, Streaming: "parallel", TwoPhase: true, Messages: true}
	case major == 15:
		return PluginOptions{ProtoVersion: 3, Streaming: "on", TwoPhase: true, Messages: true}
	case major == 14:
		return PluginOptions{ProtoVersion: 2, Streaming: "on", Messages: true}
	}
	return PluginOptions{ProtoVersion: 1}
}

// maxProto is the newest proto_version of a major's pgoutput.
func maxProto(major int) int {
	switch {
	case major >= 16:
		return 4
	case major >= 14:
		return major - 12
	}
	return 1
}

// Check says whether a server of the given major accepts o, and the
// proto_version its options need.
func (o PluginOptions) Check(major int) error {
	need := func(what string, proto, since int) error {
		switch {
		case o.ProtoVersion < proto:
			return fmt.Errorf("cdc: %s needs proto_version %d or later, not %d", what, proto, o.ProtoVersion)
		case major < since:
			return fmt.Errorf("cdc: %s needs PostgreSQL %d or later, not %d", what, since, major)
		}
		return nil
	}
	if o.ProtoVersion < 1 || o.ProtoVersion > maxProto(major) {
		return fmt.Errorf("cdc: proto_version %d: PostgreSQL %d speaks 1 to %d", o.ProtoVersion, major, maxProto(major))
	}
	var errs []error
	switch o.Streaming {
	case "":
	case "on":
		errs = append(errs, need("streaming", 2, 14))
	case "parallel":
		errs = append(errs, need("streaming 'parallel'", 4, 16))
	default:
		errs = append(errs, fmt.Errorf("cdc: streaming %q: want \"\", \"on\" or \"parallel\"", o.Streaming))
	}
	if o.TwoPhase {
		errs = append(errs, need("two_phase", 3, 15))
	}
	if o.Binary {
		errs = append(errs, need("binary", 1, 14))
	}
	if o.Messages {
		errs = append(errs, need("messages", 1, 14))
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// startReplication is START_REPLICATION for slot from lsn with o, sending
// the publications' changes.
func startReplication(slot string, lsn LSN, pubs []string, o PluginOptions) *codec.StartReplicationLogical {
	names := make([]string, len(pubs))
	for i, p := range pubs {
		names[i] = `"` + strings.ReplaceAll(p, `"`, `""`) + `"`
	}
	opt := func(name, value string) codec.PluginOption {
		return codec.PluginOption{Name: name, Value: value, HasValue: true}
	}
	opts := []codec.PluginOption{opt("proto_version", strconv.Itoa(o.ProtoVersion)), opt("publication_names", strings.Join(names, ","))}
	if o.Streaming != "" {
		opts = append(opts, opt("streaming", o.Streaming))
	}
	for _, b := range []struct {
		name string
		on   bool
	}{{"two_phase", o.TwoPhase}, {"binary", o.Binary}, {"messages", o.Messages}} {
		if b.on {
			opts = append(opts, opt(b.name, "on"))
		}
	}
	return &codec.StartReplicationLogical{SlotName: slot, LSN: codec.LSN(lsn), Options: opts}
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
