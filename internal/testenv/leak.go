package testenv

import "go.uber.org/goleak"

// IdleHTTPConnections are the goleak options for the keep-alive connections
// net/http's default transport keeps after a download from a test server has
// finished: they belong to the transport, not to the code under test.
func IdleHTTPConnections() []goleak.Option {
	return []goleak.Option{
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
	}
}
