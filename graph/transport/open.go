package transport

import "sync"

// openCounts counts the open connections (WebSockets, event streams) of
// each key — an address, a client, a tenant — against a bound.
type openCounts struct {
	mu sync.Mutex
	n  map[string]int
}

// take counts one more for key unless most are open already; release
// (idempotent) gives the place back.
func (c *openCounts) take(key string, most int) (release func(), ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	if c.n[key] >= most {
		return nil, false
	}
	c.n[key]++
	return sync.OnceFunc(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.n[key]--; c.n[key] <= 0 {
			delete(c.n, key)
		}
	}), true
}

// total is the number open across keys.
func (c *openCounts) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.n {
		n += v
	}
	return n
}
