package domain

import "strings"

// Vocabularies of docs/api-contract.md §2–§3 and docs/architecture.md. Each has a list of
// all values so that validation, GraphQL enums and the OpenAPI document read
// one source.

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
