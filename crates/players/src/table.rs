//! The transposition table: one per player, shared by all its search
//! threads without locks.
//!
//! Each slot is two atomic words, the entry's data and the position's key
//! XORed with that data. A reader loads both and accepts the entry only if
//! XORing them back gives its own key, so a slot torn by two threads
//! writing at once reads as a miss, never as another position's entry
//! (Hyatt and Mann's lockless hashing). Loads and stores are relaxed: a
//! stale or missing entry only costs search work, never correctness.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use yolah::Move;

/// What a stored score says about the true score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The score is exact.
    Exact,
    /// The true score is at least the stored one (the search failed high).
    Lower,
    /// The true score is at most the stored one (the search failed low).
    Upper,
}

impl Bound {
    /// What a fail-soft search's `score` within (`alpha`, `beta`) is.
    pub(crate) const fn of(score: i32, alpha: i32, beta: i32) -> Bound {
        if score <= alpha {
            Bound::Upper
        } else if score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        }
    }
}

/// One search result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) mv: Move,
    pub(crate) score: i16,
    pub(crate) depth: u8,
    pub(crate) bound: Bound,
    /// The position's static value, when the search evaluated it and it
    /// is not decided (a decided value depends on the ply).
    pub(crate) eval: Option<i16>,
}

impl Entry {
    /// Move in bits 0..16, score 16..32, depth 32..40, bound 40..42 (never
    /// zero, so an empty slot never decodes), the static value in 42..58
    /// with bit 58 set when there is one.
    fn pack(self) -> u64 {
        let bound: u64 = match self.bound {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        u64::from(self.mv.to_u16())
            | u64::from(self.score as u16) << 16
            | u64::from(self.depth) << 32
            | bound << 40
            | self.eval.map_or(0, |e| 1 << 58 | u64::from(e as u16) << 42)
    }

    fn unpack(data: u64) -> Option<Entry> {
        let bound = match (data >> 40) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => return None,
        };
        Some(Entry {
            mv: Move::from_u16(data as u16)?,
            score: (data >> 16) as u16 as i16,
            depth: (data >> 32) as u8,
            bound,
            eval: (data >> 58 & 1 == 1).then_some((data >> 42) as u16 as i16),
        })
    }
}

/// All-zero bytes are an empty slot ([`Table::new`] relies on it).
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

/// A fixed-size table of [`Entry`]s indexed by position key.
pub(crate) struct Table {
    slots: Box<[Slot]>,
}

impl Table {
    /// A table of `entries` slots (a power of two), 16 bytes each, zeroed
    /// (every slot empty) and, on Linux, backed by huge pages where the
    /// system gives them. Its memory is given by the system as it is
    /// first touched, or at once by [`Table::fault_in`].
    pub(crate) fn new(entries: usize) -> Table {
        assert!(entries.is_power_of_two());
        let layout = std::alloc::Layout::array::<Slot>(entries).expect("a table that fits memory");
        // Zeroed memory from the allocator is untouched (fresh pages from
        // the system), which is what lets the advice below take effect; a
        // slot made by writing zeros would have faulted small pages in.
        // SAFETY: the layout has a non-zero size (`entries` is a power of
        // two); all-zero bytes are a valid, empty `Slot` (two atomic
        // integers); and a `Box<[Slot]>` of `entries` slots frees exactly
        // this layout.
        let slots = unsafe {
            let memory = std::alloc::alloc_zeroed(layout);
            if memory.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                memory.cast::<Slot>(),
                entries,
            ))
        };
        advise_huge_pages(&slots);
        Table { slots }
    }

    /// Writes one slot of every small page, so that the system gives the
    /// table its memory now rather than on a search's first probes. Fresh
    /// memory is only address space until touched, and the kernel zeroes
    /// each page on its first write: for 64 MiB that took 50 to 100 ms on
    /// our 2-core machine, which a search of 100 ms had paid inside its
    /// budget (`yolah analyse --player nn:time=100ms` from the start
    /// reached depth 2 instead of 8 on some runs, and every in-process
    /// match game's first move lost up to half its time). Changes no
    /// entry: each slot written gets back what it held. Called by
    /// [`Player::start`](crate::Player::start) before the clock runs, not
    /// by [`Table::new`], so that a table made without being played with
    /// (a test, a caller that never starts its player) is not paid for
    /// whole.
    pub(crate) fn fault_in(&mut self) {
        const PAGE: usize = 4096;
        let step = (PAGE / std::mem::size_of::<Slot>()).max(1);
        let last = self.slots.len() - 1;
        // The slice need not start on a page: its last slot may be alone
        // on one more page than the steps reach.
        for i in (0..self.slots.len()).step_by(step).chain([last]) {
            let data = self.slots[i].data.get_mut();
            // A write the compiler may neither drop nor turn into a read
            // (an idempotent atomic `or` was: a read only maps the
            // system's shared zero page, and the search's first store then
            // paid for the copy). SAFETY: `data` is a valid, exclusive
            // reference to an aligned u64, read and then written.
            unsafe { std::ptr::write_volatile(data, std::ptr::read_volatile(data)) };
        }
    }

    fn slot(&self, key: u64) -> &Slot {
        &self.slots[key as usize & (self.slots.len() - 1)]
    }

    /// The entry stored for `key`, if its slot still holds one.
    #[inline]
    pub(crate) fn probe(&self, key: u64) -> Option<Entry> {
        let slot = self.slot(key);
        let data = slot.data.load(Relaxed);
        let check = slot.check.load(Relaxed);
        if check ^ data != key {
            return None;
        }
        Entry::unpack(data)
    }

    /// Asks the processor to bring `key`'s slot into the cache, so that a
    /// probe a little later does not wait for memory: without it a fifth of
    /// the search's time went to that wait. The search fetches a child's
    /// slot a whole move ahead, while the move before it is searched.
    /// Changes nothing else.
    #[inline]
    pub(crate) fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let slot: *const Slot = self.slot(key);
            // SAFETY: a prefetch is only a hint; it neither reads nor
            // writes memory as the program sees it, and the address is that
            // of a slot of the table.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Stores `entry` for `key`, replacing whatever the slot held.
    #[inline]
    pub(crate) fn store(&self, key: u64, entry: Entry) {
        let slot = self.slot(key);
        let data = entry.pack();
        slot.data.store(data, Relaxed);
        slot.check.store(key ^ data, Relaxed);
    }

    /// Empties every slot.
    pub(crate) fn clear(&self) {
        for slot in self.slots.iter() {
            slot.data.store(0, Relaxed);
            slot.check.store(0, Relaxed);
        }
    }
}

