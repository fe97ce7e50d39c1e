package emit

import (
	"fmt"
	"go/ast"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/pgspec/pgspec/gen/model"
	"github.com/pgspec/pgspec/spec"
)

// trackerSide is one side of the conversation runtime (runtime/conversation.go)
// whose Next is generated: its machine, the dispatcher of its tagged
// messages, its tracker's type, and the field naming both the side's state
// in Conversation and its dispatcher in the tracker.
type trackerSide struct {
	machine, dispatcher, tracker, field, doc string
}

var trackerSides = []trackerSide{
	{"frontend", "Frontend", "FrontendTracker", "fe", "Next decodes one whole message the frontend sent and takes it into the conversation."},
	{"backend", "Backend", "BackendTracker", "be", "Next decodes one whole message the backend sent (a one-byte answer when OneByte) and takes it into the conversation."},
}

// startupSide is the frontend tracker's dispatcher of startup packets,
// the messages of its untagged states.
var startupSide = struct{ dispatcher, field string }{"Startup", "st"}

// hookPrefix begins the runtime's hooks: a method took<Message> of a
// side's tracker is what taking that message tells the conversation beyond
// its act (ParameterStatus's server_version, the stream a Query asks
// for), called by both of Next's paths. One that takes the Step,
// took<Message>(*Step) error, sets the messages inside it (Sub, Logical)
// and returns what failed there; the others take nothing and return
// nothing, and the Step's inner messages are cleared for them.
const hookPrefix = "took"

