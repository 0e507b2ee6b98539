package expr

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/strandsql/strand/types"
)

// The property test builds random expressions over random columns with
// NULLs and compares the vectorized result, batch at a time, with a
// straightforward row-at-a-time interpreter. Both follow the same
// evaluation rules (AND, OR, CASE and COALESCE evaluate lazily; every
// other function evaluates all its arguments), so they agree on which rows
// raise errors too.

// Columns: 0, 1 BIGINT; 2 DOUBLE; 3, 4 STRING; 5 BOOLEAN.
var propTypes = []types.Type{tL, tL, tD, tS, tS, tB}

type gen struct {
	r     *rand.Rand
	depth int
}

func (g *gen) pick(n int) int { return g.r.Intn(n) }

func (g *gen) leaf(t types.Type) Expr {
	var cands []int
	for i, pt := range propTypes {
		if pt == t {
			cands = append(cands, i)
		}
	}
	if g.pick(3) > 0 {
		i := cands[g.pick(len(cands))]
		return c(i, t)
	}
	if g.pick(8) == 0 {
		return null(t)
	}
	switch t.Kind {
	case types.BigInt:
		return i64([]int64{0, 1, -1, 2, 7, 100, math.MaxInt64, math.MinInt64}[g.pick(8)])
	case types.Double:
		return f64([]float64{0, 1.5, -2.25, 1e9, math.Inf(1)}[g.pick(5)])
	case types.String:
		return str([]string{"", "a", "ab", "é日", "A%", "12"}[g.pick(6)])
	}
	return boolean(g.pick(2) == 0)
}

func (g *gen) expr(t types.Type) Expr {
	if g.depth <= 0 || g.pick(4) == 0 {
		return g.leaf(t)
	}
	g.depth--
	defer func() { g.depth++ }()
	switch g.pick(4) {
	case 0:
		return g.caseExpr(t)
	case 1:
		return call(Coalesce, t, g.expr(t), g.expr(t))
	}
	switch t.Kind {
	case types.BigInt:
		switch g.pick(9) {
		case 0:
			return call(Neg, t, g.expr(t))
		case 1:
			return call(Abs, t, g.expr(t))
		case 2:
			return call(NullIf, t, g.expr(t), g.expr(t))
		case 3:
			return &Cast{X: g.expr(tS), T: t, Try: g.pick(2) == 0}
		case 4:
			return call(CharLength, t, g.expr(tS))
		case 5:
			return call(Position, t, g.expr(tS), g.expr(tS))
		}
		return call([]Fn{Add, Sub, Mul, Div, Mod}[g.pick(5)], t, g.expr(t), g.expr(t))
	case types.Double:
		switch g.pick(5) {
		case 0:
			return &Cast{X: g.expr(tL), T: t}
		case 1:
			return call(Round, t, g.expr(t), i32(int32(g.pick(3))))
		case 2:
			return call(Floor, t, g.expr(t))
		}
		return call([]Fn{Add, Sub, Mul, Div}[g.pick(4)], t, g.expr(t), g.expr(t))
	case types.String:
		switch g.pick(6) {
		case 0:
			return call([]Fn{Upper, Lower}[g.pick(2)], t, g.expr(t))
		case 1:
			return call(Substring, t, g.expr(t), i64(int64(g.pick(5)-2)), i64(int64(g.pick(4))))
		case 2:
			return &Cast{X: g.expr([]types.Type{tL, tD, tB}[g.pick(3)]), T: t}
		case 3:
			return call(Trim, t, str("BOTH"), str("a"), g.expr(t))
		}
		return call(Concat, t, g.expr(t), g.expr(t))
	}
	switch g.pick(8) {
	case 0:
		return call([]Fn{And, Or}[g.pick(2)], t, g.expr(t), g.expr(t), g.expr(t))
	case 1:
		return call(Not, t, g.expr(t))
	case 2:
		return call([]Fn{IsNull, IsNotNull}[g.pick(2)], t, g.expr(propTypes[g.pick(len(propTypes))]))
	case 3:
		return call(Like, t, g.expr(tS), str([]string{"a%", "%b", "%é%", "_", "a_%"}[g.pick(5)]))
	case 4:
		return call(In, t, g.expr(tL), i64(1), i64(7), null(tL))
	}
	ct := []types.Type{tL, tD, tS, tB}[g.pick(4)]
	return call([]Fn{Eq, Ne, Lt, Le, Gt, Ge}[g.pick(6)], t, g.expr(ct), g.expr(ct))
}