/// Asks Linux to back `memory` with huge pages (2 MB instead of 4 kB),
/// before anything touches it. A probe lands on a random slot of a table
/// of many megabytes: the search's 64 MiB are 16,384 small pages, more than
/// a processor's cache of page translations (TLB) commonly holds (one to
/// two thousand), against 32 huge ones. The table's loads had been a sixth
/// of a search's time, and with this advice a search was about 5% faster
/// (with the 16 MiB table of then: docs/measurements.md). Where the system says no (transparent huge
/// pages off), nothing changes.
fn advise_huge_pages<T>(memory: &[T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = memory.as_ptr() as usize;
        let end = start + std::mem::size_of_val(memory);
        // Only whole huge pages inside the allocation.
        let (first, last) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if first < last {
            // SAFETY: madvise only gives the kernel a hint about pages of
            // this allocation; it changes no byte of it.
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    last - first,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = memory;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn entry(i: u64) -> Entry {
        Entry {
            mv: Move::from_u16((i % 4096) as u16).unwrap_or(Move::PASS),
            score: (i as i16).wrapping_mul(7),
            depth: (i % 200) as u8,
            bound: [Bound::Exact, Bound::Lower, Bound::Upper][i as usize % 3],
            eval: (!i.is_multiple_of(5)).then_some((i as i16).wrapping_mul(-13)),
        }
    }

    /// A table faulted in takes no page fault when every page is then
    /// written, as a search would (a page only read in would be the
    /// system's shared zero page, and its first write would fault), and
    /// keeps its entries; one not faulted in does fault. 64 MiB, so that
    /// the allocator takes both from the system (above glibc's largest
    /// mmap threshold, 32 MiB) rather than reusing memory another test
    /// has already touched.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_faulted_in_table_takes_no_page_fault_on_writes() {
        // This thread's minor page faults so far.
        fn faults() -> libc::c_long {
            // SAFETY: an all-zero `rusage` is a valid value (integers and
            // timevals), and getrusage writes one into it.
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            // SAFETY: `usage` is a valid, exclusive `rusage` to write.
            let done = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
            assert_eq!(done, 0);
            usage.ru_minflt
        }
        // The faults taken by writing one slot of every page, the last
        // slot included.
        #[inline(never)]
        fn write_every_page(table: &Table) -> libc::c_long {
            let before = faults();
            let last = table.slots.len() - 1;
            for i in (0..table.slots.len()).step_by(64).chain([last]) {
                table.slots[i].data.store(i as u64, Relaxed);
            }
            faults() - before
        }
        // Once on a table already written, so that the loop's own code is
        // in before anything is counted.
        let warm = Table::new(1 << 8);
        write_every_page(&warm);
        write_every_page(&warm);
        let entries = 1 << 22;
        let control = Table::new(entries);
        assert!(write_every_page(&control) > 0, "fresh memory faults");
        drop(control);
        let mut table = Table::new(entries);
        table.store(7, entry(7));
        table.fault_in();
        assert_eq!(table.probe(7), Some(entry(7)), "entries are kept");
        assert_eq!(
            write_every_page(&table),
            0,
            "no page faults once faulted in"
        );
    }

    #[test]
    fn entries_round_trip() {
        for i in 0..10_000u64 {
            let e = entry(i);
            assert_eq!(Entry::unpack(e.pack()), Some(e));
        }
        assert_eq!(Entry::unpack(0), None);
        let table = Table::new(1 << 4);
        assert_eq!(
            table.probe(0),
            None,
            "an empty slot is a miss, even for key 0"
        );
        table.store(5, entry(3));
        assert_eq!(table.probe(5), Some(entry(3)));
        assert_eq!(table.probe(5 + 16), None, "same slot, other key");
        table.clear();
        assert_eq!(table.probe(5), None);
    }

    /// A table large enough for whole huge pages starts empty and works
    /// like a small one.
    #[test]
    fn a_large_table_starts_empty() {
        let table = Table::new(1 << 18);
        let key_of = |i: u64| i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        assert!((0..100_000).all(|i| table.probe(key_of(i)).is_none()));
        for i in 0..1000 {
            table.store(key_of(i), entry(i));
        }
        assert!((0..1000).all(|i| table.probe(key_of(i)) == Some(entry(i))));
    }

    /// Threads hammering the same few slots never read an entry that was
    /// stored for another key.
    #[test]
    fn torn_writes_read_as_misses() {
        let table = Arc::new(Table::new(1 << 2));
        let key_of = |i: u64| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let table = &table;
                s.spawn(move || {
                    for i in 0..200_000u64 {
                        let n = (i * 4 + t) % 1000;
                        table.store(key_of(n), entry(n));
                        let m = (i * 7 + t) % 1000;
                        if let Some(e) = table.probe(key_of(m)) {
                            assert_eq!(e, entry(m));
                        }
                    }
                });
            }
        });
    }
}
