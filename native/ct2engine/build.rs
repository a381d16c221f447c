use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=src/caps.cc");
    let mut caps = cc::Build::new();
    caps.cpp(true).std("c++17").file("src/caps.cc");
    let target_os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let target_env = env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if target_os == "windows" && target_env == "gnu" {
        static_gnu_runtime(&caps);
    }
    caps.compile("ct2caps");
    // Find a libctranslate2 shipped beside us (the `system` variants) without
    // LD_LIBRARY_PATH.
    if target_os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-rpath,$ORIGIN");
    }
}

/// Makes the MinGW DLL self-contained: `-lstdc++` (from cc and link-cplusplus)
/// and `-lgomp` (ct2rs's OpenMP) would pick the import libraries of
/// libstdc++-6.dll and libgomp-1.dll. A DLL libstdc++ beside Rust's static
/// winpthread gives two pthread copies and crashes in pthread_once. A
/// directory searched first that holds only the static archives makes the
/// linker take those.
fn static_gnu_runtime(build: &cc::Build) {
    let compiler = build.get_compiler();
    let dir = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR")).join("static-runtime");
    std::fs::create_dir_all(&dir).expect("create static-runtime dir");
    for lib in ["libstdc++.a", "libgomp.a"] {
        let out = Command::new(compiler.path())
            .arg(format!("-print-file-name={lib}"))
            .output()
            .expect("run the C++ compiler");
        let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        // gcc prints the bare name when it has no such file.
        if !path.is_absolute() || !path.exists() {
            panic!(
                "{} has no {lib}; install g++-mingw-w64-x86-64-posix",
                compiler.path().display()
            );
        }
        std::fs::copy(&path, dir.join(lib)).expect("copy static runtime archive");
        println!("cargo:rerun-if-changed={}", path.display());
    }
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-cdylib-link-arg=-static-libgcc");
    println!("cargo:rustc-cdylib-link-arg=-static-libstdc++");
}
