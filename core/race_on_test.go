//go:build race

package core_test

// raceDetector is true in a build with the race detector (go test -race).
const raceDetector = true
