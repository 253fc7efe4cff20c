//! The comparison itself, shaped like GNU diff 3.8 so that hunks come out the same: the
//! identical prefix and suffix are set aside first (keeping `horizon` lines of each), lines
//! are put into equivalence classes under the --ignore-* options, lines matching nothing
//! in the other file are discarded up front, Myers' O(ND) algorithm with GNU's midpoint
//! search splits the rest, and changed runs are finally slid to GNU's preferred places.

use std::borrow::Cow;
use std::collections::HashMap;

pub use super::text::{Compare, Text, WhiteSpace};
use super::myers;

/// A run of changed lines: `deleted` lines of file 0 from `line0` replaced by `inserted`
/// lines of file 1 from `line1` (0-based; for a pure insertion `line0` is the line before
/// which it goes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    pub line0: usize,
    pub line1: usize,
    pub deleted: usize,
    pub inserted: usize,
}

/// How to run the comparison.
pub struct Settings {
    pub compare: Compare,
    /// Lines of the identical prefix and suffix kept in the comparison (GNU keeps the
    /// context size, so shifting has room at the edges).
    pub horizon: usize,
    /// Normal, context and unified output can show a missing final newline; the ed format
    /// cannot, and treats such a line as complete.
    pub robust: bool,
    /// -d: no discarding of confusing lines, no giving up on expensive searches.
    pub minimal: bool,
    /// --speed-large-files.
    pub heuristic: bool,
}

/// Compares two texts and returns the changes in order.
pub fn diff(a: &Text, b: &Text, settings: &Settings) -> Vec<Change> {
    let same_raw = |i: usize, j: usize| {
        a.content(i) == b.content(j) && (!settings.robust || a.incomplete(i) == b.incomplete(j))
    };
    let (n0, n1) = (a.len(), b.len());
    let mut prefix = 0;
    while prefix < n0 && prefix < n1 && same_raw(prefix, prefix) {
        prefix += 1;
    }
    if prefix == n0 && prefix == n1 {
        return Vec::new();
    }
    let prefix = prefix.saturating_sub(settings.horizon);
    let mut suffix = 0;
    let cap = n0.min(n1) - prefix;
    while suffix < cap && same_raw(n0 - 1 - suffix, n1 - 1 - suffix) {
        suffix += 1;
    }
    let suffix = suffix.saturating_sub(settings.horizon);
    let (end0, end1) = (n0 - suffix, n1 - suffix);

    // Equivalence classes for the lines in the middle. An incomplete last line compared
    // exactly can only equal the other file's incomplete last line.
    let separate_incomplete = settings.robust && settings.compare.white < WhiteSpace::Trailing;
    let mut classes: HashMap<(bool, Cow<[u8]>), usize> = HashMap::new();
    let mut equivs: [Vec<usize>; 2] = [Vec::with_capacity(end0 - prefix), Vec::with_capacity(end1 - prefix)];
    for (f, text, end) in [(0, a, end0), (1, b, end1)] {
        for i in prefix..end {
            let key = (separate_incomplete && text.incomplete(i), settings.compare.key(text.content(i)));
            let next = classes.len() + 1;
            let class = *classes.entry(key).or_insert(next);
            equivs[f].push(class);
        }
    }
    let class_count = classes.len() + 1;
    drop(classes);

    let mut changed = [vec![false; equivs[0].len() + 2], vec![false; equivs[1].len() + 2]];
    let (undiscarded, realindexes) = discard_confusing_lines(&equivs, class_count, settings.minimal, &mut changed);
    myers::mark_changes(&undiscarded, &realindexes, settings.minimal, settings.heuristic, &mut changed);
    shift_boundaries(&equivs, &mut changed);
    build_script(&changed, prefix)
}

/// Lines matching nothing in the other file are changes for sure; lines matching very many
/// are left out of the search when they sit inside such runs. Returns, per file, the class
/// sequence the search sees and the real index of each of its elements. `changed` is
/// indexed from 1 (a false sentinel at each end).
fn discard_confusing_lines(equivs: &[Vec<usize>; 2], class_count: usize, minimal: bool, changed: &mut [Vec<bool>; 2]) -> ([Vec<usize>; 2], [Vec<usize>; 2]) {
    let mut counts = [vec![0usize; class_count], vec![0usize; class_count]];
    for f in 0..2 {
        for &e in &equivs[f] {
            counts[f][e] += 1;
        }
    }
    let mut discarded: [Vec<u8>; 2] = [vec![0; equivs[0].len()], vec![0; equivs[1].len()]];
    for f in 0..2 {
        let end = equivs[f].len();
        let mut many = 5usize;
        let mut tem = end / 64;
        loop {
            tem >>= 2;
            if tem == 0 {
                break;
            }
            many *= 2;
        }
        for i in 0..end {
            let nmatch = counts[1 - f][equivs[f][i]];
            if nmatch == 0 {
                discarded[f][i] = 1;
            } else if nmatch > many {
                discarded[f][i] = 2;
            }
        }
    }
    for discards in discarded.iter_mut() {
        cancel_provisional(discards);
    }
    let mut undiscarded = [Vec::new(), Vec::new()];
    let mut realindexes = [Vec::new(), Vec::new()];
    for f in 0..2 {
        for (i, &e) in equivs[f].iter().enumerate() {
            if minimal || discarded[f][i] == 0 {
                undiscarded[f].push(e);
                realindexes[f].push(i);
            } else {
                changed[f][i + 1] = true;
            }
        }
    }
    (undiscarded, realindexes)
}

