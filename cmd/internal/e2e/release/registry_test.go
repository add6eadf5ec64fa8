package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// registry is a small read-only npm registry on 127.0.0.1: the packuments and tarballs of
// the packages in a directory of tarballs (make dist's dist/npm), plus stand-in manifests
// (os/cpu only) for platform packages that were not built, which npm reads and skips.
type registry struct {
	URL       string
	packs     map[string]map[string]any // name -> packument
	tarballs  map[string][]byte         // file name -> bytes
	srv       *http.Server
	Requested []string
}

func startRegistry(t *testing.T, dir string, stand map[string]map[string]any) *registry {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &registry{URL: "http://" + ln.Addr().String(), packs: map[string]map[string]any{}, tarballs: map[string][]byte{}}
	files, _ := filepath.Glob(filepath.Join(dir, "*.tgz"))
	if len(files) == 0 {
		t.Fatalf("no npm tarballs in %s", dir)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := packageJSON(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		s1 := sha1.Sum(data)
		s512 := sha512.Sum512(data)
		m["dist"] = map[string]any{
			"tarball":   r.URL + "/-/tarballs/" + filepath.Base(f),
			"shasum":    hex.EncodeToString(s1[:]),
			"integrity": "sha512-" + base64.StdEncoding.EncodeToString(s512[:]),
		}
		r.tarballs[filepath.Base(f)] = data
		r.add(m)
	}
	for name, m := range stand {
		if _, ok := r.packs[name]; !ok {
			m["dist"] = map[string]any{"tarball": r.URL + "/-/tarballs/missing.tgz"}
			r.add(m)
		}
	}
	r.srv = &http.Server{Handler: r}
	go r.srv.Serve(ln)
	t.Cleanup(func() { r.srv.Close() })
	return r
}

// add serves a manifest under its version without build metadata ("+dirty"), as the npm
// registry keeps it (npm looks a version up that way).
func (r *registry) add(m map[string]any) {
	name, version := m["name"].(string), m["version"].(string)
	version, _, _ = strings.Cut(version, "+")
	m["version"] = version
	r.packs[name] = map[string]any{"name": name, "dist-tags": map[string]string{"latest": version},
		"versions": map[string]any{version: m}}
}

func (r *registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.Requested = append(r.Requested, req.Method+" "+req.URL.Path)
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		http.Error(w, `{"error":"read-only registry"}`, http.StatusMethodNotAllowed)
		return
	}
	if f, ok := strings.CutPrefix(req.URL.Path, "/-/tarballs/"); ok {
		if data, ok := r.tarballs[f]; ok {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(data)
			return
		}
		http.NotFound(w, req)
		return
	}
	name := strings.TrimPrefix(req.URL.Path, "/")
	if p, ok := r.packs[name]; ok {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(p)
		return
	}
	http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
}

// packageJSON reads package/package.json from an npm tarball.
func packageJSON(tgz []byte) (map[string]any, error) {
	gz, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("no package/package.json")
		}
		if err != nil {
			return nil, err
		}
		if h.Name == "package/package.json" {
			var m map[string]any
			err := json.NewDecoder(tr).Decode(&m)
			return m, err
		}
	}
}
