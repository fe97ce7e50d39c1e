package export

import (
	"fmt"

	"github.com/pgspec/pgspec/gen/matrix"
	"github.com/pgspec/pgspec/spec"
)

// words are the record's fixed texts in one language. Where the seed
// prints one (its Chinese texts, and the English originals its
// localization.original_text keeps), it is the seed's; the texts for the
// other two layers say the same of their layer.
type words struct {
	title, position, format, meaning string
	layer, first, context, synopsis  string
	layerFact                        map[string]string
	// layerShort names a replication layer in a message's name.
	layerShort map[string]string
	// describe opens the English description ("Logical replication Update format.").
	describe     map[string]string
	sourceLabel  string
	notInVersion string
	// within places a replication sub-message in the command it answers.
	within string
	// commands is the replication commands' category.
	commands string
}

var vocab = map[matrix.Lang]words{
	matrix.English: {
		title: "Fields in documented order", position: "Position", format: "Format", meaning: "Meaning",
		layer: "Layer", first: "First field", context: "Protocol context", synopsis: "Synopsis",
		layerFact: map[string]string{
			spec.LayerCommands:             "Replication command: text sent in a Query message on a replication connection",
			spec.LayerFrontendBackend:      "Frontend/backend protocol message, sent directly on the connection",
			spec.LayerLogicalReplication:   "Logical replication payload; distinct from the frontend/backend message envelope",
			spec.LayerStreamingReplication: "Streaming replication sub-message, carried inside CopyData messages",
		},
		layerShort: map[string]string{spec.LayerLogicalReplication: "logical replication", spec.LayerStreamingReplication: "streaming replication",
			spec.LayerCommands: "replication command"},
		describe: map[string]string{
			spec.LayerCommands:             "Replication command",
			spec.LayerFrontendBackend:      "Frontend/backend",
			spec.LayerLogicalReplication:   "Logical replication",
			spec.LayerStreamingReplication: "Streaming replication",
		},
		// The seed labels the source so in every language.
		sourceLabel:  "PostgreSQL %d English manual",
		notInVersion: "not in this major",
		within:       "Sent in the COPY data of the replication command %s.",
		commands:     "Replication commands",
	},
	matrix.Chinese: {
		title: "按手册顺序排列的字段", position: "位置", format: "格式", meaning: "含义",
		layer: "层次", first: "首个字段", context: "协议上下文", synopsis: "语法",
		layerFact: map[string]string{
			spec.LayerCommands:             "复制命令：在复制连接上以 Query 消息发送的文本。",
			spec.LayerFrontendBackend:      "前后端协议消息，直接在连接上收发。",
			spec.LayerLogicalReplication:   "逻辑复制载荷，与前后端消息封装分开。",
			spec.LayerStreamingReplication: "流复制子消息，装在 CopyData 消息中传输。",
		},
		layerShort: map[string]string{spec.LayerLogicalReplication: "逻辑复制", spec.LayerStreamingReplication: "流复制",
			spec.LayerCommands: "复制命令"},
		describe: map[string]string{
			spec.LayerFrontendBackend:      "协议消息",
			spec.LayerLogicalReplication:   "协议消息",
			spec.LayerStreamingReplication: "协议消息",
			spec.LayerCommands:             "复制命令",
		},
		sourceLabel:  "PostgreSQL %d English manual",
		notInVersion: "该版未收录",
		within:       "在复制命令 %s 的 COPY 数据中发送。",
		commands:     "复制命令",
	},
}

// relatedPages are the pages a reader of a layer's message goes to next,
// "%d" the major. The logical replication pair is the seed's (the second
// is pg.center's own page on decoding plugins).
var relatedPages = map[string][]struct{ url, en, zh string }{
	spec.LayerCommands: {
		{"/docs/%d/protocol-replication.html", "Streaming replication protocol", "流复制协议"},
		{"/docs/%d/protocol-logical-replication.html", "Logical streaming replication protocol", "逻辑流复制协议"},
	},
	spec.LayerFrontendBackend: {
		{"/docs/%d/protocol-flow.html", "Message flow", "消息流"},
		{"/docs/%d/protocol-message-types.html", "Message data types", "消息数据类型"},
	},
	spec.LayerLogicalReplication: {
		{"/docs/%d/protocol-replication.html", "Streaming replication protocol", "流复制协议"},
		{"/wiki/decode/?v=%d", "Logical Decoding Plugins", "逻辑解码插件"},
	},
	spec.LayerStreamingReplication: {
		{"/docs/%d/protocol-message-formats.html", "Message formats", "消息格式"},
		{"/docs/%d/protocol-logicalrep-message-formats.html", "Logical streaming replication message formats", "逻辑流复制消息格式"},
	},
}

// covered reports a layer the vocabulary has no words for, so a layer
// added to the spec (the replication commands, say) gets its record texts
// written here before it gets records, rather than empty ones.
func covered(layer string) error {
	en, zh := vocab[matrix.English], vocab[matrix.Chinese]
	_, related := relatedPages[layer]
	if en.layerFact[layer] == "" || zh.layerFact[layer] == "" || en.describe[layer] == "" || !related ||
		layer != spec.LayerFrontendBackend && (en.layerShort[layer] == "" || zh.layerShort[layer] == "") {
		return fmt.Errorf("layer %q has no record vocabulary (gen/export/vocab.go)", layer)
	}
	return nil
}
