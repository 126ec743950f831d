// Package browsertest loads pprofx's HTML flame graphs in a real headless
// browser (Debian's chromium, driven over the DevTools protocol with
// github.com/chromedp/chromedp) and checks what it draws and how it
// answers clicks, search and the sample type selector.
//
// It is its own module so that the main module does not depend on chromedp.
// `make test` runs it; it needs chromium (or chromium-browser, google-chrome)
// on PATH, or CHROMIUM=/path/to/binary. Without one it is skipped, except
// under CI=true, where it fails.
package browsertest
