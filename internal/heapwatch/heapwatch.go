// Package heapwatch measures how much the heap grows while a function runs,
// for the benchmarks and tests that hold the project to a memory bound
// (a 100 MB upload in a few MB).
package heapwatch

import (
	"runtime"
	"time"
)

// Measure runs f and returns the peak growth of the heap meanwhile and the
// bytes allocated. Method: after a GC, runtime.MemStats.HeapAlloc is read
// before f, then by a goroutine every millisecond until f returns; the
// growth is the highest reading minus the first. Everything in the process
// counts, so fakes and sandboxes running beside f count too.
func Measure(f func()) (peak, allocated uint64) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop, highest := make(chan struct{}), make(chan uint64)
	go sample(stop, highest)
	f()
	close(stop)
	top := <-highest
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	return max(top, before.HeapAlloc) - before.HeapAlloc, after.TotalAlloc - before.TotalAlloc
}

// sample reads HeapAlloc every millisecond until stop closes, then sends
// the highest reading.
func sample(stop <-chan struct{}, highest chan<- uint64) {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	var ms runtime.MemStats
	var top uint64
	for {
		runtime.ReadMemStats(&ms)
		top = max(top, ms.HeapAlloc)
		select {
		case <-stop:
			highest <- top
			return
		case <-tick.C:
		}
	}
}