func (g *gen) caseExpr(t types.Type) Expr {
	e := &Case{T: t, Else: g.expr(t)}
	for i := g.pick(3); i >= 0; i-- {
		e.Whens = append(e.Whens, When{Cond: g.expr(tB), Then: g.expr(t)})
	}
	return e
}

func (g *gen) column(t types.Type, n int) column {
	vals := make([]any, n)
	for i := range vals {
		if g.pick(5) == 0 {
			continue
		}
		switch t.Kind {
		case types.BigInt:
			vals[i] = int64(g.pick(9) - 4)
			if g.pick(20) == 0 {
				vals[i] = int64(math.MaxInt64)
			}
		case types.Double:
			vals[i] = float64(g.pick(17)-8) / 4
		case types.String:
			b := make([]byte, 0, 8)
			for k := g.pick(5); k > 0; k-- {
				b = append(b, []string{"a", "b", "é", "日", "1", "%"}[g.pick(6)]...)
			}
			vals[i] = string(b)
		case types.Boolean:
			vals[i] = g.pick(2) == 0
		}
	}
	return column{t, vals}
}

func TestPropertyVectorizedMatchesRowByRow(t *testing.T) {
	g := &gen{r: rand.New(rand.NewSource(7))}
	iters := 1000
	if testing.Short() {
		iters = 150
	}
	for it := 0; it < iters; it++ {
		n := 1 + g.pick(150)
		cs := make([]column, len(propTypes))
		for i, pt := range propTypes {
			cs[i] = g.column(pt, n)
		}
		g.depth = 1 + g.pick(4)
		e := g.expr(propTypes[g.pick(len(propTypes))])
		want := make([]any, n)
		var wantErr error
		for i := 0; i < n; i++ {
			v, err := ref(e, cs, i)
			if err != nil {
				wantErr = err
				break
			}
			want[i] = v
		}
		got, err := run(t, e, cs)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%s: err = %v, reference err = %v", e, err, wantErr)
		}
		if err != nil {
			continue
		}
		for i := range want {
			if !equal(got[i], want[i]) {
				t.Fatalf("%s: row %d = %#v, reference %#v\ncolumns: %v", e, i, got[i], want[i], rowOf(cs, i))
			}
		}
	}
}

func rowOf(cs []column, i int) []any {
	r := make([]any, len(cs))
	for k, c := range cs {
		r[k] = c.vals[i]
	}
	return r
}

var errRef = fmt.Errorf("%w: reference", ErrRuntime)

// ref evaluates e on row i, one value at a time.
func ref(e Expr, cs []column, i int) (any, error) {
	switch e := e.(type) {
	case *Col:
		return cs[e.Index].vals[i], nil
	case *Lit:
		if e.V.IsNull {
			return nil, nil
		}
		switch e.V.Type.Kind {
		case types.BigInt:
			return e.V.Int, nil
		case types.Int:
			return e.V.Int, nil
		case types.Double:
			return e.V.Float, nil
		case types.String:
			return e.V.Str, nil
		case types.Boolean:
			return e.V.Bool, nil
		}
	case *Case:
		for _, w := range e.Whens {
			c, err := ref(w.Cond, cs, i)
			if err != nil {
				return nil, err
			}
			if c == true {
				return ref(w.Then, cs, i)
			}
		}
		return ref(e.Else, cs, i)
	case *Cast:
		x, err := ref(e.X, cs, i)
		if err != nil || x == nil {
			return nil, err
		}
		switch x := x.(type) {
		case string:
			v, ok := parseInt(trimSpace([]byte(x)), math.MinInt64, math.MaxInt64)
			if !ok {
				if e.Try {
					return nil, nil
				}
				return nil, errRef
			}
			return v, nil
		case int64:
			if e.T.Kind == types.String {
				return strconv.FormatInt(x, 10), nil
			}
			return float64(x), nil
		case float64:
			return types.FormatFloat(x, 64), nil
		case bool:
			if x {
				return "TRUE", nil
			}
			return "FALSE", nil
		}
	case *Call:
		return refCall(e, cs, i)
	}
	panic(fmt.Sprintf("ref: %s", e))
}

