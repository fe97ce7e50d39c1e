package matrix

import (
	"slices"
	"strconv"
	"strings"

	"github.com/pgspec/pgspec/spec"
)

// The flow layer of the matrix: each message list of protocol-flow.html,
// what the server may send in one phase of the conversation, per major. A
// list's wire is the set of messages it names (a message the server may
// now send, or no longer, in that phase); its lead and the descriptions
// are wording. Direct TLS (17 on) is a row of its own: its wire is the
// ALPN protocol a client must offer, its paragraph the wording.

// flowLayer is the flow's message lists as an item layer.
var flowLayer = itemLayer{
	id:    "flow",
	title: func(v words) string { return v.flow },
	head:  func(v words) string { return v.list },
	items: func(s *spec.Spec) []item {
		var out []item
		for i := range s.FlowLists {
			l := &s.FlowLists[i]
			out = append(out, item{FlowSlug(l), l.Title.En + " " + strconv.Itoa(l.Index)})
		}
		if s.DirectTLS != nil {
			out = append(out, item{directTLSSlug, "Direct TLS"})
		}
		return out
	},
	wire: func(s *spec.Spec, slug string) []string {
		if slug == directTLSSlug {
			if s.DirectTLS == nil {
				return nil
			}
			return []string{"TLS without SSLRequest, ALPN " + strconv.Quote(s.DirectTLS.ALPN)}
		}
		l := flowList(s, slug)
		if l == nil {
			return nil
		}
		var out []string
		for _, it := range l.Items {
			out = append(out, "may send "+it.Slug)
		}
		slices.Sort(out) // the order a page lists them in is wording
		return out
	},
	text: func(s *spec.Spec, slug string, zh bool) []string {
		pick := func(t spec.Text) string {
			if zh {
				return t.Zh
			}
			return t.En
		}
		if slug == directTLSSlug {
			if s.DirectTLS == nil {
				return nil
			}
			return []string{pick(s.DirectTLS.Text)}
		}
		l := flowList(s, slug)
		if l == nil {
			return nil
		}
		out := []string{pick(l.Lead)}
		for _, it := range l.Items {
			name := it.Name
			if zh && it.NameZh != "" {
				name = it.NameZh
			}
			out = append(out, name+": "+pick(it.Description))
		}
		return out
	},
	translated: func(s *spec.Spec, slug string) bool {
		if slug == directTLSSlug {
			return s.DirectTLS != nil && s.DirectTLS.Text.Zh != ""
		}
		l := flowList(s, slug)
		return l != nil && l.Lead.Zh != ""
	},
	shown:    bi{"lists shown", "个列表"},
	shownOne: bi{"list shown", "个列表"},
	wireHead: bi{"What the server may send", "服务器可以发送的消息"},
	manual: func(s *spec.Spec, slug string) string {
		if l := flowList(s, slug); l != nil {
			return l.Page + "#" + l.Section
		}
		return ""
	},
}

// FlowSlugs are the rows the flow layer has for s: its lists, then direct
// TLS where its page documents it.
func FlowSlugs(s *spec.Spec) []string {
	var out []string
	for _, it := range flowLayer.items(s) {
		out = append(out, it.slug)
	}
	return out
}

// directTLSSlug is the flow layer's row of direct TLS.
const directTLSSlug = "flow-direct-tls"

// FlowSlug names a list in the matrix: "flow-start-up-2".
func FlowSlug(l *spec.FlowList) string {
	return "flow-" + strings.ToLower(strings.TrimPrefix(l.Section, "PROTOCOL-FLOW-")) + "-" + strconv.Itoa(l.Index)
}

// flowList is the list of s the slug names, nil if none.
func flowList(s *spec.Spec, slug string) *spec.FlowList {
	for i := range s.FlowLists {
		if FlowSlug(&s.FlowLists[i]) == slug {
			return &s.FlowLists[i]
		}
	}
	return nil
}
