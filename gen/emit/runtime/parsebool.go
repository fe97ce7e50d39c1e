//go:build ignore

package codec

// pgspec:if commands|machine:frontend
import "strings"

// parseAnyBool reads a value as the server's parse_bool does: any prefix
// of true, false, yes or no, on, of or off, 1 or 0, in any case.
func parseAnyBool(s string) (bool, bool) {
	l := strings.ToLower(s)
	switch {
	case l == "1", l == "0":
		return l == "1", true
	case l == "":
		return false, false
	case strings.HasPrefix("true", l), strings.HasPrefix("yes", l), len(l) >= 2 && strings.HasPrefix("on", l):
		return true, true
	case strings.HasPrefix("false", l), strings.HasPrefix("no", l), len(l) >= 2 && strings.HasPrefix("off", l):
		return false, true
	}
	return false, false
}

// pgspec:end
