package ledger

// lockMode is how a journal's lock file is locked: shared by readers,
// exclusive by the writer. The locks are advisory, between ctxd processes
// (flock on Unix, LockFileEx on Windows), and released when the file is
// closed.
type lockMode uint8

const (
	lockShared lockMode = iota
	lockExclusive
)
