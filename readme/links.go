package readme

import (
	"regexp"
	"strconv"
	"strings"
)

// Link is a Markdown link or image of a file, outside code blocks.
type Link struct {
	Target string // as written: path, path#anchor or #anchor
	Line   int
}

var (
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)
	inlineCode = regexp.MustCompile("`[^`]*`")
)

// Links returns the links of md that are not inside a code block or code span.
func Links(md string) []Link {
	var out []Link
	fence := false
	for i, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		line = inlineCode.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, Link{Target: m[1], Line: i + 1})
		}
	}
	return out
}

var (
	slugDrop   = regexp.MustCompile(`[^\p{L}\p{N}\s_-]`)
	linkTarget = regexp.MustCompile(`\]\([^)]*\)`)
)

// Anchors returns the anchors of md's headings as GitHub writes them:
// lowercase, punctuation dropped, spaces as "-", repeats numbered "-1", "-2"…
func Anchors(md string) map[string]bool {
	anchors := map[string]bool{}
	count := map[string]int{}
	fence := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		text = linkTarget.ReplaceAllString(text, "]") // a link's text only
		slug := strings.ToLower(slugDrop.ReplaceAllString(text, ""))
		slug = strings.ReplaceAll(slug, " ", "-")
		if n := count[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		count[slug]++
	}
	return anchors
}
