//! Perft from the start with the engine alone, the smallest program built
//! on the `yolah` crate:
//!
//! ```sh
//! cargo run --release --example perft -- 5
//! ```
//!
//! The engine does no work at start-up (its tables are in the binary), so
//! `perft 1` takes about as long as a bare process: compare it with `true`
//! and with the `yolah` command,
//!
//! ```sh
//! hyperfine -N 'target/release/examples/perft 1' 'target/release/yolah perft 1' true
//! ```

use std::process::ExitCode;
use yolah::perft::perft;
use yolah::Position;

fn main() -> ExitCode {
    let Some(text) = std::env::args().nth(1) else {
        eprintln!("usage: perft DEPTH (0 to 64)");
        return ExitCode::FAILURE;
    };
    match text.parse::<u32>() {
        Ok(depth) if depth <= 64 => {
            println!("perft {depth}: {} nodes", perft(&Position::START, depth));
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("perft: {text:?} is not a depth from 0 to 64");
            ExitCode::FAILURE
        }
    }
}
