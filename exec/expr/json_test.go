package expr

import (
	"encoding/json"
	"testing"
)

var docs = cols(column{tS, []any{
	`{"a": {"b": 1, "c": [1, "x", {"d": true}]}, "e": "caf\u00e9", "f": null, "a b": 2.50}`,
	`[{"c": "c1"}, {"c": "c2"}]`,
	`{"a": 1,}`,
	nil,
	`"just a string"`,
}})

func TestJSONValue(t *testing.T) {
	j := c(0, tS)
	v := func(p string) Expr { return call(JSONValue, tS, j, str(p)) }
	check(t, v("$.a.b"), docs, "1", nil, nil, nil, nil)
	check(t, v("lax $.a.c[1]"), docs, "x", nil, nil, nil, nil)
	check(t, v("$.a.c[2].d"), docs, "true", nil, nil, nil, nil)
	check(t, v("$.e"), docs, "café", nil, nil, nil, nil)
	check(t, v("$.f"), docs, nil, nil, nil, nil, nil) // JSON null
	check(t, v("$.a"), docs, nil, nil, nil, nil, nil) // not a scalar
	check(t, v("$['a b']"), docs, "2.50", nil, nil, nil, nil)
	check(t, v("$.c"), docs, nil, nil, nil, nil, nil)           // lax: two items, not one scalar
	check(t, v("$[1].c"), docs, nil, "c2", nil, nil, nil)       // an index on an object is empty
	check(t, v("strict $.c"), docs, nil, nil, nil, nil, nil)    // strict: no unwrapping
	check(t, v("$"), docs, nil, nil, nil, nil, "just a string") // the root scalar
	check(t, v("$.missing"), docs, nil, nil, nil, nil, nil)     // empty
}

func TestJSONQuery(t *testing.T) {
	j := c(0, tS)
	q := func(p string) Expr { return call(JSONQuery, tS, j, str(p)) }
	check(t, q("$.a"), docs, `{"b":1,"c":[1,"x",{"d":true}]}`, nil, nil, nil, nil)
	check(t, q("$"), docs, `{"a":{"b":1,"c":[1,"x",{"d":true}]},"e":"caf\u00e9","f":null,"a b":2.50}`, `[{"c":"c1"},{"c":"c2"}]`, nil, nil, nil)
	check(t, q("lax $[*].c"), docs, nil, `["c1","c2"]`, nil, nil, nil)
	check(t, q("$.a.b"), docs, nil, nil, nil, nil, nil) // a scalar needs a wrapper
	if _, err := Compile(q("$.a["), schemaOf(docs)); err == nil {
		t.Error("a bad literal path compiled")
	}
}

// FuzzJSON: the scanner accepts exactly what encoding/json accepts, and a
// path query never panics.
func FuzzJSON(f *testing.F) {
	f.Add(`{"a": [1, {"b": "x\u00e9"}]}`, "$.a[1].b")
	f.Add(`[1,2,3]`, "lax $[*]")
	f.Add(`{"a":}`, "$['a']")
	f.Fuzz(func(t *testing.T, doc, path string) {
		b := []byte(doc)
		end := skipValue(b, 0, 0)
		ok := end >= 0 && skipWS(b, end) == len(b)
		if ok != json.Valid(b) && len(doc) < 1000 {
			t.Fatalf("%q: scanner says valid=%v, encoding/json %v", doc, ok, json.Valid(b))
		}
		jp, err := parseJSONPath(path)
		if err != nil {
			return
		}
		jp.query(nil, b, true, nil)
		jp.query(nil, b, false, nil)
	})
}
