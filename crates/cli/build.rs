//! Links the `yolah` command statically where it can, so that a short
//! command starts nearly as fast as a bare process, and position
//! independent unless `YOLAH_LINK` says otherwise, as it listens on the
//! network (see `build/static_link.rs` at the top of the workspace).

#[path = "../../build/static_link.rs"]
mod static_link;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=../../build/static_link.rs");
    if let Some(link) = static_link::link_from_env(static_link::Link::StaticPie) {
        static_link::link_statically("bins", link);
    }
}
