package spec

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
)

// The reviewed rule tables of the spec directory: what the generator knows
// about the protocol beyond the manual's tables, one row per fact, each
// with its reason, so that a new layer or pgoutput version is a row, not
// code.
const (
	LayersFile          = "layers.json"
	LogicalVersionsFile = "logicalversions.json"
)

// Rules are spec/layers.json and spec/logicalversions.json.
type Rules struct {
	// Layers are the layers in the order the manual presents them.
	Layers []*LayerRule `json:"layers"`
	// LogicalVersions are pgoutput's protocol versions (proto_version),
	// increasing from 1.
	LogicalVersions []*LogicalVersion `json:"versions"`
}

// LayerRule is one layer: where the manual documents it, how its messages
// are named in Go and in prose, and the streams (dispatchers) they travel in.
type LayerRule struct {
	Layer string `json:"layer"`
	// Flag is its short name for pgspec gen -layers.
	Flag string `json:"flag"`
	// Page is the manual's page of its messages, Section the id of the
	// page's div.sect1 (extract.PageKind).
	Page    string `json:"page"`
	Section string `json:"section"`
	// GoPrefix starts the Go name of every message that is not a part;
	// TrimSuffixes are cut from the manual's name first.
	GoPrefix     string   `json:"go_prefix"`
	TrimSuffixes []string `json:"trim_suffixes"`
	// Kind says what a message is in its type's comment ("pgoutput logical
	// replication message"), PartKind what a message part is.
	Kind     string `json:"kind"`
	PartKind string `json:"part_kind,omitempty"`
	// En and Zh are the layer's name as the matrix prints it.
	En string `json:"en"`
	Zh string `json:"zh"`
	// Dispatchers are the streams its messages travel in.
	Dispatchers []*DispatcherRule `json:"dispatchers"`
	// In is the field of another layer's message its messages travel in
	// (pgoutput's in XLogData's WALData); nil for the outermost layer.
	In     *CarrierRule `json:"in,omitempty"`
	Reason string       `json:"reason"`
}

// CarrierRule is a message field that holds a message of another layer:
// Message is its slug, Field its Go name.
type CarrierRule struct {
	Message string `json:"message"`
	Field   string `json:"field"`
}

// DispatcherRule is one stream of messages, decoded by their first bytes.
type DispatcherRule struct {
	// Name is the Go type; What names its input in errors.
	Name string `json:"name"`
	What string `json:"what"`
	// From is the direction of its messages, "F" or "B"; "" when they have
	// none (pgoutput's).
	From string `json:"from"`
	// Tagged streams choose by the tag byte; untagged ones (the startup
	// phase) by the Int32 code after the length.
	Tagged bool `json:"tagged"`
	// AuthState: messages sharing a tag are told apart by the state of the
	// authentication exchange, which the caller sets.
	AuthState bool   `json:"auth_state,omitempty"`
	Doc       string `json:"doc"`
}

// LogicalVersion is one pgoutput protocol version and what it brought.
type LogicalVersion struct {
	Version int `json:"version"`
	// Major is the first PostgreSQL major that speaks it.
	Major int `json:"major"`
	// Gate is the streaming state a field "available since protocol version
	// N" needs ("streamed", "parallel"); "" when LogicalVersion >= N alone
	// puts it on the wire.
	Gate   string `json:"gate"`
	Brings string `json:"brings"`
	Reason string `json:"reason"`
}

// Layer is the row of layer name, nil when there is none.
func (r *Rules) Layer(name string) *LayerRule {
	for _, l := range r.Layers {
		if l.Layer == name {
			return l
		}
	}
	return nil
}

// LogicalVersion is the row of pgoutput protocol version n, nil when there
// is none.
func (r *Rules) LogicalVersion(n int) *LogicalVersion {
	for _, v := range r.LogicalVersions {
		if v.Version == n {
			return v
		}
	}
	return nil
}

// LoadRules reads and checks the two rule tables of a spec directory.
func LoadRules(fsys fs.FS) (*Rules, error) {
	var r Rules
	for _, name := range []string{LayersFile, LogicalVersionsFile} {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		if err := decodeStrict(data, name, &r); err != nil {
			return nil, err
		}
	}
	if err := r.check(); err != nil {
		return nil, err
	}
	return &r, nil
}

// gates are the streaming states a pgoutput version may bring.
var gates = []string{"", GateStreamed, GateParallel}

func (r *Rules) check() error {
	var p []string
	addf := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	seen := map[string]bool{}
	dispatchers := map[string]bool{}
	for i, l := range r.Layers {
		where := fmt.Sprintf("%s: layer %d (%q)", LayersFile, i+1, l.Layer)
		switch {
		case l.Layer == "" || l.Flag == "" || l.Page == "" || l.Kind == "" || l.En == "" || l.Zh == "":
			addf("%s: needs layer, flag, page, kind, en and zh", where)
		case seen[l.Layer] || seen[l.Flag]:
			addf("%s: its name or flag %q is another layer's", where, l.Flag)
		case strings.TrimSpace(l.Reason) == "":
			addf("%s: needs a reason", where)
		}
		seen[l.Layer], seen[l.Flag] = true, true
		if l.In != nil && (l.In.Message == "" || l.In.Field == "") {
			addf("%s: in needs message and field", where)
		}
		for j, d := range l.Dispatchers {
			if d.Name == "" || d.What == "" || d.Doc == "" || dispatchers[d.Name] || !slices.Contains([]string{"", "F", "B"}, d.From) {
				addf("%s: dispatcher %d (%q) needs a name no other dispatcher has, what, doc and from \"\", \"F\" or \"B\"", where, j+1, d.Name)
			}
			dispatchers[d.Name] = true
		}
	}
	for i, v := range r.LogicalVersions {
		where := fmt.Sprintf("%s: version %d", LogicalVersionsFile, v.Version)
		switch {
		case v.Version != i+1:
			addf("%s: entry %d must be version %d (versions run 1, 2, 3, …)", where, i+1, i+1)
		case !slices.Contains(gates, v.Gate):
			addf("%s: unknown gate %q (want \"\", streamed or parallel)", where, v.Gate)
		case v.Major == 0 || strings.TrimSpace(v.Brings) == "" || strings.TrimSpace(v.Reason) == "":
			addf("%s: needs major, brings and reason", where)
		}
	}
	if len(p) > 0 {
		return fmt.Errorf("%d problem(s) in the rule tables:\n  %s", len(p), strings.Join(p, "\n  "))
	}
	return nil
}

var embeddedRules = sync.OnceValues(func() (*Rules, error) { return LoadRules(files) })

// EmbeddedRules are the rule tables compiled into the program, for an
// overlay built without a spec directory (tests, ParseOverlay).
func EmbeddedRules() *Rules {
	r, err := embeddedRules()
	if err != nil {
		panic("spec: the embedded rule tables are broken: " + err.Error()) // TestEmbeddedRules keeps them whole
	}
	return r
}
