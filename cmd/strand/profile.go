package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
)

// profileFlags write Go profiles of a command's run, for `go tool pprof`.
type profileFlags struct {
	CPUProfile string `name:"cpuprofile" help:"Write a CPU profile of the run to this file." placeholder:"FILE" type:"path"`
	MemProfile string `name:"memprofile" help:"Write a heap profile to this file when the run ends (allocations since the start, and what is live)." placeholder:"FILE" type:"path"`
}

// start starts the CPU profile; the function it returns stops it and
// writes the heap profile, reporting a failure to stderr (the run's own
// outcome stands).
func (p *profileFlags) start() (func(stderr io.Writer), error) {
	var cpu *os.File
	if p.CPUProfile != "" {
		f, err := os.Create(p.CPUProfile)
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		cpu = f
	}
	return func(stderr io.Writer) {
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				fmt.Fprintf(stderr, "strand: --cpuprofile: %v\n", err)
			}
		}
		if p.MemProfile != "" {
			if err := writeHeap(p.MemProfile); err != nil {
				fmt.Fprintf(stderr, "strand: --memprofile: %v\n", err)
			}
		}
	}, nil
}

func writeHeap(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC() // so that the live heap is up to date
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
