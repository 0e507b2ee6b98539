// Package bench is strand's benchmark harness, behind `strand bench`: it
// runs the Nexmark queries of package queries/nexmark into a capturing or
// blackhole sink and measures each run as the project reports figures:
// wall and CPU seconds of the whole process (user and system), events per
// CPU-second, peak RSS and checkpoints taken. With a baseline it also runs
// a hand-written Go loop over the same generated events and compares the
// two results by digest, so that a figure is never reported for a wrong
// result. Every query has a baseline; an updating query's changelog is
// applied by the digest, so its final table is what is compared.
//
// The harness lives outside cmd/strand so that the command stays wiring
// only (DESIGN.md): flags are parsed there and arrive here as a Config.
package bench