// trackersFile renders each side's Next: one switch on the frame's tag
// (in the frontend's startup states, on its request code) that decodes
// the message, when the state allows it on its act alone, with the
// message's own Decode and takes it on the spot, calling the side's hook
// and applying the act as far as the kind's acts have parts (the request
// queued, the other side's state); any other frame takes the runtime's
// general path (next). And each side's hook, the switch on the kind the
// general path calls. Nil when the codec has no conversation (a subset
// without the frontend/backend layer).
func trackersFile(mod *model.Model, o Options, hooks map[string]bool) (*jen.File, error) { // hooks: by Type.method, whether it takes the Step
	fl := mod.Flow
	if fl == nil || machine(fl, "frontend") == nil || machine(fl, "backend") == nil {
		return nil, nil
	}
	byName := map[string]*dispatcher{}
	for _, d := range dispatchers(mod) {
		byName[d.Name] = d
	}
	kinds := map[string]*model.Message{}
	for _, m := range flowKinds(mod) {
		kinds[m.GoName] = m
	}
	f := o.newFile()
	for i, side := range trackerSides {
		d, m := byName[side.dispatcher], machine(fl, side.machine)
		if d == nil || len(d.members) == 0 {
			return nil, fmt.Errorf("the %s tracker needs the %s dispatcher", side.machine, side.dispatcher)
		}
		other := trackerSides[1-i].field
		var called []*model.Message
		for h := range hooks {
			name, ok := strings.CutPrefix(h, side.tracker+"."+hookPrefix)
			if !ok {
				continue
			}
			if kinds[name] == nil {
				return nil, fmt.Errorf("runtime: %s names no message the flow follows", h)
			}
			if kinds[name].AnswerTo != "" {
				return nil, fmt.Errorf("runtime: %s hooks a one-byte answer, whose act answered applies without hooks", h)
			}
			called = append(called, kinds[name])
		}
		sortMessages(called)
		shapes := actShapes(m, mod.Majors)
		take := func(dv string) func(*model.Message) jen.Code {
			return func(msg *model.Message) jen.Code {
				sh, ok := shapes[msg]
				if !ok {
					return nil
				}
				kind := jen.Id("kind" + msg.GoName)
				field := func() *jen.Statement { return jen.Id(dv).Dot(lowerFirst(msg.GoName)) }
				act := func(f string) *jen.Statement { return jen.Id("c").Dot(f) }
				step, hooked := hooks[side.tracker+"."+hookPrefix+msg.GoName]
				off, took := jen.Id("off"), "took"
				if !step && !sh.push && !sh.negotiated {
					off = jen.Id("_")
				}
				if step {
					took = "taking" // the hook sets the inner messages
				}
				// Counted before the decode, while the frame is at hand: a
				// frame that fails is uncounted for the general path.
				count := jen.List(jen.Id("s"), off).Op(":=").Id("t").Dot(took).Call(jen.Id("src"), jen.Op("&").Add(field()))
				var body []jen.Code
				var result jen.Code = jen.Nil()
				switch {
				case step: // a nil error returned as nil: no type test on the path of every CopyData
					body = append(body, jen.If(jen.Id("err").Op(":=").Id("t").Dot(hookPrefix+msg.GoName).Call(jen.Id("s")), jen.Id("err").Op("!=").Nil()).Block(
						jen.Return(jen.Id("s"), jen.Id("offsetted").Call(jen.Id("err"), jen.Id("off")))))
				case hooked:
					body = append(body, jen.Id("t").Dot(hookPrefix+msg.GoName).Call())
				}
				if sh.negotiated { // checked before the act moves the state it came in
					if step {
						return nil // no rule has both: the general path takes it
					}
					body = append(body, jen.Var().Id("err").Error(),
						jen.If(jen.Id("a").Op("&").Id("actNegotiated").Op("!=").Lit(0).Op("&&").Id("c").Dot("nego").Dot("asked").Call(jen.Id("c").Dot("P").Dot("ProtocolMinor"))).Block(
							jen.Id("err").Op("=").Id("t").Dot("unnegotiated").Call(act(side.field), kind, jen.Id("off"))))
					result = jen.Id("err")
				}
				if sh.push {
					q := jen.Id("flowState").Call(jen.Id("a").Op(">>").Id("actPush"))
					body = append(body, jen.If(jen.Id("q").Op(":=").Add(q), jen.Id("q").Op("!=").Lit(0).Op("&&").Op("!").Id("c").Dot("push").Call(jen.Id("q").Op("-").Lit(1))).Block(
						jen.Return(jen.Id("s"), jen.Id("t").Dot("tooMany").Call(act(side.field), kind, jen.Id("off")))))
				}
				switch {
				case sh.peer:
					body = append(body, jen.Id("c").Dot("move").Call(jen.Op("&").Add(act(side.field)), jen.Op("&").Add(act(other)), jen.Id("a")))
				case sh.moves:
					body = append(body, act(side.field).Op("=").Id("flowState").Call(jen.Id("a")))
				}
				if sh.settles {
					body = append(body, jen.Id("c").Dot("settle").Call(jen.Id("a")))
				}
				body = append(body, jen.Return(jen.Id("s"), result))
				if sh.push || sh.peer || sh.moves || sh.settles || sh.negotiated {
					// c again from t: held across the decode, it would be
					// stored at Next's entry for every message.
					body = append([]jen.Code{jen.Id("c").Op(":=").Id("t").Dot("c")}, body...)
				}
				return jen.If(
					jen.Id("a").Op(":=").Id("actIn").Call(act(side.field), kind),
					jen.Id("a").Op("&").Id("actFast").Op("!=").Lit(0),
				).Block(count, jen.If(field().Dot("Decode").Call(jen.Id("src"), jen.Id("c").Dot("P")).Op("==").Nil()).Block(body...),
					jen.Id("t").Dot("untook").Call(jen.Id("src")))
			}
		}
		cases, err := d.trackerCases(take("d"), side.field)
		if err != nil {
			return nil, err
		}
		body := []jen.Code{jen.List(jen.Id("c"), jen.Id("d")).Op(":=").List(jen.Id("t").Dot("c"), jen.Op("&").Id("t").Dot(side.field))}
		if side.machine == "frontend" {
			sd := byName[startupSide.dispatcher]
			if sd == nil || len(sd.members) == 0 {
				return nil, fmt.Errorf("the frontend tracker needs the %s dispatcher", startupSide.dispatcher)
			}
			c, err := sd.byCode(sd.members, 4, take("u"), jen.Null())
			if err != nil {
				return nil, err
			}
			// A startup packet begins with its length, whose first byte is
			// 0 for any size a FrameReader takes: no tag's case. Tagged
			// frames pay no test for it; a frame in a startup state whose
			// first byte is a tag finds no act for its kind there and
			// takes the general path, as any frame the fast path leaves.
			cases = append(cases, jen.Default().Block(
				jen.If(jen.Id("untaggedStates").Index(jen.Id("c").Dot(side.field)).Op("&&").Len(jen.Id("src")).Op(">=").Lit(8)).Block(
					jen.Id("u").Op(":=").Op("&").Id("t").Dot(startupSide.field), c)))
		}
		// The general path is given src without its capacity, which it
		// has no use for: held across a case's decode, it would be stored
		// at Next's entry for every message.
		n := jen.Len(jen.Id("src"))
		body = append(body,
			jen.If(jen.Len(jen.Id("src")).Op("!=").Lit(0)).Block(jen.Switch(jen.Id("src").Index(jen.Lit(0))).Block(cases...)),
			jen.Return(jen.Id("t").Dot("next").Call(jen.Id("src").Index(jen.Empty(), n.Clone(), n.Clone()))))
		f.Comment(side.doc)
		f.Comment("On a *DecodeError the Step holds nothing decoded; on a *FlowError it holds the")
		f.Comment("message. A message the state allows on its act alone is decoded and taken")
		f.Comment("in its case; any other frame takes the general path.")
		f.Func().Params(jen.Id("t").Op("*").Id(side.tracker)).Id("Next").Params(jen.Id("src").Index().Byte()).Params(jen.Op("*").Id("Step"), jen.Error()).Block(body...)
		f.Line()
		var hc []jen.Code
		for _, msg := range called {
			call := jen.Return(jen.Id("t").Dot(hookPrefix + msg.GoName).Call(jen.Id("s")))
			if !hooks[side.tracker+"."+hookPrefix+msg.GoName] {
				call = jen.Id("t").Dot(hookPrefix + msg.GoName).Call()
			}
			hc = append(hc, jen.Case(jen.Id("kind"+msg.GoName)).Add(call))
		}
		f.Comment("hook calls the hook of a message of kind k the general path took, if it has one.")
		hb := []jen.Code{jen.Return(jen.Nil())}
		if len(hc) > 0 {
			hb = append([]jen.Code{jen.Switch(jen.Id("k")).Block(hc...)}, hb...)
		}
		f.Func().Params(jen.Id("t").Op("*").Id(side.tracker)).Id("hook").Params(jen.Id("k").Id("flowKind"), jen.Id("s").Op("*").Id("Step")).Error().Block(hb...)
		f.Line()
	}
	return f, nil
}

