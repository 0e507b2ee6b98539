// Package ui tests strand's web dashboard in a real browser: headless
// Chromium, driven with chromedp, against the real strand binary running a
// job with --http. It is a module of its own, so that chromedp is neither
// a dependency of the strand binary nor built by `go test ./...` of the
// main module, which does not enter it; `make test-ui` runs it. The
// browser is Debian's chromium (CHROMIUM overrides the path), the binary
// bin/strand or STRAND_BIN, and the screenshots of each page go to
// STRAND_UI_ARTIFACTS (default tests/ui/artifacts).
package ui
