//go:build ignore

package codec

import (
	"fmt"
	"strconv"
	"strings"
)

// PgoutputStreaming is pgoutput's streaming parameter.
type PgoutputStreaming string

const (
	StreamingOff      PgoutputStreaming = ""
	StreamingOn       PgoutputStreaming = "on"
	StreamingParallel PgoutputStreaming = "parallel"
)

// PgoutputOptions are pgoutput's parameters, checked against the major's
// manual and the protocol version before they are sent: PluginOptions
// gives logical START_REPLICATION's options, DecodeParams the Params to
// decode that stream with, from the same value, so they cannot disagree.
type PgoutputOptions struct {
	// ProtoVersion is proto_version; 0 is the newest the major supports.
	ProtoVersion int
	// Publications are publication_names, at least one.
	Publications []string
	Binary       bool
	Messages     bool
	Streaming    PgoutputStreaming
	TwoPhase     bool
	// Origin is "", "none" or "any".
	Origin string
}

// pgoutputParam and pgoutputVersion are the generated tables' rows.
type pgoutputParam struct {
	name       string
	majors     MajorSet
	minVersion int
	values     []pgoutputValue
}

type pgoutputValue struct {
	value      string
	majors     MajorSet
	minVersion int
}

type pgoutputVersion struct {
	version int
	majors  MajorSet
}

// Version is the proto_version o asks for in p.Major: ProtoVersion, or the
// newest the major supports.
func (o PgoutputOptions) Version(p Params) int {
	if o.ProtoVersion != 0 {
		return o.ProtoVersion
	}
	v := 0
	for _, pv := range pgoutputVersions {
		if pv.majors.Has(p.major()) && pv.version > v {
			v = pv.version
		}
	}
	return v
}

// check refuses what p.Major's manual lacks or the protocol version does
// not allow.
func (o PgoutputOptions) check(p Params) error {
	major, v := p.major(), o.Version(p)
	fail := func(option, reason string, majors MajorSet) error {
		return &CommandError{Command: "pgoutput", Option: option, Major: major, Majors: majors, Offset: -1, Reason: reason}
	}
	supported := MajorSet(0)
	for _, pv := range pgoutputVersions {
		if pv.version == v {
			supported = pv.majors
		}
	}
	if !supported.Has(major) {
		return fail("proto_version", fmt.Sprintf("version %d is not supported by PostgreSQL %d", v, major), supported)
	}
	if len(o.Publications) == 0 {
		return fail("publication_names", "at least one publication name is required", 0)
	}
	for _, po := range pgoutputParams {
		value, set := o.value(po.name)
		if !set {
			continue
		}
		if !po.majors.Has(major) {
			return fail(po.name, fmt.Sprintf("not in PostgreSQL %d", major), po.majors)
		}
		if po.minVersion > v {
			return fail(po.name, fmt.Sprintf("needs proto_version %d or later, not %d", po.minVersion, v), 0)
		}
		if len(po.values) == 0 || value == "on" {
			continue
		}
		known := false
		for _, pv := range po.values {
			if pv.value != value {
				continue
			}
			known = true
			if !pv.majors.Has(major) {
				return fail(po.name, fmt.Sprintf("%s is not in PostgreSQL %d", value, major), pv.majors)
			}
			if pv.minVersion > v {
				return fail(po.name, fmt.Sprintf("%s needs proto_version %d or later, not %d", value, pv.minVersion, v), 0)
			}
		}
		if !known {
			return fail(po.name, fmt.Sprintf("value %q is not one the manual names", value), 0)
		}
	}
	return nil
}

// value is what o sets a parameter to, as pgoutput reads it.
func (o PgoutputOptions) value(name string) (string, bool) {
	switch name {
	case "binary":
		return "true", o.Binary
	case "messages":
		return "true", o.Messages
	case "two_phase":
		return "true", o.TwoPhase
	case "streaming":
		return string(o.Streaming), o.Streaming != StreamingOff
	case "origin":
		return o.Origin, o.Origin != ""
	}
	return "", false
}

