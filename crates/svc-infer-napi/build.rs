// The addon carries no path to libtorch: src/native/libtorch.ts finds it at run time (LIBTORCH, the
// project's cache, or Python's torch package) and loads it first, so one binary serves a clone and the
// prebuilt npm package alike.
fn main() {
    napi_build::setup();
}
