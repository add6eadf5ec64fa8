package promise

import (
	"strings"
	"testing"
)

func BenchmarkMatcher(b *testing.B) {
	text := []byte(strings.Repeat("The parser returns an error when the input is empty; <promise>DON ", 1<<14))
	m := newMatcher("DONE")
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Reset()
		for p := text; len(p) > 0; {
			n := min(len(p), 4096)
			m.Write(p[:n])
			p = p[n:]
		}
		if m.Found() {
			b.Fatal("found")
		}
	}
}

func BenchmarkContains(b *testing.B) {
	text := strings.Repeat("The parser returns an error when the input is empty; <promise>DON ", 1<<14)
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		if Contains(text, "DONE") {
			b.Fatal("found")
		}
	}
}
