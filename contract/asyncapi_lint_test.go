package contract

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/npmci"
)

// The AsyncAPI parser reads the served document without an error; the same
// run refuses a broken copy (an operation on a channel that does not exist),
// so a parser that accepted anything would fail here.
func TestAsyncAPIParserAccepts(t *testing.T) {
	t.Parallel()
	npmci.Install(t, ".") // contract/package-lock.json pins the parser
	var doc map[string]any
	if err := json.Unmarshal(AsyncAPIJSON, &doc); err != nil {
		t.Fatal(err)
	}
	doc["operations"].(map[string]any)["webhook"].(map[string]any)["channel"] = map[string]any{"$ref": "#/channels/nowhere"}
	broken, _ := json.Marshal(doc)
	brokenPath := filepath.Join(t.TempDir(), "broken.json")
	if err := os.WriteFile(brokenPath, broken, 0o644); err != nil {
		t.Fatal(err)
	}
	served, _ := filepath.Abs("asyncapi.json")
	cmd := exec.Command("node", "validate.mjs", served, brokenPath)
	cmd.Dir = "asyncapi"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node validate.mjs: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), served+": valid") {
		t.Errorf("the AsyncAPI parser refuses asyncapi.json:\n%s", out)
	}
	if !strings.Contains(string(out), brokenPath+": invalid") {
		t.Errorf("the AsyncAPI parser accepted a broken document:\n%s", out)
	}
}
