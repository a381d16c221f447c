// Package feedback shows the user the app's work: the on-screen indicator, desktop notifications, sound cues and the Recent dictations.
package feedback
