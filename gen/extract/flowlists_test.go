package extract

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pgspec/pgspec/gen/model"
	"github.com/pgspec/pgspec/spec"
)

// dropTerm removes the entry of a message list whose term is name.
func dropTerm(t *testing.T, data []byte, name string) []byte {
	t.Helper()
	re := regexp.MustCompile(`(?s)<dt><span class="term">` + regexp.QuoteMeta(name) + `</span></dt><dd>.*?</dd>`)
	loc := re.FindIndex(data)
	if loc == nil {
		t.Fatalf("no term %q", name)
	}
	return slices.Concat(data[:loc[0]], data[loc[1]:])
}

// flowOf extracts fsys (major 18) and builds the committed flow rules over
// the committed spec with its pg18 replaced by the extraction.
func flowOf(t *testing.T, fsys fstest.MapFS) (*spec.Spec, *model.Flow) {
	t.Helper()
	specs, err := Extract(fsys, corrections18(t))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := spec.LoadAll(os.DirFS("../../spec"))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range committed {
		if s.Major == 18 {
			committed[i] = specs[0]
		}
	}
	ov, err := spec.LoadOverlay(os.DirFS("../../spec"))
	if err != nil {
		t.Fatal(err)
	}
	mod, err := model.Build(committed, ov)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := spec.LoadFlow(os.DirFS("../../spec"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := model.BuildFlow(rules, mod)
	if err != nil {
		t.Fatal(err)
	}
	return specs[0], f
}

// ruleMajors are the majors the rule for slug holds in, in the state id.
func ruleMajors(t *testing.T, f *model.Flow, id, slug string) []int {
	t.Helper()
	for _, st := range f.States() {
		if st.ID() != id {
			continue
		}
		for _, r := range st.Rules {
			if r.Msg != nil && r.Msg.Slug == slug {
				return r.Majors
			}
		}
	}
	return nil
}

// The page's list decides where a rule holds: with EmptyQueryResponse gone
// from 18's list of simple query (both languages), the rule that allows it
// in a simple query holds in 10–17 and 19, and still in an Execute (whose
// section has no list).
func TestFlowRuleFollowsPageList(t *testing.T) {
	s, f := flowOf(t, miniCorpus(t))
	if got := ruleMajors(t, f, "backend query", "empty-query-response"); !slices.Contains(got, 18) {
		t.Fatalf("with the real page the rule holds in %v", got)
	}
	l := s.FlowLists[2]
	if l.Key() != "protocol-flow.html#PROTOCOL-FLOW-SIMPLE-QUERY/1" || l.Title.En != "Simple Query" || l.Title.Zh == "" || len(l.Items) != 9 || l.Items[5].Slug != "empty-query-response" ||
		l.Lead.En != "The possible response messages from the backend are:" || l.Lead.Zh == "" || l.Items[5].Description.Zh == "" {
		t.Fatalf("list 3 of 18: %+v", l)
	}

	fsys := miniCorpus(t)
	for _, name := range []string{"en/18/protocol-flow.html", "zh/18/protocol-flow.html"} {
		setPage(t, fsys, name, dropTerm(t, fsys[name].Data, "EmptyQueryResponse"))
	}
	s, f = flowOf(t, fsys)
	if n := len(s.FlowLists[2].Items); n != 8 {
		t.Fatalf("%d items", n)
	}
	if got := ruleMajors(t, f, "backend query", "empty-query-response"); slices.Contains(got, 18) || !slices.Contains(got, 17) || !slices.Contains(got, 19) {
		t.Errorf("without it on 18's page the rule holds in %v", got)
	}
	if got := ruleMajors(t, f, "backend execute", "empty-query-response"); !slices.Contains(got, 18) {
		t.Errorf("an Execute's rule follows no list, holds in %v", got)
	}
}

// 18's page says the server recognises direct TLS, with ALPN "postgresql";
// without that paragraph the major has none.
func TestDirectTLSFromPage(t *testing.T) {
	s, _ := flowOf(t, miniCorpus(t))
	if d := s.DirectTLS; d == nil || d.Section != "PROTOCOL-FLOW-SSL" || d.ALPN != "postgresql" || !strings.Contains(d.Text.En, "without any previous SSLRequest") || d.Text.Zh == "" {
		t.Fatalf("direct TLS of 18: %+v", d)
	}
	fsys := miniCorpus(t)
	for name, from := range map[string]string{"en/18/protocol-flow.html": "immediately\n     begin", "zh/18/protocol-flow.html": "识别那些"} {
		data := fsys[name].Data
		if n := regexp.MustCompile(from).FindIndex(data); n != nil {
			data = slices.Concat(data[:n[0]], []byte("x"), data[n[1]:])
		} else {
			t.Fatalf("%s: no %q", name, from)
		}
		setPage(t, fsys, name, data)
	}
	if s, _ := flowOf(t, fsys); s.DirectTLS != nil {
		t.Errorf("without the paragraph: %+v", s.DirectTLS)
	}
}

// A message list that is malformed, or names what the spec lacks, or a
// translation that differs from it is an error naming the file and the
// element.
func TestFlowListErrors(t *testing.T) {
	en, zh := "en/18/protocol-flow.html", "zh/18/protocol-flow.html"
	for _, c := range []struct {
		name string
		edit func(t *testing.T, fsys fstest.MapFS)
		want string
	}{
		{"unknown message", func(t *testing.T, fsys fstest.MapFS) {
			setPage(t, fsys, en, replaceOnce(t, fsys[en].Data, `<span class="term">FunctionCallResponse</span>`, `<span class="term">FunctionCallAnswer</span>`))
		}, `en/18/protocol-flow.html: section PROTOCOL-FLOW-FUNCTION-CALL, list 1, dt 2: "FunctionCallAnswer" names no message of protocol-message-formats.html`},
		{"empty term", func(t *testing.T, fsys fstest.MapFS) {
			setPage(t, fsys, en, replaceOnce(t, fsys[en].Data, `<span class="term">BackendKeyData</span>`, `<span class="term"> </span>`))
		}, `en/18/protocol-flow.html: div.variablelist 2 (section PROTOCOL-FLOW-START-UP, list 2): dt 1: no message name`},
		{"list without terms", func(t *testing.T, fsys fstest.MapFS) {
			data := fsys[en].Data
			for _, n := range []string{"ErrorResponse", "FunctionCallResponse", "ReadyForQuery", "NoticeResponse"} {
				loc := regexp.MustCompile(`<div class="sect2" id="PROTOCOL-FLOW-FUNCTION-CALL"`).FindIndex(data)
				rest := dropTerm(t, data[loc[0]:], n)
				data = slices.Concat(data[:loc[0]], rest)
			}
			setPage(t, fsys, en, data)
		}, `en/18/protocol-flow.html: div.variablelist 4 (section PROTOCOL-FLOW-FUNCTION-CALL, list 1): no dt: a message list names messages`},
		{"translation lacks one", func(t *testing.T, fsys fstest.MapFS) {
			setPage(t, fsys, zh, dropTerm(t, fsys[zh].Data, "EmptyQueryResponse"))
		}, `zh/18/protocol-flow.html: div.variablelist 3 (section PROTOCOL-FLOW-SIMPLE-QUERY, list 1): 8 messages, English has 9`},
		{"translation names another", func(t *testing.T, fsys fstest.MapFS) {
			setPage(t, fsys, zh, replaceOnce(t, fsys[zh].Data, `<span class="term">BackendKeyData</span>`, `<span class="term">CopyData</span>`))
		}, `zh/18/protocol-flow.html: div.variablelist 2 (section PROTOCOL-FLOW-START-UP, list 2), dt 1: "CopyData", English has "BackendKeyData"`},
		{"direct TLS without its ALPN protocol", func(t *testing.T, fsys fstest.MapFS) {
			setPage(t, fsys, en, replaceOnce(t, fsys[en].Data, `protocol is "postgresql"`, `protocol is postgresql`))
		}, `en/18/protocol-flow.html: the paragraph on direct TLS names no ALPN protocol`},
		{"direct TLS not translated", func(t *testing.T, fsys fstest.MapFS) {
			setPage(t, fsys, zh, replaceOnce(t, fsys[zh].Data, `识别那些`, `识别`))
		}, `zh/18/protocol-flow.html: a paragraph on direct TLS: false, English: true`},
	} {
		fsys := miniCorpus(t)
		c.edit(t, fsys)
		_, err := Extract(fsys, corrections18(t))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v\nwant %q", c.name, err, c.want)
		}
	}
}
