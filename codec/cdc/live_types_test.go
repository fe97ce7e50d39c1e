package cdc

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgspec/pgspec/internal/pgtest"
)

// liveTypes is the workload of TestLiveTypes (what an earlier run of the
// same server left dropped first): a row of built-in and
// custom types (an enum, a composite, a domain, an enum the application
// registers no codec for), truncates with and without their options, and
// a last insert to stop at.
var liveTypes = []string{
	`drop publication if exists cdc_types_pub;
	drop table if exists cdc_types, cdc_other;
	drop domain if exists cdc_pos;
	drop type if exists cdc_mood, cdc_level, cdc_pair;
	create type cdc_mood as enum ('sad', 'ok', 'happy');
	create type cdc_level as enum ('low', 'high');
	create type cdc_pair as (a int, b text);
	create domain cdc_pos as int check (value > 0);
	create table cdc_types(id int primary key, mood cdc_mood, level cdc_level, pair cdc_pair, pos cdc_pos,
		b bytea, ts timestamptz, n numeric, u uuid, f float8, tags text[], s varchar(10));
	create table cdc_other(id serial);
	create publication cdc_types_pub for table cdc_types, cdc_other;
	grant select on cdc_types, cdc_other to repl_user`,
	`insert into cdc_types values (1, 'happy', 'high', (7, 'x'), 5, '\x00ff', '2024-01-02 03:04:05+00', 1.5,
		'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 2.5, '{a,b}', 'vc')`,
	"truncate cdc_types, cdc_other restart identity cascade",
	"truncate cdc_other",
	"insert into cdc_types (id) values (99)",
}

// TestLiveTypes consumes the liveTypes workload from PostgreSQL 15 twice,
// with text values and with binary = true: the Type messages register
// the custom types (under the name the application gave a codec,
// qualified or not; else as text only), every value decodes through
// pgtype to the same Go value in both forms, the binary form of a type no
// codec reads is an error naming it, and both truncates arrive with their
// relations and options.
func TestLiveTypes(t *testing.T) {
	su := setup(t)
	do(t, su, liveTypes[0])
	start := func(binary bool) (*Consumer, *pgtype.Map) {
		slot := fmt.Sprintf("cdc_types_%v", binary)
		repl, replNet := connect(t, pgtest.Replication, true)
		opts := OptionsFor(15)
		opts.Binary = binary
		types := pgtype.NewMap()
		int4, _ := types.TypeForOID(pgtype.Int4OID)
		text, _ := types.TypeForOID(pgtype.TextOID)
		// The application's codecs for its types, by name; the Type
		// messages give them their OIDs. A domain needs none: its Type
		// message names its base type (cdc_pos: pg_catalog's int4).
		types.RegisterType(&pgtype.Type{Name: "cdc_mood", Codec: &pgtype.EnumCodec{}})
		types.RegisterType(&pgtype.Type{Name: "cdc_pair", Codec: &pgtype.CompositeCodec{Fields: []pgtype.CompositeCodecField{
			{Name: "a", Type: int4}, {Name: "b", Type: text}}}})
		c, err := New(repl, Config{Slot: slot, Publications: []string{"cdc_types_pub"}, CreateSlot: true, Options: &opts, Types: types})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { replNet.Close(); dropSlot(t, su, slot) })
		return c, types
	}
	textC, textTypes := start(false)
	binC, binTypes := start(true)
	for _, sql := range liveTypes[1:] {
		do(t, su, sql)
	}
	// The values as Decode gives them, rendered: a time in UTC (the text
	// form is in the server's zone), a numeric as a float.
	show := func(v Value) string {
		x, err := v.Decode()
		switch x := x.(type) {
		case time.Time:
			return "time " + x.UTC().Format(time.RFC3339)
		case pgtype.Numeric:
			f, _ := x.Float64Value()
			return fmt.Sprintf("numeric %v", f.Float64)
		}
		if err != nil {
			return "error " + err.Error()
		}
		return fmt.Sprintf("%T %v", x, x)
	}
	consume := func(c *Consumer, types *pgtype.Map, binary bool) []string {
		var got []string
		err := c.Run(func(e Event) error {
			switch e := e.(type) {
			case *Begin:
				got = append(got, "BEGIN")
			case *Commit:
				got = append(got, "COMMIT")
			case *RelationChanged:
				var cols []string
				for _, col := range e.Relation.Columns {
					if col.TypeOID >= 16384 { // not built in: the OID a Type message gave
						if typ, ok := types.TypeForOID(col.TypeOID); ok {
							cols = append(cols, col.Name+":"+typ.Name)
							continue
						}
					}
					cols = append(cols, fmt.Sprintf("%s:%d", col.Name, col.TypeOID))
				}
				got = append(got, "RELATION "+e.Relation.Name+" "+strings.Join(cols, ","))
			case *Insert:
				var vals []string
				for _, v := range e.New.Values {
					if v.Binary != (binary && !v.Null) {
						t.Errorf("binary %v: value %q has Binary %v", binary, v.Raw, v.Binary)
					}
					vals = append(vals, show(v))
				}
				got = append(got, "INSERT "+e.Relation.Name+" "+strings.Join(vals, "; "))
				if id, _ := e.New.Values[0].Decode(); id == int32(99) {
					return ErrStop
				}
			default:
				got = append(got, render(e))
			}
			return nil
		})
		if err != nil {
			t.Fatalf("binary %v: %v after %q", binary, err, got)
		}
		return got
	}
	want := func(level string) []string {
		return []string{
			"BEGIN",
			"RELATION cdc_types id:23,mood:public.cdc_mood,level:public.cdc_level,pair:public.cdc_pair,pos:pg_catalog.int4,b:17,ts:1184,n:1700,u:2950,f:701,tags:1009,s:1043",
			"INSERT cdc_types int32 1; string happy; " + level + "; map[string]interface {} map[a:7 b:x]; int32 5; []uint8 [0 255]; time 2024-01-02T03:04:05Z; numeric 1.5; " +
				"[16]uint8 [160 238 188 153 156 11 78 248 187 109 107 185 189 56 10 17]; float64 2.5; []interface {} [a b]; string vc",
			"COMMIT",
			"BEGIN", "RELATION cdc_other id:23", "TRUNCATE cdc_types,cdc_other cascade=true restart=true", "COMMIT",
			"BEGIN", "TRUNCATE cdc_other cascade=false restart=false", "COMMIT",
			"BEGIN", "INSERT cdc_types int32 99" + strings.Repeat("; <nil> <nil>", 11),
		}
	}
	if got, want := consume(textC, textTypes, false), want("string high"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("text values:\n got %q\nwant %q", got, want)
	}
	// The enum no codec was registered for arrives as its label in
	// binary too, but only a codec of the type may say so.
	level := `error cdc: type public.cdc_level (OID %d) arrived in binary; register a pgtype codec named "public.cdc_level" to decode it`
	got := consume(binC, binTypes, true)
	typ, ok := binTypes.TypeForName("public.cdc_level")
	if !ok {
		t.Fatal("the Type message of cdc_level registered nothing")
	}
	if want := want(fmt.Sprintf(level, typ.OID)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("binary values:\n got %q\nwant %q", got, want)
	}
}
