// Command roost is a Pusher Channels protocol 7 compatible WebSocket server
// whose idle connections cost almost nothing.
//
// Usage:
//
//	roost serve [--config FILE] [--addr HOST:PORT] [flags]   (roost serve --help lists every setting)
//	roost bench idle|fanout|churn|report [flags]
//	roost apps create|list|disable [flags]
//	roost version
//	roost probe URL
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: roost <command> [flags]

commands:
  serve     run a roost node (roost serve -h for flags)
  bench     measure a roost: idle, fanout, churn, report (roost bench for modes)
  apps      manage apps through a node's admin API: create, list, disable
  version   print the version, commit, build date and Go version
  probe     GET a URL, exit 0 on 2xx (the container health check)
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stdout, stderr)
	case "bench":
		return benchCmd(args[1:], stdout, stderr)
	case "apps":
		return appsCmd(args[1:], stdout, stderr)
	case "version", "--version", "-v":
		currentBuild().print(stdout)
		return 0
	case "probe":
		return probe(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "roost: unknown command %q\n%s", args[0], usage)
	return 2
}
