package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// TestIntern: intern copies, hands out the same copy for the same short
// bytes, copies long ones every time, and stays bounded.
func TestIntern(t *testing.T) {
	b := []byte("client_encoding")
	s1 := intern(b)
	b[0] = 'X'
	if s1 != "client_encoding" {
		t.Fatalf("intern's string changed with its input: %q", s1)
	}
	s2 := intern([]byte("client_encoding"))
	if unsafe.StringData(s1) != unsafe.StringData(s2) {
		t.Error("the same short bytes gave two copies")
	}
	long := []byte(strings.Repeat("q", internMaxLen+1))
	if l1, l2 := intern(long), intern(long); l1 != string(long) || unsafe.StringData(l1) == unsafe.StringData(l2) {
		t.Error("a string longer than internMaxLen was not copied each time")
	}
	if intern(nil) != "" || intern([]byte{}) != "" {
		t.Error("empty input")
	}
	// Many more distinct strings than slots: the table keeps at most one per slot.
	for i := range 4 * internSlots {
		intern([]byte("col_" + strconv.Itoa(i)))
	}
	held := 0
	for i := range internTable {
		if internTable[i].s.Load() != nil {
			held++
		}
	}
	if held > internSlots {
		t.Errorf("%d strings held", held)
	}
}

// TestInternPairs: two strings whose hashes pick the same slot (a user
// name and a column name, say) are both kept, in the two slots of the pair:
// alternating between them copies each once.
func TestInternPairs(t *testing.T) {
	slotOf := func(s string) uint64 { return internHash([]byte(s)) >> (64 - internBits) }
	a, b := "postgres", ""
	for i := 0; b == ""; i++ {
		if c := "column_" + strconv.Itoa(i); slotOf(c) == slotOf(a) {
			b = c
		}
	}
	first := map[string]*byte{}
	for round := range 3 {
		for _, s := range []string{a, b} {
			got := intern([]byte(s))
			if round == 0 {
				first[s] = unsafe.StringData(got)
			} else if got != s || unsafe.StringData(got) != first[s] {
				t.Fatalf("round %d: %q was copied again", round, s)
			}
		}
	}
}

// TestInternHashSpreads: the column names of a wide table fall into many
// different slots (a weak hash would make them evict each other).
func TestInternHashSpreads(t *testing.T) {
	slots := map[uint64]bool{}
	const n = 500
	for i := range n {
		for _, s := range []string{"column_" + strconv.Itoa(i), "c" + strconv.Itoa(i), "a_rather_long_column_name_number_" + strconv.Itoa(i) + "_in_a_wide_table"} {
			slots[internHash([]byte(s))>>(64-internBits)] = true
		}
	}
	// 1500 keys into 4096 slots: about 1270 distinct slots expected if uniform.
	if len(slots) < 1150 {
		t.Errorf("1500 names used only %d slots", len(slots))
	}
}

// TestInternConcurrent: decoders on many goroutines share the table; every
// one gets back exactly its bytes (run with -race to check the table).
func TestInternConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				want := "v" + strconv.Itoa((g*7919+i)%300)
				if got := intern([]byte(want)); got != want {
					t.Errorf("intern(%q) = %q", want, got)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestStrKeepsOld: a string read as the decoders read one (kept, else
// str) hands back the field's previous string, not a copy, when the input
// holds its bytes again, and reads exactly the input's string otherwise: a
// previous value that differs in any byte, or that has a zero byte inside
// (set by hand: the input's string ends there), at every length kept looks
// at and beyond, and at every position.
func TestStrKeepsOld(t *testing.T) {
	const tail = "\x00tail"
	read := func(b []byte, old string) (string, []byte, bool) {
		if kept(b, old) {
			return old, b[len(old)+1:], true
		}
		s, r := reader{rest: b}.str("X", old)
		if r.err != nil {
			t.Fatalf("%q: %v", b, r.err)
		}
		return s, r.rest, false
	}
	for n := range 140 {
		base := []byte(strings.Repeat("abcdefghij", 14)[:n])
		old := strings.Clone(string(base))
		got, rest, k := read([]byte(old+tail), old)
		if got != old || string(rest) != "tail" || k != (n <= 128) {
			t.Fatalf("n=%d: %q, rest %q, kept %v", n, got, rest, k)
		}
		if n > 0 && unsafe.StringData(got) != unsafe.StringData(old) {
			t.Errorf("n=%d: the same bytes gave a new string", n)
		}
		if kept([]byte(old), old) || n > 0 && kept([]byte(old[:n-1]+tail), old) {
			t.Errorf("n=%d: kept with the input shorter than the string", n)
		}
		if kept([]byte(old+"x"+tail), old) {
			t.Errorf("n=%d: kept with no zero after the string", n)
		}
		for k := range n {
			changed := []byte(old)
			changed[k] = 'Z'
			if got, rest, kept := read(append(changed, tail...), old); got != string(changed) || string(rest) != "tail" || kept {
				t.Errorf("n=%d, byte %d changed: %q, rest %q, kept %v", n, k, got, rest, kept)
			}
			zeroed := []byte(old)
			zeroed[k] = 0
			in := append(bytes.Clone(zeroed), tail...)
			if got, rest, kept := read(in, string(zeroed)); got != old[:k] || string(rest) != string(in[k+1:]) || kept {
				t.Errorf("n=%d, zero at %d in the old value: %q, rest %q, kept %v", n, k, got, rest, kept)
			}
		}
	}
}

// TestSecretNotInterned: a password decoded on either path (Decode's fast
// path, and decode's after trailing bytes) is copied, never put in the
// intern table that the whole process shares, while an ordinary string of
// the same bytes is.
func TestSecretNotInterned(t *testing.T) {
	interned := func(s string) bool {
		for i := range internTable {
			if p := internTable[i].s.Load(); p != nil && *p == s {
				return true
			}
		}
		return false
	}
	pw := "md5" + strconv.FormatInt(time.Now().UnixNano(), 16) // in no table yet
	msg, err := (&PasswordMessage{Password: pw}).Encode(nil, Params{})
	if err != nil {
		t.Fatal(err)
	}
	var m PasswordMessage
	if err := m.Decode(msg, Params{}); err != nil || m.Password != pw {
		t.Fatalf("decoded %q, %v", m.Password, err)
	}
	long := append(append([]byte{}, msg...), 'x') // the password, then a byte too many
	binary.BigEndian.PutUint32(long[1:], uint32(len(long)-1))
	var m2 PasswordMessage
	if err := m2.Decode(long, Params{}); !errors.Is(err, ErrTrailingBytes) || m2.Password != pw {
		t.Fatalf("with a trailing byte: %q, %v; want the password and ErrTrailingBytes", m2.Password, err)
	}
	if interned(pw) {
		t.Fatal("the password is in the intern table")
	}
	q, err := (&Query{String: pw}).Encode(nil, Params{})
	if err != nil {
		t.Fatal(err)
	}
	if err := new(Query).Decode(q, Params{}); err != nil {
		t.Fatal(err)
	}
	if !interned(pw) {
		t.Fatal("a query of the same bytes was not interned: the check above cannot fail")
	}
}
