// Package cublas puts NVIDIA's redistributable cuBLAS into the cuda engine folder, downloaded or copied in by hand, and checks it against the SHA-256 sums pinned here.
package cublas
