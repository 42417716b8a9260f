//go:build !unix

package retrieve

func cpuTime() float64 { return 0 }
