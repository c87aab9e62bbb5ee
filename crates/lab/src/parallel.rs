//! Spreading independent jobs over worker threads.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Runs `task(i)` for every `i` in `0..n` on `threads` workers and returns
/// the results in index order, whatever order they finished in. `progress`
/// gets the number of jobs finished after each one. After the first error
/// no new job starts, and that error is returned.
pub fn map_indexed<T: Send, E: Send>(
    n: usize,
    threads: usize,
    task: impl Fn(usize) -> Result<T, E> + Sync,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<T>, E> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..n).map(|_| None).collect());
    let error = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                while !failed.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        return;
                    }
                    match task(i) {
                        Ok(r) => results.lock().expect("no panics while held")[i] = Some(r),
                        Err(e) => {
                            failed.store(true, Ordering::Relaxed);
                            *error.lock().expect("no panics while held") = Some(e);
                            return;
                        }
                    }
                    progress(done.fetch_add(1, Ordering::Relaxed) as u64 + 1);
                }
            });
        }
    });
    if let Some(e) = error.into_inner().expect("workers finished") {
        return Err(e);
    }
    Ok(results
        .into_inner()
        .expect("workers finished")
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_their_order_and_errors_stop_the_work() {
        let squares = map_indexed(100, 3, |i| Ok::<_, ()>(i * i), &|_| {}).unwrap();
        assert_eq!(squares, (0..100).map(|i| i * i).collect::<Vec<_>>());
        let failed = map_indexed(
            100,
            2,
            |i| if i == 7 { Err("seven") } else { Ok(i) },
            &|_| {},
        );
        assert_eq!(failed, Err("seven"));
    }
}
