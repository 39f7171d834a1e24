package syntax

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCUses(t *testing.T) {
	tests := []struct {
		name string
		lang Language
		src  string
		uses []Use
	}{{
		name: "c",
		lang: C,
		src: `#include "util.h" /* include names are no uses */
#define TWICE(x) (helper(x) * 2)
struct point { int x; };
static int helper(int v);
int area(struct point *p, config c) {
    // not_a_use(p);
    return TWICE(p->x) + c.size + lookup("str_use") + RED;
}`,
		uses: []Use{
			{Name: "RED"},
			{Name: "TWICE"},
			{Name: "c"},
			{Name: "config"},
			{Name: "helper"},
			{Name: "lookup"},
			{Name: "p"},
			{Name: "point"},
			{Name: "size", Member: true, Recv: "config"},
			{Name: "v"},
			{Name: "x"},
			{Name: "x", Member: true, Recv: "point"},
		},
	}, {
		name: "cpp",
		lang: CPP,
		src: `namespace geo { class Shape { public: double area() const; }; }
double geo::Shape::area() const { return util::sq(side); }
double f(geo::Shape s, Shape *q) { return s.area() + q->area() + x.y.z; }`,
		uses: []Use{
			{Name: "Shape"},
			{Name: "Shape", Member: true, Recv: "geo"},
			{Name: "area", Member: true, Recv: "Shape"},
			{Name: "area", Member: true, Recv: "geo::Shape"},
			{Name: "geo"},
			{Name: "q"},
			{Name: "s"},
			{Name: "side"},
			{Name: "sq", Member: true, Recv: "util"},
			{Name: "util"},
			{Name: "x"},
			{Name: "y", Member: true},
			{Name: "z", Member: true},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			uses, _ := usesOfSrc(t, tt.lang, tt.src)
			if diff := cmp.Diff(tt.uses, uses); diff != "" {
				t.Errorf("uses (-want +got):\n%s", diff)
			}
		})
	}
}
