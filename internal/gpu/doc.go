// Package gpu finds the machine's GPUs, decides which engine variant can use them, and says why in one sentence.
package gpu
