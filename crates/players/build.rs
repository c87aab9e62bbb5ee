//! Turns `weights/tuned.json` (written by `yolah tune`) into a `const`, the
//! alpha-beta player's default evaluation weights, so that nothing is parsed
//! when a player is made.

use std::fmt::Write;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=weights/tuned.json");
    let text = std::fs::read_to_string("weights/tuned.json")
        .unwrap_or_else(|e| panic!("cannot read weights/tuned.json: {e}"));
    let json: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("weights/tuned.json: {e}"));
    let mut fields = String::new();
    for name in ["score", "mobility", "territory", "frozen"] {
        let v = json[name]
            .as_f64()
            .filter(|v| v.is_finite())
            .unwrap_or_else(|| panic!("weights/tuned.json: {name} must be a number"));
        // `{:?}` prints an f32 so that it reads back as the same f32.
        writeln!(fields, "    {name}: {:?}_f32,", v as f32).expect("writing to a String");
    }
    let code = format!(
        "/// The weights found by `yolah tune` (from `weights/tuned.json`).\n\
         pub const TUNED: Weights = Weights {{\n{fields}}};\n"
    );
    let out = std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("tuned_weights.rs");
    std::fs::write(&out, code).unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
}