// PluginOptions are the options of logical START_REPLICATION for p.Major,
// in the manual's order; what the major or the version lacks is a
// *CommandError naming the majors that have it.
func (o PgoutputOptions) PluginOptions(p Params) ([]PluginOption, error) {
	if err := o.check(p); err != nil {
		return nil, err
	}
	var pubs []byte
	for i, name := range o.Publications {
		if i > 0 {
			pubs = append(pubs, ',')
		}
		pubs = appendIdent(pubs, name)
	}
	out := []PluginOption{
		{Name: "proto_version", Value: strconv.Itoa(o.Version(p)), HasValue: true},
		{Name: "publication_names", Value: string(pubs), HasValue: true},
	}
	for _, po := range pgoutputParams {
		if v, set := o.value(po.name); set {
			out = append(out, PluginOption{Name: po.name, Value: v, HasValue: true})
		}
	}
	return out, nil
}

// DecodeParams are the Params to decode the stream o starts with:
// p's Major, the proto_version, and ParallelStreaming for streaming =
// parallel.
func (o PgoutputOptions) DecodeParams(p Params) (Params, error) {
	if err := o.check(p); err != nil {
		return p, err
	}
	p.LogicalVersion, p.Streaming = o.Version(p), 0
	if o.Streaming == StreamingParallel {
		p.Streaming = ParallelStreaming
	}
	return p, nil
}

// ParsePgoutputOptions reads START_REPLICATION's options as pgoutput does
// (booleans as parse_bool takes them, publication names split at commas,
// quoted or folded to lower case), then checks them as PluginOptions does.
func ParsePgoutputOptions(opts []PluginOption, p Params) (PgoutputOptions, error) {
	var o PgoutputOptions
	fail := func(option, reason string) (PgoutputOptions, error) {
		return PgoutputOptions{}, &CommandError{Command: "pgoutput", Option: option, Major: p.major(), Offset: -1, Reason: reason}
	}
	for _, opt := range opts {
		switch opt.Name {
		case "proto_version":
			n, err := strconv.Atoi(opt.Value)
			if err != nil || n <= 0 {
				return fail(opt.Name, fmt.Sprintf("%q is not a version", opt.Value))
			}
			o.ProtoVersion = n
		case "publication_names":
			names, err := splitIdents(opt.Value)
			if err != nil {
				return fail(opt.Name, err.Error())
			}
			o.Publications = names
		case "binary", "messages", "two_phase":
			b, ok := parseBool(opt.Value)
			if !ok && opt.HasValue {
				return fail(opt.Name, fmt.Sprintf("%q is not a boolean", opt.Value))
			}
			b = b || !opt.HasValue
			switch opt.Name {
			case "binary":
				o.Binary = b
			case "messages":
				o.Messages = b
			default:
				o.TwoPhase = b
			}
		case "streaming":
			if b, ok := parseBool(opt.Value); ok {
				o.Streaming = ""
				if b {
					o.Streaming = StreamingOn
				}
			} else {
				o.Streaming = PgoutputStreaming(strings.ToLower(opt.Value))
			}
		case "origin":
			o.Origin = strings.ToLower(opt.Value)
		default:
			return fail(opt.Name, "not a parameter of pgoutput")
		}
	}
	if o.ProtoVersion == 0 {
		return fail("proto_version", "a valid version is required")
	}
	return o, o.check(p)
}

// splitIdents splits a comma-separated list of identifiers, quoted or not.
func splitIdents(s string) ([]string, error) {
	var out []string
	for i := 0; i <= len(s); {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		var name []byte
		if i < len(s) && s[i] == '"' {
			j := i + 1
			for ; ; j++ {
				if j >= len(s) {
					return nil, fmt.Errorf("unterminated quoted name in %q", s)
				}
				if s[j] == '"' {
					if j+1 < len(s) && s[j+1] == '"' {
						name = append(name, '"')
						j++
						continue
					}
					break
				}
				name = append(name, s[j])
			}
			i = j + 1
		} else {
			j := i
			for j < len(s) && s[j] != ',' && s[j] != ' ' {
				j++
			}
			name = []byte(strings.ToLower(s[i:j]))
			i = j
		}
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if len(name) == 0 {
			return nil, fmt.Errorf("empty name in %q", s)
		}
		out = append(out, string(name))
		if i >= len(s) {
			break
		}
		if s[i] != ',' {
			return nil, fmt.Errorf("want , after %q in %q", name, s)
		}
		i++
	}
	return out, nil
}
