// Package traceline reads the lines `pgtrace --format json` and
// `pgtrace decode --format json` print back into messages and their wire
// bytes: the building block of recording traffic and replaying it. A line's
// shape is internal/trace/line.schema.json.
package traceline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/pgspec/pgspec/codec"
)

// Line is one line read back: where the message was seen, and the messages,
// outermost first (a CopyData, the XLogData in it, the pgoutput message in
// that), each with the Params it was decoded with.
type Line struct {
	Time    time.Time
	Session int64
	// Dir is 'F' for what the client sent, 'B' for what the server sent.
	Dir      byte
	Offset   int64
	Messages []Message
}

// Message is one message of a line and the Params it was decoded with.
type Message struct {
	Msg    codec.Message
	Params codec.Params
}

// Read reads a line back. A line printed without --show-secrets of a
// message with a secret, or with values or repeated fields cut (any
// --max-value but 0), does not read back: the error names the field.
func Read(data []byte) (*Line, error) {
	var raw struct {
		Time     time.Time                    `json:"time"`
		Session  int64                        `json:"session"`
		Dir      string                       `json:"dir"`
		Offset   int64                        `json:"offset"`
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("pgtrace line: %w", err)
	}
	if raw.Dir != "F" && raw.Dir != "B" {
		return nil, fmt.Errorf("pgtrace line: dir %q is neither F nor B", raw.Dir)
	}
	if len(raw.Messages) == 0 {
		return nil, fmt.Errorf("pgtrace line: no messages")
	}
	l := &Line{Time: raw.Time, Session: raw.Session, Dir: raw.Dir[0], Offset: raw.Offset}
	for i, obj := range raw.Messages {
		m, err := readMessage(obj)
		if err != nil {
			return nil, fmt.Errorf("pgtrace line: message %d: %w", i+1, err)
		}
		l.Messages = append(l.Messages, m)
	}
	return l, nil
}

// readMessage reads one element of a line's messages.
func readMessage(obj map[string]json.RawMessage) (Message, error) {
	var slug string
	if err := json.Unmarshal(obj["slug"], &slug); err != nil {
		return Message{}, fmt.Errorf("no slug")
	}
	typ, ok := messageTypes()[slug]
	if !ok {
		return Message{}, fmt.Errorf("no message has the slug %q", slug)
	}
	var p lineParams
	if raw, ok := obj["params"]; ok {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return Message{}, fmt.Errorf("%s: params: %w", slug, err)
		}
	}
	fields := map[string]json.RawMessage{}
	for k, v := range obj {
		if k != "name" && k != "slug" && k != "params" {
			fields[k] = v
		}
	}
	data, err := json.Marshal(fields)
	if err != nil {
		return Message{}, err
	}
	m := reflect.New(typ).Interface().(codec.Message)
	params := p.params()
	if err := codec.UnmarshalJSON(data, m, params); err != nil {
		return Message{}, err
	}
	return Message{Msg: m, Params: params}, nil
}

// Wire encodes the line's messages back into the bytes of the outermost:
// each inner message becomes the payload of the one around it (the field
// its descriptor's Payload names).
func (l *Line) Wire() ([]byte, error) {
	var inner []byte
	for i := len(l.Messages) - 1; i >= 0; i-- {
		m := l.Messages[i].Msg
		if i < len(l.Messages)-1 {
			f := m.Descriptor().Payload()
			if f < 0 {
				return nil, fmt.Errorf("pgtrace line: %s carries no message", m.Descriptor().Name)
			}
			reflect.ValueOf(m).Elem().Field(f).SetBytes(inner)
		}
		var err error
		if inner, err = m.Encode(nil, l.Messages[i].Params); err != nil {
			return nil, err
		}
	}
	return inner, nil
}

// lineParams are a line's "params": the Params a message was decoded with.
type lineParams struct {
	Major          int `json:"major"`
	ProtocolMinor  int `json:"protocol_minor,omitempty"`
	LogicalVersion int `json:"logical_version,omitempty"`
	Streaming      int `json:"streaming,omitempty"`
}

func (p lineParams) params() codec.Params {
	return codec.Params{Major: p.Major, ProtocolMinor: p.ProtocolMinor, LogicalVersion: p.LogicalVersion, Streaming: codec.Streaming(p.Streaming)}
}

// messageTypes maps every slug a line may name to its type.
var messageTypes = sync.OnceValue(func() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for _, m := range codec.NewMessages() {
		out[m.Slug()] = reflect.TypeOf(m).Elem()
	}
	return out
})
