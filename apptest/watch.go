package apptest

import (
	"strings"
	"time"
)

// Output is a LockedBuffer a test can wait on: WaitFor returns as soon as
// the text has been written, without polling on a timer.
type Output struct {
	LockedBuffer
	wrote chan struct{}
}

// NewOutput returns an empty Output.
func NewOutput() *Output { return &Output{wrote: make(chan struct{}, 1)} }

func (o *Output) Write(p []byte) (int, error) {
	n, err := o.LockedBuffer.Write(p)
	select {
	case o.wrote <- struct{}{}:
	default:
	}
	return n, err
}

// WaitFor waits until the output contains text, the stop channel closes (the
// process ended) or the timeout passes, and reports whether text came.
func (o *Output) WaitFor(text string, stop <-chan struct{}, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		if strings.Contains(o.String(), text) {
			return true
		}
		select {
		case <-o.wrote:
		case <-stop:
			return strings.Contains(o.String(), text)
		case <-deadline.C:
			return false
		}
	}
}
