package spec

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// The embedded tables load and list the layers Layers names, in its order.
func TestEmbeddedRules(t *testing.T) {
	r, err := LoadRules(Embedded())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range r.Layers {
		names = append(names, l.Layer)
	}
	if !slices.Equal(names, Layers) {
		t.Errorf("%s lists %v, Layers is %v", LayersFile, names, Layers)
	}
	if v := r.LogicalVersion(4); v == nil || v.Gate != GateParallel || r.LogicalVersion(2).Gate != GateStreamed {
		t.Errorf("pgoutput 2 brought streamed, 4 parallel streaming: %+v", r.LogicalVersions)
	}
}

func TestLoadRulesChecksRows(t *testing.T) {
	layer := `{"layers": [{"layer": "l", "flag": "f", "page": "p.html", "kind": "k", "en": "E", "zh": "Z", "reason": "r", "dispatchers": [{"name": "D", "what": "w", "from": "F", "tagged": true, "doc": "d"}]}]}`
	version := `{"versions": [{"version": 1, "major": 10, "gate": "", "brings": "b", "reason": "r"}]}`
	for _, c := range []struct{ layers, versions, err string }{
		{layer, version, ""},
		{strings.Replace(layer, `"reason": "r"`, `"reason": " "`, 1), version, `layers.json: layer 1 ("l"): needs a reason`},
		{strings.Replace(layer, `"from": "F"`, `"from": "X"`, 1), version, `dispatcher 1 ("D") needs a name no other dispatcher has`},
		{strings.TrimSuffix(layer, `]}`) + `, {"layer": "m", "flag": "f", "page": "q.html", "kind": "k", "en": "E", "zh": "Z", "reason": "r"}]}`, version, `layers.json: layer 2 ("m"): its name or flag "f" is another layer's`},
		{layer, strings.Replace(version, `"version": 1`, `"version": 2`, 1), "logicalversions.json: version 2: entry 1 must be version 1"},
		{layer, strings.Replace(version, `"gate": ""`, `"gate": "sometimes"`, 1), `unknown gate "sometimes"`},
		{layer, strings.Replace(version, `"reason": "r"`, `"reason": ""`, 1), "needs major, brings and reason"},
		{layer, "{\"versions\": [\n  {\"version\": 1,}]}", "logicalversions.json:2:17: invalid character '}'"},
	} {
		_, err := LoadRules(fstest.MapFS{LayersFile: {Data: []byte(c.layers)}, LogicalVersionsFile: {Data: []byte(c.versions)}})
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("got %v, want %q", err, c.err)
		}
	}
	if _, err := LoadRules(fstest.MapFS{LayersFile: {Data: []byte(layer)}}); err == nil {
		t.Error("a spec directory without logicalversions.json loaded")
	}
}
