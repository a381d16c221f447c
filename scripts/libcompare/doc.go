// Package libcompare measures internal/whisper's zlib size count against
// real zlib (Python's and modernc.org/z) and Go's compress/zlib; run it with
// scripts/bench_libs.sh, which copies zlibsize.go in.
package libcompare
