package codec_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pglogrepl"

	"github.com/pgspec/pgspec/codec"
)

// benchCommands are replication commands as clients send them: pgoutput's
// START_REPLICATION as a subscription writes it, a physical one as
// pg_receivewal does, and the shortest command.
var benchCommands = []struct{ name, text string }{
	{"StartLogical", `START_REPLICATION SLOT "sub_16398" LOGICAL 0/16B3748 (proto_version '4', streaming 'parallel', origin 'any', publication_names '"pub"')`},
	{"StartPhysical", `START_REPLICATION SLOT "receiver" 0/3000000 TIMELINE 1`},
	{"IdentifySystem", `IDENTIFY_SYSTEM`},
}

// BenchmarkParseCommand reads the commands with ParseCommand, which checks
// them against the grammar of the major, and with handParse, what a user
// writes who needs the same fields out of these spellings and nothing more
// (no quoting rules, no keyword case, no option checks).
func BenchmarkParseCommand(b *testing.B) {
	for _, c := range benchCommands {
		b.Run(c.name+"/impl=pgspec", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := codec.ParseCommand(c.text, codec.Params{Major: 17}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/impl=hand", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := handParse(c.text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// handCommand is what handParse gets out of a command.
type handCommand struct {
	name, slot string
	lsn        pglogrepl.LSN
	timeline   string
	options    []string
}

// handParse splits the text at spaces, takes the slot name out of its
// quotes, the LSN with pglogrepl.ParseLSN and the options between the
// parentheses as they are written.
func handParse(text string) (handCommand, error) {
	var c handCommand
	head, opts, _ := strings.Cut(text, "(")
	f := strings.Fields(head)
	if len(f) == 0 {
		return c, errors.New("empty command")
	}
	c.name = f[0]
	if c.name == "IDENTIFY_SYSTEM" && len(f) == 1 {
		return c, nil
	}
	if c.name != "START_REPLICATION" || len(f) < 4 || f[1] != "SLOT" {
		return c, fmt.Errorf("not a START_REPLICATION SLOT: %q", text)
	}
	c.slot = strings.Trim(f[2], `"`)
	rest := f[3:]
	if rest[0] == "LOGICAL" || rest[0] == "PHYSICAL" {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return c, errors.New("no LSN")
	}
	lsn, err := pglogrepl.ParseLSN(rest[0])
	if err != nil {
		return c, err
	}
	c.lsn = lsn
	if len(rest) == 3 && rest[1] == "TIMELINE" {
		c.timeline = rest[2]
	}
	if opts, ok := strings.CutSuffix(strings.TrimSpace(opts), ")"); ok {
		for _, o := range strings.Split(opts, ",") {
			c.options = append(c.options, strings.TrimSpace(o))
		}
	}
	return c, nil
}

// BenchmarkAppendCommand writes a pgoutput START_REPLICATION: pgspec's
// Append, and the text as pglogrepl.StartReplication builds it (Sprintf
// of the slot, mode and LSN, the plugin arguments joined).
func BenchmarkAppendCommand(b *testing.B) {
	cmd := &codec.StartReplicationLogical{SlotName: "sub_16398", LSN: 0x16B3748, Options: []codec.PluginOption{
		{Name: "proto_version", Value: "4", HasValue: true}, {Name: "streaming", Value: "parallel", HasValue: true},
		{Name: "origin", Value: "any", HasValue: true}, {Name: "publication_names", Value: `"pub"`, HasValue: true},
	}}
	args := []string{"proto_version '4'", "streaming 'parallel'", "origin 'any'", `publication_names '"pub"'`}
	b.Run("impl=pgspec", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 256)
		for b.Loop() {
			var err error
			if buf, err = cmd.Append(buf[:0], codec.Params{Major: 17}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=pglogrepl", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sql := fmt.Sprintf("START_REPLICATION SLOT %s %s %s ", "sub_16398", pglogrepl.LogicalReplication, pglogrepl.LSN(0x16B3748))
			sql += fmt.Sprintf("(%s)", strings.Join(args, ", "))
			if len(sql) == 0 {
				b.Fatal("empty")
			}
		}
	})
}

// TestParseCommandAllocations: a command costs its tokens, the parser's
// values, the options it holds, its canonical text and the command itself;
// a form tried and refused on the way (START_REPLICATION's physical form,
// for a logical command) allocates nothing.
func TestParseCommandAllocations(t *testing.T) {
	for _, c := range []struct {
		name string
		max  float64
	}{{"StartLogical", 10}, {"StartPhysical", 6}, {"IdentifySystem", 4}} {
		for _, bc := range benchCommands {
			if bc.name != c.name {
				continue
			}
			if n := testing.AllocsPerRun(20, func() { _, _ = codec.ParseCommand(bc.text, codec.Params{Major: 17}) }); n > c.max {
				t.Errorf("%s: %v allocations, want at most %v", c.name, n, c.max)
			}
		}
	}
}
