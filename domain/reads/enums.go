package reads

// The reads' vocabularies (docs/api-contract.md §2); each has a list of all
// values, read by validation, GraphQL enums and the OpenAPI document alike.

type InvoiceType string

const (
	LoadInvoice       InvoiceType = "LoadInvoice"
	OrderInvoice      InvoiceType = "OrderInvoice"
	SummaryInvoice    InvoiceType = "SummaryInvoice"
	StandaloneInvoice InvoiceType = "StandaloneInvoice"
)

var InvoiceTypes = []InvoiceType{LoadInvoice, OrderInvoice, SummaryInvoice, StandaloneInvoice}

type InvoiceStatus string

const (
	InvoiceDraft           InvoiceStatus = "Draft"
	InvoiceAwaitingPayment InvoiceStatus = "AwaitingPayment"
	InvoicePaid            InvoiceStatus = "Paid"
)

var InvoiceStatuses = []InvoiceStatus{InvoiceDraft, InvoiceAwaitingPayment, InvoicePaid}

// StatementStatus: only Processed and Failed are ever visible (docs/api-contract.md §3.2); the
// in-flight and unsettled states exist in storage and are never returned.
type StatementStatus string

const (
	StatementProcessed  StatementStatus = "Processed"
	StatementFailed     StatementStatus = "Failed"
	StatementGenerating StatementStatus = "Generating"
	StatementReversing  StatementStatus = "Reversing"
	StatementOpen       StatementStatus = "Open"
	StatementDraft      StatementStatus = "Draft"
)

// VisibleStatementStatuses are the statuses the API returns. The statement
// reads, their partial indexes and the per-day counts of migration 0018
// repeat them in SQL (storage's TestSQLVocabulariesAreTheGoOnes holds them
// equal).
var VisibleStatementStatuses = []StatementStatus{StatementProcessed, StatementFailed}

// StatementStatuses are every status a stored statement may have.
var StatementStatuses = []StatementStatus{StatementProcessed, StatementFailed, StatementGenerating, StatementReversing, StatementOpen, StatementDraft}

type TransactionType string

const (
	EscrowDeposit    TransactionType = "Deposit"
	EscrowWithdrawal TransactionType = "Withdrawal"
)

var TransactionTypes = []TransactionType{EscrowDeposit, EscrowWithdrawal}

type TrailerStatus string

var TrailerStatuses = []TrailerStatus{"Active", "Inactive", "InShop", "OutOfService", "Sold"}

var TrailerEquipmentTypes = []string{"Dry Van", "Reefer", "Flatbed", "Step Deck", "Conestoga", "Power Only", "Tanker"}

var TrailerEquipmentSizes = []string{"20'", "28'", "40'", "45'", "48'", "53'"}

var LicenseCountries = []string{"USA", "Canada", "Mexico"}

type LocationStatus string

const (
	LocationActive   LocationStatus = "Active"
	LocationDisabled LocationStatus = "Disabled"
	LocationInactive LocationStatus = "Inactive"
)

var LocationStatuses = []LocationStatus{LocationActive, LocationDisabled, LocationInactive}

// LocationTypes are the examples of docs/api-contract.md §2.5.
var LocationTypes = []string{"Terminal", "Shipper/Consignee", "Cold Warehouse", "Dry Warehouse"}

type UserStatus string

var UserStatuses = []UserStatus{"Active", "Disabled", "Deleted"}
