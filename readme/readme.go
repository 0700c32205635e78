// Package readme turns README.md and the guides under docs/ into a script:
// their fenced blocks, in order, become steps (shell commands, GraphQL
// requests, files to save) paired with the answers shown for them.
// TestREADME runs the steps against a real `make run`; the conventions are
// docs/testing.md's "The README and the guides are a test".
package readme

import (
	"fmt"
	"regexp"
	"strings"
)

// Block is one fenced code block of the Markdown text.
type Block struct {
	Lang   string // the info string's first word: sh, json, text, graphql, go…
	Text   string // the content, ending with a newline
	Line   int    // line of the opening fence (1-based)
	Before string // the prose between the previous block and this one
}

// Blocks returns the fenced blocks (``` at the start of a line) in order.
func Blocks(md string) ([]Block, error) {
	var (
		blocks []Block
		prose  strings.Builder
		cur    *Block
		body   strings.Builder
	)
	for i, line := range strings.Split(md, "\n") {
		fence := strings.HasPrefix(line, "```")
		switch {
		case cur == nil && fence:
			info := strings.Fields(strings.TrimPrefix(line, "```"))
			cur = &Block{Line: i + 1, Before: prose.String()}
			if len(info) > 0 {
				cur.Lang = info[0]
			}
			prose.Reset()
			body.Reset()
		case cur == nil:
			prose.WriteString(line + "\n")
		case fence && strings.TrimSpace(line) == "```":
			cur.Text = body.String()
			blocks = append(blocks, *cur)
			cur = nil
		default:
			body.WriteString(line + "\n")
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: a ``` block is never closed", cur.Line)
	}
	return blocks, nil
}

// Kind says what a step does.
type Kind int

const (
	Shell   Kind = iota // run Script in the shell
	GraphQL             // POST Query with Variables to /graphql with $TOKEN
	File                // save Script as Path (relative to the checkout)
)

// Step is one thing to run, with the answer the README shows for it.
type Step struct {
	Kind      Kind
	Line      int
	Script    string // the commands, the GraphQL document or the file's content
	Variables string // GraphQL: the JSON variables
	Path      string // File: where to save it
	// Answer is the shown answer (Lang "json" or "text"); nil when none is
	// shown, and then the step must print no error.
	Answer *Block
}

// fileHeader names the file a code block is saved as: its first line is a
// comment "file: PATH".
var fileHeader = regexp.MustCompile(`^(?://|#)\s*file:\s*(\S+)\s*$`)

// Steps pairs the blocks into steps:
//   - ```sh is a Shell step; its answer is a ```json or ```text block that
//     follows it with nothing in between but a paragraph starting "Answer";
//   - ```graphql followed by a "Variables" ```json block and an "Answer"
//     ```json block is a GraphQL step;
//   - any block whose first line is `// file: PATH` or `# file: PATH` is a
//     File step, saved before the steps that follow run.
//
// Every other block is illustration (```text, ```console, ```js…).
func Steps(blocks []Block) []Step {
	var steps []Step
	for i := 0; i < len(blocks); i++ {
		b := blocks[i]
		first, _, _ := strings.Cut(b.Text, "\n")
		if m := fileHeader.FindStringSubmatch(first); m != nil {
			steps = append(steps, Step{Kind: File, Line: b.Line, Script: b.Text, Path: m[1]})
			continue
		}
		switch b.Lang {
		case "sh":
			s := Step{Kind: Shell, Line: b.Line, Script: b.Text}
			if i+1 < len(blocks) && isAnswer(blocks[i+1], "json", "text") {
				s.Answer = &blocks[i+1]
				i++
			}
			steps = append(steps, s)
		case "graphql":
			if i+2 < len(blocks) && blocks[i+1].Lang == "json" && strings.Contains(blocks[i+1].Before, "Variables") &&
				isAnswer(blocks[i+2], "json") {
				steps = append(steps, Step{Kind: GraphQL, Line: b.Line, Script: b.Text, Variables: blocks[i+1].Text, Answer: &blocks[i+2]})
				i += 2
			}
		}
	}
	return steps
}

// isAnswer reports whether b is shown as the answer of the block before it.
func isAnswer(b Block, langs ...string) bool {
	before := strings.TrimSpace(b.Before)
	if before != "" && !strings.HasPrefix(before, "Answer") {
		return false
	}
	for _, l := range langs {
		if b.Lang == l {
			return true
		}
	}
	return false
}
