// Package wlwire speaks the Wayland wire protocol on a compositor's socket: requests out, events in, file descriptors beside them, and the registry's globals.
package wlwire
