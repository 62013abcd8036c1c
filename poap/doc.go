// Package poap is a client of the POAP issuing service
// (https://documentation.poap.tech), and the adapter that lets the core read
// holdings through it (Client satisfies core.Issuer).
//
// Every operation goes through one small request core that adds the API key,
// bounds each request with a timeout and the size of what it reads, reports
// to an Observer and turns failures into errors the caller can test with
// errors.Is: ErrNotFound, ErrUnauthorized, ErrRateLimited, ErrInvalidAddress
// and ErrUnavailable, carried by *APIError when the service answered.
//
// The decoding follows what production returns rather than the published
// schema where the two differ: token ids are strings, "created" is
// "YYYY-MM-DD HH:MM:SS", event dates are "DD-Mon-YYYY", the list scan is a
// bare JSON array.
package poap
