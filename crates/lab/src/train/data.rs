//! Training positions as the trainer holds them: the board from the side
//! to move's point of view, the heuristic scalars (which no symmetry
//! changes), the free squares (which choose the output bucket) and the
//! target, and the maps that a `--maps` network's extra layer reads, 88
//! bytes a position.

use crate::positions::Sample;
use yolah::{Bitboard, Symmetry};
use yolah_players::eval::features_and_maps;
use yolah_players::nn::{scalars, SCALARS};
use yolah_players::score::CENTIPOINTS_PER_LOGIT;

/// One encoded position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Encoded {
    /// The side to move's pieces.
    pub ours: Bitboard,
    /// The opponent's pieces.
    pub theirs: Bitboard,
    /// The holes.
    pub holes: Bitboard,
    /// The heuristic scalars.
    pub scalars: [f32; SCALARS],
    /// The expected result to learn, from 0 to 1.
    pub target: f32,
    /// The free squares.
    pub free: u8,
    /// The side to move's territory, the opponent's, the squares the side
    /// to move reaches in one move, the opponent's.
    pub maps: [Bitboard; 4],
}

impl Encoded {
    /// `sample` with its target `lambda * result + (1 - lambda) *
    /// sigmoid(score / 400)`, or the proven score alone when the sample is
    /// exact: a result (1, ½ or 0) or a margin (`sigmoid(margin / 4)`, at
    /// 100 centipoints a point).
    pub fn new(sample: &Sample, lambda: f32) -> Encoded {
        let pos = &sample.pos;
        let side = pos.side_to_move();
        let result = (f32::from(sample.result) + 1.0) / 2.0;
        let scale = CENTIPOINTS_PER_LOGIT as f32;
        let searched = 1.0 / (1.0 + (-f32::from(sample.score) / scale).exp());
        let lambda = if sample.exact { 0.0 } else { lambda };
        let (features, maps) = features_and_maps(pos);
        Encoded {
            ours: pos.pieces(side),
            theirs: pos.pieces(side.opponent()),
            holes: pos.holes(),
            scalars: scalars(&features),
            target: lambda * result + (1.0 - lambda) * searched,
            free: pos.free().count() as u8,
            maps,
        }
    }

    /// The same position in the image `symmetry`.
    pub fn transformed(&self, symmetry: Symmetry) -> Encoded {
        Encoded {
            ours: symmetry.apply(self.ours),
            theirs: symmetry.apply(self.theirs),
            holes: symmetry.apply(self.holes),
            maps: self.maps.map(|b| symmetry.apply(b)),
            ..*self
        }
    }
}

/// Encodes `samples` on `threads` threads, in order.
pub(super) fn encode_all(samples: &[&Sample], lambda: f32, threads: usize) -> Vec<Encoded> {
    let threads = threads.max(1);
    let per = samples.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let parts: Vec<_> = samples
            .chunks(per)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|x| Encoded::new(x, lambda))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        parts
            .into_iter()
            .flat_map(|p| p.join().expect("encoding does not panic"))
            .collect::<Vec<Encoded>>()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use yolah::{Color, Position};
    use yolah_players::nn::active_features;

    #[test]
    fn the_encoding_holds_the_features_of_both_points_of_view() {
        let mut pos = Position::START;
        let mut rng = yolah::Rng::new(3);
        for _ in 0..9 {
            pos.play(pos.random_move(&mut rng));
        }
        let sample = Sample {
            pos,
            score: 400,
            result: -1,
            exact: false,
        };
        let e = Encoded::new(&sample, 0.25);
        let sigmoid_1 = 1.0 / (1.0 + (-1.0f32).exp());
        assert!((e.target - 0.75 * sigmoid_1).abs() < 1e-6);
        assert_eq!(pos.side_to_move(), Color::White);
        let bits = |kind: usize, b: Bitboard| b.into_iter().map(move |sq| kind * 64 + sq.index());
        let ours: Vec<usize> = bits(0, e.ours)
            .chain(bits(1, e.theirs))
            .chain(bits(2, e.holes))
            .collect();
        assert_eq!(ours, active_features(&pos, Color::White));
        let s = Symmetry::ALL[3];
        let image = pos.transformed(s);
        let t = e.transformed(s);
        assert_eq!(
            (t.ours, t.theirs, t.holes),
            (
                image.pieces(Color::White),
                image.pieces(Color::Black),
                image.holes()
            )
        );
    }
}
