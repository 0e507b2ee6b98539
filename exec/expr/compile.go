package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/strandsql/strand/types"
)

// compiler turns an Expr into a tree of nodes, checking the contract and
// folding constant subtrees.
type compiler struct {
	schema types.Schema
	cols   map[int]*node // one node per input column, shared by its readers
	clock  bool
	epoch  uint64
}

func errorf(e Expr, format string, args ...any) error {
	return fmt.Errorf("expr: %s: %s", e, fmt.Sprintf(format, args...))
}

func (c *compiler) compile(e Expr) (*node, error) {
	switch e := e.(type) {
	case *Col:
		return c.column(e)
	case *Lit:
		return c.lit(e.V)
	case nil:
		return nil, fmt.Errorf("expr: nil expression")
	}
	var nd *node
	var err error
	switch e := e.(type) {
	case *Cast:
		nd, err = c.cast(e)
	case *Case:
		nd, err = c.caseWhen(e)
	case *Call:
		nd, err = c.call(e)
	default:
		return nil, fmt.Errorf("expr: cannot evaluate %T", e)
	}
	if err != nil {
		return nil, err
	}
	if physOf(e.Type()) != nd.p {
		return nil, errorf(e, "result type %s does not match the operands", e.Type())
	}
	if nd.p == pNest && !ReadsNested(e) {
		return nil, errorf(e, "a %s value can be read from a column, not computed", e.Type().Kind)
	}
	c.fold(nd)
	return nd, nil
}

// arg compiles e where a value of type want is expected: an untyped NULL
// becomes a NULL of that type.
func (c *compiler) arg(e Expr, want types.Type) (*node, error) {
	if e == nil {
		return nil, fmt.Errorf("expr: nil expression")
	}
	if e.Type().Kind == types.Null {
		return c.lit(types.NullOf(want))
	}
	return c.compile(e)
}

// node makes an eager node of type t over kids.
func newNode(t types.Type, kids ...*node) *node {
	return &node{t: t, p: physOf(t), kids: kids, in: make([]*vec, len(kids)), col: -1}
}

// fold evaluates a node whose arguments are all constant once, at compile
// time. If that fails (CAST('x' AS INT)), the node stays, so that the error
// is raised only if a row reaches it.
func (c *compiler) fold(nd *node) {
	if nd.fixed || nd.clock || nd.col >= 0 {
		return
	}
	for _, k := range nd.kids {
		if !k.fixed {
			return
		}
	}
	c.epoch++
	res, err := nd.eval(&state{epoch: c.epoch}, 1, nil)
	if err != nil {
		return
	}
	if res != &nd.out {
		nd.out = *res
	}
	nd.out.konst = true
	nd.fixed = true
	nd.kids, nd.in = nil, nil
}

func (c *compiler) column(e *Col) (*node, error) {
	if e.Index < 0 || e.Index >= len(c.schema) {
		return nil, errorf(e, "column %d out of range (%d columns)", e.Index, len(c.schema))
	}
	if !types.Same(c.schema[e.Index].Type, e.T) {
		return nil, errorf(e, "column is %s in the input, %s in the expression", c.schema[e.Index].Type, e.T)
	}
	if (physOf(e.T) == pNull && e.T.Kind != types.Null) || (e.T.Kind == types.Decimal && !validDecimal(e.T)) {
		return nil, errorf(e, "unsupported type %s", e.T)
	}
	if nd, ok := c.cols[e.Index]; ok {
		return nd, nil
	}
	nd := newNode(e.T)
	nd.col = e.Index
	nd.run = func(*state, int, []uint64) (*vec, error) { return &nd.out, nil }
	c.cols[e.Index] = nd
	return nd, nil
}

// lit makes a folded node holding v.
func (c *compiler) lit(v types.Value) (*node, error) {
	nd := newNode(v.Type)
	nd.fixed = true
	if v.IsNull {
		nd.out = nullv
		return nd, nil
	}
	o := &nd.out
	o.konst = true
	switch nd.p {
	case pBool:
		o.bits = []uint64{b2u(v.Bool)}
	case pI32:
		o.fixed = raw([]int32{int32(v.Int)})
	case pI64:
		o.fixed = raw([]int64{v.Int})
	case pF32:
		o.fixed = raw([]float32{float32(v.Float)})
	case pF64:
		o.fixed = raw([]float64{v.Float})
	case pDec:
		if v.Type.Precision < 1 || v.Type.Precision > 38 || !fits(v.Dec, v.Type.Precision) {
			return nil, fmt.Errorf("expr: literal %s does not fit %s", v, v.Type)
		}
		o.fixed = raw([]decimal128.Num{v.Dec})
	case pStr:
		o.data = []byte(v.Str)
		o.offs = []int32{0, int32(len(v.Str))}
	default:
		if v.Type.Kind != types.Null {
			return nil, fmt.Errorf("expr: unsupported literal type %s", v.Type)
		}
		nd.out = nullv
	}
	return nd, nil
}

