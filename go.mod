module github.com/ralph-loop/ralph-loop

go 1.26

require (
	github.com/adrg/xdg v0.5.3
	github.com/gofrs/flock v0.13.1
	github.com/rogpeppe/go-internal v1.16.0
	github.com/tailscale/hujson v0.0.0-20260727124030-b80ff77dac4f
	github.com/urfave/cli/v3 v3.14.0
	golang.org/x/sys v0.47.0
	mvdan.cc/sh/v3 v3.13.1
)

require golang.org/x/tools v0.38.0 // indirect
