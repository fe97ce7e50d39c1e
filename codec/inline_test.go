package codec_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// hotHelpers are the reader and writer methods generated code calls once per
// field, and the tracker helpers it calls once per message. The codec is as fast as a hand-written one only while the compiler
// inlines them: Go keeps no register across a call, so a helper that grows
// past the inliner's budget makes every Decode or Encode store and reload its
// variables around each field. `make bench` would show that, but CI does not
// run benchmarks; the compiler's own report does not need them.
var hotHelpers = []string{
	"MajorSet.Has",
	"reader.u8", "reader.u16", "reader.u32", "reader.u64", "reader.take", "reader.fill",
	"reader.framed", "reader.count16", "reader.remaining",
	"reader.ended", "reader.terminate", "reader.done",
	"writer.u8", "writer.u16", "writer.u32", "writer.u64", "writer.header", "writer.begin",
	"writer.finish", "writer.extend", "writer.str", "writer.bytes32", "writer.raw",
	"writer.count16", "writer.count32", "writer.nonzero", "writer.bytes", "writer.result",
	"putHeader", "hasRoom", "strAt", // Encode's fast path
	"framed", "sized", "body", "tagged", "fastReader.u32", "fastReader.u64", "fastReader.ended", // Decode's
	// What the trackers' generated Next does in each case, once a message.
	"actIn", "(*tracker).took", "(*Step).clearInner", "(*Step).clearLogical", "(*Conversation).move", "(*Conversation).settle",
	"(*Conversation).push", "offsetted", "(*Conversation).parameter", "(*BackendTracker).tookParameterStatus",
	"(*BackendTracker).tookCopyData", "(*FrontendTracker).tookQuery", "answeredAct", "(*negotiation).asked",
}

func TestHotHelpersInline(t *testing.T) {
	out, err := exec.Command("go", "build", "-gcflags=-m", "-o", os.DevNull, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	inlined := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if _, fn, ok := strings.Cut(line, ": can inline "); ok {
			inlined[fn] = true
		}
	}
	for _, fn := range hotHelpers {
		if !inlined[fn] {
			t.Errorf("%s is no longer inlined (go build -gcflags=-m=2 ./codec says why)", fn)
		}
	}
}
