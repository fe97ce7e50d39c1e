//go:build ignore

package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
)

// AppendCopyData appends m (a streaming replication message such as a
// StandbyStatusUpdate, or anything else a COPY carries) wrapped in a
// CopyData to dst: the CopyData header, then m encoded straight after it,
// the length back-patched, so that no intermediate buffer is needed. On
// error dst is returned unchanged.
func AppendCopyData(dst []byte, m Message, p Params) ([]byte, error) {
	start := len(dst)
	out, err := m.Encode(append(dst, 'd', 0, 0, 0, 0), p)
	switch {
	case err != nil:
		return dst, err
	case len(out)-start-1 > math.MaxInt32:
		return dst, &EncodeError{Message: "CopyData", Field: "Data", Err: ErrTooLarge}
	}
	binary.BigEndian.PutUint32(out[start+1:], uint32(len(out)-start-1))
	return out, nil
}

// CopyDataPayload returns the payload of the CopyData message frame (as
// FrameReader.Next returns it: tag, length, payload), the bytes a
// replication stream's messages travel in. It aliases frame. A CopyDone, which ends the
// stream, is ErrCopyDone; an ErrorResponse, with which the server ends it,
// a *StreamError holding the server's reason.
func CopyDataPayload(frame []byte) ([]byte, error) {
	if len(frame) >= 5 && int(int32(binary.BigEndian.Uint32(frame[1:]))) == len(frame)-1 {
		switch {
		case frame[0] == 'd':
			return frame[5:], nil
		case frame[0] == 'c' && len(frame) == 5:
			return nil, ErrCopyDone
		case frame[0] == 'E':
			if e := streamError(frame[5:]); e != nil {
				return nil, e
			}
		}
	}
	r := reader{rest: frame}
	r = r.tag('d')
	r = r.length()
	return nil, r.done("CopyData", len(frame), Params{})
}

// ErrCopyDone is CopyDataPayload's error for a CopyDone: the copy stream
// ended as the protocol ends it.
var ErrCopyDone = errors.New("CopyDone: the copy stream ended")

// StreamError is CopyDataPayload's error for an ErrorResponse in place of
// a CopyData: the server ended the stream (a walsender terminated, a slot
// invalidated, a timeout), and Fields say why, by their codes: 'S'
// severity, 'C' SQLSTATE, 'M' message, … (protocol-error-fields.html).
type StreamError struct {
	Fields map[byte]string
}

func (e *StreamError) Error() string {
	return errorPrefix + "the server ended the stream: " + e.Fields['S'] + " " + e.Fields['C'] + ": " + e.Fields['M']
}

// streamError reads an ErrorResponse's body (fields of a code byte and a
// zero-terminated string, then a zero byte), or returns nil when body is
// not one.
func streamError(body []byte) *StreamError {
	e := &StreamError{Fields: map[byte]string{}}
	for len(body) > 1 && body[0] != 0 {
		end := bytes.IndexByte(body[1:], 0)
		if end < 0 {
			return nil
		}
		e.Fields[body[0]] = string(body[1 : 1+end])
		body = body[2+end:]
	}
	if len(body) != 1 || body[0] != 0 {
		return nil
	}
	return e
}
