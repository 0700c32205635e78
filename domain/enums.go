package domain

import "strings"

// Vocabularies of docs/api-contract.md §2–§3 and docs/architecture.md. Each has a list of
// all values so that validation, GraphQL enums and the OpenAPI document read
// one source.

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

type DriverType string

const (
	CompanyDriver  DriverType = "COMPANY"
	OwnerOperator  DriverType = "OWNER_OPERATOR"
	ContractDriver DriverType = "CONTRACTOR"
)

var DriverTypes = []DriverType{CompanyDriver, OwnerOperator, ContractDriver}

// ParseDriverType matches case-insensitively (docs/api-contract.md §4.2).
func ParseDriverType(s string) (DriverType, bool) {
	for _, t := range DriverTypes {
		if strings.EqualFold(s, string(t)) {
			return t, true
		}
	}
	return "", false
}

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

type LoadStatus string

const (
	LoadOpen       LoadStatus = "Open"
	LoadQuoted     LoadStatus = "Quoted"
	LoadReserved   LoadStatus = "Reserved"
	LoadCovered    LoadStatus = "Covered"
	LoadDispatched LoadStatus = "Dispatched"
	LoadInTransit  LoadStatus = "InTransit"
	LoadDelivered  LoadStatus = "Delivered"
	LoadCancelled  LoadStatus = "Cancelled"
	LoadTONU       LoadStatus = "TONU"
)

var LoadStatuses = []LoadStatus{LoadOpen, LoadQuoted, LoadReserved, LoadCovered, LoadDispatched, LoadInTransit, LoadDelivered, LoadCancelled, LoadTONU}

type BillingStatus string

var BillingStatuses = []BillingStatus{"Released", "Queued", "Invoiced", "Financed", "Completed", "Paid"}

type StopType string

const (
	Pickup   StopType = "Pickup"
	Delivery StopType = "Delivery"
)

var StopTypes = []StopType{Pickup, Delivery}

type DocumentParentType string

const (
	ParentLoad    DocumentParentType = "Load"
	ParentTrip    DocumentParentType = "Trip"
	ParentDriver  DocumentParentType = "Driver"
	ParentCarrier DocumentParentType = "Carrier"
)

var DocumentParentTypes = []DocumentParentType{ParentLoad, ParentTrip, ParentDriver, ParentCarrier}
