//! A set of half-open integer intervals `[start, end)` kept sorted and merged.
//! Useful for tracking which byte ranges of a download have arrived.

use std::collections::BTreeMap;
use std::ops::Range;

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct IntervalSet {
    /// start -> end, non-overlapping, non-adjacent.
    ranges: BTreeMap<u64, u64>,
}

impl IntervalSet {
    pub fn new() -> Self {
        Self::default()
    }

    /// Inserts `r`, merging it with any overlapping or touching intervals.
    pub fn insert(&mut self, r: Range<u64>) {
        if r.is_empty() {
            return;
        }
        let (mut start, mut end) = (r.start, r.end);
        // The interval starting at or before `start` may reach into the new one.
        if let Some((&s, &e)) = self.ranges.range(..=start).next_back() {
            if e >= start {
                start = s;
                end = end.max(e);
            }
        }
        let absorbed: Vec<u64> = self.ranges.range(start..=end).map(|(&s, _)| s).collect();
        for s in absorbed {
            let e = self.ranges.remove(&s).unwrap();
            end = end.max(e);
        }
        self.ranges.insert(start, end);
    }

    pub fn contains(&self, x: u64) -> bool {
        self.ranges.range(..=x).next_back().is_some_and(|(_, &e)| x < e)
    }

    /// Total number of integers covered.
    pub fn len(&self) -> u64 {
        self.ranges.iter().map(|(s, e)| e - s).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Gaps inside `within` that are not covered yet.
    pub fn gaps(&self, within: Range<u64>) -> Vec<Range<u64>> {
        let mut out = Vec::new();
        let mut cursor = within.start;
        for (&s, &e) in &self.ranges {
            if e <= cursor {
                continue;
            }
            if s >= within.end {
                break;
            }
            if s > cursor {
                out.push(cursor..s);
            }
            cursor = e;
        }
        if cursor < within.end {
            out.push(cursor..within.end);
        }
        out
    }

    pub fn iter(&self) -> impl Iterator<Item = Range<u64>> + '_ {
        self.ranges.iter().map(|(&s, &e)| s..e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_overlapping_and_adjacent() {
        let mut set = IntervalSet::new();
        set.insert(10..20);
        set.insert(30..40);
        set.insert(20..25); // touches 10..20
        set.insert(35..50); // overlaps 30..40
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![10..25, 30..50]);
        assert_eq!(set.len(), 35);
    }

    #[test]
    fn insert_swallowing_several() {
        let mut set = IntervalSet::new();
        for r in [0..2, 4..6, 8..10, 12..14] {
            set.insert(r);
        }
        set.insert(1..13);
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![0..14]);
    }

    #[test]
    fn gaps_and_contains() {
        let mut set = IntervalSet::new();
        set.insert(0..1_024);
        set.insert(4_096..8_192);
        assert!(set.contains(1_023) && !set.contains(1_024));
        assert_eq!(set.gaps(0..10_000), vec![1_024..4_096, 8_192..10_000]);
        assert!(IntervalSet::new().is_empty());
    }
}
