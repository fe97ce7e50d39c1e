package trace

import (
	"testing"

	"github.com/pgspec/pgspec/codec"
)

// A Query's replication command prints typed after the text line's fields.
func TestQueryPrintsTypedCommand(t *testing.T) {
	text := `BASE_BACKUP ( LABEL 'x',  PROGRESS,  MAX_RATE 32768)`
	cmd := replicationCommand(text, codec.Params{Major: 17})
	if cmd == nil {
		t.Fatal("not read as a command")
	}
	if got := string((&formatter{}).appendCommand(nil, cmd)); got != ` = BaseBackup Label="x" Progress=true MaxRate=32768` {
		t.Errorf("got %q", got)
	}
	if replicationCommand("SELECT 1", codec.Params{Major: 17}) != nil || replicationCommand("BASE_BACKUP (FAST)", codec.Params{Major: 17}) != nil {
		t.Error("SQL or a command 17 lacks printed as a command")
	}
}
