// Package choice types the closed sets of values a user picks in the config, so that
// config.Load parses each once and the packages acting on them share one spelling.
package choice