/// Keeps provisional discards (2) only inside runs of sure discards, as GNU does.
fn cancel_provisional(discards: &mut [u8]) {
    let end = discards.len() as isize;
    let mut i: isize = 0;
    while i < end {
        let at = |d: &[u8], k: isize| d[k as usize];
        if at(discards, i) == 2 {
            discards[i as usize] = 0;
        } else if at(discards, i) != 0 {
            let mut j = i;
            let mut provisional = 0isize;
            while j < end {
                if at(discards, j) == 0 {
                    break;
                }
                if at(discards, j) == 2 {
                    provisional += 1;
                }
                j += 1;
            }
            while j > i && at(discards, j - 1) == 2 {
                j -= 1;
                discards[j as usize] = 0;
                provisional -= 1;
            }
            let length = j - i;
            if provisional * 4 > length {
                while j > i {
                    j -= 1;
                    if at(discards, j) == 2 {
                        discards[j as usize] = 0;
                    }
                }
            } else {
                let mut minimum: isize = 1;
                let mut tem = length >> 2;
                loop {
                    tem >>= 2;
                    if tem <= 0 {
                        break;
                    }
                    minimum <<= 1;
                }
                minimum += 1;
                let mut consec: isize = 0;
                let mut j: isize = 0;
                while j < length {
                    if at(discards, i + j) != 2 {
                        consec = 0;
                    } else {
                        consec += 1;
                        if minimum == consec {
                            j -= consec;
                        } else if minimum < consec {
                            discards[(i + j) as usize] = 0;
                        }
                    }
                    j += 1;
                }
                keep_from_end(discards, (0..length).map(|j| i + j));
                i += length - 1;
                keep_from_end(discards, (0..length).map(|j| i - j));
            }
        }
        i += 1;
    }
}

/// GNU's end-of-run pass of discard_confusing_lines over `positions` (taken from one end of
/// a run): provisional discards (2) are kept (0) until three real discards (1) come in a
/// row, or a real discard comes after the first eight lines.
fn keep_from_end(discards: &mut [u8], positions: impl Iterator<Item = isize>) {
    let mut consec = 0;
    for (j, p) in positions.enumerate() {
        let v = discards[p as usize];
        if j >= 8 && v == 1 {
            break;
        }
        if v == 2 {
            consec = 0;
            discards[p as usize] = 0;
        } else if v == 0 {
            consec = 0;
        } else {
            consec += 1;
        }
        if consec == 3 {
            break;
        }
    }
}

/// Slides each run of changes as far down as it goes, merging with neighbouring runs, then
/// back up to line up with a run in the other file if it can (GNU's shift_boundaries).
fn shift_boundaries(equivs: &[Vec<usize>; 2], changed: &mut [Vec<bool>; 2]) {
    for f in 0..2 {
        let (first, second) = changed.split_at_mut(1);
        let (ch, other) = if f == 0 { (&mut first[0], &second[0]) } else { (&mut second[0], &first[0]) };
        let eq = &equivs[f];
        // Indices below are GNU's; the vectors carry a sentinel at index 0.
        let c = |v: &Vec<bool>, k: isize| v[(k + 1) as usize];
        let i_end = eq.len() as isize;
        let mut i: isize = 0;
        let mut j: isize = 0;
        loop {
            while i < i_end && !c(ch, i) {
                while c(other, j) {
                    j += 1;
                }
                j += 1;
                i += 1;
            }
            if i == i_end {
                break;
            }
            let mut start = i;
            i += 1;
            while c(ch, i) {
                i += 1;
            }
            while c(other, j) {
                j += 1;
            }
            let mut corresponding;
            loop {
                let runlength = i - start;
                while start > 0 && eq[(start - 1) as usize] == eq[(i - 1) as usize] {
                    start -= 1;
                    ch[(start + 1) as usize] = true;
                    i -= 1;
                    ch[(i + 1) as usize] = false;
                    while c(ch, start - 1) {
                        start -= 1;
                    }
                    j -= 1;
                    while c(other, j) {
                        j -= 1;
                    }
                }
                corresponding = if c(other, j - 1) { i } else { i_end };
                while i != i_end && eq[start as usize] == eq[i as usize] {
                    ch[(start + 1) as usize] = false;
                    start += 1;
                    ch[(i + 1) as usize] = true;
                    i += 1;
                    while c(ch, i) {
                        i += 1;
                    }
                    j += 1;
                    while c(other, j) {
                        j += 1;
                        corresponding = i;
                    }
                }
                if runlength == i - start {
                    break;
                }
            }
            while corresponding < i {
                start -= 1;
                ch[(start + 1) as usize] = true;
                i -= 1;
                ch[(i + 1) as usize] = false;
                j -= 1;
                while c(other, j) {
                    j -= 1;
                }
            }
        }
    }
}

