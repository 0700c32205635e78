package readme

import (
	"strings"
	"testing"
)

func TestMatchJSON(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		want, got string
		ok        bool
	}{
		{`{"a":1,"b":"x"}`, `{"b":"x","a":1.0}`, true},
		{`{"a":1}`, `{"a":2}`, false},
		{`{"a":1}`, `{"a":1,"b":2}`, false},       // an extra key
		{`{"a":"…"}`, `{"a":{"deep":[1]}}`, true}, // "…" is any value
		{`{"t":"eyJhb…"}`, `{"t":"eyJhbGci"}`, true},
		{`{"t":"eyJhb…"}`, `{"t":"xeyJhb"}`, false},
		{`{"id":"…-1"}`, `{"id":"0b5e-1"}`, true},
		{`{"id":"…-1"}`, `{"id":"0b5e-0"}`, false},
		{`[1,2]`, `[1,2,3]`, false},
		{`[1,2,"…"]`, `[1,2,3]`, true},
		{`[1,2,"…"]`, `[1]`, false},
		{`{"a":1}`, "{\"a\":1}\n{\"a\":1}\n", true}, // one shown value, every printed one
		{`{"a":1}`, "{\"a\":1}\n{\"a\":2}\n", false},
		{"1\n2\n", "1\n2\n", true},
		{"1\n2\n", "1\n", false},
		{`{"a":1}`, ``, false},
		{`{"a":1}`, `not json`, false},
	} {
		if err := MatchJSON(c.want, c.got); (err == nil) != c.ok {
			t.Errorf("MatchJSON(%s, %s) = %v, want ok %v", c.want, c.got, err, c.ok)
		}
	}
}

func TestMatchText(t *testing.T) {
	t.Parallel()
	if err := MatchText("Active\nverified load.status.changed …-1\n", "Active  \nverified load.status.changed ab-12-1"); err != nil {
		t.Error(err)
	}
	if MatchText("Active\n", "FailedVerification\n") == nil {
		t.Error("different text matched")
	}
	if MatchText("a\n", "a\nb\n") == nil {
		t.Error("an extra line matched")
	}
}

func TestFailure(t *testing.T) {
	t.Parallel()
	for out, failed := range map[string]bool{
		`{"data":{"x":1}}`:                                        false,
		`{"data":null,"errors":[{"message":"no"}]}`:               true,
		"HTTP/1.1 200 OK\nA: b\n\n[1]":                            false,
		"HTTP/1.1 404 Not Found\n":                                true,
		`{"error":"invalid_client","error_description":"x"}`:      true,
		`{"type":"about:blank","title":"Bad","status":400}`:       true,
		"{\"Total\":1}\n{\"title\":\"t\",\"status\":503}\n":       true,
		"StatementNumber,Status\n100001,Processed\n":              false,
		`{"Page":0,"Status":["Active"],"Items":[{"status":500}]}`: false,
	} {
		if got := Failure(out) != ""; got != failed {
			t.Errorf("Failure(%q) = %v, want %v", out, got, failed)
		}
	}
}

func TestSteps(t *testing.T) {
	t.Parallel()
	md := strings.Join([]string{
		"# T", "```console", "make run", "```",
		"```sh", "echo hi", "```", "Answer:", "```text", "hi", "```",
		"```sh", "echo two", "```", "Prose that is not an answer.", "```json", "{}", "```",
		"```graphql", "query { a }", "```", "Variables:", "```json", "{}", "```", "Answer (demo):", "```json", `{"data":{}}`, "```",
		"```python", "# file: .data/r.py", "print(1)", "```",
	}, "\n")
	blocks, err := Blocks(md)
	if err != nil {
		t.Fatal(err)
	}
	steps := Steps(blocks)
	if len(steps) != 4 {
		t.Fatalf("%d steps: %+v", len(steps), steps)
	}
	if steps[0].Kind != Shell || steps[0].Answer == nil || steps[0].Answer.Text != "hi\n" {
		t.Errorf("step 1: %+v", steps[0])
	}
	if steps[1].Kind != Shell || steps[1].Answer != nil {
		t.Errorf("step 2: a block after prose is no answer: %+v", steps[1])
	}
	if steps[2].Kind != GraphQL || steps[2].Variables != "{}\n" || steps[2].Answer == nil {
		t.Errorf("step 3: %+v", steps[2])
	}
	if steps[3].Kind != File || steps[3].Path != ".data/r.py" {
		t.Errorf("step 4: %+v", steps[3])
	}
	if _, err := Blocks("```sh\necho\n"); err == nil {
		t.Error("an unclosed block was accepted")
	}
}
