//! The NumPy arrays a step writes: allocated once per environment,
//! borrowed for one call, and cut into disjoint rows for the threads.

use super::{borrow_error, contiguous};
use crate::encode::{Forms, Rows, PACKED_MASK_BYTES};
use numpy::{
    PyArray1, PyArray2, PyArray4, PyArrayMethods, PyReadwriteArray1, PyReadwriteArray2,
    PyReadwriteArray4,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use yolah::{Color, Position, MAX_MOVES};
use yolah_players::az::encoding::{ACTIONS, PLANES, REACH_PLANES};

/// The arrays of one set of observations (the current ones, or the final
/// ones of `same_step`).
pub(super) struct Arrays {
    pub(super) planes: Option<Py<PyArray4<u8>>>,
    pub(super) scores: Option<Py<PyArray2<u8>>>,
    pub(super) reach: Option<Py<PyArray4<u8>>>,
    pub(super) packed_mask: Option<Py<PyArray2<u8>>>,
    pub(super) bool_mask: Option<Py<PyArray2<bool>>>,
    pub(super) legal_actions: Option<Py<PyArray2<i16>>>,
    pub(super) legal_count: Option<Py<PyArray1<u8>>>,
}

/// The borrows of [`Arrays`] for one call.
pub struct ArraysRw<'py> {
    planes: Option<PyReadwriteArray4<'py, u8>>,
    scores: Option<PyReadwriteArray2<'py, u8>>,
    reach: Option<PyReadwriteArray4<'py, u8>>,
    packed_mask: Option<PyReadwriteArray2<'py, u8>>,
    bool_mask: Option<PyReadwriteArray2<'py, bool>>,
    legal_actions: Option<PyReadwriteArray2<'py, i16>>,
    legal_count: Option<PyReadwriteArray1<'py, u8>>,
}

impl Arrays {
    pub(super) fn new(py: Python<'_>, n: usize, forms: Forms) -> Arrays {
        let when = |on: bool| on.then_some(());
        Arrays {
            planes: when(forms.observation)
                .map(|_| PyArray4::zeros(py, [n, PLANES, 8, 8], false).unbind()),
            scores: when(forms.observation).map(|_| PyArray2::zeros(py, [n, 2], false).unbind()),
            reach: when(forms.reach)
                .map(|_| PyArray4::zeros(py, [n, REACH_PLANES, 8, 8], false).unbind()),
            packed_mask: when(forms.packed_mask)
                .map(|_| PyArray2::zeros(py, [n, PACKED_MASK_BYTES], false).unbind()),
            bool_mask: when(forms.bool_mask)
                .map(|_| PyArray2::zeros(py, [n, ACTIONS], false).unbind()),
            legal_actions: when(forms.legal_actions)
                .map(|_| PyArray2::zeros(py, [n, MAX_MOVES], false).unbind()),
            legal_count: when(forms.legal_actions)
                .map(|_| PyArray1::zeros(py, [n], false).unbind()),
        }
    }

    pub(super) fn borrow<'py>(&self, py: Python<'py>) -> PyResult<ArraysRw<'py>> {
        Ok(ArraysRw {
            planes: rw!(py, self.planes),
            scores: rw!(py, self.scores),
            reach: rw!(py, self.reach),
            packed_mask: rw!(py, self.packed_mask),
            bool_mask: rw!(py, self.bool_mask),
            legal_actions: rw!(py, self.legal_actions),
            legal_count: rw!(py, self.legal_count),
        })
    }

    /// The arrays by their observation keys.
    pub(super) fn dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let add = |key: &str, a: Option<Bound<'py, PyAny>>| match a {
            Some(a) => d.set_item(key, a),
            None => Ok(()),
        };
        add(
            "observation",
            self.planes.as_ref().map(|a| a.bind(py).clone().into_any()),
        )?;
        add(
            "scores",
            self.scores.as_ref().map(|a| a.bind(py).clone().into_any()),
        )?;
        add(
            "reach",
            self.reach.as_ref().map(|a| a.bind(py).clone().into_any()),
        )?;
        add(
            "action_mask",
            self.packed_mask
                .as_ref()
                .map(|a| a.bind(py).clone().into_any()),
        )?;
        add(
            "action_mask",
            self.bool_mask
                .as_ref()
                .map(|a| a.bind(py).clone().into_any()),
        )?;
        add(
            "legal_actions",
            self.legal_actions
                .as_ref()
                .map(|a| a.bind(py).clone().into_any()),
        )?;
        add(
            "legal_count",
            self.legal_count
                .as_ref()
                .map(|a| a.bind(py).clone().into_any()),
        )?;
        Ok(d)
    }
}

