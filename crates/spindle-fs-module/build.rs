//! Link arguments of the module: export what its host needs to give every instance its own
//! shadow stack and TLS block (see src/thread.rs), and keep the memory small to start with.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("wasm32") {
        return;
    }
    for arg in [
        "--export=__stack_pointer",
        "--export=__wasm_init_tls",
        "--export=__tls_size",
        "--export=__tls_align",
        "-zstack-size=16384",
    ] {
        println!("cargo:rustc-cdylib-link-arg={arg}");
    }
}
