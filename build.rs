//! Turns the committed magic constants (`magicgen/magics.txt`) into ready
//! `static` lookup tables in `OUT_DIR/magic_tables.rs`, which `src/attacks.rs`
//! includes, with the 64x64 shadow table beside them. The runtime therefore starts with every table already in the
//! binary's read-only data: nothing is computed at start-up or on first use.

use proc_macro2::{Literal, TokenStream};
use quote::quote;
use yolah_geometry::magics::Indexing;
use yolah_geometry::rays::shadow_slow;
use yolah_geometry::{MagicSet, Slider, Square};

#[path = "build/static_link.rs"]
mod static_link;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build/static_link.rs");
    write_magic_tables();
    // The examples show the engine's start-up cost: none.
    static_link::link_statically("examples", static_link::Link::Static);
}

fn write_out(name: &str, tokens: TokenStream) {
    let out =
        std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join(name);
    std::fs::write(&out, tokens.to_string())
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
}

/// The magic lookup tables and the shadow table.
fn write_magic_tables() {
    let set = MagicSet::committed()
        .unwrap_or_else(|e| panic!("magicgen/magics.txt is not a valid constants file: {e}"));
    // Filling the table checks every magic against ray casting.
    let table = set
        .attack_table()
        .unwrap_or_else(|e| panic!("magicgen/magics.txt has a bad magic: {e}"));

    let squares = Square::all().map(|sq| {
        let pair = Slider::ALL.map(|slider| {
            let e = set.entry(slider, sq);
            // Black magics OR the complement of the mask in.
            let mask = match set.indexing {
                Indexing::White => e.mask().0,
                Indexing::Black => !e.mask().0,
            };
            let mask = Literal::u64_unsuffixed(mask);
            let magic = Literal::u64_unsuffixed(e.magic);
            let shift = Literal::u32_unsuffixed(64 - e.bits);
            // A negative offset wraps: `offset.wrapping_add(local)` is the slot.
            let offset = Literal::usize_unsuffixed(e.offset as usize);
            quote!(Magic { mask: #mask, magic: #magic, shift: #shift, offset: #offset })
        });
        quote!([#(#pair),*])
    });
    let len = Literal::usize_unsuffixed(table.len());
    let entries = table.iter().map(|&v| Literal::u64_unsuffixed(v));
    let seed = set
        .seed
        .map_or_else(|| "unknown".to_string(), |s| format!("0x{s:016x}"));
    let doc = format!(
        " The shared attack table: {} entries, magic seed {seed}.",
        table.len()
    );

    let shadows = Square::all().map(|from| {
        let row = Square::all().map(|to| Literal::u64_unsuffixed(shadow_slow(from, to).0));
        quote!([#(#row),*])
    });

    let black = set.indexing == Indexing::Black;
    let tokens: TokenStream = quote! {
        /// Whether the magics are black (`occupied | mask`, the mask
        /// complemented) or white (`occupied & mask`).
        const BLACK_MAGICS: bool = #black;
        /// `SHADOWS[from][to]`: what a blocker on `to` hides from `from`.
        pub(crate) static SHADOWS: [[u64; 64]; 64] = [#(#shadows),*];
        /// The magics of every square: `[orthogonal, diagonal]`.
        pub(crate) static MAGICS: [[Magic; 2]; 64] = [#(#squares),*];
        #[doc = #doc]
        pub(crate) static ATTACKS: [u64; #len] = [#(#entries),*];
    };
    write_out("magic_tables.rs", tokens);
}
