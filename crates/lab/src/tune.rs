//! A genetic algorithm for the alpha-beta evaluation weights.
//!
//! Each individual is a set of [`Weights`] (the `score` weight stays at 100:
//! only the ratios matter). Its fitness is its points fraction in games at a
//! fixed search depth against the hand-set weights, from paired random
//! openings with colours alternated; every individual of a generation meets
//! the same openings. A generation keeps its elite, then fills up with
//! children of tournament-selected parents (blend crossover, log-normal
//! mutation). All randomness comes from the seed and the generation number,
//! so a run is reproducible and can resume from its checkpoint.

use crate::games::play_match_game_with;
use serde::{Deserialize, Serialize};
use std::fmt;
use yolah::file::{read_text_limited, FileError};
use yolah::rng::{game_seed, splitmix64};
use yolah::Rng;
use yolah_players::eval::Weights;
use yolah_players::AlphaBeta;
use yolah_players::Budget;

/// The largest checkpoint file [`Checkpoint::load`] reads.
pub const MAX_CHECKPOINT_BYTES: u64 = 16 << 20;

/// Why a tuning run cannot go on.
#[derive(Debug)]
pub enum TuneError {
    /// The checkpoint file cannot be read.
    File(FileError),
    /// The checkpoint file is not a checkpoint.
    NotACheckpoint {
        /// The file.
        path: String,
        /// What the parser said.
        error: serde_json::Error,
    },
    /// The checkpoint is for other settings.
    OtherSettings {
        /// The checkpoint's.
        found: TuneSettings,
        /// This run's.
        wanted: TuneSettings,
    },
    /// Saving a generation's checkpoint failed.
    Save(std::io::Error),
}

impl fmt::Display for TuneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TuneError::File(e) => write!(f, "{e}"),
            TuneError::NotACheckpoint { path, error } => {
                write!(f, "{path} is not a checkpoint: {error}")
            }
            TuneError::OtherSettings { found, wanted } => write!(
                f,
                "the checkpoint is for other settings ({}); start afresh without --resume",
                found.differences(wanted).join(", ")
            ),
            TuneError::Save(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for TuneError {}

/// What a tuning run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TuneSettings {
    /// Individuals per generation.
    pub population: usize,
    /// Generations to run.
    pub generations: u32,
    /// Games per individual per generation.
    pub games_per_eval: u64,
    /// Seed of everything random.
    pub seed: u64,
    /// Search depth of both sides in fitness games.
    pub depth: u32,
}

impl TuneSettings {
    /// Where `self` and `other` differ, as `yolah tune`'s options: for
    /// example `--generations 2 where this run has 3`.
    pub fn differences(&self, other: &TuneSettings) -> Vec<String> {
        let fields = [
            (
                "--population",
                self.population as u64,
                other.population as u64,
            ),
            (
                "--generations",
                self.generations.into(),
                other.generations.into(),
            ),
            (
                "--games-per-eval",
                self.games_per_eval,
                other.games_per_eval,
            ),
            ("--seed", self.seed, other.seed),
            ("--depth", self.depth.into(), other.depth.into()),
        ];
        fields
            .iter()
            .filter(|(_, a, b)| a != b)
            .map(|(name, a, b)| format!("{name} {a} where this run has {b}"))
            .collect()
    }
}

/// One generation's summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationSummary {
    /// Generation number, from 1.
    pub generation: u32,
    /// Best fitness.
    pub best: f64,
    /// Mean fitness.
    pub mean: f64,
    /// The best individual.
    pub best_weights: Weights,
}

/// The state after a generation: enough to resume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The run's settings (a resume must match them).
    pub settings: TuneSettings,
    /// Generations completed.
    pub generation: u32,
    /// The evaluated population of the last generation.
    pub population: Vec<Weights>,
    /// Their fitness, in the same order.
    pub fitness: Vec<f64>,
    /// One summary per completed generation.
    pub history: Vec<GenerationSummary>,
}

impl Checkpoint {
    /// Reads a checkpoint file (at most [`MAX_CHECKPOINT_BYTES`]).
    pub fn load(path: &str) -> Result<Checkpoint, TuneError> {
        let text = read_text_limited(path, MAX_CHECKPOINT_BYTES).map_err(TuneError::File)?;
        serde_json::from_str(&text).map_err(|error| TuneError::NotACheckpoint {
            path: path.to_string(),
            error,
        })
    }

