// Package installtest holds what the tests of install and of the hosts' installers share
// (hosttest, which the hosts' tests share, imports install: install's own tests cannot
// import it).
package installtest

// OnlyAdded reports whether after is before with bytes added only (before is a
// subsequence of after): what an install that edits a user's file in place must leave.
func OnlyAdded(before, after []byte) bool {
	i := 0
	for j := 0; j < len(after) && i < len(before); j++ {
		if before[i] == after[j] {
			i++
		}
	}
	return i == len(before)
}
