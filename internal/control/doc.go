// Package control lets a second whisperkey process drive the running app over a local socket: `whisperkey ptt press|release|toggle|cancel` run by a compositor's key binding.
package control
