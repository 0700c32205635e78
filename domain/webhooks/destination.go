package webhooks

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
)

// Type is an event destination's kind: the webhook (an HTTPS endpoint) or
// a message broker the events are published to. Every type shares the
// webhook's routing, delivery rows, retries and failure states; only the
// sender differs.
type Type string

const (
	TypeWebhook       Type = "webhook"
	TypeNATSJetStream Type = "nats-jetstream"
	TypeRabbitMQ      Type = "rabbitmq"
)

// Types are the destination types, the default first.
var Types = []Type{TypeWebhook, TypeNATSJetStream, TypeRabbitMQ}

// IsBroker reports whether events are published to a message broker.
func (t Type) IsBroker() bool { return t == TypeNATSJetStream || t == TypeRabbitMQ }

// brokerSchemes are each broker type's URL schemes.
var brokerSchemes = map[Type]urlSchemes{
	TypeNATSJetStream: {"tls", "nats"},
	TypeRabbitMQ:      {"amqps", "amqp"},
}

// Broker is a broker destination's settings, shown on every read.
type Broker struct {
	// SubjectPrefix starts every NATS subject (nats-jetstream).
	SubjectPrefix string `json:"subjectPrefix,omitempty"`
	// Exchange and RoutingKey (a template of {tenant}, {type} and {load})
	// say where a RabbitMQ message goes (rabbitmq).
	Exchange   string `json:"exchange,omitempty"`
	RoutingKey string `json:"routingKey,omitempty"`
}

// Credentials log in to a broker. They are sealed at rest and never shown
// again once given.
type Credentials struct {
	Username string `json:"username,omitempty"`
	Password string `json:"password,omitempty"`
	// Token is a NATS token.
	Token string `json:"token,omitempty"`
	// Creds is a NATS credentials file (a user JWT and its NKey seed).
	Creds string `json:"creds,omitempty"`
}

// Limits of broker settings.
const (
	MaxSubjectPrefixLen = 200
	MaxExchangeLen      = 255 // AMQP's shortstr
	MaxRoutingKeyLen    = 255
	MaxCredentialLen    = 4096
	// DefaultRoutingKey puts the event's tenant, type and load in three
	// words of a topic exchange's routing key.
	DefaultRoutingKey = "{tenant}.{type}.{load}"
)

// Target is what a broker sender or prober needs of a destination.
type Target struct {
	Type        Type
	URL         string
	Broker      Broker
	Credentials Credentials
	// TenantSlug is the second token of every subject and the {tenant} of
	// routing keys.
	TenantSlug string
}

// Prober connects to a broker once: wrong credentials, an unreachable
// address, a missing exchange or no stream for the subjects are the
// returned error's message, shown to the user.
type Prober interface {
	Probe(ctx context.Context, t Target) error
}

// DestinationStore is the storage port of broker destinations, beside Store.
type DestinationStore interface {
	TenantSlug(ctx context.Context, tenantID uuid.UUID) (string, error)
	// CreateDestination is CreateWebhook for every type: it also stores
	// w's type and broker settings and seals creds.
	CreateDestination(ctx context.Context, w *Webhook, secret string, creds Credentials) error
	// DestinationCredentials opens the tenant's destination's credentials.
	DestinationCredentials(ctx context.Context, tenantID, id uuid.UUID) (Credentials, error)
}

// validateBrokerInput checks a broker destination's settings on create.
func validateBrokerInput(v *domain.Validation, t Type, b *Broker, c *Credentials) {
	if b == nil {
		b = &Broker{}
	}
	switch t {
	case TypeNATSJetStream:
		switch {
		case b.SubjectPrefix == "":
			v.Add("subjectPrefix", "subjectPrefix is required")
		case len(b.SubjectPrefix) > MaxSubjectPrefixLen:
			v.Add("subjectPrefix", fmt.Sprintf("subjectPrefix must be at most %d bytes", MaxSubjectPrefixLen))
		case !subjectPrefix.MatchString(b.SubjectPrefix):
			v.Add("subjectPrefix", "subjectPrefix must be tokens of letters, digits, - and _ separated by dots (no wildcards)")
		}
		if b.Exchange != "" || b.RoutingKey != "" {
			v.Add("exchange", "exchange and routingKey are RabbitMQ settings")
		}
	case TypeRabbitMQ:
		switch {
		case b.Exchange == "":
			v.Add("exchange", "exchange is required (the default exchange cannot be checked)")
		case len(b.Exchange) > MaxExchangeLen || !exchangeName.MatchString(b.Exchange):
			v.Add("exchange", fmt.Sprintf("exchange must be 1 to %d letters, digits, -, _, . or :", MaxExchangeLen))
		}
		if msg := checkRoutingKey(b.RoutingKey); msg != "" {
			v.Add("routingKey", msg)
		}
		if b.SubjectPrefix != "" {
			v.Add("subjectPrefix", "subjectPrefix is a NATS setting")
		}
	}
	if c != nil {
		for _, s := range []string{c.Username, c.Password, c.Token, c.Creds} {
			if len(s) > MaxCredentialLen {
				v.Add("credentials", fmt.Sprintf("each credential must be at most %d bytes", MaxCredentialLen))
				break
			}
		}
		if t == TypeRabbitMQ && (c.Token != "" || c.Creds != "") {
			v.Add("credentials", "RabbitMQ takes a username and password")
		}
	}
}

