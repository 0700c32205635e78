package app

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// streamBoundsFromEnv reads the bounds of WebSockets and event streams.
func streamBoundsFromEnv(c *Config) error {
	for env, dst := range map[string]*int{
		"HAULGRAPH_WS_MAX_PER_ADDRESS":      &c.WebsocketMaxPerAddress,
		"HAULGRAPH_WS_MAX_PER_CLIENT":       &c.WebsocketMaxPerClient,
		"HAULGRAPH_SSE_MAX_STREAMS_ADDRESS": &c.SSEMaxStreamsAddress,
	} {
		if v := os.Getenv(env); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return fmt.Errorf("%s: a positive integer, got %q", env, v)
			}
			*dst = n
		}
	}
	for env, dst := range map[string]*time.Duration{
		"HAULGRAPH_WS_INIT_TIMEOUT":      &c.WebsocketInitTimeout,
		"HAULGRAPH_STREAM_WRITE_TIMEOUT": &c.StreamWriteTimeout,
	} {
		if v := os.Getenv(env); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("%s: a positive duration, got %q", env, v)
			}
			*dst = d
		}
	}
	return nil
}
