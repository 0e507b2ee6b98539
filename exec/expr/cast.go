package expr

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/strandsql/strand/types"
)

// caster converts one vec of type from into the node's type to. A value
// that does not convert fails the cast: an error, or NULL under TRY_CAST
// (and on rows whose values do not matter).
type caster struct {
	nd       *node
	from, to types.Type
	try      bool
}

func (c *compiler) cast(e *Cast) (*node, error) {
	if e.X == nil {
		return nil, fmt.Errorf("expr: CAST of nil")
	}
	from, to := e.X.Type(), e.T
	if physOf(to) == pNull {
		return nil, errorf(e, "cannot cast to %s", to)
	}
	if from.Kind == types.Null {
		return c.lit(types.NullOf(to))
	}
	if to.Kind == types.Decimal && !validDecimal(to) {
		return nil, errorf(e, "invalid type %s", to)
	}
	x, err := c.compile(e.X)
	if err != nil {
		return nil, err
	}
	nd := newNode(to, x)
	nd.strict = true
	if same(from, to) {
		nd.run = func(s *state, n int, act []uint64) (*vec, error) { return x.eval(s, n, act) }
		return nd, nil
	}
	k := &caster{nd: nd, from: from, to: to, try: e.Try}
	if nd.kern = k.kernel(); nd.kern == nil {
		return nil, errorf(e, "cannot cast %s to %s", from, to)
	}
	return nd, nil
}

// same reports whether a cast from a to b changes nothing: the session time
// zone is UTC, so TIMESTAMP and TIMESTAMP_LTZ share their values.
func same(a, b types.Type) bool {
	if a.Kind == types.String && b.Kind == types.String {
		return b.Precision == 0 || (a.Precision > 0 && a.Precision <= b.Precision)
	}
	return types.Same(a, b) || (a.IsTimestamp() && b.IsTimestamp())
}

func (k *caster) fail(i, rows int, act []uint64, val string) error {
	if !k.try && on(act, i) {
		return fmt.Errorf("%w: cannot cast '%s' to %s", ErrRuntime, val, k.to.Plain().Nullable())
	}
	k.nd.setNull(i, rows)
	return nil
}

func (k *caster) kernel() func(int, []uint64) error {
	from, to := k.from, k.to
	fp, tp := physOf(from), physOf(to)
	switch {
	case to.Kind == types.String:
		return k.toString
	case from.Kind == types.String:
		switch to.Kind {
		case types.Boolean, types.Int, types.BigInt, types.Float, types.Double, types.Decimal, types.Date, types.Timestamp, types.TimestampLTZ:
			return k.parse
		}
	case from.Kind == types.Boolean && to.IsNumeric():
		return k.fromBool
	case from.IsNumeric() && to.Kind == types.Boolean:
		return k.toBool
	case from.Kind == types.Decimal && to.IsNumeric(), to.Kind == types.Decimal && from.IsNumeric():
		return k.decimal
	case from.IsNumeric() && to.IsNumeric():
		return numCast(k, fp, tp)
	case from.IsTimestamp() && to.Kind == types.Date:
		return k.tsToDate
	case from.Kind == types.Date && to.IsTimestamp():
		return k.dateToTs
	case from.IsIntegral() && to.Kind == types.TimestampLTZ:
		return k.secondsToTs
	case from.Kind == types.TimestampLTZ && to.IsIntegral():
		return k.tsToSeconds
	}
	return nil
}

// secondsToTs reads an integer as epoch seconds, as Flink's CAST to
// TIMESTAMP_LTZ does.
func (k *caster) secondsToTs(rows int, _ []uint64) error {
	o := out[int64](k.nd, rows)
	for i := range o {
		o[i] = intAt(k.nd.in[0], physOf(k.from), i) * types.MsSecond
	}
	return nil
}

// tsToSeconds gives a TIMESTAMP_LTZ's epoch seconds, rounded down; into an
// INT, out of range fails.
func (k *caster) tsToSeconds(rows int, act []uint64) error {
	x := col[int64](k.nd.in[0])[:rows]
	if physOf(k.to) == pI64 {
		o := out[int64](k.nd, rows)
		for i, v := range x {
			o[i] = types.FloorDiv(v, types.MsSecond)
		}
		return nil
	}
	o := out[int32](k.nd, rows)
	for i, v := range x {
		s := types.FloorDiv(v, types.MsSecond)
		if s < math.MinInt32 || s > math.MaxInt32 {
			if err := k.fail(i, rows, act, types.FormatTimestamp(v)); err != nil {
				return err
			}
			continue
		}
		o[i] = int32(s)
	}
	return nil
}

