//! The one way magicgen spreads independent jobs (climbs, their rechecks,
//! dense searches) over threads: a shared index into the list of jobs,
//! each thread taking the next until none is left.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `job` applied to every item on `threads` threads (at least one, at most
/// one per item), the results in the items' order whatever the threads did.
/// `done` is called after each job with how many have finished so far.
pub(crate) fn map_on_threads<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    job: impl Fn(&T) -> R + Sync,
    done: impl Fn(usize) + Sync,
) -> Vec<R> {
    let results: Mutex<Vec<Option<R>>> = Mutex::new(items.iter().map(|_| None).collect());
    let (next, finished) = (AtomicUsize::new(0), AtomicUsize::new(0));
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, items.len().max(1)) {
            scope.spawn(|| {
                let take = || {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    items.get(k).map(|item| (k, item))
                };
                while let Some((k, item)) = take() {
                    let r = job(item);
                    results.lock().unwrap_or_else(|e| e.into_inner())[k] = Some(r);
                    done(finished.fetch_add(1, Ordering::Relaxed) + 1);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every job ran"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_the_items_order_on_any_threads() {
        let items: Vec<u64> = (0..100).collect();
        let most = AtomicUsize::new(0);
        for threads in [0, 1, 2, 7, 500] {
            most.store(0, Ordering::Relaxed);
            let squares = map_on_threads(
                &items,
                threads,
                |&x| x * x,
                |n| {
                    most.fetch_max(n, Ordering::Relaxed);
                },
            );
            assert_eq!(squares, items.iter().map(|x| x * x).collect::<Vec<_>>());
            assert_eq!(most.load(Ordering::Relaxed), 100);
        }
        let none: Vec<u64> = map_on_threads(&[] as &[u64], 2, |&x| x, |_| panic!("no job"));
        assert!(none.is_empty());
    }
}
