package guard

import (
	"regexp"
	"strings"

	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/internal/lazy"
)

// This file judges requests to a host's own HTTP server (opencode), which drives its
// sessions: a prompt or a command handed to a session, a session aborted or deleted, the
// TUI driven. The rule looks only at what a network client is given as its URL (curl,
// wget, httpie, nc…) or at the addresses in an interpreter's one-liner, never at file
// names: "cat internal/tui/model.go" is a read.

// defaultServerPort is the port "opencode serve" listens on unless told otherwise.
const defaultServerPort = "4096"

// netClients are the programs that send a request to the URL or address they are given.
var netClients = lazy.Value[map[string]bool]{Make: func() map[string]bool {
	return set("curl wget wget2 http https xh xhs httpie curlie aria2c lynx links w3m")
}}

// socketClients send what they read on stdin to HOST PORT.
var socketClients = lazy.Value[map[string]bool]{Make: func() map[string]bool {
	return set("nc ncat netcat socat telnet websocat")
}}

// drivingRoute matches the path of a request that drives a session or the TUI, whatever
// its method: a prompt, a command, a shell command, an abort, a revert, a summary, an
// init; any /tui/ route.
var drivingRoute = lazy.Value[*regexp.Regexp]{Make: func() *regexp.Regexp {
	return regexp.MustCompile(`^/session/[^/?#]+/(prompt_async|prompt|message|command|shell|abort|revert|unrevert|summarize|init)\b|^/tui(/|$)`)
}}

// sessionRoute matches /session/ID, which DELETE removes.
var sessionRoute = lazy.Value[*regexp.Regexp]{Make: func() *regexp.Regexp { return regexp.MustCompile(`^/session/[^/?#]+/?($|[?#])`) }}

// isServerPort reports whether port (as written; "" when none) may be the host's server.
func (g *guard) isServerPort(port string) bool {
	if strings.Contains(port, unknownMark) {
		return true
	}
	if port == "" {
		return false
	}
	if port == defaultServerPort {
		return true
	}
	for _, p := range g.serverPorts {
		if p == port {
			return true
		}
	}
	return false
}

// localHost reports whether host names this machine, or may (built at run time).
func localHost(host string) bool {
	host = strings.ToLower(strings.Trim(host, "[]"))
	switch {
	case host == "", strings.Contains(host, unknownMark), host == "localhost", host == "::1", host == "0.0.0.0", host == "::",
		strings.HasPrefix(host, "127."), strings.HasSuffix(host, ".localhost"), host == "0:0:0:0:0:0:0:1":
		return true
	}
	return false
}

// serverRequest reports whether a request with method (upper case; "" when unknown, which
// may be any) to the URL u drives, aborts or deletes a session on the host's server.
func (g *guard) serverRequest(method, u string) bool {
	host, port, path, ok := splitURL(u)
	if !ok || !localHost(host) || !g.isServerPort(port) || path == "" {
		return false
	}
	if drivingRoute.Get().MatchString(path) {
		// GET of a session's messages reads them.
		return !(method == "GET" && messageList.Get().MatchString(path))
	}
	return (method == "" || method == "DELETE") && sessionRoute.Get().MatchString(path)
}

// messageList matches the route that lists a session's messages (GET) or sends one (POST).
var messageList = lazy.Value[*regexp.Regexp]{Make: func() *regexp.Regexp { return regexp.MustCompile(`^/session/[^/?#]+/message/?($|[?#])`) }}

// splitURL splits a URL, or an address with a path as curl takes it (localhost:4096/x,
// :4096/x for httpie), into host, port and path. A host built at run time makes the port
// unknown too.
func splitURL(u string) (host, port, path string, ok bool) {
	rest := u
	if i := strings.Index(rest, "://"); i >= 0 {
		switch scheme := strings.ToLower(rest[:i]); {
		case scheme == "http", scheme == "https", scheme == "ws", scheme == "wss", strings.Contains(scheme, unknownMark):
		default:
			return "", "", "", false
		}
		rest = rest[i+3:]
	}
	auth := rest
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		auth, path = rest[:i], rest[i:]
	}
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		auth = auth[i+1:]
	}
	host = auth
	if strings.HasPrefix(auth, "[") {
		if j := strings.IndexByte(auth, ']'); j > 0 {
			host = auth[:j+1]
			port = strings.TrimPrefix(auth[j+1:], ":")
		}
	} else if i := strings.LastIndexByte(auth, ':'); i >= 0 {
		host, port = auth[:i], auth[i+1:]
	}
	if strings.Contains(host, unknownMark) {
		port = unknownMark
	}
	return host, port, path, true
}

// netClient judges a network client's request to the host's server.
func (s *shell) netClient(name string, c *cmdline, args []field) {
	method, ops := requestArgs(name, args)
	for _, a := range ops {
		if s.g.serverRequest(method, a.text) {
			s.deny(inject.GuardServer(s.g.cli, s.g.words))
			return
		}
	}
}

