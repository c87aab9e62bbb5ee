//! `AzNetwork` (`yolah.search.AzNetwork`): the `az` network
//! (`yolah_players::az::net`) as an evaluator in Rust for the batched search
//! of [`crate::search`]: observations of `yolah.vector` in, logits and
//! values out, on up to `threads` threads with the GIL released.

use crate::errors::{threads_in, YolahError};
use crate::search::{not_contiguous, parallel};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;
use yolah_players::az::encoding::{ACTIONS, PLANES};
use yolah_players::az::net::{AzNet, Output};

/// Logits `(N, ACTIONS)` and values `(N,)`.
type Evaluation<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray1<f32>>);

/// The `az` network (a file written by `python/examples/alphazero.py`) as
/// an evaluator in Rust: `network(observations, masks) -> (logits,
/// values)`, with the observations of `yolah.vector`.
#[pyclass(name = "AzNetwork", module = "yolah")]
pub struct AzNetwork {
    net: Arc<AzNet>,
    threads: usize,
}

#[pymethods]
impl AzNetwork {
    /// Reads the network file at `path`.
    #[new]
    #[pyo3(signature = (path, threads = 1))]
    fn new(path: &str, threads: usize) -> PyResult<AzNetwork> {
        let net = AzNet::load(path).map_err(|e| YolahError::new_err(e.to_string()))?;
        Ok(AzNetwork {
            net: Arc::new(net),
            threads: threads_in(threads, yolah_players::MAX_THREADS)?,
        })
    }

    /// Logits `(N, 4096)` and values `(N,)` of the observations (a dict with
    /// `observation`, uint8 `(N, PLANES, 8, 8)`, and `scores`, uint8 `(N, 2)`);
    /// `masks` are not needed and may be None.
    #[pyo3(signature = (observations, masks = None))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        observations: &Bound<'py, PyDict>,
        masks: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Evaluation<'py>> {
        let _ = masks;
        let get = |key: &str| {
            observations
                .get_item(key)?
                .ok_or_else(|| YolahError::new_err(format!("observations have no {key:?}")))
        };
        let planes = get("observation")?;
        let planes: numpy::PyReadonlyArray4<'py, u8> = planes.extract().map_err(|_| {
            YolahError::new_err("observation must be a uint8 array (N, PLANES, 8, 8)")
        })?;
        let scores = get("scores")?;
        let scores: PyReadonlyArray2<'py, u8> = scores
            .extract()
            .map_err(|_| YolahError::new_err("scores must be a uint8 array (N, 2)"))?;
        let n = planes.shape()[0];
        if planes.shape() != [n, PLANES, 8, 8] || scores.shape() != [n, 2] {
            return Err(YolahError::new_err(format!(
                "observation of shape {:?} and scores of shape {:?}: expected (N, {PLANES}, 8, 8) and (N, 2)",
                planes.shape(),
                scores.shape()
            )));
        }
        let planes = planes.as_slice().map_err(not_contiguous)?;
        let scores = scores.as_slice().map_err(not_contiguous)?;
        let mut logits = vec![0.0f32; n * ACTIONS];
        let mut values = vec![0.0f32; n];
        let net = &self.net;
        let threads = self.threads;
        py.detach(|| {
            let mut rows: Vec<(usize, &mut [f32], &mut f32)> = logits
                .chunks_exact_mut(ACTIONS)
                .zip(values.iter_mut())
                .enumerate()
                .map(|(i, (l, v))| (i, l, v))
                .collect();
            parallel(threads, &mut rows, |rows, _| {
                let mut out: Output = net.output();
                for (i, logits, value) in rows.iter_mut() {
                    let mut bits = [0u64; PLANES];
                    for (p, b) in bits.iter_mut().enumerate() {
                        for (sq, &cell) in planes[(*i * PLANES + p) * 64..][..64].iter().enumerate()
                        {
                            *b |= u64::from(cell != 0) << sq;
                        }
                    }
                    net.forward(&bits, [scores[2 * *i], scores[2 * *i + 1]], &mut out);
                    out.logits(logits);
                    **value = out.value();
                }
            });
        });
        let logits = PyArray1::from_vec(py, logits).reshape([n, ACTIONS])?;
        Ok((logits, PyArray1::from_vec(py, values)))
    }
}
