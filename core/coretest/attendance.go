package coretest

import (
	"context"
	"time"

	"github.com/poapbot/poapbot/core"
)

// NoAttendance is a core.AttendanceStore for tests over a store that
// keeps no attendance (MemStore): no drop has a session, and starting
// one fails.
type NoAttendance struct{}

// CreateAttendanceSession fails.
func (NoAttendance) CreateAttendanceSession(context.Context, core.AttendanceSession) (core.AttendanceSession, error) {
	return core.AttendanceSession{}, errNotInTest
}

// AttendanceSession finds none.
func (NoAttendance) AttendanceSession(context.Context, int64) (core.AttendanceSession, error) {
	return core.AttendanceSession{}, core.ErrNotFound
}

// LiveAttendanceSessions finds none.
func (NoAttendance) LiveAttendanceSessions(context.Context, int64) ([]core.AttendanceSession, error) {
	return nil, nil
}

// AttendanceSessions finds none.
func (NoAttendance) AttendanceSessions(context.Context, int64, int) ([]core.AttendanceSession, error) {
	return nil, nil
}

// OpenWaitingSession finds none.
func (NoAttendance) OpenWaitingSession(context.Context, int64, time.Time) (core.AttendanceSession, error) {
	return core.AttendanceSession{}, core.ErrNotFound
}

// RecordVoice records nothing: no session is open.
func (NoAttendance) RecordVoice(context.Context, int64, int64, string, bool, time.Time) error {
	return core.ErrNotFound
}

// RecordDeparture records nothing: no session is open.
func (NoAttendance) RecordDeparture(context.Context, int64, int64, time.Time) error { return nil }

// TouchAttendance stamps nothing: no session is open.
func (NoAttendance) TouchAttendance(context.Context, []int64, time.Time) error { return nil }

// ResumeAttendance finds none.
func (NoAttendance) ResumeAttendance(context.Context, int64, time.Time, []int64) (core.AttendanceSession, error) {
	return core.AttendanceSession{}, core.ErrNotFound
}

// SuspendAttendance finds none.
func (NoAttendance) SuspendAttendance(context.Context, int64, time.Time) (core.AttendanceSession, error) {
	return core.AttendanceSession{}, core.ErrNotFound
}

// CloseAttendanceSession finds none.
func (NoAttendance) CloseAttendanceSession(context.Context, int64, time.Time, core.StopReason, func(core.AttendanceSession) time.Duration, core.AttendanceTally) (core.AttendanceSession, []core.AttendanceResult, error) {
	return core.AttendanceSession{}, nil, core.ErrNotFound
}

// AttendanceIntervals finds none.
func (NoAttendance) AttendanceIntervals(context.Context, int64) ([]core.AttendanceInterval, error) {
	return nil, nil
}

// AttendanceResults finds none.
func (NoAttendance) AttendanceResults(context.Context, int64, int, int) ([]core.AttendanceResult, int, error) {
	return nil, 0, nil
}

// DropAttendance finds no session: attendance restricts no claim.
func (NoAttendance) DropAttendance(context.Context, int64, int64) ([]core.AttendanceRecord, error) {
	return nil, nil
}

// ExportAttendance finds none.
func (NoAttendance) ExportAttendance(context.Context, int64) ([]core.AttendanceExportRow, error) {
	return nil, nil
}

// AttendancePlace finds none.
func (NoAttendance) AttendancePlace(context.Context, int64) (core.Place, error) {
	return core.Place{}, core.ErrNotFound
}

// OwedAttendanceSummaries finds none: no session stopped.
func (NoAttendance) OwedAttendanceSummaries(context.Context, time.Time, time.Time, time.Time, []core.Platform, int, int) ([]core.AttendanceSession, error) {
	return nil, nil
}

// ClaimAttendanceSummary finds none to take.
func (NoAttendance) ClaimAttendanceSummary(context.Context, int64, time.Time, time.Time, string, int) (int, bool, error) {
	return 0, false, nil
}

// MarkAttendanceSummary marks none.
func (NoAttendance) MarkAttendanceSummary(context.Context, int64, time.Time) error { return nil }

// ReleaseAttendanceSummary finds none.
func (NoAttendance) ReleaseAttendanceSummary(context.Context, int64, string) error { return nil }

// DeferAttendanceSummary finds none.
func (NoAttendance) DeferAttendanceSummary(context.Context, int64, string, time.Time) error {
	return nil
}

// AttendanceCounts finds none.
func (NoAttendance) AttendanceCounts(context.Context, int64) (int, int, error) {
	return 0, 0, core.ErrNotFound
}

var _ core.AttendanceStore = NoAttendance{}
