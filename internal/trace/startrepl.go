package trace

import (
	"strconv"
	"strings"

	"github.com/pgspec/pgspec/codec"
	"github.com/pgspec/pgspec/codec/session"
)

// parseStartReplication recognises a START_REPLICATION command:
//
//	START_REPLICATION [SLOT name] [PHYSICAL] X/X [TIMELINE n]
//	START_REPLICATION SLOT name LOGICAL X/X [(option ['value'] [, ...])]
//
// ok is false for any other command. Physical streams have no options.
// For pgoutput the stream decodes XLogData payloads (Logical) with the
// options that change their layout: proto_version, and ParallelStreaming for
// streaming = 'parallel' (PG 16+: Stream Abort then carries the abort LSN and
// time); binary, messages and two_phase change which messages come, not how
// they are laid out. Other plugins (test_decoding …) leave XLogData opaque.
func parseStartReplication(cmd string) (s *session.Replication, ok bool) {
	toks := replTokens(cmd)
	if len(toks) == 0 || !strings.EqualFold(toks[0], "START_REPLICATION") {
		return nil, false
	}
	s = &session.Replication{}
	i := 1
	for i < len(toks) && toks[i] != "(" {
		i++
	}
	// Options: name [value] separated by commas inside parentheses.
	for i++; i < len(toks) && toks[i] != ")"; i++ {
		if toks[i] == "," {
			continue
		}
		name, value := strings.ToLower(unquote(toks[i])), "true"
		if i+1 < len(toks) && toks[i+1] != "," && toks[i+1] != ")" {
			i++
			value = unquote(toks[i])
		}
		switch name {
		case "proto_version":
			s.P.LogicalVersion, _ = strconv.Atoi(value)
			s.Logical = s.P.LogicalVersion != 0
		case "streaming":
			if strings.EqualFold(value, "parallel") {
				s.P.Streaming = codec.ParallelStreaming
			}
		}
	}
	return s, true
}

// replTokens splits a replication command into words, 'literals',
// "identifiers" and the punctuation ( ) , — enough of the walsender grammar
// to find the options.
func replTokens(cmd string) []string {
	var toks []string
	for i := 0; i < len(cmd); {
		c := cmd[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';':
			i++
		case c == '(' || c == ')' || c == ',':
			toks = append(toks, cmd[i:i+1])
			i++
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(cmd) {
				if cmd[j] == c {
					if j+1 < len(cmd) && cmd[j+1] == c { // doubled quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			end := min(j+1, len(cmd))
			toks = append(toks, cmd[i:end])
			i = end
		default:
			j := i
			for j < len(cmd) && !strings.ContainsRune(" \t\n\r;(),'\"", rune(cmd[j])) {
				j++
			}
			toks = append(toks, cmd[i:j])
			i = j
		}
	}
	return toks
}

// unquote strips a 'literal' or "identifier" token of its quotes and
// undoubles the quotes inside; other tokens are returned as they are.
func unquote(t string) string {
	if len(t) >= 2 && (t[0] == '\'' || t[0] == '"') && t[len(t)-1] == t[0] {
		q := t[:1]
		return strings.ReplaceAll(t[1:len(t)-1], q+q, q)
	}
	return t
}
