package model

import (
	"fmt"
	"strings"
)

// problems collects every problem found so all are reported at once.
type problems []string

func (p *problems) addf(format string, args ...any) {
	*p = append(*p, fmt.Sprintf(format, args...))
}

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return &ProblemsError{Problems: p}
}

// ProblemsError lists every problem found in the spec and overlay.
type ProblemsError struct {
	Problems []string
}

func (e *ProblemsError) Error() string {
	return fmt.Sprintf("%d problem(s):\n  %s", len(e.Problems), strings.Join(e.Problems, "\n  "))
}
