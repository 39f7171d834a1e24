package index

// ResolveInRoot returns the real path of rel (clean, slash-separated,
// relative to the root whose real directory is rootReal) below that root:
// every symbolic link on the way resolved by the sandbox's walk, which
// never looks outside the root. A reader that matches rules of its own
// against a file (the workspace's deny_rules, which the index does not
// know) checks the real path too, so that a link cannot give a denied
// file a name the rules do not cover. A link out of the root wraps
// ErrOutsideRoot; a missing component is the Lstat error (fs.ErrNotExist);
// "" is the root itself.
func ResolveInRoot(rootReal, rel string) (string, error) {
	return resolveIn(osFS{}, rootReal, rel)
}

// RealDir is the root's directory with its symbolic links resolved (once,
// when the folder was added): the directory every read of the root is
// confined to, for a reader outside the index that reads through
// [ReadInRoot] or [ResolveInRoot]. "" for a root that could not be
// resolved.
func (r *RootSnapshot) RealDir() string { return r.realDir }
