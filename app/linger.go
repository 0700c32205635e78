package app

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Lingering after a refusal (nginx's lingering_close): a handler that
// refuses a request before reading its whole body (401, 413, 429) leaves the
// client still sending. Closing at once makes the kernel reset the
// connection on the bytes that keep arriving, and a client that has not yet
// read the answer loses it to the reset (curl reports "connection reset",
// not the 413). So such a refusal is held until the handler returns, sent
// whole (with its length, and Connection: close), and then what the client
// goes on sending is read and dropped within these bounds before the
// connection closes.
const (
	lingerMaxBytes = 64 << 20        // a client sending more meets the reset
	lingerTotal    = 5 * time.Second // a client sending longer meets the reset
	lingerIdle     = time.Second     // a client that pauses this long has stopped
	maxHeld        = 64 << 10        // a refusal's body; a longer one is sent as it comes
)

// hold starts holding a refusal given before the body was read (w.mu held):
// its status and body wait for the handler's return, when their length is
// known. The connection closes after it, the body being unread.
func (w *boundedWriter) hold(status int) bool {
	if status < 400 || w.body == nil || w.body.done || w.held != 0 {
		return false
	}
	w.held = status
	w.Header().Set("Connection", "close")
	return true
}

// release writes the held refusal (w.mu held); whole: the handler has
// returned, so the body's length is known.
func (w *boundedWriter) release(whole bool) {
	status := w.held
	w.held = 0
	if whole {
		w.Header().Set("Content-Length", strconv.Itoa(len(w.heldBody)))
	}
	w.refresh()
	w.ResponseWriter.WriteHeader(status)
	_, _ = w.ResponseWriter.Write(w.heldBody) // an error: the client is gone
	w.heldBody = nil
}

// linger ends a request whose handler left its body unread: a held refusal
// is sent and flushed, then the rest of the body drained (see above). Any
// other answer, or a body of HTTP/2 (whose streams end without a reset of
// the connection) or one held back for a 100-continue, is not waited for:
// what has arrived is read by the server, the wait for the rest fails at
// once and the connection closes after the answer.
func (b *boundedBody) linger(w *boundedWriter, r *http.Request) {
	closeNow := time.Unix(1, 0) // a past deadline
	w.mu.Lock()
	held := w.held != 0
	if held {
		w.release(true)
	}
	w.mu.Unlock()
	if !held || r.ProtoMajor != 1 || r.Header.Get("Expect") != "" || w.FlushError() != nil {
		_ = w.rc.SetReadDeadline(closeNow)
		return
	}
	_, _ = io.CopyN(io.Discard, &idleBody{b.body, w.rc, time.Now().Add(lingerTotal)}, lingerMaxBytes)
	_ = w.rc.SetReadDeadline(closeNow)
}

// idleBody reads a body with a read deadline of lingerIdle from each read,
// and never past end.
type idleBody struct {
	body io.Reader
	rc   *http.ResponseController
	end  time.Time
}

func (b *idleBody) Read(p []byte) (int, error) {
	deadline := time.Now().Add(lingerIdle)
	if deadline.After(b.end) {
		deadline = b.end
	}
	if err := b.rc.SetReadDeadline(deadline); err != nil {
		return 0, err
	}
	n, err := b.body.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF // the drain stops: a deadline or a reset
	}
	return n, err
}
