//! Links the `yolah` command statically where it can, so that a short
//! command starts about as fast as a bare process (see
//! `build/static_link.rs` at the top of the workspace).

#[path = "../../build/static_link.rs"]
mod static_link;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=../../build/static_link.rs");
    static_link::link_statically("bins");
}
