//! Commands that rank and improve players: tournament, tune.

use anyhow::{anyhow, bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;
use std::io::IsTerminal;
use yolah_lab::shard::Shard;
use yolah_lab::tournament::{self, GameLine, Settings, Store};
use yolah_lab::tune::{self, Checkpoint, TuneSettings};
use yolah_players::from_spec;

/// A progress bar on stderr when it is a terminal; hidden otherwise.
pub fn progress_bar(total: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
    if std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::stderr());
    }
    let template = format!("{{bar:30}} {{pos}}/{{len}} {unit} {{per_sec}} eta {{eta}} {{msg}}");
    bar.set_style(ProgressStyle::with_template(&template).expect("a valid template"));
    bar
}

pub fn tournament_command(
    settings: Settings,
    shard: Shard,
    threads: usize,
    out: &str,
    anchor: Option<&str>,
    json: bool,
) -> Result<String> {
    let players = &settings.players.clone();
    if let Some(tc) = &settings.tc {
        yolah_lab::games::TimeControl::parse(tc).context("--tc")?;
    }
    for (i, p) in players.iter().enumerate() {
        from_spec(p)?;
        if players[..i].contains(p) {
            bail!("player {p:?} is listed twice");
        }
    }
    let anchor = anchor_index(players, anchor)?;
    let store = Store::open(out, &settings)?;
    for w in &store.warnings {
        eprintln!("yolah: warning: {w}");
    }
    let total = tournament::total_games(&settings);
    let bar = progress_bar(shard.games(total), "games");
    let games = tournament::run(&settings, &store, shard, threads, &|done, _| {
        bar.set_position(done)
    })?;
    bar.finish_and_clear();
    if shard != Shard::WHOLE {
        let mine = shard.range(total);
        if json {
            return Ok(format!(
                "{}\n",
                json!({"shard": shard.to_string(), "first_game": mine.start,
                       "end_game": mine.end, "games": games.len(), "out": out})
            ));
        }
        return Ok(format!(
            "shard {shard}: games {}..{} of {total} in {out} ({} in the file); \
             when every shard is done: yolah merge --out FILE SHARD_FILES…\n",
            mine.start,
            mine.end,
            games.len()
        ));
    }
    Ok(standings_text(players, &games, anchor, json))
}

/// The index of the `--anchor` player (default: the first).
fn anchor_index(players: &[String], anchor: Option<&str>) -> Result<usize> {
    match anchor {
        None => Ok(0),
        Some(a) => players
            .iter()
            .position(|p| p == a)
            .ok_or_else(|| anyhow!("--anchor {a:?} is not one of the --players")),
    }
}

/// `yolah merge` of tournament files: the union of their games in `out`,
/// and the table; missing games are an error unless `partial`.
pub fn merge_tournaments(
    inputs: &[String],
    out: &str,
    anchor: Option<&str>,
    partial: bool,
    json: bool,
) -> Result<String> {
    // The anchor is checked before anything is written.
    let (settings, _, _) = tournament::read(inputs.first().map_or("", String::as_str))?;
    let anchor = anchor_index(&settings.players, anchor)?;
    let merged = tournament::merge(inputs, out)?;
    for w in &merged.warnings {
        eprintln!("yolah: warning: {w}");
    }
    let players = &merged.settings.players;
    let total = tournament::total_games(&merged.settings);
    let missing = total - merged.games.len() as u64;
    eprintln!(
        "{} game(s) added to {out}, which holds {} of {total}",
        merged.added,
        merged.games.len()
    );
    if missing > 0 {
        let what = format!(
            "{missing} of the tournament's {total} games are in none of the files \
             (a shard missing or unfinished?); {out} holds the {} there are, and \
             `yolah tournament` on it plays the rest",
            merged.games.len()
        );
        if !partial {
            bail!("{what}; --partial prints the table of the games there are");
        }
        eprintln!("yolah: warning: {what}");
    }
    Ok(standings_text(players, &merged.games, anchor, json))
}

/// The ratings table of finished games, as text or one JSON object.
fn standings_text(players: &[String], games: &[GameLine], anchor: usize, json: bool) -> String {
    let (ratings, records) = tournament::standings(players.len(), games, anchor);
    let forfeits = tournament::forfeits(players.len(), games);
    let mut order: Vec<usize> = (0..players.len()).collect();
    order.sort_by(|&a, &b| ratings[b].elo.total_cmp(&ratings[a].elo));
    if json {
        let table: Vec<_> = order
            .iter()
            .enumerate()
            .map(|(rank, &i)| {
                let r = &ratings[i];
                json!({"rank": rank + 1, "player": players[i], "elo": r.elo, "ci95": r.ci95,
                       "games": r.games, "points": r.points, "forfeits": forfeits[i]})
            })
            .collect();
        let pairs: Vec<_> = records
            .iter()
            .map(|p| {
                json!({"a": players[p.a], "b": players[p.b], "a_wins": p.a_wins, "draws": p.draws, "b_wins": p.b_wins})
            })
            .collect();
        return format!(
            "{}\n",
            json!({"games": games.len(), "anchor": players[anchor], "ratings": table, "pairs": pairs})
        );
    }
    let width = players.iter().map(String::len).max().unwrap_or(6).max(6);
    // The forfeits column appears when someone forfeited.
    let any_forfeit = forfeits.iter().any(|&f| f > 0);
    let mut text = format!(
        "{:>4}  {:<width$}  {:>6}  {:>5}  {:>6}  {:>7}{}\n",
        "rank",
        "player",
        "elo",
        "±95%",
        "games",
        "points",
        if any_forfeit { "  forfeits" } else { "" }
    );
    for (rank, &i) in order.iter().enumerate() {
        let r = &ratings[i];
        text += &format!(
            "{:>4}  {:<width$}  {:>+6.0}  {:>5.0}  {:>6}  {:>7.1}{}\n",
            rank + 1,
            players[i],
            r.elo,
            r.ci95,
            r.games,
            r.points,
            if any_forfeit {
                format!("  {:>8}", forfeits[i])
            } else {
                String::new()
            }
        );
    }
    text += &format!(
        "\n{} games; {} anchored at 0\n",
        games.len(),
        players[anchor]
    );
    for p in &records {
        text += &format!(
            "{} vs {}: +{} ={} -{}\n",
            players[p.a], players[p.b], p.a_wins, p.draws, p.b_wins
        );
    }
    text
}

pub fn tune_command(
    settings: &TuneSettings,
    threads: usize,
    out: &str,
    resume: bool,
) -> Result<String> {
    let checkpoint_path = format!("{out}.checkpoint");
    let resume_from = if resume {
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
    let end = tune::run(settings, resume_from, threads, &progress, &mut save)?;
    bar.finish_and_clear();
    let (best, fitness) = end.best();
    Ok(format!(
        "best weights (fitness {fitness:.3} against the hand-set weights) written to {out}:\n{}\n",
        serde_json::to_string(&best).expect("serialises")
    ))
}

/// Writes `path` through a temporary file and a rename, so a crash leaves
/// either the old file or the new one.
fn write_atomically(path: &str, text: &str) -> std::io::Result<()> {
    let tmp = format!("{path}.tmp");
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| std::io::Error::new(e.kind(), format!("cannot write {path}: {e}")))
}
