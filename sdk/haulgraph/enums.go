package haulgraph

// The API's enumerations, as typed strings with their values.

// LoadStatus is where a load is in its life.
type LoadStatus string

// The load statuses.
const (
	LoadStatusOpen       LoadStatus = "Open"
	LoadStatusQuoted     LoadStatus = "Quoted"
	LoadStatusReserved   LoadStatus = "Reserved"
	LoadStatusCovered    LoadStatus = "Covered"
	LoadStatusDispatched LoadStatus = "Dispatched"
	LoadStatusInTransit  LoadStatus = "InTransit"
	LoadStatusDelivered  LoadStatus = "Delivered"
	LoadStatusCancelled  LoadStatus = "Cancelled"
	LoadStatusTONU       LoadStatus = "TONU"
)

// BillingStatus is where a load is in invoicing.
type BillingStatus string

// StopType is a stop's role.
type StopType string

// The stop types.
const (
	StopPickup   StopType = "Pickup"
	StopDelivery StopType = "Delivery"
)

// DriverType is how a driver is engaged.
type DriverType string

// The driver types.
const (
	DriverCompany       DriverType = "COMPANY"
	DriverOwnerOperator DriverType = "OWNER_OPERATOR"
	DriverContractor    DriverType = "CONTRACTOR"
)

// StatementStatus is a settlement statement's state.
type StatementStatus string

// EventType names an event.
type EventType string

// The event types.
const (
	EventLoadChanged       EventType = "load.changed"
	EventLoadStatusChanged EventType = "load.status.changed"
	EventTripChanged       EventType = "trip.changed"
)

// SignatureScheme is how a webhook's deliveries are signed.
type SignatureScheme string

// The signature schemes.
const (
	SchemeService                 SignatureScheme = "service"
	SchemeStandardWebhooks        SignatureScheme = "standard-webhooks"
	SchemeStandardWebhooksEd25519 SignatureScheme = "standard-webhooks-ed25519"
)

// WebhookState is whether a webhook delivers.
type WebhookState string

// The webhook states.
const (
	WebhookPending            WebhookState = "Pending"
	WebhookActive             WebhookState = "Active"
	WebhookDisabled           WebhookState = "Disabled"
	WebhookFailedVerification WebhookState = "FailedVerification"
)

// DeliveryStatus is a webhook delivery's state.
type DeliveryStatus string

// ExportFormat is a statement export's format.
type ExportFormat string

// The export formats.
const (
	ExportCSV    ExportFormat = "csv"
	ExportNDJSON ExportFormat = "ndjson"
)

// DocumentParent is what a document is attached to.
type DocumentParent string

// The parents of a document.
const (
	DocumentForLoad    DocumentParent = "loads"
	DocumentForTrip    DocumentParent = "trips"
	DocumentForDriver  DocumentParent = "drivers"
	DocumentForCarrier DocumentParent = "carriers"
)

// The billing statuses.
const (
	BillingQueued    BillingStatus = "Queued"
	BillingReleased  BillingStatus = "Released"
	BillingInvoiced  BillingStatus = "Invoiced"
	BillingFinanced  BillingStatus = "Financed"
	BillingPaid      BillingStatus = "Paid"
	BillingCompleted BillingStatus = "Completed"
)

// The delivery statuses.
const (
	DeliveryPending   DeliveryStatus = "Pending"
	DeliveryDelivered DeliveryStatus = "Delivered"
	DeliveryFailed    DeliveryStatus = "Failed"
)

// The statement statuses.
const (
	StatementProcessed StatementStatus = "Processed"
	StatementFailed    StatementStatus = "Failed"
)
