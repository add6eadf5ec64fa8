package e2e

import (
	"context"
	"testing"
)

// Dumped is what a run of a host's CLI produced (res) for t: t fails on the run's error;
// if the run produced a result, dump logs what a reader of t's failure needs, should t
// fail by its end.
func Dumped[R any](t *testing.T, res *R, err error, dump func(*R)) *R {
	t.Helper()
	if res != nil {
		t.Cleanup(func() {
			if t.Failed() {
				dump(res)
			}
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// LoopOf is the first loop status (a host Env's Status, by session) gives for session;
// t fails if there is none.
func LoopOf[L any](t testing.TB, status func(ctx context.Context, session string) ([]L, error), session string) L {
	t.Helper()
	loops, err := status(context.Background(), session)
	if err != nil {
		t.Fatal(err)
	}
	if len(loops) == 0 {
		t.Fatalf("no loop in session %s", session)
	}
	return loops[0]
}
