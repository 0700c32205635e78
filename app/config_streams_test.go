package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
)

// The bounds of WebSockets and event streams come from the environment;
// nonsense is refused at start.
func TestStreamBoundsFromEnv(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	t.Setenv("HAULGRAPH_WS_MAX_PER_ADDRESS", "5")
	t.Setenv("HAULGRAPH_WS_MAX_PER_CLIENT", "6")
	t.Setenv("HAULGRAPH_SSE_MAX_STREAMS_ADDRESS", "7")
	t.Setenv("HAULGRAPH_WS_INIT_TIMEOUT", "3s")
	t.Setenv("HAULGRAPH_STREAM_WRITE_TIMEOUT", "4s")
	c, err := app.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if c.WebsocketMaxPerAddress != 5 || c.WebsocketMaxPerClient != 6 || c.SSEMaxStreamsAddress != 7 ||
		c.WebsocketInitTimeout != 3*time.Second || c.StreamWriteTimeout != 4*time.Second {
		t.Fatalf("stream bounds %d %d %d %v %v", c.WebsocketMaxPerAddress, c.WebsocketMaxPerClient, c.SSEMaxStreamsAddress,
			c.WebsocketInitTimeout, c.StreamWriteTimeout)
	}
	for env, bad := range map[string][]string{
		"HAULGRAPH_WS_MAX_PER_ADDRESS":      {"0", "many"},
		"HAULGRAPH_WS_MAX_PER_CLIENT":       {"-1", "x"},
		"HAULGRAPH_SSE_MAX_STREAMS_ADDRESS": {"0", "1.5"},
		"HAULGRAPH_WS_INIT_TIMEOUT":         {"0s", "10"},
		"HAULGRAPH_STREAM_WRITE_TIMEOUT":    {"-1s", "soon"},
	} {
		for _, v := range bad {
			t.Run(env+"="+v, func(t *testing.T) {
				t.Setenv(env, v)
				if _, err := app.FromEnv(); err == nil || !strings.Contains(err.Error(), env) {
					t.Errorf("%s=%s: %v, want an error naming it", env, v, err)
				}
			})
		}
	}
}
