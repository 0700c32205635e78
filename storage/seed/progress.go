package seed

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// progress reports how far seeding got: a redrawn bar on a terminal, a plain
// line per tenth otherwise. Phases run concurrently, so it is locked.
type progress struct {
	mu     sync.Mutex
	w      io.Writer
	bar    bool
	phases []*phase
	total  int // parent rows of all phases
	done   int
	last   int // last drawn tick
}

// phase is one kind of parent row (statements, loads …) and its count.
type phase struct {
	name  string
	n, at int
}

// add registers a phase of n parent rows; all phases are added before work starts.
func (p *progress) add(name string, n int) *phase {
	ph := &phase{name: name, n: n}
	p.phases = append(p.phases, ph)
	p.total += n
	return ph
}

// step records that k more parent rows of ph were generated.
func (p *progress) step(ph *phase, k int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ph.at += k
	p.done += k
	p.draw()
}

func (p *progress) draw() {
	if p.w == nil || p.total == 0 {
		return
	}
	ticks := 10
	if p.bar {
		ticks = 200
	}
	tick := p.done * ticks / p.total
	if tick == p.last {
		return
	}
	p.last = tick
	var active []string
	for _, ph := range p.phases {
		if ph.at > 0 && ph.at < ph.n {
			active = append(active, fmt.Sprintf("%s %d/%d", ph.name, ph.at, ph.n))
		}
	}
	pct := p.done * 100 / p.total
	if !p.bar {
		fmt.Fprintln(p.w, strings.TrimSpace(fmt.Sprintf("seed: %3d%%  %s", pct, strings.Join(active, ", "))))
		return
	}
	const width = 30
	filled := p.done * width / p.total
	fmt.Fprintf(p.w, "\r[%s%s] %3d%%  %s\x1b[K", strings.Repeat("#", filled), strings.Repeat(".", width-filled),
		pct, strings.Join(active, ", "))
	if p.done == p.total {
		fmt.Fprintln(p.w)
	}
}
