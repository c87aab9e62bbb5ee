//! `yolah tune`: the alpha-beta weights tuned by a genetic algorithm, with
//! a checkpoint after every generation.

use crate::args::whole;
use crate::progress::progress_bar;
use anyhow::{anyhow, Result};
use clap::Args;
use yolah_lab::tune::{self, Checkpoint, TuneSettings};
use yolah_lab::MAX_RUN_THREADS;

/// What `yolah tune` does: its line in `yolah --help` and the first
/// line of its own help.
pub const ABOUT: &str = "Tune the alpha-beta weights with a genetic algorithm";

/// `yolah tune`'s arguments.
#[derive(Args)]
#[command(about = ABOUT)]
pub struct TuneArgs {
    /// Individuals per generation.
    #[arg(long, default_value_t = 16, value_parser = whole::<u64>(2, 10_000), allow_negative_numbers = true)]
    population: u64,
    /// Generations.
    #[arg(long, default_value_t = 10, value_parser = whole::<u32>(1, 100_000), allow_negative_numbers = true)]
    generations: u32,
    /// Games per individual per generation, against the hand-set weights.
    #[arg(long, default_value_t = 20, value_parser = whole::<u64>(1, 1_000_000), allow_negative_numbers = true)]
    games_per_eval: u64,
    /// Search depth in fitness games.
    #[arg(long, default_value_t = 3, value_parser = whole::<u32>(1, 20), allow_negative_numbers = true)]
    depth: u32,
    /// Seed of the whole run.
    #[arg(long, default_value_t = 0, value_parser = whole::<u64>(0, u64::MAX), allow_negative_numbers = true)]
    seed: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_parser = whole::<u16>(1, MAX_RUN_THREADS), allow_negative_numbers = true)]
    threads: u16,
    /// Where the best weights go (JSON); the checkpoint is FILE.checkpoint.
    #[arg(long)]
    out: String,
    /// Continue from FILE.checkpoint.
    #[arg(long)]
    resume: bool,
}

impl TuneArgs {
    /// Runs the generations, writing the checkpoint and the best weights
    /// after each, and returns the final word.
    pub fn run(self) -> Result<String> {
        let settings = TuneSettings {
            population: self.population as usize,
            generations: self.generations,
            games_per_eval: self.games_per_eval,
            seed: self.seed,
            depth: self.depth,
        };
        let out = self.out.as_str();
        let checkpoint_path = format!("{out}.checkpoint");
        // Said now, not after the first generation's games.
        crate::paths::ensure_writable(out, "--out")?;
        crate::paths::ensure_writable(&checkpoint_path, "the checkpoint")?;
        let resume_from = if self.resume {
            let c = Checkpoint::load(&checkpoint_path).map_err(|e| anyhow!("--resume: {e}"))?;
            eprintln!(
                "resuming after generation {} of {}",
                c.generation, settings.generations
            );
            Some(c)
        } else {
            None
        };
        let per_generation = settings.population as u64 * settings.games_per_eval;
        let bar = progress_bar(per_generation, "games");
        let progress = |generation: u32, done: u64| {
            bar.set_message(format!("generation {generation}"));
            bar.set_position(done);
        };
        let mut save = |c: &Checkpoint| -> std::io::Result<()> {
            let s = c.history.last().expect("a finished generation");
            bar.suspend(|| {
                println!(
                    "generation {}/{}: best {:.3}, mean {:.3}, best weights {}",
                    s.generation,
                    settings.generations,
                    s.best,
                    s.mean,
                    serde_json::to_string(&s.best_weights).expect("serialises")
                )
            });
            write_atomically(
                &checkpoint_path,
                &serde_json::to_string_pretty(c).expect("serialises"),
            )?;
            let (best, _) = c.best();
            write_atomically(
                out,
                &(serde_json::to_string_pretty(&best).expect("serialises") + "\n"),
            )
        };
        let end = tune::run(
            &settings,
            resume_from,
            self.threads.into(),
            &progress,
            &mut save,
        )?;
        bar.finish_and_clear();
        let (best, fitness) = end.best();
        Ok(format!(
            "best weights (fitness {fitness:.3} against the hand-set weights) written to {out}:\n{}\n",
            serde_json::to_string(&best).expect("serialises")
        ))
    }
}

/// Writes `path` through a temporary file and a rename, so a crash leaves
/// either the old file or the new one.
fn write_atomically(path: &str, text: &str) -> std::io::Result<()> {
    let tmp = format!("{path}.tmp");
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| std::io::Error::new(e.kind(), format!("cannot write {path}: {e}")))
}
