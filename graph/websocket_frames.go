package graph

import (
	"encoding/json"
	"slices"
)

// CloseBadMessage is graphql-transport-ws's close code for a message that is
// not valid JSON or not of the protocol ("4400: Invalid message received").
// gqlgen closes such a connection with 1000; the adapter checks each frame
// first (issue 15: hostile input gets the protocol's exact refusal).
const CloseBadMessage = 4400

// clientMessages are the message types a client may send, per subprotocol.
var clientMessages = map[string][]string{
	"graphql-transport-ws": {"connection_init", "ping", "pong", "subscribe", "complete"},
	"graphql-ws":           {"connection_init", "start", "stop", "connection_terminate"},
}

// validFrame reports whether b is a JSON object whose type is one a client
// of subprotocol may send.
func validFrame(subprotocol string, b []byte) bool {
	var m struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return false
	}
	types, known := clientMessages[subprotocol]
	return !known || slices.Contains(types, m.Type)
}