// requestArgs returns a client's method ("" when unknown or not given: GET, or POST with
// data, neither of which matters but for DELETE) and the words that may be its URLs.
func requestArgs(name string, args []field) (string, []field) {
	method := "GET"
	var ops []field
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		switch {
		case (t == "-X" || t == "--request" || t == "--method") && i+1 < len(args):
			i++
			method = strings.ToUpper(args[i].text)
			if !args[i].exact() {
				method = ""
			}
		case strings.HasPrefix(t, "-X") && len(t) > 2:
			method = strings.ToUpper(t[2:])
		case strings.HasPrefix(t, "--request=") || strings.HasPrefix(t, "--method="):
			_, v, _ := strings.Cut(t, "=")
			method = strings.ToUpper(v)
		case dataFlag(t):
			if method == "GET" {
				method = "POST"
			}
			if !strings.Contains(t, "=") && i+1 < len(args) {
				i++
			}
		case strings.HasPrefix(t, "-"):
		default:
			httpie := name == "http" || name == "https" || name == "xh" || name == "xhs" || name == "httpie" || name == "curlie"
			if httpie && len(ops) == 0 && isMethod(t) {
				method = strings.ToUpper(t)
				continue
			}
			if httpie && len(ops) > 0 && strings.Contains(t, "=") && method == "GET" {
				method = "POST" // a data item
			}
			ops = append(ops, a)
		}
	}
	if strings.Contains(method, unknownMark) {
		method = ""
	}
	return method, ops
}

// dataFlag reports whether a client's option sends a body (and so a POST by default).
func dataFlag(t string) bool {
	name, _, _ := strings.Cut(t, "=")
	switch name {
	case "-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "--data-ascii", "--json", "-F", "--form",
		"--form-string", "-T", "--upload-file", "--post-data", "--post-file", "--body-data", "--body-file":
		return true
	}
	return strings.HasPrefix(t, "-d") && len(t) > 2 && !strings.HasPrefix(t, "--")
}

func isMethod(t string) bool {
	switch strings.ToUpper(t) {
	case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS":
		return true
	}
	return false
}

// socketClient judges nc, socat and the like talking to the host's server: what they send
// is read on stdin.
func (s *shell) socketClient(c *cmdline, args []field) {
	var host, port string
	var ops []string
	for _, a := range args {
		if strings.HasPrefix(a.text, "-") {
			continue
		}
		ops = append(ops, a.text)
	}
	if len(ops) >= 2 {
		host, port = ops[0], ops[1]
	} else if len(ops) == 1 {
		// socat TCP:host:port, telnet host, websocat ws://…
		t := ops[0]
		if i := strings.LastIndexByte(t, ':'); i >= 0 {
			host, port = t[:i], t[i+1:]
			if j := strings.LastIndexAny(host, ":/"); j >= 0 {
				host = host[j+1:]
			}
		}
	}
	if !localHost(host) || !s.g.isServerPort(strings.TrimRight(port, "/")) {
		return
	}
	if c.stdin == nil || s.g.requestText(*c.stdin) {
		s.deny(inject.GuardServer(s.g.cli, s.g.words))
	}
}

// requestLine matches an HTTP request line.
var requestLine = lazy.Value[*regexp.Regexp]{Make: func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(/\S*)`)
}}

// requestText reports whether raw HTTP text sends a request that drives, aborts or deletes
// a session.
func (g *guard) requestText(text string) bool {
	for _, m := range requestLine.Get().FindAllStringSubmatch(text, 64) {
		method, path := strings.ToUpper(m[1]), m[2]
		if drivingRoute.Get().MatchString(path) || method == "DELETE" && sessionRoute.Get().MatchString(path) {
			return true
		}
	}
	return false
}

// codeAddress matches an address of this machine in a one-liner's code, with its port and
// what follows it.
var codeAddress = lazy.Value[*regexp.Regexp]{Make: func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)(?::(\d+))?([^\s'"` + "`" + `]*)`)
}}

// codeRoute matches a driving route, or a session route with DELETE, anywhere in code,
// for addresses put together at run time.
var codeRoute = lazy.Value[*regexp.Regexp]{Make: func() *regexp.Regexp {
	return regexp.MustCompile(`/(prompt_async|abort|command|shell|message|revert|summarize)\b|/tui/`)
}}

// serverCode reports whether an interpreter's one-liner sends the host's server a request
// that drives, aborts or deletes a session: it names the server's address and a driving
// route, or DELETE and a session.
func (g *guard) serverCode(code string) bool {
	for _, m := range codeAddress.Get().FindAllStringSubmatch(code, 64) {
		if !g.isServerPort(m[1]) {
			continue
		}
		if codeRoute.Get().MatchString(code) || strings.Contains(code, "/session") && strings.Contains(strings.ToUpper(code), "DELETE") {
			return true
		}
	}
	return false
}
