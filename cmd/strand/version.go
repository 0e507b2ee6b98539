package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=..."; when
// it is not, the module version the go command stamped is used.
var version = "dev"

// moduleVersion is the version strand reports, in `strand version` and in
// savepoints' metadata.
func moduleVersion() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}

type versionCmd struct{}

func (versionCmd) Help() string {
	return "The version is the one given at build time (-ldflags -X main.version=...) or the module's; the revision is the VCS commit the binary was built from, with (modified) if the tree had uncommitted changes."
}

func (versionCmd) Run(std *stdio) error {
	bi, _ := debug.ReadBuildInfo()
	printVersion(std.out, moduleVersion(), bi)
	return nil
}

// printVersion prints v and, from bi, the commit the binary was built
// from (when the go command stamped it: go build -buildvcs in a git
// checkout), the module and the Go release.
func printVersion(w io.Writer, v string, bi *debug.BuildInfo) {
	fmt.Fprintf(w, "strand %s\n", v)
	if bi == nil {
		return
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		line := "revision " + rev
		if settings["vcs.modified"] == "true" {
			line += " (modified)"
		}
		if t := settings["vcs.time"]; t != "" {
			line += ", committed " + t
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "module %s, %s %s/%s\n", bi.Main.Path, bi.GoVersion, runtime.GOOS, runtime.GOARCH)
}
