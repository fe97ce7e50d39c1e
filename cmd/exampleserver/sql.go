package main

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/pgspec/pgspec/codec/session"
)

// token is one lexical unit of the SQL the example understands.
type token struct {
	kind byte // 'i' identifier or keyword, 'q' quoted identifier, 'n' number, 's' string, '$' parameter, else punctuation
	text string
}

// lex splits sql into tokens; identifiers and keywords are lower-cased.
func lex(sql string) ([]token, error) {
	var toks []token
	for i := 0; i < len(sql); {
		r := rune(sql[i])
		switch {
		case unicode.IsSpace(r):
			i++
		case strings.HasPrefix(sql[i:], "--"):
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
		case r == '\'' || r == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(sql); j++ {
				if sql[j] == sql[i] {
					if j+1 < len(sql) && sql[j+1] == sql[i] {
						b.WriteByte(sql[i])
						j++
						continue
					}
					break
				}
				b.WriteByte(sql[j])
			}
			if j >= len(sql) {
				return nil, syntaxError("unterminated quoted string")
			}
			kind := byte('s')
			if r == '"' {
				kind = 'q'
			}
			toks = append(toks, token{kind, b.String()})
			i = j + 1
		case r == '$' || unicode.IsDigit(r) || r == '.' && i+1 < len(sql) && unicode.IsDigit(rune(sql[i+1])):
			j := i + 1
			for j < len(sql) && (unicode.IsDigit(rune(sql[j])) || sql[j] == '.' && r != '$') {
				j++
			}
			kind := byte('n')
			if r == '$' {
				kind = '$'
			}
			toks = append(toks, token{kind, sql[i:j]})
			i = j
		case unicode.IsLetter(r) || r == '_':
			j := i + 1
			for j < len(sql) && (unicode.IsLetter(rune(sql[j])) || unicode.IsDigit(rune(sql[j])) || sql[j] == '_') {
				j++
			}
			toks = append(toks, token{'i', strings.ToLower(sql[i:j])})
			i = j
		case strings.ContainsRune("(),;*=+-.", r):
			toks = append(toks, token{byte(r), string(r)})
			i++
		default:
			return nil, syntaxError(fmt.Sprintf("syntax error at or near %q", string(r)))
		}
	}
	return toks, nil
}

func syntaxError(msg string) *session.Error {
	return session.ServerError("ERROR", "42601", msg, "")
}

// parser reads one statement's tokens.
type parser struct {
	toks []token
	pos  int
}

func (p *parser) peek() token {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return token{}
}

func (p *parser) next() token {
	t := p.peek()
	p.pos++
	return t
}

// is consumes the keyword or punctuation s if it comes next.
func (p *parser) is(s string) bool {
	if t := p.peek(); (t.kind == 'i' || t.kind == s[0]) && t.text == s {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expect(s string) error {
	if !p.is(s) {
		return p.unexpected()
	}
	return nil
}

func (p *parser) unexpected() error {
	if p.pos >= len(p.toks) {
		return syntaxError("syntax error at end of input")
	}
	return syntaxError(fmt.Sprintf("syntax error at or near %q", p.peek().text))
}

// ident reads an identifier, quoted or not.
func (p *parser) ident() (string, error) {
	if t := p.peek(); t.kind == 'i' || t.kind == 'q' {
		p.pos++
		return t.text, nil
	}
	return "", p.unexpected()
}

// name reads a table name, schema-qualified or not: the example has one
// schema, public.
func (p *parser) name() (string, error) {
	n, err := p.ident()
	if err != nil || !p.is(".") {
		return n, err
	}
	if n != "public" && n != "pg_catalog" {
		return "", session.ServerError("ERROR", "3F000", fmt.Sprintf("schema %q does not exist", n), "")
	}
	return p.ident()
}

// commaList calls item for each element of a comma-separated list.
func (p *parser) commaList(item func() error) error {
	for {
		if err := item(); err != nil {
			return err
		}
		if !p.is(",") {
			return nil
		}
	}
}

// split cuts a token list at top-level semicolons, dropping empty statements.
func split(toks []token) [][]token {
	var stmts [][]token
	start := 0
	for i, t := range toks {
		if t.kind == ';' {
			if i > start {
				stmts = append(stmts, toks[start:i])
			}
			start = i + 1
		}
	}
	if start < len(toks) {
		stmts = append(stmts, toks[start:])
	}
	return stmts
}
