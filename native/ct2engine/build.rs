fn main() {
    println!("cargo:rerun-if-changed=src/caps.cc");
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .file("src/caps.cc")
        .compile("ct2caps");
}
