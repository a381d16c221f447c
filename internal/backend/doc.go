// Package backend picks the engine variant for this machine, checks a GPU against the CPU before trusting it, and opens the model.
package backend