/// Turns the changed-line flags into runs, offset by the set-aside prefix.
fn build_script(changed: &[Vec<bool>; 2], prefix: usize) -> Vec<Change> {
    let (len0, len1) = (changed[0].len() - 2, changed[1].len() - 2);
    let (c0, c1) = (&changed[0][1..], &changed[1][1..]);
    let mut out = Vec::new();
    let (mut i0, mut i1) = (0, 0);
    while i0 < len0 || i1 < len1 {
        if c0[i0] || c1[i1] {
            let (line0, line1) = (i0, i1);
            while c0[i0] {
                i0 += 1;
            }
            while c1[i1] {
                i1 += 1;
            }
            out.push(Change { line0: line0 + prefix, line1: line1 + prefix, deleted: i0 - line0, inserted: i1 - line1 });
        }
        i0 += 1;
        i1 += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(horizon: usize) -> Settings {
        Settings { compare: Compare { ignore_case: false, white: WhiteSpace::Exact, tabsize: 8 }, horizon, robust: true, minimal: false, heuristic: false }
    }

    fn run(a: &str, b: &str) -> Vec<(usize, usize, usize, usize)> {
        let (ta, tb) = (Text::new(a.as_bytes().to_vec(), false), Text::new(b.as_bytes().to_vec(), false));
        diff(&ta, &tb, &settings(0)).iter().map(|c| (c.line0, c.line1, c.deleted, c.inserted)).collect()
    }

    #[test]
    fn identical_inputs_have_no_changes() {
        assert!(run("a\nb\n", "a\nb\n").is_empty());
        assert!(run("", "").is_empty());
    }

    #[test]
    fn simple_change_insert_delete() {
        assert_eq!(run("a\nb\nc\n", "a\nB\nc\n"), vec![(1, 1, 1, 1)]);
        assert_eq!(run("a\nc\n", "a\nb\nc\n"), vec![(1, 1, 0, 1)]);
        assert_eq!(run("a\nb\nc\n", "a\nc\n"), vec![(1, 1, 1, 0)]);
        assert_eq!(run("", "x\n"), vec![(0, 0, 0, 1)]);
    }

    #[test]
    fn insertion_of_a_repeated_line_goes_last() {
        // GNU reports "2a3" for a duplicated last line.
        assert_eq!(run("a\nb\n", "a\nb\nb\n"), vec![(2, 2, 0, 1)]);
        assert_eq!(run("x\n\ny\n", "x\n\ny\n\nz\n"), vec![(3, 3, 0, 2)]);
    }

    #[test]
    fn missing_newline_is_a_difference() {
        assert_eq!(run("a", "a\n"), vec![(0, 0, 1, 1)]);
    }

    #[test]
    fn discards_keep_shapes_valid() {
        // Many unmatched lines mixed with common ones: the script must still transform.
        let a: String = (0..200).map(|i| format!("{}\n", if i % 3 == 0 { "x".to_string() } else { i.to_string() })).collect();
        let b: String = (0..200).map(|i| format!("{}\n", if i % 5 == 0 { "x".to_string() } else { (i * 7).to_string() })).collect();
        let (ta, tb) = (Text::new(a.into_bytes(), false), Text::new(b.into_bytes(), false));
        let changes = diff(&ta, &tb, &settings(3));
        let (mut i0, mut i1) = (0, 0);
        for c in &changes {
            while i0 < c.line0 {
                assert_eq!(ta.line(i0), tb.line(i1));
                i0 += 1;
                i1 += 1;
            }
            assert_eq!(i1, c.line1);
            i0 += c.deleted;
            i1 += c.inserted;
        }
        assert_eq!(ta.len() - i0, tb.len() - i1);
    }
}