impl ArraysRw<'_> {
    /// Every row, as slices.
    pub fn rows(&mut self) -> PyResult<Rows<'_>> {
        Ok(Rows {
            planes: slice!(self.planes),
            scores: slice!(self.scores),
            reach: slice!(self.reach),
            packed_mask: slice!(self.packed_mask),
            bool_mask: slice!(self.bool_mask),
            legal_actions: slice!(self.legal_actions),
            legal_count: slice!(self.legal_count),
        })
    }
}

/// Everything one step writes, for a range of games.
pub(super) struct StepRows<'a> {
    pub(super) obs: Rows<'a>,
    pub(super) finals: Option<Rows<'a>>,
    pub(super) final_flags: Option<&'a mut [bool]>,
    pub(super) rewards: &'a mut [f32],
    pub(super) colour_rewards: &'a mut [f32],
    pub(super) points: &'a mut [u8],
    pub(super) terminated: &'a mut [bool],
    pub(super) to_play: &'a mut [i8],
    pub(super) played: &'a mut [i16],
}

impl<'a> StepRows<'a> {
    pub(super) fn split_at(self, n: usize) -> (StepRows<'a>, StepRows<'a>) {
        let (obs, obs2) = self.obs.split_at(n);
        let (finals, finals2) = match self.finals {
            Some(f) => {
                let (a, b) = f.split_at(n);
                (Some(a), Some(b))
            }
            None => (None, None),
        };
        let (final_flags, final_flags2) = match self.final_flags {
            Some(f) => {
                let (a, b) = f.split_at_mut(n);
                (Some(a), Some(b))
            }
            None => (None, None),
        };
        let (rewards, rewards2) = self.rewards.split_at_mut(n);
        let (colour_rewards, colour_rewards2) = self.colour_rewards.split_at_mut(2 * n);
        let (points, points2) = self.points.split_at_mut(2 * n);
        let (terminated, terminated2) = self.terminated.split_at_mut(n);
        let (to_play, to_play2) = self.to_play.split_at_mut(n);
        let (played, played2) = self.played.split_at_mut(n);
        (
            StepRows {
                obs,
                finals,
                final_flags,
                rewards,
                colour_rewards,
                points,
                terminated,
                to_play,
                played,
            },
            StepRows {
                obs: obs2,
                finals: finals2,
                final_flags: final_flags2,
                rewards: rewards2,
                colour_rewards: colour_rewards2,
                points: points2,
                terminated: terminated2,
                to_play: to_play2,
                played: played2,
            },
        )
    }

    /// Clears row `i`'s step results (no reward, not terminated).
    #[inline]
    pub(super) fn clear(&mut self, i: usize) {
        self.rewards[i] = 0.0;
        self.colour_rewards[2 * i..2 * i + 2].fill(0.0);
        self.terminated[i] = false;
        if let Some(flags) = self.final_flags.as_deref_mut() {
            flags[i] = false;
        }
    }

    /// Writes Black's and White's points in `pos` into row `i`.
    #[inline]
    pub(super) fn score(&mut self, i: usize, pos: &Position) {
        self.points[2 * i] = pos.score(Color::Black);
        self.points[2 * i + 1] = pos.score(Color::White);
    }

    /// Writes the observation of `pos` into row `i`.
    #[inline]
    pub(super) fn observe(&mut self, i: usize, pos: &Position) {
        self.obs.write(i, pos);
        self.to_play[i] = colour_index(pos.side_to_move());
    }
}

pub(super) fn colour_index(c: Color) -> i8 {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}
