package trace

import (
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/pgspec/pgspec/codec"
)

// replicationCommand is the typed command a Query's text is in p.Major, or
// nil: text that is no replication command of that major prints as text
// only (the server will say what is wrong with it).
func replicationCommand(text string, p codec.Params) codec.Command {
	if !codec.IsCommand(text) { // SQL: most Queries, and no allocation
		return nil
	}
	cmd, err := codec.ParseCommand(text, p)
	if err != nil {
		return nil
	}
	return cmd
}

// appendCommand prints the typed command of a Query: text
//
//	Query String="BASE_BACKUP ( LABEL 'x',  PROGRESS)" = BaseBackup Label="x" Progress=true
//
// and JSON "command":{"name":"BaseBackup","Label":"x","Progress":true}:
// the fields given, by their Go names.
func (f *formatter) appendCommand(b []byte, cmd codec.Command) []byte {
	v := reflect.ValueOf(cmd).Elem()
	name := v.Type().Name()
	if f.json {
		b = append(b, `,"command":{"name":`...)
		b = appendJSONText(b, name)
	} else {
		b = append(b, " = "...)
		b = append(b, name...)
	}
	for i := range v.NumField() {
		fv, ft := v.Field(i), v.Type().Field(i)
		if !ft.IsExported() || fv.IsZero() && ft.Type != reflect.TypeOf(codec.LSN(0)) {
			continue
		}
		if fv.Kind() == reflect.Pointer {
			fv = fv.Elem()
		}
		if f.json {
			b = append(b, ',')
			b = appendJSONText(b, ft.Name)
			b = append(b, ':')
		} else {
			b = append(b, ' ')
			b = append(b, ft.Name...)
			b = append(b, '=')
		}
		b = f.appendCommandValue(b, fv)
	}
	if f.json {
		b = append(b, '}')
	}
	return b
}

func (f *formatter) appendCommandValue(b []byte, v reflect.Value) []byte {
	switch x := v.Interface().(type) {
	case codec.LSN:
		if f.json {
			return appendJSONText(b, x.String())
		}
		return append(b, x.String()...)
	case string:
		if f.json {
			return appendJSONText(b, x)
		}
		return strconv.AppendQuote(b, x)
	case bool:
		return strconv.AppendBool(b, x)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10)
	case []codec.PluginOption:
		b = append(b, '[')
		for i, o := range x {
			if i > 0 {
				b = append(b, ',')
			}
			if f.json {
				b = append(b, `{"name":`...)
				b = appendJSONText(b, o.Name)
				if o.HasValue {
					b = append(b, `,"value":`...)
					b = appendJSONText(b, o.Value)
				}
				b = append(b, '}')
				continue
			}
			b = append(b, o.Name...)
			if o.HasValue {
				b = append(b, '=')
				b = strconv.AppendQuote(b, o.Value)
			}
		}
		return append(b, ']')
	}
	return append(b, '?')
}

// appendJSONText writes s as a JSON string.
func appendJSONText(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}
