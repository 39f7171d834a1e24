package syntax

import (
	"hash/maphash"
	"strings"
	"sync"
)

// A workspace's extractions repeat the same strings file after file: the
// names of its packages' declarations in every file that uses them, the
// import paths and module specifiers in every importer, the containers of
// every member. Extracted one file at a time, each copy is an allocation
// of its own; on the synthetic 100,000-file repository sharing them took
// 118 MB (14%) off the live heap after a cold index. [Compact] makes
// equal strings of the files it is given share one copy.

// internShards spreads the table over locks, so that the parsing
// goroutines seldom wait for one another.
const internShards = 64

// internShardCap bounds a shard: a full shard is emptied and starts
// again. The table only saves memory, it is never needed for
// correctness, so forgetting is always safe; the bound keeps it from
// holding strings no file uses any more in a long session (a million
// strings in all, about 40 MB of table at most, on top of the strings,
// which the files hold anyway).
const internShardCap = 1 << 14

// maxInterned is the longest string the table keeps: longer ones (a Go
// type descriptor of a long signature) seldom repeat, and copying them
// to compare would cost more than it saves.
const maxInterned = 256

// ForgetInterned empties the table of shared strings. The strings stay
// with the files that hold them; files compacted later share only with
// one another. A scan calls it when it has parsed its files: the table
// saves memory while a whole tree is parsed, and would otherwise hold,
// for the rest of a session, strings no file may use any more.
func ForgetInterned() {
	for i := range interned.shards {
		sh := &interned.shards[i]
		sh.mu.Lock()
		sh.m = map[string]string{}
		sh.mu.Unlock()
	}
}

// interned is the process's table, shared by every index.
var interned = newInternTable(internShardCap)

// newInternTable returns an empty table whose shards hold up to
// shardCap strings each.
func newInternTable(shardCap int) *internTable {
	t := &internTable{seed: maphash.MakeSeed(), shardCap: shardCap}
	for i := range t.shards {
		t.shards[i].m = map[string]string{}
	}
	return t
}

type internTable struct {
	seed     maphash.Seed
	shardCap int
	shards   [internShards]internShard
}

type internShard struct {
	mu sync.Mutex
	m  map[string]string
	_  [40]byte // a shard per cache line
}

// str returns the table's copy of s, adding one when there is none. The
// copy added is a clone: s may share its bytes with a larger string.
func (t *internTable) str(s string) string {
	if s == "" || len(s) > maxInterned {
		return s
	}
	sh := &t.shards[maphash.String(t.seed, s)%internShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if c, ok := sh.m[s]; ok {
		return c
	}
	if len(sh.m) >= t.shardCap {
		sh.m = make(map[string]string, t.shardCap/4)
	}
	c := strings.Clone(s)
	sh.m[c] = c
	return c
}

// trim returns s, or a copy of its elements without spare capacity when
// it has some (an empty slice is returned as it is: nil or not stays).
func trim[S ~[]E, E any](s S) S {
	if len(s) == 0 || cap(s) == len(s) {
		return s
	}
	return append(S(make([]E, 0, len(s))), s...)
}

// strs interns every string of ss in place.
func (t *internTable) strs(ss []string) {
	for i, s := range ss {
		ss[i] = t.str(s)
	}
}

// Compact readies f to be held for long: it gives the slices that
// extraction grew by appending exactly their length, and when share is
// set it replaces f's strings with equal strings shared with the files
// compacted (sharing) before it, so that a workspace holds each distinct
// name, path and type once however many files mention it. Sharing costs
// a table lookup per string (about 6% of the CPU of a cold index of
// GOROOT/src) and pays for a large tree only: its caller decides. It
// changes no value (every string stays equal, every
// slice holds the same elements and stays nil or not) and so nothing a
// reader can observe, but it writes to f: call it before f is shared with
// other goroutines. A nil f is allowed.
func Compact(f *File, share bool) {
	if f == nil {
		return
	}
	f.Namespaces = trim(f.Namespaces)
	f.Symbols = trim(f.Symbols)
	f.Imports = trim(f.Imports)
	f.Refs = trim(f.Refs)
	f.Uses = trim(f.Uses)
	f.Bindings = trim(f.Bindings)
	f.Exports = trim(f.Exports)
	for i := range f.Symbols {
		f.Symbols[i].Bases = trim(f.Symbols[i].Bases)
	}
	if !share {
		return
	}
	t := interned
	f.Package = t.str(f.Package)
	t.strs(f.Namespaces)
	for i := range f.Symbols {
		s := &f.Symbols[i]
		s.Name = t.str(s.Name)
		s.Container = t.str(s.Container)
		s.QualifiedName = t.str(s.QualifiedName)
		s.Type = t.str(s.Type)
		t.strs(s.Bases)
	}
	for i := range f.Imports {
		f.Imports[i].Path = t.str(f.Imports[i].Path)
	}
	t.strs(f.Refs)
	for i := range f.Uses {
		u := &f.Uses[i]
		u.Name = t.str(u.Name)
		u.From = t.str(u.From)
		u.Recv = t.str(u.Recv)
	}
	for i := range f.Bindings {
		b := &f.Bindings[i]
		b.Name = t.str(b.Name)
		b.From = t.str(b.From)
		b.Orig = t.str(b.Orig)
	}
	t.strs(f.Exports)
	f.Constraint = t.str(f.Constraint)
}
