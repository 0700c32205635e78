package webhook

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// natsConn is a JetStream destination's connection.
type natsConn struct {
	nc *nats.Conn
	js jetstream.JetStream
}

// guardedNATSDialer is nats.CustomDialer over the address rules.
type guardedNATSDialer struct{ b *Brokers }

func (d guardedNATSDialer) Dial(network, address string) (net.Conn, error) {
	return d.b.dialGuarded(network, address)
}

// dialNATS connects to t's server alone: the servers it advertises
// (connect_urls) are never added, so a reconnect dials t's URL again,
// through the address rules. Nothing is buffered while reconnecting: a
// publish then fails at once and is retried, instead of going out later
// behind the delivery's back.
func (b *Brokers) dialNATS(_ context.Context, t webhooks.Target) (*natsConn, error) {
	opts := []nats.Option{
		nats.Name("haulgraph event destination"),
		nats.SetCustomDialer(guardedNATSDialer{b}),
		nats.DontRandomize(), nats.IgnoreDiscoveredServers(),
		nats.Timeout(b.connectTimeout()), nats.ReconnectBufSize(-1),
		nats.MaxReconnects(-1), nats.ReconnectWait(time.Second),
	}
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, err
	}
	if u.Scheme == "tls" {
		opts = append(opts, nats.Secure(b.tlsConfig(u.Hostname())))
	}
	auth, err := natsAuth(t.Credentials)
	if err != nil {
		return nil, errMalformedCreds
	}
	nc, err := nats.Connect(t.URL, append(opts, auth...)...)
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return &natsConn{nc: nc, js: js}, nil
}

// errMalformedCreds is credentials that do not parse as a creds file or
// NKey seed: malformed input, not a broker's refusal.
var errMalformedCreds = &webhooks.ProbeError{Field: "credentials", Message: "the credentials are not a NATS creds file or NKey seed", Malformed: true}

// natsAuth are the options of c: a creds file (user JWT and NKey seed), a
// bare NKey seed, a token or a user and password.
func natsAuth(c webhooks.Credentials) ([]nats.Option, error) {
	switch {
	case c.Creds != "" && strings.Contains(c.Creds, "-----BEGIN NATS USER JWT-----"):
		jwt, err := nkeys.ParseDecoratedJWT([]byte(c.Creds))
		if err != nil {
			return nil, err
		}
		kp, err := nkeys.ParseDecoratedUserNKey([]byte(c.Creds))
		if err != nil {
			return nil, err
		}
		seed, err := kp.Seed()
		if err != nil {
			return nil, err
		}
		return []nats.Option{nats.UserJWTAndSeed(jwt, string(seed))}, nil
	case c.Creds != "":
		kp, err := nkeys.FromSeed([]byte(strings.TrimSpace(c.Creds)))
		if err != nil {
			return nil, err
		}
		pub, err := kp.PublicKey()
		if err != nil {
			return nil, err
		}
		return []nats.Option{nats.Nkey(pub, kp.Sign)}, nil
	case c.Token != "":
		return []nats.Option{nats.Token(c.Token)}, nil
	case c.Username != "":
		return []nats.Option{nats.UserInfo(c.Username, c.Password)}, nil
	}
	return nil, nil
}

// publish sends m with Nats-Msg-Id = the event id (JetStream drops a
// repeat within the stream's duplicate window) and waits for the stream's
// acknowledgement within ctx.
func (c *natsConn) publish(ctx context.Context, m brokerMessage) error {
	msg := nats.NewMsg(m.Subject)
	msg.Data = m.Body
	for k, v := range brokerHeaders(m.Header) {
		msg.Header.Set(k, v)
	}
	_, err := c.js.PublishMsg(ctx, msg, jetstream.WithMsgID(m.ID))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, jetstream.ErrNoStreamResponse), errors.Is(err, nats.ErrNoResponders):
		return errors.New(NoStream)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout):
		return errors.New(NotAcked)
	case errors.Is(err, nats.ErrPermissionViolation):
		return errors.New("publish failed: the credentials may not publish to the subject")
	case !c.nc.IsConnected():
		return noBroker{err}
	}
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) {
		return errors.New("publish failed: JetStream answered " + apiErr.Description)
	}
	return noBroker{err}
}

func (c *natsConn) broken() bool { return c.nc.IsClosed() }
func (c *natsConn) close()       { c.nc.Close() }

// probeNATS connects once and, where the credentials allow the lookup,
// checks that a stream captures the destination's subjects.
func (b *Brokers) probeNATS(ctx context.Context, t webhooks.Target) error {
	c, err := b.dialNATS(ctx, t)
	switch {
	case errors.Is(err, nats.ErrAuthorization), errors.Is(err, nats.ErrAuthExpired), errors.Is(err, nats.ErrAuthRevoked):
		return &webhooks.ProbeError{Field: "credentials", Message: brokerRefused}
	case err != nil && (strings.Contains(err.Error(), "nkey") || strings.Contains(err.Error(), "jwt")):
		return errMalformedCreds
	case err != nil:
		return err
	}
	defer c.close()
	subjects := t.Broker.SubjectPrefix + "." + webhooks.SubjectToken(t.TenantSlug) + ".>"
	_, err = c.js.StreamNameBySubject(ctx, subjects)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
		return &webhooks.ProbeError{Field: "subjectPrefix", Message: "no JetStream stream captures " + subjects}
	case errors.Is(err, jetstream.ErrJetStreamNotEnabled), errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount):
		return &webhooks.ProbeError{Field: "url", Message: "JetStream is not enabled for this account"}
	}
	return nil // found, or the credentials may not look streams up
}
