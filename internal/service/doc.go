// Package service runs an app's long-lived parts under a supervisor that starts them in order, restarts one that fails and stops them in reverse.
package service
