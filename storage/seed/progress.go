package seed

import (
	"fmt"
	"io"
	"strings"
)

// progress reports how far seeding got: a redrawn bar on a terminal, one
// plain line per step (and per tenth of a step) otherwise.
type progress struct {
	w        io.Writer
	bar      bool
	total    int // parent rows over all phases
	done     int
	phase    string
	phaseN   int
	phaseAt  int
	lastTick int
}

func (p *progress) start(phase string, n int) {
	p.phase, p.phaseN, p.phaseAt, p.lastTick = phase, n, 0, -1
	p.draw(true)
}

// step records that n more parent rows of the current phase were generated.
func (p *progress) step(n int) {
	p.phaseAt += n
	p.done += n
	p.draw(false)
}

func (p *progress) finish() {
	if p.w == nil {
		return
	}
	if p.bar {
		fmt.Fprintln(p.w)
	}
}

func (p *progress) draw(force bool) {
	if p.w == nil || p.total == 0 {
		return
	}
	if p.bar {
		// Redraw at most 200 times over the whole run.
		tick := p.done * 200 / p.total
		if !force && tick == p.lastTick {
			return
		}
		p.lastTick = tick
		const width = 30
		filled := p.done * width / p.total
		fmt.Fprintf(p.w, "\r[%s%s] %3d%%  %-14s %d/%d\x1b[K",
			strings.Repeat("#", filled), strings.Repeat(".", width-filled),
			p.done*100/p.total, p.phase, p.phaseAt, p.phaseN)
		return
	}
	tenth := 0
	if p.phaseN > 0 {
		tenth = p.phaseAt * 10 / p.phaseN
	}
	if !force && tenth == p.lastTick {
		return
	}
	p.lastTick = tenth
	fmt.Fprintf(p.w, "seed: %-14s %d/%d (%d%% overall)\n", p.phase, p.phaseAt, p.phaseN, p.done*100/p.total)
}
