// Package store keeps ctxd's state directory, <root>/.ctxd, and the
// hash-addressed artifacts in it (seed 001: artifacts/<kind>/<hash>.json).
//
// [Open] returns a [Store] for a workspace root: it creates .ctxd, keeps its
// .gitignore current (generated state is ignored, config.json and
// templates/ are meant to be committed) and removes temp files a crash left
// behind. [Store.Put] writes a value as canonical JSON (RFC 8785, JCS) named
// by the sha256 of those bytes, one directory per [Kind], and
// [Store.PutCanonical] writes bytes its caller already made canonical; [Store.Get] reads
// it back and checks the hash; [Store.Verify] checks every artifact and
// reports each as an [ArtifactCheck]. [WriteFileAtomic] is the
// write-temp-fsync-rename helper the store uses, exported for other state
// files.
//
// Every file operation under .ctxd goes through an [os.Root] opened on that
// directory, so that no symlink planted inside it can make ctxd write or
// read outside the workspace; a .ctxd that is itself a symlink is refused.
// The package imports no other ctxd package.
package store
