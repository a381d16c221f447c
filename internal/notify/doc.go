// Package notify shows desktop notifications about what the user must know (microphone lost, engine restarted, …), at most one per kind per interval.
package notify
