package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// Challenger performs docs/api-contract.md §6.2's handshake: it proves an
// endpoint answers for the webhook before deliveries start. (Checking a
// delivery's signature is webhooksig.Verify, on the receiver's side.)
type Challenger struct {
	Client        *http.Client
	AllowInsecure bool
	// Timeout is how long the endpoint has to answer; zero is
	// webhooks.VerificationTimeout (tests shorten it instead of waiting).
	Timeout time.Duration
	// Log gets why a verification failed (the tenant sees one reason for
	// all, webhooks.VerificationFailed); nil: nobody.
	Log *slog.Logger
	// Emitted, when set, is told every request body sent.
	Emitted eventschema.EmitFunc
}

var _ webhooks.Challenger = (*Challenger)(nil)

// maxVerificationAnswer bounds what is read of the endpoint's answer.
const maxVerificationAnswer = 4 << 10

// Challenge POSTs the challenge and accepts only a 200 whose body is a JSON
// object with the single property "challenge" equal to the token, byte for
// byte, within webhooks.VerificationTimeout. The request is not signed.
func (v *Challenger) Challenge(ctx context.Context, url, challenge string) error {
	err := v.challenge(ctx, url, challenge)
	if err != nil && v.Log != nil {
		v.Log.InfoContext(ctx, "webhook verification failed", "err", Cause(err))
	}
	return err
}

func (v *Challenger) challenge(ctx context.Context, url, challenge string) error {
	timeout := v.Timeout
	if timeout <= 0 {
		timeout = webhooks.VerificationTimeout
	}
	tooLate := fmt.Errorf("no answer within %s", timeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body, _ := json.Marshal(map[string]string{"type": domain.EventWebhookVerification, "challenge": challenge})
	if v.Emitted != nil {
		v.Emitted(eventschema.ChannelWebhook, domain.EventWebhookVerification, body)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("invalid endpoint url: %w", err)
	}
	if err := schemeAllowed(req, v.AllowInsecure); err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("X-Service-Event", domain.EventWebhookVerification)
	req.Header.Set("X-Service-Challenge", challenge)
	req.Header.Set("traceparent", traceparent(ctx))
	resp, err := v.Client.Do(req)
	if err != nil {
		return noAnswer{err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d, want 200", resp.StatusCode)
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxVerificationAnswer+1))
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return tooLate
		}
		return fmt.Errorf("reading the answer: %w", err)
	}
	if len(answer) > maxVerificationAnswer {
		return errors.New("answer too large")
	}
	return checkChallengeAnswer(answer, challenge)
}

// checkChallengeAnswer: exactly {"challenge": "<token>"} — no wrapping, no
// extra members, no plain text, the key and value case-sensitive.
func checkChallengeAnswer(answer []byte, challenge string) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(answer, &obj); err != nil || obj == nil {
		return errors.New("answer is not a JSON object")
	}
	raw, ok := obj["challenge"]
	if !ok || len(obj) != 1 {
		return errors.New(`answer must be a JSON object with the single property "challenge"`)
	}
	var got string
	if err := json.Unmarshal(raw, &got); err != nil {
		return errors.New(`"challenge" must be a string`)
	}
	if got != challenge {
		return errors.New("challenge does not match")
	}
	return nil
}
