// Package randfill fills Go values with random data by reflection, for
// tests that must notice a field added to a type but not to a hand-written
// encoder of it: a reflective filler sets the new field too. Its one
// entry point is [Fill].
package randfill

import (
	"math/rand/v2"
	"reflect"
)

// Fill sets every exported field reachable from v (addressable) to a
// random value: strings from str, integers across their range (past 2^53
// too), booleans, pointers nil or set, slices nil, empty or with up to
// three elements. It panics on a kind it does not know, so that a type
// growing one is noticed.
func Fill(r *rand.Rand, v reflect.Value, str func(*rand.Rand) string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(str(r))
	case reflect.Int, reflect.Int64:
		if r.IntN(4) == 0 {
			v.SetInt(r.Int64() - 1<<62)
		} else {
			v.SetInt(r.Int64N(1<<20) - 10)
		}
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Pointer:
		if r.IntN(4) == 0 {
			v.SetZero()
			return
		}
		p := reflect.New(v.Type().Elem())
		Fill(r, p.Elem(), str)
		v.Set(p)
	case reflect.Slice:
		if r.IntN(5) == 0 {
			v.SetZero()
			return
		}
		n := r.IntN(4)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			Fill(r, s.Index(i), str)
		}
		v.Set(s)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				Fill(r, v.Field(i), str)
			}
		}
	default:
		panic("randfill: unhandled kind " + v.Kind().String())
	}
}