var (
	subjectPrefix = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)
	exchangeName  = regexp.MustCompile(`^[A-Za-z0-9_.:-]+$`)
	placeholder   = regexp.MustCompile(`\{[^}]*\}`)
)

// checkRoutingKey returns why a routing-key template is not acceptable, or
// "" ("" itself takes DefaultRoutingKey).
func checkRoutingKey(tpl string) string {
	if tpl == "" {
		return ""
	}
	if len(tpl) > MaxRoutingKeyLen {
		return fmt.Sprintf("routingKey must be at most %d bytes", MaxRoutingKeyLen)
	}
	for _, p := range placeholder.FindAllString(tpl, -1) {
		if !slices.Contains([]string{"{tenant}", "{type}", "{load}"}, p) {
			return "routingKey may use {tenant}, {type} and {load}, not " + domain.Quote(p)
		}
	}
	if strings.ContainsAny(placeholder.ReplaceAllString(tpl, ""), "{}") || domain.CheckText(tpl) != nil || strings.ContainsAny(tpl, " \t*#") {
		return "routingKey must be text without spaces, *, # or stray braces; {tenant}, {type} and {load} are its placeholders"
	}
	return ""
}

// splitBrokerURL checks a broker URL against the address rules of its type
// and takes out credentials written in it (amqp://user:password@host,
// nats://token@host): the stored URL never holds them.
func splitBrokerURL(t Type, raw string, allowInsecure bool) (clean string, c Credentials, msg string) {
	u, msg := checkAddressURL(raw, brokerSchemes[t], allowInsecure)
	if msg != "" {
		return "", c, msg
	}
	if u.User != nil {
		pass, hasPass := u.User.Password()
		switch {
		case hasPass:
			c.Username, c.Password = u.User.Username(), pass
		case t == TypeNATSJetStream:
			c.Token = u.User.Username()
		default:
			c.Username = u.User.Username()
		}
		u.User = nil
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", c, "url must not have a query or fragment"
	}
	if t == TypeNATSJetStream && u.Path != "" && u.Path != "/" {
		return "", c, "a NATS url has no path"
	}
	return u.String(), c, ""
}

// merge fills c's empty fields from o.
func (c Credentials) merge(o Credentials) Credentials {
	for _, p := range []struct {
		dst *string
		src string
	}{{&c.Username, o.Username}, {&c.Password, o.Password}, {&c.Token, o.Token}, {&c.Creds, o.Creds}} {
		if *p.dst == "" {
			*p.dst = p.src
		}
	}
	return c
}

// SubjectToken escapes s into one token of a NATS subject or one word of an
// AMQP topic routing key: every byte but ASCII letters, digits, - and _ is
// written %XX (upper-case hex), so ".", "*", ">", spaces and "%" itself
// never reach the broker raw and the escaping is reversible.
func SubjectToken(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	if b.Len() == 0 {
		return "%00" // an empty token would make an invalid subject
	}
	return b.String()
}

// Subject is the NATS subject of an event: <prefix>.<tenant>.<type>.<load>,
// each of tenant, type and load one token (SubjectToken).
func Subject(prefix, tenant, eventType, load string) string {
	return prefix + "." + SubjectToken(tenant) + "." + SubjectToken(eventType) + "." + SubjectToken(load)
}

// RoutingKey fills a routing-key template ("" is DefaultRoutingKey) with
// the escaped tenant, type and load.
func RoutingKey(tpl, tenant, eventType, load string) string {
	if tpl == "" {
		tpl = DefaultRoutingKey
	}
	return strings.NewReplacer("{tenant}", SubjectToken(tenant), "{type}", SubjectToken(eventType), "{load}", SubjectToken(load)).Replace(tpl)
}
