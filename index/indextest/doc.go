// Package indextest holds helpers for tests of the index and of the code
// built on it: [WriteTree] writes a workspace from a txtar archive, and
// [Goldens], [Golden] and [UpdateFlag] are the one loader of golden
// archives.
//
// # Golden tests
//
// A golden archive is a txtar file under a package's testdata holding a
// test's input (a workspace, requests, queries: sections named freely,
// often grouped under a directory prefix such as "ws/") and its expected
// output in one or more sections (conventionally "want.json", "want.txt"
// or "want"). A golden test runs [Goldens] over its archives, builds its
// input from the sections ([Golden.Section], [Golden.Files],
// [Golden.Under], [Golden.WriteTree]) and ends with [Golden.Check] for
// every output section:
//
//	var _ = indextest.UpdateFlag("want.json of testdata/*.txtar")
//
//	func TestGolden(t *testing.T) {
//		indextest.Goldens(t, "testdata/*.txtar", func(t *testing.T, g *indextest.Golden) {
//			dir := g.WriteTree(t, "want.json")
//			g.Check(t, "want.json", run(t, dir))
//		})
//	}
//
// Running the tests with -update rewrites the output sections instead of
// comparing them; review the diff before committing. Every package with
// golden tests declares that flag once, with [UpdateFlag], and Check reads
// it by name. (This package cannot declare it itself: a test package that
// imports it and declares its own "update" flag would panic.)
package indextest