func numCast(k *caster, fp, tp phys) func(int, []uint64) error {
	switch fp {
	case pI32:
		return numFrom[int32](k, fp, tp)
	case pI64:
		return numFrom[int64](k, fp, tp)
	case pF32:
		return numFrom[float32](k, fp, tp)
	case pF64:
		return numFrom[float64](k, fp, tp)
	}
	return nil
}

func numFrom[F num](k *caster, fp, tp phys) func(int, []uint64) error {
	float := fp == pF32 || fp == pF64
	switch tp {
	case pI32:
		return numTo[F, int32](k, float, fp != pI32, math.MinInt32, math.MaxInt32)
	case pI64:
		return numTo[F, int64](k, float, float, math.MinInt64, math.MaxInt64)
	case pF32:
		return numTo[F, float32](k, float, false, 0, 0)
	case pF64:
		return numTo[F, float64](k, float, false, 0, 0)
	}
	return nil
}

// numTo converts between INT, BIGINT, FLOAT and DOUBLE. Into an integer
// type, floats truncate toward zero as Java's casts do; a value out of
// range (or NaN) fails instead of wrapping.
func numTo[F, T num](k *caster, float, check bool, lo, hi int64) func(int, []uint64) error {
	return func(rows int, act []uint64) error {
		x := col[F](k.nd.in[0])[:rows]
		o := out[T](k.nd, rows)
		if !check {
			for i, v := range x {
				o[i] = T(v)
			}
			return nil
		}
		for i, v := range x {
			var ok bool
			if float {
				t := math.Trunc(float64(v))
				ok = t >= float64(lo) && t < float64(hi)+1 // NaN fails too
			} else {
				ok = int64(v) >= lo && int64(v) <= hi
			}
			if ok {
				o[i] = T(v)
				continue
			}
			if isSet(k.nd.out.valid, i) {
				if err := k.fail(i, rows, act, numString(float64(v), float)); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

func numString(v float64, isFloat bool) string {
	if isFloat {
		return types.FormatFloat(v, 64)
	}
	return strconv.FormatInt(int64(v), 10)
}

func (k *caster) fromBool(rows int, _ []uint64) error {
	v := k.nd.in[0]
	switch physOf(k.to) {
	case pI32:
		boolTo[int32](k.nd, v, rows)
	case pI64:
		boolTo[int64](k.nd, v, rows)
	case pF32:
		boolTo[float32](k.nd, v, rows)
	case pF64:
		boolTo[float64](k.nd, v, rows)
	case pDec:
		o := out[decimal128.Num](k.nd, rows)
		one, _ := fromInt(1).scaleUp(k.to.Scale).num(38)
		for i := range o {
			o[i] = decimal128.Num{}
			if v.bit(i) {
				o[i] = one
			}
		}
	}
	return nil
}

func boolTo[T num](nd *node, v *vec, rows int) {
	o := out[T](nd, rows)
	for i := range o {
		o[i] = T(b2u(v.bit(i)))
	}
}

func (k *caster) toBool(rows int, _ []uint64) error {
	v := k.nd.in[0]
	o := k.nd.outBits(rows)
	fill(o, 0)
	for i := 0; i < rows; i++ {
		var nz bool
		switch physOf(k.from) {
		case pI32:
			nz = col[int32](v)[i] != 0
		case pI64:
			nz = col[int64](v)[i] != 0
		case pF32:
			nz = col[float32](v)[i] != 0
		case pF64:
			nz = col[float64](v)[i] != 0
		case pDec:
			nz = !fromNum(col[decimal128.Num](v)[i]).isZero()
		}
		o[i>>6] |= b2u(nz) << (uint(i) & 63)
	}
	return nil
}

// decimal casts to and from DECIMAL: into a decimal, rounding half away
// from zero (half up, as Java's BigDecimal says) and failing on overflow;
// out of one into an integer, truncating toward zero as Flink does.
func (k *caster) decimal(rows int, act []uint64) error {
	nd, v := k.nd, k.nd.in[0]
	fp, tp := physOf(k.from), physOf(k.to)
	p, s := k.to.Precision, k.to.Scale
	out[byte](nd, rows*tp.width())
	o := &nd.out
	var buf [64]byte
	for i := 0; i < rows; i++ {
		if !isSet(o.valid, i) || !on(act, i) {
			continue
		}
		var r decimal128.Num
		var t i256
		ok := true
		switch fp {
		case pI32:
			r, ok = fromInt(int64(col[int32](v)[i])).scaleUp(s).num(p)
		case pI64:
			x := col[int64](v)[i]
			if r, ok = scale64(x, s, p); !ok {
				r, ok = fromInt(x).scaleUp(s).num(p)
			}
		case pF32:
			r, ok = parseDec(strconv.AppendFloat(buf[:0], float64(col[float32](v)[i]), 'e', -1, 32), p, s)
		case pF64:
			r, ok = parseDec(strconv.AppendFloat(buf[:0], col[float64](v)[i], 'e', -1, 64), p, s)
		case pDec:
			a, fs := fromNum(col[decimal128.Num](v)[i]), k.from.Scale
			switch tp {
			case pDec:
				fast := false
				if x, fits := int64Of(col[decimal128.Num](v)[i]); fits && s >= fs {
					r, fast = scale64(x, s-fs, p)
				}
				if ok = fast; !fast {
					r, ok = a.rescale(fs, s).num(p)
				}
			case pF32:
				col[float32](o)[i] = float32(decFloat(a, fs))
			case pF64:
				col[float64](o)[i] = decFloat(a, fs)
			case pI32:
				t = a.floorScale(fs, a.neg()) // toward zero
				ok = t.cmp(fromInt(math.MinInt32)) >= 0 && t.cmp(fromInt(math.MaxInt32)) <= 0
				col[int32](o)[i] = int32(t[0])
			case pI64:
				t = a.floorScale(fs, a.neg())
				ok = t.cmp(fromInt(math.MinInt64)) >= 0 && t.cmp(fromInt(math.MaxInt64)) <= 0
				col[int64](o)[i] = int64(t[0])
			}
		}
		if tp == pDec && ok {
			col[decimal128.Num](o)[i] = r
		}
		if !ok {
			if err := k.fail(i, rows, act, k.valueString(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// scale64 is x·10^k as a decimal of precision p, when that is exact on
// int64s and fits; ok false sends the row to the general path.
func scale64(x int64, k, p int) (decimal128.Num, bool) {
	if k > 18 || x == math.MinInt64 {
		return decimal128.Num{}, false
	}
	hi, lo := bits.Mul64(uint64(max(x, -x)), uint64(pow10[k]))
	if hi != 0 || lo >= 1<<62 || p < 19 && lo >= uint64(pow10[p]) {
		return decimal128.Num{}, false
	}
	return decimal128.FromI64(x * pow10[k]), true
}

// valueString renders row i of the cast's operand for an error message.
func (k *caster) valueString(i int) string {
	v := k.nd.in[0]
	var b []byte
	switch physOf(k.from) {
	case pI32:
		b = strconv.AppendInt(b, int64(col[int32](v)[i]), 10)
	case pI64:
		b = strconv.AppendInt(b, col[int64](v)[i], 10)
	case pF32:
		b = types.AppendFloat(b, float64(col[float32](v)[i]), 32)
	case pF64:
		b = types.AppendFloat(b, col[float64](v)[i], 64)
	case pDec:
		b = appendDec(b, fromNum(col[decimal128.Num](v)[i]), k.from.Scale)
	}
	return string(b)
}

// decFloat converts a decimal to the nearest float64.
func decFloat(a i256, scale int) float64 {
	m := a.abs()
	if m[1]|m[2]|m[3] == 0 && m[0] < 1<<53 && scale < len(pow10f) {
		// Both operands are exact, so the one division rounds correctly.
		f := float64(m[0]) / pow10f[scale]
		if a.neg() {
			f = -f
		}
		return f
	}
	var buf [96]byte
	b := appendDec(buf[:0], a, scale)
	f, _ := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 64)
	return f
}

var pow10f = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

func (k *caster) tsToDate(rows int, _ []uint64) error {
	x := col[int64](k.nd.in[0])[:rows]
	o := out[int32](k.nd, rows)
	for i, v := range x {
		o[i] = int32(types.FloorDiv(v, types.MsDay))
	}
	return nil
}

func (k *caster) dateToTs(rows int, _ []uint64) error {
	x := col[int32](k.nd.in[0])[:rows]
	o := out[int64](k.nd, rows)
	for i, v := range x {
		o[i] = int64(v) * types.MsDay
	}
	return nil
}

// toString renders values as Flink's CAST(x AS STRING) does, truncating to
// a VARCHAR(n)'s length.
func (k *caster) toString(rows int, act []uint64) error {
	nd, v := k.nd, k.nd.in[0]
	var size int
	switch physOf(k.from) {
	case pStr:
		if v.konst {
			size = len(v.str(0))
		} else {
			size = int(v.offs[rows] - v.offs[0])
		}
	case pDec:
		size = rows * (k.from.Precision + 2)
	default:
		size = rows * 12
	}
	offs := nd.strs(rows, size)
	d := nd.own.data
	st := step(v)
	for i := 0; i < rows; i++ {
		if isSet(nd.out.valid, i) && on(act, i) {
			start := len(d)
			j := i * st
			switch k.from.Kind {
			case types.Boolean:
				if v.bit(i) {
					d = append(d, "TRUE"...)
				} else {
					d = append(d, "FALSE"...)
				}
			case types.Int:
				d = appendInt(d, int64(col[int32](v)[j]))
			case types.BigInt:
				d = appendInt(d, col[int64](v)[j])
			case types.Float:
				d = types.AppendFloat(d, float64(col[float32](v)[j]), 32)
			case types.Double:
				d = types.AppendFloat(d, col[float64](v)[j], 64)
			case types.Decimal:
				d = appendDec(d, fromNum(col[decimal128.Num](v)[j]), k.from.Scale)
			case types.String:
				d = append(d, v.str(i)...)
			case types.Date:
				d = types.AppendDate(d, col[int32](v)[j])
			case types.Timestamp, types.TimestampLTZ:
				d = types.AppendTimestamp(d, col[int64](v)[j])
			case types.IntervalDayTime:
				d = append(d, types.FormatIntervalDayTime(col[int64](v)[j])...)
			case types.IntervalYearMonth:
				d = append(d, types.FormatIntervalYearMonth(col[int32](v)[j])...)
			}
			if k.to.Precision > 0 {
				d = d[:start+skip(d[start:], int64(k.to.Precision))]
			}
		}
		offs[i+1] = int32(len(d))
	}
	nd.own.data = d
	nd.strsDone(offs)
	return nil
}

// appendInt is strconv.AppendInt(d, v, 10) writing the digits in place,
// without a detour through a temporary buffer.
func appendInt(d []byte, v int64) []byte {
	u := uint64(v)
	if v < 0 {
		d = append(d, '-')
		u = -u
	}
	n := 1
	for n < 20 && u >= upow10[n] {
		n++
	}
	at := len(d)
	d = slices.Grow(d, n)[:at+n]
	for i := at + n - 1; i > at; i-- {
		d[i] = byte('0' + u%10)
		u /= 10
	}
	d[at] = byte('0' + u)
	return d
}

var upow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return
}()

// parse converts strings, ignoring surrounding whitespace as Flink does.
func (k *caster) parse(rows int, act []uint64) error {
	nd, v := k.nd, k.nd.in[0]
	var bits []uint64
	tp := physOf(k.to)
	if tp == pBool {
		bits = nd.outBits(rows)
		fill(bits, 0)
	} else {
		out[byte](nd, rows*tp.width())
	}
	for i := 0; i < rows; i++ {
		if !isSet(nd.out.valid, i) || !on(act, i) {
			continue
		}
		s := trimSpace(v.str(i))
		ok := false
		switch k.to.Kind {
		case types.Boolean:
			var b bool
			b, ok = parseBool(s)
			bits[i>>6] |= b2u(b) << (uint(i) & 63)
		case types.Int:
			var n int64
			n, ok = parseInt(s, math.MinInt32, math.MaxInt32)
			col[int32](&nd.out)[i] = int32(n)
		case types.BigInt:
			col[int64](&nd.out)[i], ok = parseInt(s, math.MinInt64, math.MaxInt64)
		case types.Float:
			var f float64
			f, ok = parseFloat(s, 32)
			col[float32](&nd.out)[i] = float32(f)
		case types.Double:
			col[float64](&nd.out)[i], ok = parseFloat(s, 64)
		case types.Decimal:
			col[decimal128.Num](&nd.out)[i], ok = parseDec(s, k.to.Precision, k.to.Scale)
		case types.Date:
			col[int32](&nd.out)[i], ok = types.ParseDate(unsafe.String(unsafe.SliceData(s), len(s)))
		case types.Timestamp, types.TimestampLTZ:
			col[int64](&nd.out)[i], ok = types.ParseTimestamp(unsafe.String(unsafe.SliceData(s), len(s)))
		}
		if !ok {
			if err := k.fail(i, rows, act, string(v.str(i))); err != nil {
				return err
			}
		}
	}
	return nil
}

// trimSpace drops what Java's String.trim drops: bytes up to ' '.
func trimSpace(s []byte) []byte {
	for len(s) > 0 && s[0] <= ' ' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] <= ' ' {
		s = s[:len(s)-1]
	}
	return s
}

// parseBool accepts what Flink accepts, in any case.
func parseBool(s []byte) (bool, bool) {
	var low [5]byte
	if len(s) > len(low) {
		return false, false
	}
	for i, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	switch string(low[:len(s)]) {
	case "t", "true", "y", "yes", "1":
		return true, true
	case "f", "false", "n", "no", "0":
		return false, true
	}
	return false, false
}

// parseInt parses an optionally signed integer within [lo, hi]. Like
// Flink, it accepts and drops a fractional part: '1.9' is 1.
func parseInt(s []byte, lo, hi int64) (int64, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var v uint64
	i := 0
	for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
		if v > (1<<63)/10 {
			return 0, false
		}
		v = v*10 + uint64(s[i]-'0')
		if v > 1<<63 {
			return 0, false
		}
	}
	if i == 0 {
		return 0, false
	}
	if i < len(s) {
		if s[i] != '.' {
			return 0, false
		}
		for _, c := range s[i+1:] {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
	}
	var n int64
	if neg {
		n = -int64(v) // -2^63 wraps onto itself
	} else {
		if v > math.MaxInt64 {
			return 0, false
		}
		n = int64(v)
	}
	return n, n >= lo && n <= hi
}

func parseFloat(s []byte, bits int) (float64, bool) {
	if len(s) == 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(s), len(s)), bits)
	if err != nil {
		ne, ok := err.(*strconv.NumError)
		return f, ok && ne.Err == strconv.ErrRange // saturate as Java does
	}
	return f, true
}

// parseDec parses a decimal number (with an optional exponent) into
// DECIMAL(p, scale), rounding half away from zero.
func parseDec(s []byte, p, scale int) (decimal128.Num, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	// The value is 0.D1D2... * 10^point. Digits past the buffer can only
	// matter for numbers far too large for 38 digits.
	var digs [96]byte
	nd, point := 0, 0
	seen, dot := false, false
	i := 0
scan:
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
			seen = true
			switch {
			case nd == 0 && c == '0':
				if dot {
					point--
				}
			case nd < len(digs):
				digs[nd] = c - '0'
				nd++
				if !dot {
					point++
				}
			case !dot:
				point++
			}
		case c == '.' && !dot:
			dot = true
		default:
			break scan
		}
	}
	if !seen {
		return decimal128.Num{}, false
	}
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return decimal128.Num{}, false
		}
		e, ok := parseInt(s[i+1:], -1000, 1000)
		if !ok || !isDigits(s[i+1:]) {
			return decimal128.Num{}, false
		}
		point += int(e)
	}
	if nd == 0 {
		return decimal128.Num{}, true
	}
	cut := point + scale
	if cut > p {
		return decimal128.Num{}, false
	}
	var a i256
	if cut >= 0 {
		for k := 0; k < cut; k += 18 {
			var chunk uint64
			n := min(18, cut-k)
			for j := k; j < k+n; j++ {
				var d byte
				if j < nd {
					d = digs[j]
				}
				chunk = chunk*10 + uint64(d)
			}
			a, _ = a.mulSmall(uint64(pow10[n]))
			a = a.add(i256{chunk})
		}
		if cut < nd && digs[cut] >= 5 {
			a = a.add(i256{1})
		}
	}
	if neg {
		a = a.negate()
	}
	return a.num(p)
}

// isDigits reports whether s is an optionally signed run of digits.
func isDigits(s []byte) bool {
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(s) > 0
}

// appendDec renders a decimal as Java's BigDecimal.toPlainString does.
func appendDec(dst []byte, a i256, scale int) []byte {
	if a.neg() {
		dst = append(dst, '-')
		a = a.negate()
	}
	var buf [100]byte
	i := len(buf)
	for {
		if a[1]|a[2]|a[3] == 0 {
			for v := a[0]; ; v /= 10 {
				i--
				buf[i] = byte('0' + v%10)
				if v < 10 {
					break
				}
			}
			break
		}
		var r uint64
		a, r = a.divSmall(uint64(pow10[18]))
		for j := 0; j < 18; j++ {
			i--
			buf[i] = byte('0' + r%10)
			r /= 10
		}
	}
	for len(buf)-i <= scale {
		i--
		buf[i] = '0'
	}
	digits := buf[i:]
	if scale <= 0 {
		return append(dst, digits...)
	}
	dst = append(dst, digits[:len(digits)-scale]...)
	dst = append(dst, '.')
	return append(dst, digits[len(digits)-scale:]...)
}
