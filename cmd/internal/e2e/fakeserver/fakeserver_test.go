package fakeserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// Halves gives the client two pieces to join, each valid UTF-8, and none of an empty text.
func TestHalves(t *testing.T) {
	for _, c := range []struct {
		text   string
		pieces int
	}{{"", 0}, {"a", 1}, {"é", 1}, {"ab", 2}, {"héllo wörld", 2}, {"日本語", 2}} {
		got := Halves(c.text)
		if len(got) != c.pieces || strings.Join(got, "") != c.text {
			t.Errorf("Halves(%q) = %q; want %d pieces that join to it", c.text, got, c.pieces)
		}
		for _, p := range got {
			if p == "" || !utf8.ValidString(p) {
				t.Errorf("Halves(%q) has the piece %q", c.text, p)
			}
		}
	}
}

func TestLog(t *testing.T) {
	var l Log[int]
	for i := range 5 {
		if n := l.Add(i); n != i+1 {
			t.Errorf("Add(%d) = %d; want %d", i, n, i+1)
		}
	}
	if got := l.Where(func(v int) bool { return v%2 == 0 }); !slices.Equal(got, []int{0, 2, 4}) {
		t.Errorf("Where(even) = %v", got)
	}
	if got := l.Where(func(int) bool { return false }); got != nil {
		t.Errorf("Where(none) = %v; want nil", got)
	}
	all := l.All()
	all[0] = 99
	if l.All()[0] != 0 || l.Len() != 5 {
		t.Errorf("All is not a copy, or Len is wrong: %v, %d", l.All(), l.Len())
	}
}

// A Player hands out the turns in order, then WhenDone, numbers the requests since the
// script was played, and says Over past MaxMain (40 when unset).
func TestPlayer(t *testing.T) {
	var p Player[string, int]
	used := 7
	p.SetScript(Script[string, int]{Turns: []string{"a", "b"}, WhenDone: "done", MaxMain: 3, Usage: &used})
	for i, want := range []Answer[string, int]{
		{N: 1, Turn: "a", Usage: &used},
		{N: 2, Turn: "b", Usage: &used},
		{N: 3, Turn: "done", Done: true, Usage: &used},
		{N: 4, Turn: "done", Done: true, Usage: &used, Over: true},
	} {
		if got := p.Next(); got != want {
			t.Errorf("request %d: %+v; want %+v", i+1, got, want)
		}
	}
	p.SetScript(Script[string, int]{WhenDone: "again"})
	for range 40 {
		if a := p.Next(); a.Over || a.Turn != "again" {
			t.Fatalf("request %d of a script without MaxMain: %+v", a.N, a)
		}
	}
	if a := p.Next(); !a.Over || a.N != 41 {
		t.Errorf("request 41 of a script without MaxMain: %+v; want it over", a)
	}
}

// Refuse answers HTTP 400 with the API's error, or, for a script that hangs, nothing until
// the client goes away.
func TestRefuse(t *testing.T) {
	var p Player[string, int]
	p.SetScript(Script[string, int]{MaxMain: -1})
	w := httptest.NewRecorder()
	p.Next().Refuse(w, httptest.NewRequest("POST", "/", nil), `{"error":{}}`)
	if w.Code != http.StatusBadRequest || w.Body.String() != `{"error":{}}` {
		t.Errorf("refused with %d %q", w.Code, w.Body.String())
	}
	p.SetScript(Script[string, int]{MaxMain: -1, Hang: true})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	w = httptest.NewRecorder()
	go func() {
		p.Next().Refuse(w, httptest.NewRequest("POST", "/", nil).WithContext(ctx), `{"error":{}}`)
		close(done)
	}()
	cancel()
	<-done
	if w.Body.Len() != 0 || w.Code != http.StatusOK && w.Code != 0 {
		t.Errorf("a hanging script answered %d %q", w.Code, w.Body.String())
	}
}

// A Fake serves its API's handler at its URL, plays its script to the handler and logs
// what the handler records.
func TestFake(t *testing.T) {
	var f Fake[string, string, int]
	err := f.Start(func(w http.ResponseWriter, r *http.Request) {
		f.Record(r.URL.Path)
		io.WriteString(w, f.Next().Turn)
	}, "/v1", Script[string, int]{Turns: []string{"hello"}, WhenDone: "bye"})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, want := range []string{"hello", "bye"} {
		resp, err := http.Get(f.URL + "/x")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != want {
			t.Errorf("answered %q; want %q", b, want)
		}
	}
	if got := f.Requests(); !slices.Equal(got, []string{"/v1/x", "/v1/x"}) {
		t.Errorf("logged %q", got)
	}
	if got := f.RequestsWhere(func(string) bool { return false }); got != nil {
		t.Errorf("RequestsWhere(none) = %q", got)
	}
}
