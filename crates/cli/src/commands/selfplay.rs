//! `yolah selfplay`: games of a player against itself, written as training
//! positions (search scores and results), whole or as one shard of a run.

use crate::args::whole;
use crate::progress::progress_bar;
use anyhow::Result;
use clap::Args;
use yolah_lab::selfplay;
use yolah_lab::shard::Shard;
use yolah_lab::MAX_RUN_THREADS;

/// What `yolah selfplay` does: its line in `yolah --help` and the first
/// line of its own help.
pub const ABOUT: &str = "Play games with a player against itself and write its positions, search \
    scores and results for training";

/// `yolah selfplay`'s arguments: the run's (shared with `yolah-ray`),
/// then how this process plays it.
#[derive(Args)]
#[command(about = ABOUT)]
pub struct SelfplayArgs {
    #[command(flatten)]
    run: yolah_lab::options::SelfplayOptions,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_parser = whole::<u16>(1, MAX_RUN_THREADS), allow_negative_numbers = true)]
    threads: u16,
    /// Play only shard K of N of the run (1-based, such as 2/8), for
    /// Slurm arrays or Kubernetes indexed jobs; `yolah merge` joins the
    /// shards (a shard also writes OUT.shard.json, and is skipped when
    /// that says it is done) into what one run gives.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
}

impl SelfplayArgs {
    /// Plays the games, writes the file, and says what it holds.
    pub fn run(self) -> Result<String> {
        let run = self.run.run();
        let out = &self.run.out;
        let threads = usize::from(self.threads);
        let Some(shard) = self.shard else {
            let bar = progress_bar(run.games, "games");
            let samples = selfplay::selfplay(&run, threads, &|done| bar.set_position(done))?;
            bar.finish_and_clear();
            yolah_lab::positions::write(out, &samples)?;
            return Ok(format!(
                "{} positions from {run} written to {out}\n",
                samples.len()
            ));
        };
        let bar = progress_bar(shard.games(run.games), "games");
        let (m, played) =
            selfplay::selfplay_shard(&run, shard, threads, out, &|done| bar.set_position(done))?;
        bar.finish_and_clear();
        Ok(format!(
            "shard {shard}: {} positions from games {}..{} of {run} {} {out} (manifest {})\n",
            m.positions,
            m.first_game,
            m.end_game,
            if played { "written to" } else { "already in" },
            selfplay::ShardManifest::path_for(out)
        ))
    }
}
