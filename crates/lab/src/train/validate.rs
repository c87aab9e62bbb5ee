//! How well networks fit labelled positions (`yolah validate`): the loss
//! `yolah train` reports, on positions of your choosing, for the network in
//! floating point and in the integers the engine computes it in (its rule
//! for endgames the regions decide aside).

use super::data::Encoded;
use crate::positions::Sample;
use yolah::Position;
use yolah_players::eval::features_and_maps;
use yolah_players::nn::v2::{quant::QuantNet, FloatNet};
use yolah_players::nn::{active_features, scalars, NetError, Network};

/// A network's losses on a set of positions: mean squared errors of its
/// expected result, `sigmoid(logit)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Validation {
    /// The positions measured (those whose game is not over).
    pub positions: usize,
    /// Against the training target (`yolah train`'s validation loss), the
    /// network in floating point, as trained.
    pub float: f64,
    /// Against the training target, the network in integers, as the
    /// engine computes it.
    pub quantised: f64,
    /// The integer network against the games' results alone (1, ½, 0).
    pub against_results: f64,
}

/// Positions a thread measures at a time.
const BLOCK: usize = 4096;

/// The losses of `net` on `samples`, the target made as `yolah train`
/// makes it with `lambda` (a proven result or margin alone for an exact
/// sample), on `threads` threads (the figures do not depend on their
/// number).
pub fn validate(
    net: &FloatNet,
    samples: &[Sample],
    lambda: f32,
    threads: usize,
) -> Result<Validation, NetError> {
    let quantised = Network::new(net)?;
    let blocks: Vec<&[Sample]> = samples.chunks(BLOCK).collect();
    let sums = crate::parallel::map_indexed(
        blocks.len(),
        threads,
        |b| {
            let mut sum = [0.0f64; 4];
            for s in blocks[b].iter().filter(|s| !s.pos.is_game_over()) {
                let target = f64::from(Encoded::new(s, lambda).target);
                let result = (f64::from(s.result) + 1.0) / 2.0;
                let float = sigmoid(float_logit(net, &s.pos));
                let quant = sigmoid(quantised_logit(&quantised, &s.pos));
                sum[0] += 1.0;
                sum[1] += (float - target).powi(2);
                sum[2] += (quant - target).powi(2);
                sum[3] += (quant - result).powi(2);
            }
            Ok::<_, NetError>(sum)
        },
        &|_| {},
    )?;
    // Added in block order, so any number of threads gives the same sums.
    let total = sums.iter().fold([0.0f64; 4], |mut t, s| {
        for (t, s) in t.iter_mut().zip(s) {
            *t += s;
        }
        t
    });
    let n = total[0].max(1.0);
    Ok(Validation {
        positions: total[0] as usize,
        float: total[1] / n,
        quantised: total[2] / n,
        against_results: total[3] / n,
    })
}

fn sigmoid(x: f32) -> f64 {
    1.0 / (1.0 + (-f64::from(x)).exp())
}

/// The float network's logit for the side to move of `pos`.
fn float_logit(net: &FloatNet, pos: &Position) -> f32 {
    let side = pos.side_to_move();
    let (f, maps) = features_and_maps(pos);
    let bucket = net.bucket(pos.free().count());
    net.forward(
        &active_features(pos, side),
        &active_features(pos, side.opponent()),
        &scalars(&f),
        &maps,
        bucket,
    )
}

/// The integer network's logit for the side to move of `pos`.
fn quantised_logit(net: &Network, pos: &Position) -> f32 {
    fn logit<const H: usize>(q: &QuantNet<H>, pos: &Position) -> f32 {
        let (f, maps) = features_and_maps(pos);
        q.logit(
            &q.accumulators(pos),
            pos.side_to_move(),
            &scalars(&f),
            &maps,
            pos.free().count(),
        )
    }
    match net {
        Network::W128(q) => logit(q, pos),
        Network::W256(q) => logit(q, pos),
        Network::W512(q) => logit(q, pos),
        Network::W1024(q) => logit(q, pos),
        // `Network::new` makes networks of the second format only.
        Network::V1(_) => unreachable!("a float network of the second format"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selfplay::{selfplay, Run};

    #[test]
    fn losses_follow_the_target_and_the_integers_stay_close() {
        let samples = selfplay(&Run::new("alphabeta:depth=1", 6, 3), 2, &|_| {}).unwrap();
        let net = FloatNet::random(128, 7);
        let v = validate(&net, &samples, 0.3, 2).unwrap();
        assert_eq!(v, validate(&net, &samples, 0.3, 1).unwrap(), "any threads");
        let live = samples.iter().filter(|s| !s.pos.is_game_over()).count();
        assert_eq!(v.positions, live);
        assert!(v.float > 0.0 && v.float < 1.0, "{v:?}");
        assert!((v.float - v.quantised).abs() < 0.01, "{v:?}");
        // With lambda 1 the target of a position the solver did not
        // settle is its game's result: the last two losses are one.
        assert!(samples.iter().all(|s| !s.exact));
        let results = validate(&net, &samples, 1.0, 1).unwrap();
        assert!((results.quantised - results.against_results).abs() < 1e-12);
    }
}
