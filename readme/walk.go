package readme

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// guideLink is a link from README.md to a guide under docs/.
var guideLink = regexp.MustCompile(`\]\((docs/[A-Za-z0-9_.-]+\.md)(?:#[^)]*)?\)`)

// Walk lists the Markdown files TestREADME runs, in the order it runs them:
// README.md; then the docs/*.md files that README.md's "Where next" section
// links, in the order it first links them; then every other docs/*.md, by
// name. The paths are relative to root.
func Walk(root string) ([]string, error) {
	md, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		return nil, err
	}
	_, next, ok := strings.Cut(string(md), "\n## Where next\n")
	if !ok {
		return nil, fmt.Errorf(`README.md has no "## Where next" section`)
	}
	next, _, _ = strings.Cut(next, "\n## ")
	order := []string{"README.md"}
	seen := map[string]bool{"README.md": true}
	for _, m := range guideLink.FindAllStringSubmatch(next, -1) {
		if seen[m[1]] {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, m[1])); err != nil {
			return nil, fmt.Errorf("README.md's Where next links %s: %v", m[1], err)
		}
		seen[m[1]] = true
		order = append(order, m[1])
	}
	rest, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	sort.Strings(rest)
	for _, f := range rest {
		rel := filepath.ToSlash(strings.TrimPrefix(f, root+string(filepath.Separator)))
		if !seen[rel] {
			seen[rel] = true
			order = append(order, rel)
		}
	}
	return order, nil
}
