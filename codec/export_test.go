package codec

// DecodeFully decodes src into m as its Decode does when the fast path in
// front of it does not take the input: with the full reader alone. It
// reports false for a message whose Decode has no fast path.
func DecodeFully(m Message, src []byte, p Params) (bool, error) {
	full, ok := m.(interface{ decode([]byte, Params) error })
	if !ok {
		return false, nil
	}
	return true, full.decode(src, p)
}
