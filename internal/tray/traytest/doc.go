// Package traytest reads and clicks a running tray's menu over D-Bus, as a desktop's tray host would, for tests.
package traytest