func refCall(e *Call, cs []column, i int) (any, error) {
	switch e.Fn {
	case And, Or:
		sawNull := false
		for _, a := range e.Args {
			v, err := ref(a, cs, i)
			if err != nil {
				return nil, err
			}
			if v == nil {
				sawNull = true
			} else if v.(bool) == (e.Fn == Or) {
				return v, nil
			}
		}
		if sawNull {
			return nil, nil
		}
		return e.Fn == And, nil
	case Coalesce:
		for _, a := range e.Args {
			v, err := ref(a, cs, i)
			if err != nil || v != nil {
				return v, err
			}
		}
		return nil, nil
	}
	args := make([]any, len(e.Args))
	anyNull := false
	for k, a := range e.Args {
		v, err := ref(a, cs, i)
		if err != nil {
			return nil, err
		}
		args[k] = v
		anyNull = anyNull || v == nil
	}
	switch e.Fn {
	case IsNull:
		return args[0] == nil, nil
	case IsNotNull:
		return args[0] != nil, nil
	case NullIf:
		if args[0] == nil || args[1] == nil || args[0] != args[1] {
			return args[0], nil
		}
		return nil, nil
	case In:
		if args[0] == nil {
			return nil, nil
		}
		sawNull := false
		for _, a := range args[1:] {
			if a == nil {
				sawNull = true
			} else if a == args[0] {
				return true, nil
			}
		}
		if sawNull {
			return nil, nil
		}
		return false, nil
	}
	if anyNull {
		return nil, nil
	}
	switch e.Fn {
	case Not:
		return !args[0].(bool), nil
	case Eq, Ne, Lt, Le, Gt, Ge:
		return refCompare(e.Fn, args[0], args[1]), nil
	case Like:
		pat, _ := compilePattern([]byte(args[1].(string)), '\\')
		return pat.match([]byte(args[0].(string))), nil
	case Upper, Lower:
		return string(appendCase(nil, []byte(args[0].(string)), e.Fn == Upper)), nil
	case Substring:
		s, ok := substr([]byte(args[0].(string)), args[1].(int64), args[2].(int64))
		if !ok {
			return nil, nil
		}
		return string(s), nil
	case Trim:
		return string(trimRunes([]byte(args[2].(string)), []byte(args[1].(string)), true, true)), nil
	case Concat:
		return args[0].(string) + args[1].(string), nil
	case CharLength:
		return int64(utf8.RuneCountInString(args[0].(string))), nil
	case Position:
		k := bytes.Index([]byte(args[1].(string)), []byte(args[0].(string)))
		if k < 0 {
			return int64(0), nil
		}
		return int64(utf8.RuneCountInString(args[1].(string)[:k]) + 1), nil
	case Round:
		r, _ := roundFloat(args[0].(float64), int(args[1].(int64)), 64, nil)
		return r, nil
	case Floor:
		return math.Floor(args[0].(float64)), nil
	}
	if x, ok := args[0].(int64); ok {
		switch e.Fn {
		case Neg:
			return -x, nil
		case Abs:
			if x < 0 {
				return -x, nil
			}
			return x, nil
		}
		y := args[1].(int64)
		switch e.Fn {
		case Add:
			return x + y, nil
		case Sub:
			return x - y, nil
		case Mul:
			return x * y, nil
		case Div, Mod:
			if y == 0 {
				return nil, errRef
			}
			if e.Fn == Div {
				return x / y, nil
			}
			return x % y, nil
		}
	}
	x, y := args[0].(float64), args[1].(float64)
	switch e.Fn {
	case Add:
		return x + y, nil
	case Sub:
		return x - y, nil
	case Mul:
		return x * y, nil
	case Div:
		return x / y, nil
	}
	panic(fmt.Sprintf("ref: %s", e))
}

func refCompare(op Fn, a, b any) bool {
	var r int
	switch a := a.(type) {
	case int64:
		r = cmp3(a, b.(int64))
	case float64:
		bf := b.(float64)
		switch op {
		case Eq:
			return a == bf
		case Ne:
			return a != bf
		case Lt:
			return a < bf
		case Le:
			return a <= bf
		case Gt:
			return a > bf
		}
		return a >= bf
	case string:
		r = bytes.Compare([]byte(a), []byte(b.(string)))
	case bool:
		r = cmp3(b2i(a), b2i(b.(bool)))
	}
	return holds(op, r)
}

func cmp3[T int | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
