//! `yolah label`: label training files again, by the exact solver and a
//! player (see `yolah_lab::label`).

use crate::args::whole;
use anyhow::{bail, Context, Result};
use clap::Args;
use std::path::Path;
use yolah_lab::label::{label_file, LabelConfig};
use yolah_lab::MAX_RUN_THREADS;

/// What `yolah label` does: its line in `yolah --help` and the first
/// line of its own help.
pub const ABOUT: &str = "Label training files again: positions the exact solver settles within a \
budget get their proven result, the others a player's score (or keep theirs). Each file becomes \
OUT_DIR/its name, with a manifest beside it; a file already labelled the same way is skipped";

/// `yolah label`'s arguments.
#[derive(Args)]
#[command(about = ABOUT)]
pub struct LabelArgs {
    /// Training files from `yolah selfplay`.
    #[arg(long, num_args = 1.., required = true)]
    data: Vec<String>,
    /// The directory the labelled files go to.
    #[arg(long)]
    out_dir: String,
    /// Positions with at most this many free squares go to the solver.
    #[arg(long, default_value_t = 22, value_parser = whole::<u32>(0, 64), allow_negative_numbers = true)]
    exact_free: u32,
    /// The solver's node budget per position.
    #[arg(long, default_value_t = 200_000, value_parser = whole::<u64>(0, u64::MAX), allow_negative_numbers = true)]
    solve_nodes: u64,
    /// The player that labels the other positions, such as nn:depth=7
    /// (without it they keep their score).
    #[arg(long)]
    player: Option<String>,
    /// Label the solved positions with their proven final margin (100
    /// centipoints a point) rather than a win, draw or loss; the solver
    /// then needs a full window, so fewer settle within --solve-nodes.
    #[arg(long)]
    exact_margin: bool,
    /// Seed of the player.
    #[arg(long, default_value_t = 0, value_parser = whole::<u64>(0, u64::MAX), allow_negative_numbers = true)]
    seed: u64,
    /// Worker threads (the labels are the same on any number).
    #[arg(long, default_value_t = 1, value_parser = whole::<u16>(1, MAX_RUN_THREADS), allow_negative_numbers = true)]
    threads: u16,
}

impl LabelArgs {
    /// Labels each file into `--out-dir` under its own name, saying what
    /// each got, and sums up.
    pub fn run(self) -> Result<String> {
        let out_dir = &self.out_dir;
        std::fs::create_dir_all(out_dir).with_context(|| format!("cannot create {out_dir}"))?;
        let config = LabelConfig {
            exact_free: self.exact_free,
            solve_nodes: self.solve_nodes,
            player: self.player.clone(),
            seed: self.seed,
            margin: self.exact_margin,
        };
        let threads = usize::from(self.threads);
        // Every output is checked before the first file is labelled: none
        // may be one of the inputs (two files of one name would also meet).
        let mut outs = Vec::with_capacity(self.data.len());
        for file in &self.data {
            let name = Path::new(file)
                .file_name()
                .with_context(|| format!("{file:?} names no file"))?;
            let out = Path::new(out_dir).join(name);
            let out = out
                .to_str()
                .context("the output path is not UTF-8")?
                .to_string();
            match crate::paths::input_at(&out, &self.data) {
                Some(input) if input == file => {
                    bail!("{file} would be labelled into itself: choose another --out-dir")
                }
                Some(input) => bail!(
                    "{file} would be labelled into {out}, which is the input {input}: choose another --out-dir"
                ),
                None => {}
            }
            if outs.contains(&out) {
                bail!("two inputs would be labelled into {out}: label files of one name into different directories");
            }
            outs.push(out);
        }
        let (mut positions, mut solved, mut searched) = (0, 0, 0);
        for (file, out) in self.data.iter().zip(&outs) {
            let (m, ran) = label_file(file, &config, threads, out, &|_| {})?;
            eprintln!(
                "{out}: {} positions, {} solved, {} searched ({:.0} s{})",
                m.positions,
                m.exact,
                m.searched,
                m.seconds,
                if ran { "" } else { ", labelled before" }
            );
            positions += m.positions;
            solved += m.exact;
            searched += m.searched;
        }
        Ok(format!(
            "{} files labelled into {out_dir}: {positions} positions, {solved} solved, \
             {searched} searched\n",
            self.data.len()
        ))
    }
}
