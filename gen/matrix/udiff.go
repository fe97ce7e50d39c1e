package matrix

import (
	"fmt"
	"strings"
)

// Unified returns the unified diff (three lines of context) that turns a
// into b, headed "--- from" and "+++ to", or "" when they are equal. The
// edit script is a longest common subsequence over whole lines; field tables
// are short enough that the quadratic table costs nothing.
func Unified(from, to string, a, b []string) string {
	ops := editScript(a, b)
	const context = 3
	var out strings.Builder
	aLine, bLine := 0, 0 // lines of a and b before ops[i]
	for i := 0; i < len(ops); {
		if ops[i] == ' ' {
			aLine, bLine = aLine+1, bLine+1
			i++
			continue
		}
		// A hunk starts up to context equal lines before the change and ends
		// when more than 2*context equal lines separate it from the next one.
		start := max(0, i-context)
		aLine, bLine = aLine-(i-start), bLine-(i-start)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j] != ' ' {
				end = j + 1
			} else if j-end >= 2*context {
				break
			}
		}
		end = min(len(ops), end+context)
		if out.Len() == 0 {
			fmt.Fprintf(&out, "--- %s\n+++ %s\n", from, to)
		}
		aStart, bStart := aLine, bLine
		var body strings.Builder
		for _, op := range ops[start:end] {
			switch op {
			case ' ':
				body.WriteString(" " + a[aLine] + "\n")
				aLine, bLine = aLine+1, bLine+1
			case '-':
				body.WriteString("-" + a[aLine] + "\n")
				aLine++
			case '+':
				body.WriteString("+" + b[bLine] + "\n")
				bLine++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n%s", hunkRange(aStart, aLine-aStart), hunkRange(bStart, bLine-bStart), body.String())
		i = end
	}
	return out.String()
}

// hunkRange writes a hunk's side as diff(1) does: "start,count", the count
// left out when it is 1 and the start naming the line before when it is 0.
func hunkRange(before, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", before)
	case 1:
		return fmt.Sprint(before + 1)
	}
	return fmt.Sprintf("%d,%d", before+1, count)
}

// editScript returns one op per line of the shortest edit from a to b:
// ' ' keep, '-' delete from a, '+' insert from b; deletions come first.
func editScript(a, b []string) []byte {
	// lcs[i*(m+1)+j] is the length of the longest common subsequence of a[i:] and b[j:].
	n, m := len(a), len(b)
	lcs := make([]int32, (n+1)*(m+1))
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*(m+1)+j] = lcs[(i+1)*(m+1)+j+1] + 1
			} else {
				lcs[i*(m+1)+j] = max(lcs[(i+1)*(m+1)+j], lcs[i*(m+1)+j+1])
			}
		}
	}
	ops := make([]byte, 0, n+m)
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, ' ')
			i, j = i+1, j+1
		case j == m || i < n && lcs[(i+1)*(m+1)+j] >= lcs[i*(m+1)+j+1]:
			ops = append(ops, '-')
			i++
		default:
			ops = append(ops, '+')
			j++
		}
	}
	return ops
}
