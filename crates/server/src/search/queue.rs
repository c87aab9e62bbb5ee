//! The pool's queue: game moves first, analyses after (and at most a few at
//! once), each shared fairly between client addresses.

use super::{Job, Target};
use std::collections::{HashMap, VecDeque};

/// Jobs waiting, by address, and the addresses in the order they are served
/// (each address with jobs appears once): a worker takes the oldest job of
/// the address whose turn it is, and the address goes to the back of the
/// line if it has more.
#[derive(Default)]
struct Lane {
    jobs: HashMap<String, VecDeque<Job>>,
    turns: VecDeque<String>,
    len: usize,
}

impl Lane {
    fn push(&mut self, job: Job) {
        let waiting = self.jobs.entry(job.owner.clone()).or_default();
        if waiting.is_empty() {
            self.turns.push_back(job.owner.clone());
        }
        waiting.push_back(job);
        self.len += 1;
    }

    fn pop(&mut self) -> Option<Job> {
        let owner = self.turns.pop_front()?;
        let waiting = self.jobs.get_mut(&owner)?;
        let job = waiting.pop_front()?;
        if waiting.is_empty() {
            self.jobs.remove(&owner);
        } else {
            self.turns.push_back(owner);
        }
        self.len -= 1;
        Some(job)
    }

    fn drain(&mut self) -> impl Iterator<Item = Job> + '_ {
        self.turns.clear();
        self.len = 0;
        self.jobs.drain().flat_map(|(_, jobs)| jobs)
    }
}

/// What the workers take from.
pub(super) struct Queue {
    moves: Lane,
    analyses: Lane,
    /// Analyses running now, and how many may run at once.
    analysing: usize,
    analysis_slots: usize,
    pub(super) closed: bool,
}

impl Queue {
    /// A queue that lets `analysis_slots` analyses run at once (at least
    /// one).
    pub(super) fn new(analysis_slots: usize) -> Queue {
        Queue {
            moves: Lane::default(),
            analyses: Lane::default(),
            analysing: 0,
            analysis_slots: analysis_slots.max(1),
            closed: false,
        }
    }

    pub(super) fn push(&mut self, job: Job) {
        match job.target {
            Target::Move { .. } => self.moves.push(job),
            Target::Analysis { .. } => self.analyses.push(job),
        }
    }

    /// The next job: a game's move if one waits, else an analysis if a slot
    /// is free.
    pub(super) fn pop(&mut self) -> Option<Job> {
        if let Some(job) = self.moves.pop() {
            return Some(job);
        }
        if self.analysing >= self.analysis_slots {
            return None;
        }
        let job = self.analyses.pop()?;
        self.analysing += 1;
        Some(job)
    }

    /// `job`, taken by [`Queue::pop`], is done.
    pub(super) fn done(&mut self, job: &Job) {
        if matches!(job.target, Target::Analysis { .. }) {
            self.analysing -= 1;
        }
    }

    /// Jobs waiting.
    pub(super) fn len(&self) -> usize {
        self.moves.len + self.analyses.len
    }

    /// Every job waiting, taken out.
    pub(super) fn drain(&mut self) -> Vec<Job> {
        self.moves.drain().chain(self.analyses.drain()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::job;
    use super::*;

    fn from(game: u64, owner: &str) -> Job {
        Job {
            owner: owner.into(),
            ..job(game, "random")
        }
    }

    fn analysis(conn: u64, owner: &str) -> Job {
        Job {
            target: Target::Analysis {
                conn,
                serial: conn,
                position: String::new(),
            },
            ..from(0, owner)
        }
    }

    fn game_of(job: &Job) -> u64 {
        match job.target {
            Target::Move { game } => game,
            Target::Analysis { conn, .. } => 1000 + conn,
        }
    }

    #[test]
    fn addresses_take_turns_in_the_queue() {
        let mut q = Queue::new(1);
        for g in 1..=3 {
            q.push(from(g, "hog"));
        }
        q.push(from(10, "other"));
        q.push(from(4, "hog"));
        q.push(from(11, "other"));
        q.push(from(20, "third"));
        let order: Vec<u64> = std::iter::from_fn(|| q.pop())
            .map(|j| game_of(&j))
            .collect();
        assert_eq!(order, [1, 10, 20, 2, 11, 3, 4]);
        assert_eq!(q.len(), 0);
    }

    #[test]
    fn moves_go_first_and_analyses_take_their_slots_only() {
        let mut q = Queue::new(1);
        q.push(analysis(1, "a"));
        q.push(analysis(2, "b"));
        q.push(from(7, "c"));
        let first = q.pop().unwrap();
        assert_eq!(game_of(&first), 7, "the game's move before the analyses");
        let running = q.pop().unwrap();
        assert_eq!(game_of(&running), 1001);
        assert!(q.pop().is_none(), "one analysis at a time");
        q.push(from(8, "c"));
        assert_eq!(game_of(&q.pop().unwrap()), 8, "a move still goes");
        q.done(&running);
        assert_eq!(game_of(&q.pop().unwrap()), 1002);
    }
}
