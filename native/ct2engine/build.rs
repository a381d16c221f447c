fn main() {
    println!("cargo:rerun-if-changed=src/caps.cc");
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .file("src/caps.cc")
        .compile("ct2caps");
    // Find a libctranslate2 shipped beside us (the `system` variants) without
    // LD_LIBRARY_PATH.
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-rpath,$ORIGIN");
    }
}
