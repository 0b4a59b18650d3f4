//! placeholder-free empty crate root; filled by the crate implementation