// actShape is what the acts of a message's fast rules in one machine
// have: a next state for their side, a request queued, a state for the
// other side, whether the backend may be left idle with requests waiting
// (a request ended or discarded, the backend's state set), which settle
// then takes up, and the end of a start-up whose negotiation is checked
// (actNegotiated). A generated case applies only those parts.
type actShape struct{ moves, push, peer, settles, negotiated bool }

// actShapes are the shapes of the messages some state of m allows on
// their act alone (actFast): only those have a case in
// Next.
func actShapes(m *model.FlowMachine, majors []int) map[*model.Message]actShape {
	shapes := map[*model.Message]actShape{}
	for _, st := range m.States {
		for _, r := range st.Rules {
			if r.Msg != nil && !needsLook(r, majors) {
				sh := shapes[r.Msg]
				sh.moves, sh.push, sh.peer = sh.moves || r.Next != nil, sh.push || r.Push != nil, sh.peer || r.Peer != nil
				// A request queued leaves the backend busy; only a state set
				// (its own as the backend, the peer's as the frontend) or
				// an answer ended may leave it idle.
				moves := r.Peer
				if m.Name == "backend" {
					moves = r.Next
				}
				sh.settles = sh.settles || moves != nil || r.End || r.Discard
				sh.negotiated = sh.negotiated || r.Requires == spec.RequiresNegotiated
				shapes[r.Msg] = sh
			}
		}
	}
	return shapes
}

// trackerCases are the cases of a tracker's switch on the tag: take(m)
// (nil: none) for each message told apart by its tag, its subtype or, for
// those only the authentication exchange tells apart ('p'), by the kind
// passwordKinds names for the side's state (state, in Conversation); what
// matches no case is left to the general path.
func (d *dispatcher) trackerCases(take func(*model.Message) jen.Code, state string) ([]jen.Code, error) {
	sortMessages(d.members)
	byTag, tags := d.byTag()
	var cases []jen.Code
	for _, t := range tags {
		ms := byTag[t]
		var stmt jen.Code
		switch {
		case allStates(ms):
			var sc []jen.Code
			for _, m := range ms {
				if c := take(m); c != nil {
					sc = append(sc, jen.Case(jen.Id("kind"+m.GoName)).Add(c))
				}
			}
			if len(sc) == 0 {
				continue
			}
			stmt = jen.Switch(jen.Id("passwordKinds").Index(jen.Id("c").Dot(state))).Block(sc...)
		case len(ms) == 1:
			if stmt = take(ms[0]); stmt == nil {
				continue
			}
		default:
			c, err := d.byCode(ms, 5, take, jen.Null())
			if err != nil {
				return nil, err
			}
			stmt = jen.If(jen.Len(jen.Id("src")).Op(">=").Lit(9)).Block(c)
		}
		cases = append(cases, jen.Case(jen.LitRune(rune(t))).Block(stmt))
	}
	return cases, nil
}

// runtimeHooks are the hooks the runtime rt written into the codec declares
// (methods named took<Message>), as "Type.method", and whether each takes
// the Step.
func runtimeHooks(rt []runtimeFile) (map[string]bool, error) {
	hooks := map[string]bool{}
	err := runtimeDecls(rt, func(d ast.Decl) {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || !strings.HasPrefix(fd.Name.Name, hookPrefix) || len(fd.Recv.List) != 1 {
			return
		}
		if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
			if id, ok := star.X.(*ast.Ident); ok {
				hooks[id.Name+"."+fd.Name.Name] = fd.Type.Params.NumFields() > 0
			}
		}
	})
	return hooks, err
}