    /// The fittest individual of the last generation.
    pub fn best(&self) -> (Weights, f64) {
        let i = (0..self.fitness.len())
            .max_by(|&a, &b| self.fitness[a].total_cmp(&self.fitness[b]))
            .unwrap_or(0);
        (
            self.population[i],
            self.fitness.get(i).copied().unwrap_or(0.0),
        )
    }
}

/// The weights the algorithm changes (indices into [`Weights::to_array`]):
/// all but `score`, which sets the scale.
const TUNED: std::ops::Range<usize> = 1..4;

/// A standard normal sample (Box-Muller).
fn normal(rng: &mut Rng) -> f64 {
    let u1 = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let u2 = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    (-2.0 * (u1.max(1e-300)).ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

fn uniform(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

fn mutate(w: &mut Weights, rng: &mut Rng, rate: f64, sigma: f64) {
    let mut a = w.to_array();
    for i in TUNED {
        if uniform(rng) < rate {
            // Log-normal scaling keeps the sign; the small additive part lets
            // a weight cross zero.
            let v = f64::from(a[i]) * (sigma * normal(rng)).exp() + 0.5 * normal(rng);
            a[i] = v.clamp(-1000.0, 1000.0) as f32;
        }
    }
    *w = Weights::from_array(a);
}

/// The first generation: the hand-set weights and mutations of them.
pub fn initial_population(settings: &TuneSettings) -> Vec<Weights> {
    let mut rng = Rng::for_game(settings.seed, 0);
    (0..settings.population)
        .map(|i| {
            let mut w = Weights::HAND;
            if i > 0 {
                mutate(&mut w, &mut rng, 1.0, 0.7);
            }
            w
        })
        .collect()
}

/// The next generation from an evaluated one.
pub fn breed(
    settings: &TuneSettings,
    generation: u32,
    population: &[Weights],
    fitness: &[f64],
) -> Vec<Weights> {
    let mut rng = Rng::for_game(settings.seed, u64::from(generation));
    let mut order: Vec<usize> = (0..population.len()).collect();
    order.sort_by(|&a, &b| fitness[b].total_cmp(&fitness[a]).then(a.cmp(&b)));
    let elite = (population.len() / 8).max(1);
    let mut next: Vec<Weights> = order[..elite].iter().map(|&i| population[i]).collect();
    let pick = |rng: &mut Rng| {
        // Tournament selection of size 3.
        (0..3)
            .map(|_| rng.below(population.len() as u32) as usize)
            .max_by(|&a, &b| fitness[a].total_cmp(&fitness[b]).then(b.cmp(&a)))
            .expect("three draws")
    };
    while next.len() < population.len() {
        let (a, b) = (
            population[pick(&mut rng)].to_array(),
            population[pick(&mut rng)].to_array(),
        );
        let mut child = a;
        for i in TUNED {
            // Blend crossover: anywhere between the parents, and a bit beyond.
            let u = -0.25 + 1.5 * uniform(&mut rng);
            child[i] = (f64::from(a[i]) + u * f64::from(b[i] - a[i])) as f32;
        }
        let mut child = Weights::from_array(child);
        mutate(&mut child, &mut rng, 0.3, 0.3);
        next.push(child);
    }
    next
}

/// Plays game `k` of an evaluation: `w` against the hand-set weights, as
/// player A of a match game (so with the match's openings and colours).
/// Returns `w`'s points.
pub fn fitness_game(settings: &TuneSettings, generation: u32, w: &Weights, k: u64) -> f64 {
    let seed = game_seed(settings.seed, u64::from(generation));
    let budget = Budget::Depth(settings.depth);
    let mut candidate = AlphaBeta::new(budget, *w, splitmix64(seed ^ k));
    let mut baseline = AlphaBeta::new(budget, Weights::HAND, splitmix64(seed ^ k ^ 1));
    play_match_game_with(&mut candidate, &mut baseline, seed, k, None).a_points
}

/// Evaluates a population over `threads` workers; `progress` gets games done.
pub fn evaluate_population(
    settings: &TuneSettings,
    generation: u32,
    population: &[Weights],
    threads: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> Vec<f64> {
    let n = settings.games_per_eval as usize;
    let points = crate::parallel::map_indexed(
        population.len() * n,
        threads,
        |t| {
            Ok::<_, ()>(fitness_game(
                settings,
                generation,
                &population[t / n],
                (t % n) as u64,
            ))
        },
        progress,
    )
    .expect("fitness games cannot fail");
    points
        .chunks(n)
        .map(|games| games.iter().sum::<f64>() / n as f64)
        .collect()
}

/// Runs generations from `resume` (or from scratch) to the end, calling
/// `after` with each new checkpoint (to save it and report).
pub fn run(
    settings: &TuneSettings,
    resume: Option<Checkpoint>,
    threads: usize,
    progress: &(dyn Fn(u32, u64) + Sync),
    after: &mut dyn FnMut(&Checkpoint) -> std::io::Result<()>,
) -> Result<Checkpoint, TuneError> {
    let mut state = match resume {
        Some(c) => {
            if c.settings != *settings {
                return Err(TuneError::OtherSettings {
                    found: c.settings,
                    wanted: *settings,
                });
            }
            c
        }
        None => Checkpoint {
            settings: *settings,
            generation: 0,
            population: Vec::new(),
            fitness: Vec::new(),
            history: Vec::new(),
        },
    };
    while state.generation < settings.generations {
        let generation = state.generation + 1;
        let population = if state.generation == 0 {
            initial_population(settings)
        } else {
            breed(settings, generation, &state.population, &state.fitness)
        };
        let fitness = evaluate_population(settings, generation, &population, threads, &|g| {
            progress(generation, g)
        });
        state.population = population;
        state.fitness = fitness;
        state.generation = generation;
        let (best_weights, best) = state.best();
        state.history.push(GenerationSummary {
            generation,
            best,
            mean: state.fitness.iter().sum::<f64>() / state.fitness.len() as f64,
            best_weights,
        });
        after(&state).map_err(TuneError::Save)?;
    }
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> TuneSettings {
        TuneSettings {
            population: 4,
            generations: 2,
            games_per_eval: 2,
            seed: 11,
            depth: 1,
        }
    }

    #[test]
    fn a_checkpoint_of_other_settings_names_what_differs() {
        let wanted = TuneSettings {
            generations: 3,
            ..tiny()
        };
        let e = TuneError::OtherSettings {
            found: tiny(),
            wanted,
        };
        assert_eq!(
            e.to_string(),
            "the checkpoint is for other settings (--generations 2 where this run has 3); \
             start afresh without --resume"
        );
    }

    #[test]
    fn runs_are_deterministic_and_resumable() {
        let s = tiny();
        let full = run(&s, None, 2, &|_, _| {}, &mut |_| Ok(())).unwrap();
        assert_eq!(full, run(&s, None, 1, &|_, _| {}, &mut |_| Ok(())).unwrap());
        assert_eq!(full.history.len(), 2);
        // Stop after the first generation, then resume from its checkpoint.
        let mut first = None;
        let one = TuneSettings {
            generations: 1,
            ..s
        };
        run(&one, None, 2, &|_, _| {}, &mut |c| {
            first = Some(c.clone());
            Ok(())
        })
        .unwrap();
        let mut checkpoint = first.unwrap();
        checkpoint.settings = s;
        assert_eq!(
            run(&s, Some(checkpoint), 2, &|_, _| {}, &mut |_| Ok(())).unwrap(),
            full
        );
    }

    #[test]
    fn breeding_keeps_the_elite_and_the_score_weight() {
        let s = TuneSettings {
            population: 16,
            ..tiny()
        };
        let pop = initial_population(&s);
        assert_eq!(pop[0], Weights::HAND);
        let fitness: Vec<f64> = (0..16).map(|i| i as f64 / 16.0).collect();
        let next = breed(&s, 2, &pop, &fitness);
        assert_eq!(next.len(), 16);
        assert_eq!(next[0], pop[15], "the fittest survives unchanged");
        assert!(next.iter().all(|w| w.score == 100.0));
    }
}
