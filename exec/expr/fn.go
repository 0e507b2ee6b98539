package expr

// Fn is a built-in scalar function.
type Fn uint8

// The built-in functions. Argument conventions are given where they are not
// obvious; "unit" and "mode" arguments are string literals.
const (
	FnInvalid Fn = iota

	And // n-ary, SQL three-valued
	Or  // n-ary, SQL three-valued
	Not

	Eq
	Ne
	Lt
	Le
	Gt
	Ge
	IsNull     // never NULL
	IsNotNull  // never NULL
	IsTrue     // never NULL
	IsNotTrue  // never NULL
	IsFalse    // never NULL
	IsNotFalse // never NULL
	In         // x IN (Args[1:]...): TRUE if equal to one, NULL if none equal and x or any item is NULL
	Like       // (s, pattern) or (s, pattern, escape): SQL LIKE with % and _
	Coalesce   // first non-NULL argument
	NullIf     // (a, b): NULL if a = b, else a

	Add
	Sub
	Mul
	Div // integer division truncates toward zero; division by zero is an error
	Mod // sign of the dividend, as Java's %
	Neg
	Abs
	Floor // numeric FLOOR
	Ceil  // numeric CEIL
	Round // (x) or (x, digits): half away from zero

	Lower
	Upper
	CharLength // in code points
	Substring  // (s, start) or (s, start, length), 1-based, in code points
	Trim       // (mode, chars, s) with mode "BOTH" | "LEADING" | "TRAILING"
	Concat     // n-ary; NULL if any argument is NULL (Flink)
	Position   // (needle, haystack): 1-based code point index, 0 if absent

	DateFormat  // (ts, pattern): Java SimpleDateFormat letters y M d H m s S
	Extract     // (unit, ts|date): YEAR QUARTER MONTH WEEK DAY HOUR MINUTE SECOND MILLISECOND DOW DOY EPOCH, BIGINT
	FloorTime   // (ts, unit)
	CeilTime    // (ts, unit)
	AddInterval // (ts|date, interval) for either interval kind
	SubInterval // (ts|date, interval)

	CurrentTimestamp // evaluation clock; the same value for every row of a batch
	ProcTime         // evaluation clock, as CurrentTimestamp

	Greatest // n-ary, one type; NULL if any argument is NULL
	Least    // n-ary, one type; NULL if any argument is NULL

	Regexp        // (s, regex): BOOLEAN, a match anywhere
	RegexpExtract // (s, regex) or (s, regex, group): NULL if no match
	RegexpReplace // (s, regex, replacement): Java's $n and \ in the replacement
	SplitIndex    // (s, delimiter, index): 0-based; NULL past the end or below 0
	Replace       // (s, from, to): every non-overlapping occurrence
	Reverse       // code point by code point
	Initcap       // first letter of every alphanumeric word upper, the rest lower
	Lpad          // (s, length, pad)
	Rpad          // (s, length, pad)
	CountChar     // (s, c): occurrences of c (a strand extension; Nexmark q14's UDF)
	Md5           // lower-case hex
	Sha256        // lower-case hex
	UUID          // random (version 4); not deterministic
	JSONValue     // (json, path): the scalar at path as STRING
	JSONQuery     // (json, path): the object or array at path as JSON text

	TimestampDiff // (unit, t1, t2): whole units from t1 to t2, INT
	ParseTime     // (s, pattern): TO_TIMESTAMP, TO_DATE by the result type; NULL if s does not match
	UnixTime      // (s, pattern): epoch seconds, Long.MIN_VALUE if s does not match (Flink)
	FromUnixTime  // (seconds, pattern): formatted in UTC
	EpochToTime   // (n, precision): TO_TIMESTAMP_LTZ, precision 0 (seconds) or 3 (milliseconds)

	GetField    // (row, name): the field of a ROW named by a string literal; NULL when the row is
	ElementAt   // (array, i) 1-based, NULL out of range; (map, key): NULL when absent
	Cardinality // (array | map): the number of elements or entries, INT
	Element     // (array): its one element, NULL if empty; more than one is an error

	numFns
)

var fnNames = [...]string{
	FnInvalid: "INVALID", And: "AND", Or: "OR", Not: "NOT",
	Eq: "=", Ne: "<>", Lt: "<", Le: "<=", Gt: ">", Ge: ">=",
	IsNull: "IS_NULL", IsNotNull: "IS_NOT_NULL", IsTrue: "IS_TRUE", IsNotTrue: "IS_NOT_TRUE",
	IsFalse: "IS_FALSE", IsNotFalse: "IS_NOT_FALSE", In: "IN", Like: "LIKE",
	Coalesce: "COALESCE", NullIf: "NULLIF",
	Add: "+", Sub: "-", Mul: "*", Div: "/", Mod: "MOD", Neg: "NEG", Abs: "ABS",
	Floor: "FLOOR", Ceil: "CEIL", Round: "ROUND",
	Lower: "LOWER", Upper: "UPPER", CharLength: "CHAR_LENGTH", Substring: "SUBSTRING",
	Trim: "TRIM", Concat: "CONCAT", Position: "POSITION",
	DateFormat: "DATE_FORMAT", Extract: "EXTRACT", FloorTime: "FLOOR_TO", CeilTime: "CEIL_TO",
	AddInterval: "+", SubInterval: "-",
	CurrentTimestamp: "CURRENT_TIMESTAMP", ProcTime: "PROCTIME",
	Greatest: "GREATEST", Least: "LEAST",
	Regexp: "REGEXP", RegexpExtract: "REGEXP_EXTRACT", RegexpReplace: "REGEXP_REPLACE",
	SplitIndex: "SPLIT_INDEX", Replace: "REPLACE", Reverse: "REVERSE", Initcap: "INITCAP",
	Lpad: "LPAD", Rpad: "RPAD", CountChar: "COUNT_CHAR", Md5: "MD5", Sha256: "SHA256", UUID: "UUID",
	JSONValue: "JSON_VALUE", JSONQuery: "JSON_QUERY",
	TimestampDiff: "TIMESTAMPDIFF", ParseTime: "PARSE_TIME", UnixTime: "UNIX_TIMESTAMP",
	FromUnixTime: "FROM_UNIXTIME", EpochToTime: "TO_TIMESTAMP_LTZ",
	GetField: "GET_FIELD", ElementAt: "ITEM", Cardinality: "CARDINALITY", Element: "ELEMENT",
}

var infix = map[Fn]string{
	Eq: "=", Ne: "<>", Lt: "<", Le: "<=", Gt: ">", Ge: ">=",
	Add: "+", Sub: "-", Mul: "*", Div: "/", AddInterval: "+", SubInterval: "-",
	And: "AND", Or: "OR",
}

func (f Fn) String() string {
	if int(f) < len(fnNames) && fnNames[f] != "" {
		return fnNames[f]
	}
	return "FN?"
}
