// Package release reads CHANGELOG.md: the releases and the commit each was
// built from. Its tests hold a release to its promise that the previous
// release still runs against the schema this one migrates.
package release

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Release is one section of CHANGELOG.md.
type Release struct {
	Version    string // vX.Y.Z; for Unreleased the planned version, if named
	Unreleased bool
	Commit     string // the full commit hash; empty while unreleased
	Line       int    // of its heading, for messages
}

var (
	heading = regexp.MustCompile(`^## (?:(Unreleased)(?: \((v\d+\.\d+\.\d+)\))?|(v\d+\.\d+\.\d+) \(\d{4}-\d{2}-\d{2}\))$`)
	commit  = regexp.MustCompile(`^Commit: ([0-9a-f]{40})$`)
)

// Parse reads the sections of the changelog at path, newest first. Every
// section but Unreleased (first, if there) names its commit.
func Parse(path string) ([]Release, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rs []Release
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := heading.FindStringSubmatch(line); m != nil {
			if m[1] != "" && len(rs) > 0 {
				return nil, fmt.Errorf("%s:%d: the Unreleased section comes first", path, n)
			}
			rs = append(rs, Release{Version: m[2] + m[3], Unreleased: m[1] != "", Line: n})
			continue
		}
		if strings.HasPrefix(line, "## ") {
			return nil, fmt.Errorf("%s:%d: %q is neither \"## Unreleased (vX.Y.Z)\" nor \"## vX.Y.Z (YYYY-MM-DD)\"", path, n, line)
		}
		if m := commit.FindStringSubmatch(line); m != nil && len(rs) > 0 {
			r := &rs[len(rs)-1]
			if r.Commit != "" || r.Unreleased {
				return nil, fmt.Errorf("%s:%d: a second commit, or one for an unreleased version", path, n)
			}
			r.Commit = m[1]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, r := range rs {
		if !r.Unreleased && r.Commit == "" {
			return nil, fmt.Errorf("%s:%d: release %s names no commit (a line \"Commit: <40 hex digits>\")", path, r.Line, r.Version)
		}
	}
	return rs, nil
}

// Previous is the newest release CHANGELOG.md (under root) names: the one
// instances may still run while this code's migrations are applied.
func Previous(root string) (Release, error) {
	rs, err := Parse(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		return Release{}, err
	}
	for _, r := range rs {
		if !r.Unreleased {
			return r, nil
		}
	}
	return Release{}, errors.New("CHANGELOG.md names no release")
}
