// Package cublastest makes stand-in cuBLAS wheels and a loopback server for them, for tests of the download and the import.
package cublastest
