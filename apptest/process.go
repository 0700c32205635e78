package apptest

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// RepoRoot is the root of the repository the test runs in: the directory
// of go.mod above the test's working directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("apptest: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("apptest: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Checkout copies the repository's working tree as a fresh clone would have
// it (the files git tracks or would track, with uncommitted edits; nothing
// ignored: no .data, no bin) into a new directory outside the repository,
// removed when the test ends. Outside a git work tree it copies every file
// but .git, .data, bin and node_modules.
func Checkout(t testing.TB) string {
	t.Helper()
	root := RepoRoot(t)
	dst := filepath.Join(t.TempDir(), "haulgraph")
	for _, name := range SourceFiles(t, root) {
		src := filepath.Join(root, name)
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree, or not a plain file
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatalf("apptest: checkout: %v", err)
		}
		to := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatalf("apptest: checkout: %v", err)
		}
		if err := os.WriteFile(to, b, fi.Mode().Perm()); err != nil {
			t.Fatalf("apptest: checkout: %v", err)
		}
	}
	return dst
}

// SourceFiles lists the repository's files relative to root: what git
// tracks or would track, or, outside a git work tree, every file but those
// under .git, .data, bin and node_modules.
func SourceFiles(t testing.TB, root string) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err == nil {
		return strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	}
	var files []string
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case d.IsDir() && (rel == ".git" || rel == ".data" || rel == "bin" || d.Name() == "node_modules"):
			return filepath.SkipDir
		case d.Type().IsRegular():
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("apptest: listing the sources: %v", err)
	}
	return files
}

// FreeAddr returns a 127.0.0.1 address no one listens on now, for a child
// process to bind (never a fixed port).
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("apptest: %v", err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// CleanEnv is the test process's environment without DATABASE_URL and any
// HAULGRAPH_* variable, plus extra (KEY=value): what a child process that
// must not inherit the developer's settings starts from.
func CleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "DATABASE_URL" || strings.HasPrefix(k, "HAULGRAPH_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// LockedBuffer collects a child process's output while the test reads it.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Chromium finds the browser for the page tests: HAULGRAPH_CHROMIUM, else
// Debian's chromium on PATH (scripts/with-chromium.sh installs it for make
// test).
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("HAULGRAPH_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium: run through `make test` (scripts/with-chromium.sh installs Debian's chromium) or set HAULGRAPH_CHROMIUM")
	return ""
}

// Browser starts a headless Chromium (Chromium) for the test's lifetime and
// returns its chromedp context, with a window of width × height.
func Browser(t testing.TB, width, height int) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(Chromium(t)),
		chromedp.NoSandbox, chromedp.WindowSize(width, height))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	if err := chromedp.Do(bctx); err != nil { // starts the browser for bctx's lifetime
		t.Fatalf("start Chromium: %v", err)
	}
	return bctx
}
