package lazy

import (
	"sync"
	"testing"
)

var counted = Value[int]{Make: func() int { made++; return 42 }}

var made int

// TestValue: the value is made once, at the first Get, however many goroutines ask.
func TestValue(t *testing.T) {
	if made != 0 {
		t.Fatalf("made %d times before the first Get", made)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v := counted.Get(); v != 42 {
				t.Errorf("Get() = %d, want 42", v)
			}
		}()
	}
	wg.Wait()
	if made != 1 {
		t.Errorf("made %d times, want once", made)
	}
}