// litString returns the value of a string literal argument, such as a unit
// or mode.
func litString(e Expr) (string, bool) {
	l, ok := e.(*Lit)
	if !ok || l.V.IsNull || l.V.Type.Kind != types.String {
		return "", false
	}
	return l.V.Str, true
}

func (c *compiler) call(e *Call) (*node, error) {
	switch e.Fn {
	case And, Or:
		return c.logic(e)
	case Not:
		return c.not(e)
	case IsNull, IsNotNull, IsTrue, IsNotTrue, IsFalse, IsNotFalse:
		return c.test(e)
	case Eq, Ne, Lt, Le, Gt, Ge:
		return c.compare(e)
	case In:
		return c.in(e)
	case Like:
		return c.like(e)
	case Coalesce:
		return c.coalesce(e)
	case NullIf:
		return c.nullIf(e)
	case Mul:
		if e.T.IsInterval() {
			return c.mulInterval(e)
		}
		return c.arith(e)
	case Add, Sub, Div, Mod:
		return c.arith(e)
	case Neg, Abs, Floor, Ceil, Round:
		return c.unary(e)
	case Lower, Upper:
		return c.changeCase(e)
	case CharLength:
		return c.charLength(e)
	case Substring:
		return c.substring(e)
	case Trim:
		return c.trim(e)
	case Concat:
		return c.concat(e)
	case Position:
		return c.position(e)
	case DateFormat:
		return c.dateFormat(e)
	case Extract:
		return c.extract(e)
	case FloorTime, CeilTime:
		return c.floorTime(e)
	case AddInterval, SubInterval:
		return c.addInterval(e)
	case CurrentTimestamp, ProcTime:
		return c.now(e)
	case Greatest, Least:
		return c.choose(e)
	case Regexp:
		return c.regexpMatch(e)
	case RegexpExtract:
		return c.regexpExtract(e)
	case RegexpReplace:
		return c.regexpReplace(e)
	case SplitIndex:
		return c.splitIndex(e)
	case Replace:
		return c.replace(e)
	case Reverse:
		return c.reverse(e)
	case Initcap:
		return c.initcap(e)
	case Lpad, Rpad:
		return c.pad(e)
	case CountChar:
		return c.countChar(e)
	case Md5, Sha256:
		return c.hash(e)
	case UUID:
		return c.uuid(e)
	case JSONValue, JSONQuery:
		return c.jsonFunc(e)
	case TimestampDiff:
		return c.timestampDiff(e)
	case ParseTime:
		return c.parseTimeFn(e)
	case UnixTime:
		return c.unixTime(e)
	case FromUnixTime:
		return c.fromUnixTime(e)
	case EpochToTime:
		return c.epochToTime(e)
	case GetField, ElementAt, Cardinality, Element:
		return c.nested(e)
	}
	return nil, errorf(e, "unknown function %d", e.Fn)
}

// arity checks the number of e's arguments.
func arity(e *Call, min, max int) error {
	if len(e.Args) < min || (max >= 0 && len(e.Args) > max) {
		return errorf(e, "%s takes %s arguments, got %d", e.Fn, count(min, max), len(e.Args))
	}
	for _, a := range e.Args {
		if a == nil {
			return errorf(e, "nil argument")
		}
	}
	return nil
}

func count(min, max int) string {
	switch {
	case min == max:
		return fmt.Sprint(min)
	case max < 0:
		return fmt.Sprintf("at least %d", min)
	}
	return fmt.Sprintf("%d to %d", min, max)
}

// typed compiles argument a of e, which must satisfy ok; an untyped NULL
// becomes a NULL of type t.
func (c *compiler) typed(e, a Expr, t types.Type, ok func(types.Type) bool) (*node, error) {
	if a.Type().Kind != types.Null && !ok(a.Type()) {
		return nil, errorf(e, "unexpected argument type %s", a.Type())
	}
	return c.arg(a, t)
}

// sameType is types.Same, with an untyped NULL matching anything.
func sameType(a, b types.Type) bool {
	return a.Kind == types.Null || b.Kind == types.Null || types.Same(a, b)
}

func isString(t types.Type) bool { return t.Kind == types.String }

func isBool(t types.Type) bool { return t.Kind == types.Boolean }
