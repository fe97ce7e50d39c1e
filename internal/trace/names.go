package trace

import (
	"reflect"

	"github.com/pgspec/pgspec/codec"
)

// messageName is what the manual of the given major (0: newest) calls m.
func messageName(m codec.Message, major int) string {
	return reflect.TypeOf(m).Elem().Name()
}
