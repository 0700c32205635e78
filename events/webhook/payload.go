package webhook

import (
	"encoding/json"
)

// renderBody returns the envelope to send: the stored one, without
// data.diff.previousAttributes unless the webhook asked for it (spec 6.4).
func renderBody(payload json.RawMessage, includePrevious bool) ([]byte, error) {
	if includePrevious {
		return payload, nil
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(payload, &env); err != nil {
		return nil, err
	}
	var data map[string]json.RawMessage
	if raw, ok := env["data"]; !ok || json.Unmarshal(raw, &data) != nil {
		return payload, nil
	}
	var diff map[string]json.RawMessage
	if raw, ok := data["diff"]; !ok || json.Unmarshal(raw, &diff) != nil || diff == nil {
		return payload, nil
	}
	if _, ok := diff["previousAttributes"]; !ok {
		return payload, nil
	}
	delete(diff, "previousAttributes")
	var err error
	if data["diff"], err = json.Marshal(diff); err != nil {
		return nil, err
	}
	if env["data"], err = json.Marshal(data); err != nil {
		return nil, err
	}
	return json.Marshal(env)
}
