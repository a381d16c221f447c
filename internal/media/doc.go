// Package media pauses or lowers the desktop's playing media while a recording runs, and puts it back after.
package media
