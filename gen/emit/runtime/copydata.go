//go:build ignore

package codec

import (
	"encoding/binary"
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
// FrameReader.Next returns it: tag, length, payload), what the Logical and
// Replication decoders read. It aliases frame.
func CopyDataPayload(frame []byte) ([]byte, error) {
	if len(frame) >= 5 && frame[0] == 'd' && int(int32(binary.BigEndian.Uint32(frame[1:]))) == len(frame)-1 {
		return frame[5:], nil
	}
	r := reader{rest: frame}
	r = r.tag('d')
	r = r.length()
	return nil, r.done("CopyData", len(frame), Params{})
}
