package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// profileFlags write Go profiles of a command's run, for `go tool pprof`.
type profileFlags struct {
	CPUProfile string `name:"cpuprofile" help:"Write a CPU profile of the run to this file." placeholder:"FILE" type:"path"`
	MemProfile string `name:"memprofile" help:"Write a heap profile to this file when the run ends (allocations since the start, and what is live)." placeholder:"FILE" type:"path"`
	Trace      string `name:"trace" help:"Write a Go execution trace of the run to this file (go tool trace: which task ran on which core, and when a core was idle)." placeholder:"FILE" type:"path"`
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
	var tr *os.File
	if p.Trace != "" {
		f, err := os.Create(p.Trace)
		if err == nil {
			err = trace.Start(f)
		}
		if err != nil {
			if f != nil {
				f.Close()
			}
			if cpu != nil {
				pprof.StopCPUProfile()
				cpu.Close()
			}
			return nil, fmt.Errorf("--trace: %w", err)
		}
		tr = f
	}
	return func(stderr io.Writer) {
		if tr != nil {
			trace.Stop()
			if err := tr.Close(); err != nil {
				fmt.Fprintf(stderr, "strand: --trace: %v\n", err)
			}
		}
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
