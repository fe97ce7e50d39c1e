package cdc

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgspec/pgspec/codec"
)

// registerType takes a Type message: the OID of a type that is not built
// in (an enum, a composite, an extension's type) and its name; for a
// domain, pgoutput names the domain's base type, so it decodes as that. A
// type the map already has by OID stays; one it knows by name (registered
// by the application, qualified or not) gets the OID too; any other
// decodes its text form as a string, and its binary form is an error that
// names it.
func (a *Assembler) registerType(m *codec.LogicalType) {
	if _, ok := a.types.TypeForOID(m.DataType); ok {
		return
	}
	namespace := m.Namespace
	if namespace == "" {
		namespace = "pg_catalog" // pgoutput's word for it
	}
	qualified := namespace + "." + m.Name
	for _, name := range []string{qualified, m.Name} {
		if t, ok := a.types.TypeForName(name); ok {
			a.types.RegisterType(&pgtype.Type{Name: qualified, OID: m.DataType, Codec: t.Codec})
			return
		}
	}
	a.types.RegisterType(&pgtype.Type{Name: qualified, OID: m.DataType, Codec: textOnly{name: qualified}})
}

// textOnly decodes a type known only by its name: its text output is a
// string; its binary form is the type's own, which only a codec for it
// can read.
type textOnly struct {
	pgtype.TextCodec
	name string
}

func (textOnly) FormatSupported(format int16) bool { return format == pgtype.TextFormatCode }

func (t textOnly) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if format != pgtype.TextFormatCode {
		return nil
	}
	return t.TextCodec.PlanScan(m, oid, format, target)
}

func (t textOnly) DecodeValue(m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	if format != pgtype.TextFormatCode {
		return nil, fmt.Errorf("cdc: type %s (OID %d) arrived in binary; register a pgtype codec named %q to decode it", t.name, oid, t.name)
	}
	return t.TextCodec.DecodeValue(m, oid, format, src)
}
