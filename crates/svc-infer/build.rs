// Tests and examples of this crate find libtorch at run time through an rpath to the directory
// that torch-sys linked against (its `links = "tch"` metadata), so no LD_LIBRARY_PATH is needed.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    if let Ok(dir) = std::env::var("DEP_TCH_LIBTORCH_LIB") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
        println!("cargo:rustc-env=SVC_LIBTORCH_LIB={dir}");
    }
}
