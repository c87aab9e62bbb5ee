//! The root of a [`Tree`] after a search: the Dirichlet noise mixed into
//! its priors, its children's statistics, the move to play (the most
//! visited, or drawn at a temperature) and the principal variation.

use super::Tree;
use yolah::{Move, Rng};

/// A child of the root, as the search sees it after its simulations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootChild {
    /// The move.
    pub mv: Move,
    /// Simulations through it.
    pub visits: u32,
    /// Its mean value for the side to move at the root (0 when unvisited).
    pub q: f32,
    /// Its prior, noise included.
    pub prior: f32,
}

impl Tree {
    /// Whether the root has its children.
    pub fn root_expanded(&self) -> bool {
        self.nodes.first().is_some_and(|n| n.children > 0)
    }

    /// Simulations through the root.
    pub fn root_visits(&self) -> u32 {
        self.nodes.first().map_or(0, |n| n.visits)
    }

    /// The root's mean value for its side to move (0 before any visit).
    pub fn root_value(&self) -> f32 {
        match self.nodes.first() {
            Some(n) if n.visits > 0 => -n.q(),
            _ => 0.0,
        }
    }

    /// Mixes `noise` (one value a root child, summing to 1) into the
    /// root's priors, `(1 - fraction) · P + fraction · noise`, always from
    /// the evaluator's own priors: noise from an earlier call on the same
    /// root is replaced, not added to. `None` brings the evaluator's priors
    /// back. Does nothing before the root is expanded.
    pub fn set_root_noise(&mut self, noise: Option<&[f32]>, fraction: f32) {
        if !self.root_expanded() {
            return;
        }
        let children = self.nodes[0].children();
        match noise {
            None => {
                for (node, &clean) in self.nodes[children].iter_mut().zip(&self.clean_priors) {
                    node.prior = clean;
                }
                self.clean_priors.clear();
            }
            Some(noise) => {
                if self.clean_priors.is_empty() {
                    self.clean_priors
                        .extend(self.nodes[children.clone()].iter().map(|n| n.prior));
                }
                for ((node, &clean), &eta) in self.nodes[children]
                    .iter_mut()
                    .zip(&self.clean_priors)
                    .zip(noise)
                {
                    node.prior = (1.0 - fraction) * clean + fraction * eta;
                }
            }
        }
    }

    /// The number of the root's children (0 before it is expanded).
    pub fn root_child_count(&self) -> usize {
        self.nodes.first().map_or(0, |n| usize::from(n.children))
    }

    /// The root's children, in the order of the legal moves.
    pub fn root_children(&self) -> impl Iterator<Item = RootChild> + '_ {
        let children = self.nodes.first().map_or(0..0, |n| n.children());
        self.nodes[children].iter().map(|n| RootChild {
            mv: n.mv,
            visits: n.visits,
            q: if n.visits > 0 { n.q() } else { 0.0 },
            prior: n.prior,
        })
    }

    /// The most visited move at the root (the higher prior among equals),
    /// if the root is expanded.
    pub fn best_move(&self) -> Option<Move> {
        self.root_children()
            .fold(None, |best: Option<RootChild>, c| match best {
                Some(b) if (b.visits, b.prior) >= (c.visits, c.prior) => Some(b),
                _ => Some(c),
            })
            .map(|c| c.mv)
    }

    /// A move drawn with probability proportional to `visits^(1/temperature)`;
    /// the most visited one at temperature 0 (or below 0.01, where powers
    /// overflow) and when no child has a visit.
    pub fn sample_move(&self, temperature: f32, rng: &mut Rng) -> Option<Move> {
        let most = self.root_children().map(|c| c.visits).max()?;
        if temperature < 0.01 || most == 0 {
            return self.best_move();
        }
        let weight = |c: &RootChild| {
            (f64::from(c.visits) / f64::from(most)).powf(1.0 / f64::from(temperature))
        };
        let total: f64 = self.root_children().map(|c| weight(&c)).sum();
        let mut r = crate::az::noise::uniform(rng) * total;
        let mut last = None;
        for c in self.root_children() {
            let w = weight(&c);
            if w > 0.0 {
                last = Some(c.mv);
                if r < w {
                    return last;
                }
                r -= w;
            }
        }
        last
    }

    /// The most visited line from the root.
    pub fn principal_variation(&self) -> Vec<Move> {
        let mut pv = Vec::new();
        let mut index = 0;
        while let Some(node) = self.nodes.get(index) {
            let best = node
                .children()
                .filter(|&c| self.nodes[c].visits > 0)
                .max_by_key(|&c| self.nodes[c].visits);
            let Some(child) = best else { break };
            pv.push(self.nodes[child].mv);
            index = child;
        }
        pv
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::simulate;
    use super::*;
    use crate::az::noise::Dirichlet;
    use yolah::Position;

    #[test]
    fn noise_is_mixed_into_the_evaluator_priors_only_once() {
        let mut tree = Tree::new(1 << 12);
        tree.set_root(&Position::START);
        simulate(&mut tree, 1);
        let clean: Vec<f32> = tree.root_children().map(|c| c.prior).collect();
        let mut rng = Rng::new(3);
        let mut noise = Dirichlet::new(0.3);
        let sample = noise.sample(&mut rng, tree.root_child_count()).to_vec();
        tree.set_root_noise(Some(&sample), 0.25);
        let once: Vec<f32> = tree.root_children().map(|c| c.prior).collect();
        tree.set_root_noise(Some(&sample), 0.25);
        let noisy: Vec<f32> = tree.root_children().map(|c| c.prior).collect();
        assert_eq!(noisy, once, "noise replaces noise");
        assert_ne!(noisy, clean);
        assert!((noisy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        assert!(noisy.iter().all(|&p| p >= 0.75 * clean[0] - 1e-6));
        tree.set_root_noise(None, 0.25);
        let back: Vec<f32> = tree.root_children().map(|c| c.prior).collect();
        assert_eq!(back, clean);
    }
}
